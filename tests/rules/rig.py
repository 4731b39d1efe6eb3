"""Test helpers: deal chosen cards, play scripted actions."""

from __future__ import annotations

import random
from collections.abc import Mapping

from rummyhall.rules import Card, Event, Game, Phase, Shuffle, parse_cards


def rigged_shuffle(game: Game, hands: Mapping[int, str], upcard: str, stock: str = "",
                   *, seed: int = 0) -> Shuffle:
    """The shuffle that deals ``hands`` (seat -> cards, the rest filled at random from what is
    left), turns ``upcard`` up, and puts ``stock`` on top of the stock (first card drawn first).

    Identical cards named several times get successive copies (``"5d 5d"``).
    """
    texts = [hands.get(s, "") for s in range(game.players)] + [upcard, stock]
    words = [w.split() for w in texts]
    parsed = iter(parse_cards([w for ws in words for w in ws]))
    chosen = [[next(parsed) for _ in ws] for ws in words]
    deck = list(game.shuffle_cards())
    for card in (c for group in chosen for c in group):
        deck.remove(card)
    random.Random(seed).shuffle(deck)
    size = game.hand_size()
    order: list[Card] = []
    seats = [s for s in ((game.dealer + i) % game.players for i in range(1, game.players + 1))
             if game.active[s]]
    full = {s: chosen[s] + [deck.pop() for _ in range(size - len(chosen[s]))] for s in seats}
    for i in range(size):
        order.extend(full[s][i] for s in seats)
    order.extend(chosen[-2])
    order.extend(chosen[-1])
    order.extend(deck)
    return Shuffle(tuple(order))


def deal(game: Game, hands: Mapping[int, str], upcard: str, stock: str = "") -> list[Event]:
    """Apply a rigged deal."""
    return game.apply(rigged_shuffle(game, hands, upcard, stock))


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def poke(game: Game, *, hands: Mapping[int, str], stock: str = "", discard: str = "",
         turn: int = 0, phase: str = "play") -> None:
    """Put a dealt game in a chosen position (for scoring scenarios).

    ``stock`` is listed top first; ``discard`` bottom to top. Cards not named are out of
    play, which is fine for the scenario it builds.
    """
    names = [hands.get(s, "") for s in range(game.players)] + [stock, discard]
    words = [w.split() for w in names]
    parsed = iter(parse_cards([w for ws in words for w in ws]))
    groups = [[next(parsed) for _ in ws] for ws in words]
    for s in range(game.players):
        if s in hands:
            game.hands[s] = groups[s]
    game.stock = list(reversed(groups[-2]))
    game.discard = groups[-1]
    game.turn = turn
    game.taken = None
    game.phase = Phase(phase)
