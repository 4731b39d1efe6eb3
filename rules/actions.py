"""Actions: what a seat (or chance, for shuffles) asks the game to do.

Every action is a frozen value that prints readably and has a wire ``kind`` name.
Whether it is legal is for :class:`~rummyhall.rules.game.Game` to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, get_args

from .cards import Card, format_cards
from .frozen import direct_init


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Chance: the order of the cards to deal or of the rebuilt stock (``order[0]`` comes first)."""

    order: tuple[Card, ...]
    kind: ClassVar[str] = "shuffle"
    seat: ClassVar[None] = None

    def __str__(self) -> str:
        return f"shuffle({len(self.order)} cards)"


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Take the top card of the stock."""

    seat: int
    kind: ClassVar[str] = "draw_stock"

    def __str__(self) -> str:
        return f"seat {self.seat}: draw from stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top card of the discard pile (in Gin's first turn: take the upcard)."""

    seat: int
    kind: ClassVar[str] = "draw_discard"

    def __str__(self) -> str:
        return f"seat {self.seat}: take the discard"


@dataclass(frozen=True, slots=True)
class PassUpcard:
    """Gin's first turn: refuse the upcard."""

    seat: int
    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return f"seat {self.seat}: pass"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card face up and end the turn."""

    seat: int
    card: Card
    kind: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return f"seat {self.seat}: discard {self.card}"


@dataclass(frozen=True, slots=True)
class Meld:
    """Basic Rummy: lay a new meld face up on the table."""

    seat: int
    cards: tuple[Card, ...]
    kind: ClassVar[str] = "meld"

    def __str__(self) -> str:
        return f"seat {self.seat}: meld {format_cards(self.cards)}"


@dataclass(frozen=True, slots=True)
class LayOff:
    """Basic Rummy: add cards to the table meld numbered ``meld``."""

    seat: int
    cards: tuple[Card, ...]
    meld: int
    kind: ClassVar[str] = "layoff"

    def __str__(self) -> str:
        return f"seat {self.seat}: lay off {format_cards(self.cards)} on meld {self.meld}"


@dataclass(frozen=True, slots=True)
class Knock:
    """Gin and Chicago: discard ``card`` and end the hand (knock, gin or rummy).

    In Gin, ``card=None`` is big gin (all eleven cards melded, where the table allows it),
    and ``melds`` may name the knocker's own arrangement: the melds he lays down, the
    rest of his kept cards being his deadwood (None: the server lays the best one).
    """

    seat: int
    card: Card | None
    melds: tuple[tuple[Card, ...], ...] | None = None
    kind: ClassVar[str] = "knock"

    def __str__(self) -> str:
        what = "big gin" if self.card is None else f"knock, discarding {self.card}"
        if self.melds is not None:
            what += ", laying " + (" | ".join(format_cards(m) for m in self.melds) or "no meld")
        return f"seat {self.seat}: {what}"


@dataclass(frozen=True, slots=True)
class GoOut:
    """Three Thirteen: discard ``card`` with every kept card melded; the others play once more."""

    seat: int
    card: Card
    kind: ClassVar[str] = "go_out"

    def __str__(self) -> str:
        return f"seat {self.seat}: go out, discarding {self.card}"


@dataclass(frozen=True, slots=True)
class DeclareRummy:
    """Chicago: at the start of the turn, show seven melded cards and end the hand."""

    seat: int
    kind: ClassVar[str] = "declare_rummy"

    def __str__(self) -> str:
        return f"seat {self.seat}: declare rummy"


SeatAction = (DrawStock | DrawDiscard | PassUpcard | Discard | Meld | LayOff | Knock | GoOut
              | DeclareRummy)
Action = Shuffle | SeatAction

for _action in get_args(Action):  # legal-action lists build them: see rules/frozen.py
    direct_init(_action)

ACTION_KINDS: dict[str, type[SeatAction]] = {
    cls.kind: cls for cls in (DrawStock, DrawDiscard, PassUpcard, Discard, Meld, LayOff, Knock,
                              GoOut, DeclareRummy)
}
