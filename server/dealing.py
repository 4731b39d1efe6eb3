"""A table's verifiable shuffles: the round that gathers contributions, and its proof.

Theory of operation (docs/protocol.md, section 7, "Verifiable deals")
-------------------------------------------------------------------
Ahead of each shuffle (a deal, or a rebuild of the stock that shuffles) the table opens a
:class:`Round`: a fresh secret, its commitment, and the seats' commitments made for this
shuffle (each seat sends the commitment to its next contribution along with the reveal
of the current one, or alone once it sits). A round opens as soon as the shuffle before
it is made, so its contributions arrive during the hand; the shuffle waits for the seats
whose commitment it lists only if they have not answered and its window is not over.
The order is
:func:`~rummyhall.rules.fair_deal.deal_order` of the secret and the contributions that
came. Its :class:`DealProof` is journalled with the shuffle (so a restart changes no
card, and a recorded game can be checked later) and published when the hand ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rummyhall.protocol import DealCommit, DealRevealed
from rummyhall.rules import Card
from rummyhall.rules.fair_deal import commitment


def _hex_map(values: Mapping[int, bytes]) -> dict[str, str]:
    return {str(seat): value.hex() for seat, value in sorted(values.items())}


def _bytes_map(values: Mapping[str, str]) -> dict[int, bytes]:
    return {int(seat): bytes.fromhex(value) for seat, value in values.items()}


def _per_seat(values: Mapping[int, bytes], seats: int) -> tuple[str | None, ...]:
    return tuple(values[s].hex() if s in values else None for s in range(seats))


@dataclass
class DealProof:
    """What a shuffle was made from: enough to recompute and check it."""

    hand: int
    kind: str  # "deal" or "rebuild"
    secret: bytes
    seeded: bool
    commitments: dict[int, bytes]  # seat -> the commitment listed in the deal_commit
    reveals: dict[int, bytes]  # seat -> the contribution mixed in
    cards: tuple[Card, ...]  # the cards shuffled, in canonical order

    @property
    def commitment(self) -> bytes:
        return commitment(self.secret)

    def to_json(self) -> dict[str, Any]:
        """The proof as the journal keeps it (with its shuffle)."""
        return {"hand": self.hand, "shuffle": self.kind, "secret": self.secret.hex(),
                "commitment": self.commitment.hex(), "seeded": self.seeded,
                "commitments": _hex_map(self.commitments), "reveals": _hex_map(self.reveals)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any], cards: tuple[Card, ...]) -> DealProof:
        """The proof of a journalled shuffle (``cards``: its order, in any order)."""
        return cls(int(d["hand"]), str(d["shuffle"]), bytes.fromhex(d["secret"]),
                   bool(d["seeded"]), _bytes_map(d["commitments"]), _bytes_map(d["reveals"]),
                   tuple(sorted(cards)))

    def revealed(self, table: int, seats: int) -> DealRevealed:
        return DealRevealed(table=table, hand=self.hand, shuffle=self.kind,
                            commitment=self.commitment.hex(), secret=self.secret.hex(),
                            contributions=_per_seat(self.reveals, seats),
                            cards=tuple(str(c) for c in self.cards), seeded=self.seeded)


@dataclass
class Round:
    """A shuffle being prepared: it waits for the listed seats' contributions until ``due``."""

    proof: DealProof
    due: float
    waiting: frozenset[int]  # the seats whose commitment is listed
    answered: set[int] = field(default_factory=set)

    @property
    def commitment_hex(self) -> str:
        return self.proof.commitment.hex()

    def complete(self, now: float, gone: frozenset[int] = frozenset()) -> bool:
        """Every listed seat answered (or is ``gone``: it left, or a bot plays it now),
        or the window is over."""
        return now >= self.due or self.waiting <= self.answered | gone

    def announcement(self, table: int, seats: int, window_ms: int) -> DealCommit:
        p = self.proof
        return DealCommit(table=table, commitment=self.commitment_hex, seeded=p.seeded,
                          commitments=_per_seat(p.commitments, seats), window_ms=window_ms)

    def check_reveal(self, seat: int, value: bytes) -> str | None:
        """Why ``value`` is not seat's contribution to this round (None: it is)."""
        listed = self.proof.commitments.get(seat)
        if listed is None:
            return (f"this deal_commit waits for no contribution from seat {seat} (it lists "
                    "no commitment of yours): send only next")
        if hashlib.sha256(value).digest() != listed:
            return "its SHA-256 is not the commitment this seat made to it"
        return None
