"""What a seat may see: the one place where hidden information is filtered.

:func:`seat_view` is a seat's snapshot of a game (its own hand, the others' card counts,
the discard pile, the table, the scores; never another hand nor the stock's order), and
:func:`event_for` is what a seat may see of one event. A spectator (``seat=None``) sees
no hand at all until the showdown. Every message the server sends about a game is built
from these two functions.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass

from .cards import Card, sort_key
from .events import Drew, Event, HandDealt, HandScored, Showdown
from .game import Game, Phase
from .melds import MeldRules
from .options import options_to_dict
from .variants import meld_rules_for


@dataclass(frozen=True, slots=True)
class SeatView:
    """A seat's (or a spectator's) snapshot of a game."""

    game: str
    options: Mapping[str, bool | int | str]
    players: int
    seat: int | None
    phase: str
    hand_no: int
    round: int
    wild_rank: int
    dealer: int
    hand_ended: bool
    to_move: int | None
    move_number: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    discard_pile: tuple[Card, ...]  # bottom to top
    stock_count: int
    melds: tuple[tuple[int, tuple[Card, ...]], ...]  # (owner seat, cards) in table order
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    knock_limits: tuple[int, ...]
    taken: Card | None
    out_seat: int | None
    last_showdown: Showdown | None
    results: tuple[HandScored, ...]
    winners: tuple[int, ...]


def seat_view(game: Game, seat: int | None) -> SeatView:
    """The snapshot of ``game`` that ``seat`` may see (``None``: a spectator's).

    The last showdown is public once it happens, until the next deal. Between two
    hands (``hand_ended``) every field describes the hand that ended, its dealer and
    round included; the next hand's come with its deal.
    """
    hand = tuple(sorted(game.hands[seat], key=sort_key)) if seat is not None else ()
    # Between two hands (and once the game is over) the view shows the hand that ended.
    ended = game.hand_no > 0 and game.phase in (Phase.DEAL, Phase.GAME_OVER)
    return SeatView(
        game=game.name,
        options=options_to_dict(game.options),
        players=game.players,
        seat=seat,
        phase=str(game.phase),
        hand_no=game.hand_no,
        round=game.hand_round if ended else game.round_number(),
        wild_rank=game.meld_rules.wild_rank,
        dealer=game.hand_dealer if ended else game.dealer,
        hand_ended=ended,
        to_move=game.to_move,
        move_number=game.move_number,
        hand=hand,
        hand_sizes=tuple(len(h) for h in game.hands),
        discard_pile=tuple(game.discard),
        stock_count=len(game.stock),
        melds=tuple((m.owner, m.cards) for m in game.melds),
        scores=tuple(game.scores),
        active=tuple(game.active),
        knock_limits=tuple(game.knock_limits),
        taken=game.taken,
        out_seat=getattr(game, "out_seat", None),
        last_showdown=game.last_showdown,
        results=tuple(game.results),
        winners=game.winners,
    )


@functools.lru_cache(maxsize=128)
def _meld_rules(game: str, options: tuple[tuple[str, bool | int | str], ...],
                round: int) -> MeldRules:
    return meld_rules_for(game, dict(options), round=round)


def view_meld_rules(view: SeatView) -> MeldRules:
    """The card rules of the hand ``view`` shows (Three Thirteen's change every round).

    Cached: a bot or a client asks for them at every decision.
    """
    return _meld_rules(view.game, tuple(sorted(view.options.items())), max(view.round, 1))


def event_for(event: Event, seat: int | None) -> Event:
    """What ``seat`` (``None``: a spectator) may see of ``event``."""
    if isinstance(event, HandDealt):
        hands = tuple(h if s == seat else None for s, h in enumerate(event.hands))
        return dataclasses.replace(event, hands=hands)
    if isinstance(event, Drew) and event.source == "stock" and event.seat != seat:
        return dataclasses.replace(event, card=None)
    return event


def visible_cards(obj: object) -> set[int]:
    """Every card that appears anywhere in a view or an event (for hidden-information tests)."""
    found: set[int] = set()

    def walk(value: object) -> None:
        if isinstance(value, Card):
            found.add(int(value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))
        elif isinstance(value, (tuple, list)):
            for item in value:
                walk(item)
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item)

    walk(obj)
    return found
