"""Verifiable deals on the client side: a seat's contributions, and the checks of each
revealed shuffle against what the seat saw (docs/protocol.md, section 7).

:func:`verify_deal` checks one ``deal_revealed`` against the ``deal_commit`` that
announced it and the cards seen; :class:`DealTracker` is what the session keeps per
table: the contribution whose commitment the server holds, the announcements seen, the
seat's :class:`~rummyhall.rules.fair_deal.DealWatch`, and each verdict. No I/O here: the
session sends what :meth:`DealTracker.answer` returns.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from rummyhall.protocol import Contribute, DealCommit, DealRevealed
from rummyhall.rules import Card, Event
from rummyhall.rules.fair_deal import SECRET_BYTES, DealCheck, DealWatch
from rummyhall.rules.fair_deal import verify_deal as verify_values

MAX_ANNOUNCEMENTS = 64  # deal_commits remembered per table (a hand has a few shuffles)


def _bytes(text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def _per_seat(values: tuple[str | None, ...]) -> dict[int, bytes]:
    found = {seat: _bytes(v) for seat, v in enumerate(values) if v is not None}
    return {seat: v for seat, v in found.items() if v is not None}


def verify_deal(announced: DealCommit | None, revealed: DealRevealed, *,
                seen: Mapping[int, int] | None = None, mine: bytes | None = None,
                seat: int | None = None) -> DealCheck:
    """Check a revealed shuffle: its secret against the announced commitment, each
    contribution against the commitment announced for its seat, this seat's own
    contribution (``mine``) among them, and the cards ``seen`` (position in the order ->
    card) where the recomputed order puts them. ``announced`` None (never seen) fails.

    Returns a :class:`~rummyhall.rules.fair_deal.DealCheck`; it does not raise.
    """
    secret = _bytes(revealed.secret) or b""
    commitment_seen = None
    commitments: dict[int, bytes] = {}
    problems: list[str] = []
    if announced is not None:
        commitment_seen = _bytes(announced.commitment)
        commitments = _per_seat(announced.commitments)
        if announced.commitment != revealed.commitment:
            problems.append("the reveal names another commitment than the one announced")
    cards = tuple(Card.parse(c) for c in revealed.cards)
    check = verify_values(commitment_seen=commitment_seen, commitments_seen=commitments,
                          secret=secret, contributions=_per_seat(revealed.contributions),
                          cards=cards, seen=dict(seen or {}), mine=mine, seat=seat,
                          seeded=revealed.seeded or bool(announced and announced.seeded))
    if problems:
        return DealCheck(False, (*problems, *check.problems), check.withheld,
                         check.mine_used, check.checked, check.seeded)
    return check


@dataclass(frozen=True)
class DealVerdict:
    """The check of one shuffle of a hand: ``shuffle`` is deal or rebuild."""

    hand: int
    shuffle: str
    check: DealCheck

    @property
    def ok(self) -> bool:
        return self.check.ok

    def words(self) -> str:
        """One line for a person: the mark, or the loud warning."""
        what = "deal" if self.shuffle == "deal" else "stock rebuild"
        c = self.check
        if not c.ok:
            return f"WARNING: hand {self.hand}'s {what} FAILED its check: " + \
                "; ".join(c.problems)
        notes = []
        if c.seeded:
            notes.append("the server is seeded: not protected")
        if c.mine_used is None:
            notes.append("without a contribution of ours")
        if c.withheld:
            notes.append("seat " + ", ".join(map(str, c.withheld)) +
                         " committed and did not reveal")
        tail = f" ({'; '.join(notes)})" if notes else ""
        return f"hand {self.hand}: {what} verified, {c.checked} cards checked{tail}"


@dataclass
class DealTracker:
    """One table's verifiable deals, as this client takes part in them."""

    seat: int | None = None
    contribute: bool = True
    #: The contribution whose commitment we sent and the server has not used yet.
    mine: bytes | None = None
    announced: dict[str, DealCommit] = field(default_factory=dict)
    revealed_mine: dict[str, bytes] = field(default_factory=dict)  # commitment -> ours
    watch: DealWatch = field(default_factory=lambda: DealWatch(None))
    verdicts: list[DealVerdict] = field(default_factory=list)
    _previous: bytes | None = None  # ours before the last one we sent (see refused)
    _reveals_of_hand: tuple[int, int] = (0, 0)  # (hand, shuffles of it checked)

    def _fresh(self) -> str:
        self._previous, self.mine = self.mine, secrets.token_bytes(SECRET_BYTES)
        return hashlib.sha256(self.mine).hexdigest()

    def sat(self, table: int, seat: int | None) -> Contribute | None:
        """We have a seat (a snapshot): the first commitment to send, if any."""
        if seat != self.seat:
            self.seat, self.mine = seat, None
            self.watch = DealWatch(seat)
        else:
            self.watch.interrupt()  # (a snapshot: events may have been missed)
        if seat is None or not self.contribute or self.mine is not None:
            return None
        return Contribute(table=table, next=self._fresh())

    def answer(self, msg: DealCommit) -> Contribute | None:
        """A deal_commit: remember it; the contribute to send, if any."""
        if len(self.announced) >= MAX_ANNOUNCEMENTS:
            self.announced.pop(next(iter(self.announced)))
        self.announced[msg.commitment] = msg
        seat = self.seat
        if seat is None or not self.contribute or seat >= len(msg.commitments) or \
                not msg.window_ms:  # (a window of 0: the server takes no contribution)
            return None
        listed = msg.commitments[seat]
        if listed is None:  # not waited for: a commitment for a later shuffle (if the
            return Contribute(table=msg.table, next=self._fresh())  # server has none)
        reveal = None
        if self.mine is not None and hashlib.sha256(self.mine).hexdigest() == listed:
            reveal = self.mine.hex()  # (each contribution is revealed once, to one secret)
            self.revealed_mine[msg.commitment] = self.mine
        return Contribute(table=msg.table, commitment=msg.commitment, reveal=reveal,
                          next=self._fresh())

    def refused(self, code: str, table: int) -> Contribute | None:
        """Our contribute was refused (so it changed nothing): what to send instead."""
        if code == "contribution_twice":  # the server holds a commitment of ours already
            self.mine = self._previous
            return None
        self.mine = None
        if code == "contribution_late" and self.contribute and self.seat is not None:
            return Contribute(table=table, next=self._fresh())
        return None

    def event(self, event: Event, *, rebuild_shuffles: bool = True) -> None:
        """One event of the table as our seat sees it (``rebuild_shuffles``: the table's
        stock_rebuild option is not turn_over)."""
        self.watch.feed(event, shuffled=rebuild_shuffles)

    def revealed(self, msg: DealRevealed) -> DealVerdict:
        """Check a revealed shuffle; the verdict is kept in :attr:`verdicts` too."""
        hand, done = self._reveals_of_hand
        index = done if hand == msg.hand else 0
        self._reveals_of_hand = (msg.hand, index + 1)
        shuffles = self.watch.shuffles if self.watch.hand == msg.hand else []
        seen = shuffles[index] if index < len(shuffles) else {}
        check = verify_deal(self.announced.get(msg.commitment), msg, seen=seen,
                            mine=self.revealed_mine.pop(msg.commitment, None), seat=self.seat)
        verdict = DealVerdict(msg.hand, msg.shuffle, check)
        self.verdicts = [*self.verdicts[-(MAX_ANNOUNCEMENTS - 1):], verdict]
        return verdict
