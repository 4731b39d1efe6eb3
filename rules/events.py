"""Events: the frozen record of what an action did.

Events hold everything that happened, hidden parts included (the cards dealt to each
seat, the card drawn from the stock). What a given seat may see of an event is decided
in one place only, :func:`rummyhall.rules.views.event_view`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, get_args

from .cards import Card
from .frozen import direct_init


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A new hand (a 3-13 round) was dealt.

    ``hands`` is per seat (seats not dealt in get ``()``); in a seat's view every other
    seat's hand is ``None`` and only ``hand_sizes`` says how many cards it holds.
    """

    hand_no: int
    round: int
    dealer: int
    hands: tuple[tuple[Card, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    upcard: Card
    stock_count: int
    wild_rank: int
    knock_limits: tuple[int, ...]
    kind: ClassVar[str] = "deal"


@dataclass(frozen=True, slots=True)
class Drew:
    """A seat drew a card. From the stock, only the drawer sees ``card``; others see None."""

    seat: int
    source: str  # "stock" or "discard"
    card: Card | None
    stock_count: int
    kind: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class Passed:
    """Gin's first turn: a seat refused the upcard."""

    seat: int
    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Discarded:
    """A seat discarded a card face up."""

    seat: int
    card: Card
    kind: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Melded:
    """Basic Rummy: a seat laid a new meld on the table, numbered ``meld``."""

    seat: int
    meld: int
    cards: tuple[Card, ...]
    kind: ClassVar[str] = "meld"


@dataclass(frozen=True, slots=True)
class LaidOff:
    """Basic Rummy: a seat added cards to table meld ``meld``; ``cards`` is the whole meld now."""

    seat: int
    meld: int
    added: tuple[Card, ...]
    cards: tuple[Card, ...]
    kind: ClassVar[str] = "layoff"


@dataclass(frozen=True, slots=True)
class StockRebuilt:
    """The empty stock was rebuilt from the discard pile (all but its top card)."""

    stock_count: int
    discard_top: Card
    exhaustions: int
    kind: ClassVar[str] = "stock_rebuilt"


@dataclass(frozen=True, slots=True)
class Knocked:
    """A seat ended the hand: ``call`` is knock, gin, big_gin or rummy (Chicago)."""

    seat: int
    call: str
    card: Card | None
    kind: ClassVar[str] = "knock"


@dataclass(frozen=True, slots=True)
class WentOut:
    """Three Thirteen: a seat went out; each other seat now plays one last turn."""

    seat: int
    card: Card
    kind: ClassVar[str] = "go_out"


DRAW_SOURCES: dict[str, str] = {
    "stock": "the top card of the stock (only the drawer sees which)",
    "discard": "the top card of the discard pile (Gin's upcard included)",
}
"""The values of :attr:`Drew.source`, with their meaning."""

CALLS: dict[str, str] = {
    "knock": "Gin or Chicago: a knock with some deadwood within the knock limit",
    "gin": "Gin: every kept card melded after the discard",
    "big_gin": "Gin: all eleven cards melded, no discard (where big_gin_bonus is not 0)",
    "rummy": "Chicago: every card melded, at the start of the turn or after the discard",
}
"""The values of :attr:`Knocked.call`, with their meaning."""

OUTCOMES: dict[str, str] = {
    "out": "Basic Rummy: a player went out (melded, laid off or discarded his last card)",
    "rummy": "Basic Rummy: went out in one turn with nothing melded before (going rummy); "
             "Chicago: a rummy ended the hand",
    "exhausted": "Basic Rummy: the stock ran out stock_exhaustion_limit times; the lowest "
                 "count scores",
    "knock": "Gin: the knocker had less deadwood than the defender; Chicago: a knock ended "
             "the hand",
    "gin": "Gin: the knocker went gin",
    "big_gin": "Gin: the knocker went big gin",
    "undercut": "Gin: the defender had less deadwood than the knocker (or as much, with "
                "undercut_on_tie)",
    "tie": "Gin: equal deadwood with undercut_on_tie false: nobody scores",
    "dead": "Gin: the stock fell to dead_hand_stock_size without a knock: no score, the "
            "same dealer deals again",
    "void": "the stock ran out more than 10 times in one hand, or the hand went on after "
            "10,000 turns (the server's caps): no score, the same dealer deals again",
    "seven_twos": "Chicago: rummy with seven 2s, which wins the game at once",
    "round": "Three Thirteen: a round ended; each player adds his unmelded points",
    "bonus": "Three Thirteen under deuces_arent_wild: a tie-break round; totals do not change",
}
"""The values of :attr:`HandScored.outcome`, with their meaning."""

REVEAL_STATES: dict[str, str] = {
    "shown": "the seat's cards are shown, arranged",
    "hidden": "the hand ended without a showdown (a dead or void hand): no card is shown",
    "out": "the seat had no cards in this hand (eliminated, or not in a bonus round)",
}
"""The values of :attr:`Reveal.state`, with their meaning."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """One seat's cards at a showdown, arranged; every seat of the table has one."""

    seat: int
    melds: tuple[tuple[Card, ...], ...]
    layoffs: tuple[tuple[Card, int], ...]  # (card, index of the knocker's meld it joined)
    deadwood: tuple[Card, ...]
    points: int
    state: str = "shown"  # a key of REVEAL_STATES


@dataclass(frozen=True, slots=True)
class Showdown:
    """The end of a hand: the hands are shown, one :class:`Reveal` per seat in seat order."""

    reveals: tuple[Reveal, ...]
    kind: ClassVar[str] = "showdown"


@dataclass(frozen=True, slots=True)
class HandScored:
    """The hand's result. ``points`` is what each seat gained this hand, ``totals`` after it.

    ``outcome`` is one of: out, rummy, knock, gin, big_gin, undercut, tie, exhausted,
    dead, void, seven_twos, round, bonus (3-13). ``notes`` explain the score line by line.
    """

    hand_no: int
    outcome: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]
    notes: tuple[str, ...]
    kind: ClassVar[str] = "hand_scored"


@dataclass(frozen=True, slots=True)
class Eliminated:
    """Chicago: these seats passed the elimination score and are out of the game."""

    seats: tuple[int, ...]
    kind: ClassVar[str] = "eliminated"


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended. ``totals`` include end-of-game bonuses."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    notes: tuple[str, ...]
    kind: ClassVar[str] = "game_over"


Event = (HandDealt | Drew | Passed | Discarded | Melded | LaidOff | StockRebuilt | Knocked
         | WentOut | Showdown | HandScored | Eliminated | GameOver)

for _event in (Reveal, *get_args(Event)):  # built at every action: see rules/frozen.py
    direct_init(_event)
