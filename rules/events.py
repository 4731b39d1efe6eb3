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


@dataclass(frozen=True, slots=True)
class Reveal:
    """One seat's cards at a showdown, arranged."""

    seat: int
    melds: tuple[tuple[Card, ...], ...]
    layoffs: tuple[tuple[Card, int], ...]  # (card, index of the knocker's meld it joined)
    deadwood: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class Showdown:
    """The end of a hand: the hands are shown."""

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
