"""Game events in words: one sentence per event, for the console's log and ``rummyhall replay``.

The words are the same wherever an event is told; what differs is how a seat and a card
are written, so both come in as functions: the console writes "you" for its own seat and
cards with suit symbols (``T♦``), a replay writes the players' names and the card notation
(``Td``). An event of a kind this client does not know is told by its ``str``.

    >>> from rummyhall.rules import Discarded, Knocked, parse_cards
    >>> names = ["ada", "bob"]
    >>> event_words(Discarded(0, parse_cards("Td")[0]), names.__getitem__)
    'ada discarded Td'
    >>> event_words(Knocked(1, "gin", None), names.__getitem__)
    'bob went gin'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rummyhall.rules import (
    Card,
    Discarded,
    Drew,
    Eliminated,
    Event,
    GameOver,
    HandDealt,
    HandScored,
    Knocked,
    LaidOff,
    Melded,
    Passed,
    Showdown,
    StockRebuilt,
    WentOut,
)
from rummyhall.rules.game import MAX_STOCK_EXHAUSTIONS

Who = Callable[[int], str]
CardWords = Callable[[int], str]

CALLS = {"knock": "knocked", "gin": "went gin", "big_gin": "went big gin", "rummy": "went rummy"}


_SEAT_IN_NOTE = re.compile(r"\bseat (\d+)\b")


def note_words(note: str, who: Who) -> str:
    """A scoring note of the rules engine ("seat 1 scores 25") with ``who``'s seat names.

    >>> note_words("seat 1 scores 25 for seat 0's deadwood", ["ada", "bob"].__getitem__)
    "bob scores 25 for ada's deadwood"
    """
    return _SEAT_IN_NOTE.sub(lambda m: who(int(m[1])), note)


def card_notation(card: int) -> str:
    """A card as the rules engine writes it: ``Td``, ``9c#1``, ``JK``."""
    return str(Card(card))


SUIT_SYMBOLS = "♣♦♥♠"


def card_symbols(card: int) -> str:
    """A card with its suit's symbol: ``T♦``, ``A♠``; ``JK`` for a joker."""
    c = Card(card)
    if c.is_joker:
        return "JK"
    return "?A23456789TJQK"[c.rank] + SUIT_SYMBOLS[c.suit]


def event_words(event: Event, who: Who, card: CardWords = card_notation, *,
                options: Mapping[str, object] | None = None) -> str:
    """``event`` as one sentence; ``who`` names a seat, ``card`` writes a card. With the
    table's ``options``, a rebuilt stock also says how, and when it was the last rebuild
    the hand allows, what the next run-out does (:func:`rebuilt_tail`)."""
    tell = _TELLERS.get(type(event))
    if tell is None:
        return str(event)  # a kind this client does not know
    said = tell(event, who, card)
    if isinstance(event, StockRebuilt) and options is not None:
        said += rebuilt_tail(event, options)
    return said


def rebuilt_tail(event: StockRebuilt, options: Mapping[str, object]) -> str:
    """How the stock was rebuilt (``stock_rebuild``) and, on the last rebuild a hand
    allows (docs/rules.md, "When the stock runs out"), what the next run-out does: Basic
    Rummy's ``stock_exhaustion_limit`` ends the hand, the engine's cap voids it. Chicago
    and Three Thirteen have no other end of the stock: this is what every seat is told.

    >>> from rummyhall.rules import StockRebuilt
    >>> rebuilt_tail(StockRebuilt(30, 0, 10), {"stock_rebuild": "turn_over"})
    ', turned over; the last time: if it runs out again, the hand is void (nobody scores)'
    """
    how = {"shuffle": ", shuffled", "turn_over": ", turned over"}.get(
        str(options.get("stock_rebuild")), "")
    limit = options.get("stock_exhaustion_limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit \
            and event.exhaustions >= limit - 1:
        return how + "; the last time: if it runs out again, the hand ends and is scored"
    if event.exhaustions >= MAX_STOCK_EXHAUSTIONS:
        return how + "; the last time: if it runs out again, the hand is void (nobody scores)"
    return how


def _cards(cards: Sequence[int], card: CardWords) -> str:
    return " ".join(card(c) for c in cards)


def _dealt(e: HandDealt, who: Who, card: CardWords) -> str:
    return f"hand {e.hand_no} dealt by {who(e.dealer)}; upcard {card(e.upcard)}"


def _drew(e: Drew, who: Who, card: CardWords) -> str:
    if e.source == "discard":
        return f"{who(e.seat)} took {card(e.card or 0)} from the pile"
    drawn = f" ({card(e.card)})" if e.card is not None else ""
    return f"{who(e.seat)} drew from the stock{drawn}"


def _passed(e: Passed, who: Who, card: CardWords) -> str:
    return f"{who(e.seat)} passed on the upcard"


def _discarded(e: Discarded, who: Who, card: CardWords) -> str:
    return f"{who(e.seat)} discarded {card(e.card)}"


def _melded(e: Melded, who: Who, card: CardWords) -> str:
    return f"{who(e.seat)} melded {_cards(e.cards, card)} (#{e.meld})"


def _laid_off(e: LaidOff, who: Who, card: CardWords) -> str:
    return f"{who(e.seat)} laid off {_cards(e.added, card)} on #{e.meld}"


def _rebuilt(e: StockRebuilt, who: Who, card: CardWords) -> str:
    return f"the stock ran out: the pile but its top card is the new stock ({e.stock_count} " \
           "cards)"


def _knocked(e: Knocked, who: Who, card: CardWords) -> str:
    discarding = f", discarding {card(e.card)}" if e.card is not None else ""
    return f"{who(e.seat)} {CALLS.get(e.call, e.call)}{discarding}"


def _went_out(e: WentOut, who: Who, card: CardWords) -> str:
    # (Three Thirteen, the one game that goes out this way: the others' last turns follow)
    return f"{who(e.seat)} went out, discarding {card(e.card)}: everyone else plays one " \
           "last turn"


def _showdown(e: Showdown, who: Who, card: CardWords) -> str:
    return "showdown: " + "; ".join(f"{who(r.seat)} {r.points}" for r in e.reveals)


def _scored(e: HandScored, who: Who, card: CardWords) -> str:
    points = ", ".join(f"{who(s)} {p:+d}" for s, p in enumerate(e.points) if p)
    return f"hand {e.hand_no}: {e.outcome}, " + (points or "no points")


def _eliminated(e: Eliminated, who: Who, card: CardWords) -> str:
    return "out of the game: " + ", ".join(who(s) for s in e.seats)


def _game_over(e: GameOver, who: Who, card: CardWords) -> str:
    return "game over: " + (", ".join(who(s) for s in e.winners) or "nobody") + " won"


_TELLERS: dict[type, Callable[[Any, Who, CardWords], str]] = {
    HandDealt: _dealt, Drew: _drew, Passed: _passed, Discarded: _discarded,
    Melded: _melded, LaidOff: _laid_off, StockRebuilt: _rebuilt, Knocked: _knocked,
    WentOut: _went_out, Showdown: _showdown, HandScored: _scored, Eliminated: _eliminated,
    GameOver: _game_over,
}
