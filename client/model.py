"""The client's model of a table: a seat's view kept up to date from the server's events.

Pure functions: :func:`apply_event` turns a :class:`~rummyhall.rules.SeatView` and one
event (as the seat received it) into the next view, and :func:`apply_turn` records who
must move. A client starts from a snapshot's view and applies each numbered event, so it
never needs more than the protocol sends; a test checks that the model always equals the
server's own view of the seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
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
    SeatView,
    Showdown,
    StockRebuilt,
    WentOut,
    sort_key,
)


def _bump(sizes: tuple[int, ...], seat: int, delta: int) -> tuple[int, ...]:
    return tuple(n + delta if s == seat else n for s, n in enumerate(sizes))


def _without(hand: Sequence[Card], cards: Sequence[Card]) -> tuple[Card, ...]:
    gone = set(cards)
    return tuple(c for c in hand if c not in gone)


def _play(view: SeatView, seat: int, cards: Sequence[Card], **changes: Any) -> SeatView:
    """``seat`` put ``cards`` from its hand somewhere (the hand shrinks)."""
    hand = _without(view.hand, cards) if seat == view.seat else view.hand
    return dataclasses.replace(view, hand=hand,
                               hand_sizes=_bump(view.hand_sizes, seat, -len(cards)), **changes)


def _deal(view: SeatView, e: HandDealt) -> SeatView:
    own = e.hands[view.seat] if view.seat is not None else None
    return dataclasses.replace(
        view, hand_no=e.hand_no, round=e.round, dealer=e.dealer,
        hand=tuple(sorted(own or (), key=sort_key)), hand_sizes=e.hand_sizes,
        discard_pile=(e.upcard,), stock_count=e.stock_count, wild_rank=e.wild_rank,
        knock_limits=e.knock_limits, melds=(), taken=None, out_seat=None, last_showdown=None,
        phase="upcard" if view.game == "gin" else "draw", hand_ended=False)


def _draw(view: SeatView, e: Drew) -> SeatView:
    hand = view.hand
    if e.seat == view.seat and e.card is not None:
        hand = tuple(sorted((*hand, e.card), key=sort_key))
    pile = view.discard_pile[:-1] if e.source == "discard" else view.discard_pile
    return dataclasses.replace(view, hand=hand, hand_sizes=_bump(view.hand_sizes, e.seat, 1),
                               discard_pile=pile, stock_count=e.stock_count, phase="play",
                               taken=e.card if e.source == "discard" else None)


def _discard(view: SeatView, e: Discarded) -> SeatView:
    return _play(view, e.seat, (e.card,), discard_pile=(*view.discard_pile, e.card),
                 taken=None, phase="draw")


def _pass(view: SeatView, e: Passed) -> SeatView:
    # the non-dealer passes first; the dealer's pass is the second: the stock must be drawn
    return dataclasses.replace(view, phase="draw" if e.seat == view.dealer else "upcard")


def _meld(view: SeatView, e: Melded) -> SeatView:
    return _play(view, e.seat, e.cards, melds=(*view.melds, (e.seat, e.cards)))


def _layoff(view: SeatView, e: LaidOff) -> SeatView:
    melds = list(view.melds)
    melds[e.meld] = (melds[e.meld][0], e.cards)
    return _play(view, e.seat, e.added, melds=tuple(melds))


def _rebuilt(view: SeatView, e: StockRebuilt) -> SeatView:
    return dataclasses.replace(view, discard_pile=(e.discard_top,), stock_count=e.stock_count)


def _knock(view: SeatView, e: Knocked) -> SeatView:
    if e.card is None:
        return view
    return _play(view, e.seat, (e.card,), discard_pile=(*view.discard_pile, e.card))


def _out(view: SeatView, e: WentOut) -> SeatView:
    return dataclasses.replace(view, out_seat=e.seat)


def _showdown(view: SeatView, e: Showdown) -> SeatView:
    return dataclasses.replace(view, last_showdown=e)


def _scored(view: SeatView, e: HandScored) -> SeatView:
    results = view.results if e.outcome in ("void", "dead") else (*view.results, e)
    return dataclasses.replace(view, scores=e.totals, results=results, phase="deal",
                               to_move=None, taken=None, hand_ended=True)


def _eliminated(view: SeatView, e: Eliminated) -> SeatView:
    active = tuple(a and s not in e.seats for s, a in enumerate(view.active))
    return dataclasses.replace(view, active=active)


def _over(view: SeatView, e: GameOver) -> SeatView:
    return dataclasses.replace(view, winners=e.winners, scores=e.totals, phase="game_over",
                               to_move=None)


_APPLY: dict[type, Callable[[SeatView, Any], SeatView]] = {
    HandDealt: _deal, Drew: _draw, Discarded: _discard, Passed: _pass, Melded: _meld,
    LaidOff: _layoff, StockRebuilt: _rebuilt, Knocked: _knock, WentOut: _out, Showdown: _showdown,
    HandScored: _scored, Eliminated: _eliminated, GameOver: _over,
}


def apply_event(view: SeatView, event: Event) -> SeatView:
    """The view after ``event`` (as this seat received it). Unknown kinds change nothing."""
    step = _APPLY.get(type(event))
    return step(view, event) if step is not None else view


def apply_turn(view: SeatView, seat: int, move: int) -> SeatView:
    """The view once the server says ``seat`` must decide at ``move``."""
    return dataclasses.replace(view, to_move=seat, move_number=move)
