"""What a restart reads back from the journal: players and tables as plain records.

The journal reads them from the data file (:meth:`~.journal.Journal.restore`) and the
lobby builds its tables from them (:func:`~.restoring.rebuild_table`): the journal never
needs the lobby, and these records need neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player of an earlier run: its token resumes it (only the digest is kept)."""

    id: int
    name: str
    kind: str
    token_digest: str
    owns_name: bool = True  # (False: its name is on loan; its owner may take it back)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat of a table: its player (an id), or a house bot (its strategy)."""

    player: int | None
    house: str | None
    left: bool


@dataclass(frozen=True, slots=True)
class LatestGame:
    """The latest game of a table (being played, or the one that ended last)."""

    number: int
    options: dict[str, Any]
    first_dealer: int
    first_seq: int  # the table's event number before this game's first event
    seating: list[dict[str, Any]]  # as the games table keeps it (for the ratings)
    actions: list[dict[str, Any]]  # the journal, in order


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table of an earlier run, as the journal last wrote it."""

    id: int
    game: str
    options: dict[str, Any]
    creator: int
    turn_seconds: int
    grace_seconds: int
    seeded: bool
    state: str  # waiting, playing, finished
    seats: tuple[SeatRecord, ...]
    latest: LatestGame | None
    lock: dict[str, Any] | None = None  # a private table's (access.TableCode.to_record)


@dataclass(frozen=True, slots=True)
class RestoredHall:
    """Everything a restart brings back."""

    players: tuple[PlayerRecord, ...]
    tables: tuple[TableRecord, ...]
