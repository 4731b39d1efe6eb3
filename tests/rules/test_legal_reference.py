"""The fast legal-action lists equal a slow reference on random states of every game.

``Game.legal_actions`` lists melds, layoffs, knocks, going out and rummy without running
each candidate through ``verify`` (bounds, bounded searches, one meld check per small
hand). The reference here asks ``Game.can`` (the full verify path) about every action
of every kind the seat to move could name: each card discarded, knocked or gone out
with, each card laid off alone on each table meld, and in Basic Rummy every subset of
three cards or more of the hand as a meld. The two must hold the same actions, and the
fast list no action twice; every action but the melds in the same order too (draws, pass,
rummy, then layoffs by meld and card, discards, knocks and going out, each in hand order,
and Gin's big gin last), so a list a player or bot reads stays the one ``can`` gives.
States come from random games under random valid options, played by random and simple
bots (the simple bot knocks and goes out, so the states near the end of a hand are
visited too).
"""

from __future__ import annotations

import random
from itertools import combinations

from game_strategies import Setup, game_setups, short_game, single_card_actions
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage

from rummyhall.bots import RandomBot, SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    GoOut,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    SeatAction,
    seat_view,
)

MAX_MOVES = 3_000  # per example: enough for a few hands of every game
MELD_CHECKS = 12  # Basic Rummy states whose every subset is tried, per example


def action_key(action: SeatAction) -> tuple[object, ...]:
    """An action as comparable data; a meld by its set of cards (the list's reading order
    is the game's choice)."""
    if isinstance(action, Meld):
        return ("meld", action.seat, frozenset(action.cards))
    return (action.kind, repr(action))


def reference_actions(game: Game, seat: int, *, melds: bool) -> set[tuple[object, ...]]:
    """Every action of ``seat`` that ``Game.can`` accepts, by brute force."""
    hand = game.hands[seat]
    universe = single_card_actions(game, seat)
    if melds:
        for size in range(3, len(hand) + 1):
            universe += [Meld(seat, cards) for cards in combinations(sorted(hand), size)]
    return {action_key(a) for a in universe if game.can(a)}


def ordered_reference(game: Game, seat: int) -> list[tuple[object, ...]]:
    """Every action but the melds that ``Game.can`` accepts, in the legal list's order."""
    hand = game.hands[seat]
    universe: list[SeatAction] = [DrawStock(seat), DrawDiscard(seat), PassUpcard(seat),
                                  DeclareRummy(seat)]
    universe += [LayOff(seat, (card,), i) for i in range(len(game.melds)) for card in hand]
    for kind in (Discard, Knock, GoOut):
        universe += [kind(seat, card) for card in hand]
    universe.append(Knock(seat, None))
    return [action_key(a) for a in universe if game.can(a)]


def check_state(game: Game, seat: int, *, melds: bool) -> None:
    legal = game.legal_actions()
    keys = [action_key(a) for a in legal]
    assert len(set(keys)) == len(keys), "an action is listed twice"
    assert [k for k in keys if k[0] != "meld"] == ordered_reference(game, seat)
    if not melds:  # (the reference then leaves the melds out)
        keys = [k for k in keys if k[0] != "meld"]
    assert set(keys) == reference_actions(game, seat, melds=melds)


def walk(setup: Setup) -> None:
    game = short_game(setup)
    rng = random.Random(setup[3])
    bots = [SimpleBot() if s == 0 else RandomBot(random.Random(rng.random()))
            for s in range(game.players)]
    meld_checks = MELD_CHECKS if game.name == "basic" else 0
    for _ in range(MAX_MOVES):
        if game.is_over:
            return
        seat = game.to_move
        if seat is None:
            game.apply(shuffle_for(game, rng))
            continue
        # Every subset of a hand costs: Basic Rummy's melds in a few states after the draw.
        full = meld_checks > 0 and game.phase == "play" and rng.random() < 0.2
        meld_checks -= full
        check_state(game, seat, melds=full)
        game.apply(bots[seat].choose(seat_view(game, seat), game.legal_actions()))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=(Stage.explicit, Stage.reuse, Stage.generate))
@given(game_setups())
def test_legal_actions_equal_the_reference(setup: Setup) -> None:
    walk(setup)


def test_each_game_is_walked() -> None:
    # The strategy's games each get a fixed example too, with default options.
    for name, players in (("basic", 2), ("gin", 2), ("chicago", 4), ("three_thirteen", 3)):
        walk((name, {}, players, 11))
