"""Verifiable shuffles: the deck order derived from a server secret and the seats'
contributions, and the checks a seat runs once the secret is revealed.

Theory of operation
-------------------
Before a shuffle the server commits to a fresh 32-byte *secret* ``s`` by publishing
``SHA-256(s)``; each seat that takes part reveals a 32-byte *contribution* ``r`` that it
committed to (``SHA-256(r)``) before any contribution of this shuffle was revealed. The
order is then a pure function of those values (docs/protocol.md, "Verifiable deals"):

1. ``key = HMAC-SHA256(s, b"rummyhall deal v1" || for each contributing seat, in
   increasing seat order: one byte seat number || its 32-byte contribution)``;
2. a byte stream: block ``j`` (``j = 0, 1, ...``) is ``HMAC-SHA256(key, j as 8 bytes
   big-endian)``, the blocks one after the other, read 4 bytes at a time as big-endian
   unsigned integers;
3. the cards in *canonical order* (ascending card code ``copy * 64 + suit * 16 + rank``,
   a joker's rank being 0: so every copy and joker has its place) are shuffled by
   Fisher-Yates: for ``i`` from ``n - 1`` down to 1, take integers from the stream until
   one, ``x``, is below ``2**32 - 2**32 % (i + 1)`` (no bias), then swap positions ``i``
   and ``x % (i + 1)``. The result is the :class:`~.actions.Shuffle` order: ``order[0]``
   is dealt first (for a rebuilt stock: drawn first).

Everything here is pure: the server (which draws the secret), the client library (which
checks a deal it played) and ``rummyhall replay`` (which checks a recorded game) share it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .cards import Card
from .events import Drew, Event, HandDealt, HandScored, StockRebuilt

SECRET_BYTES = 32  # the server's secret and every contribution are exactly this long
DOMAIN = b"rummyhall deal v1"
_LIMIT = 1 << 32


class BadDealValue(ValueError):
    """A secret, contribution or commitment that is not what the scheme takes."""


def commitment(value: bytes) -> bytes:
    """The commitment to a secret or a contribution: its SHA-256 (32 bytes)."""
    _check(value, "value")
    return hashlib.sha256(value).digest()


def _check(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != SECRET_BYTES:
        raise BadDealValue(f"a {what} is exactly {SECRET_BYTES} bytes")


def deal_key(secret: bytes, contributions: Mapping[int, bytes]) -> bytes:
    """The HMAC key of the shuffle's random stream (step 1 of the theory above)."""
    _check(secret, "secret")
    message = bytearray(DOMAIN)
    for seat in sorted(contributions):
        if not 0 <= seat <= 255:
            raise BadDealValue(f"seat {seat} is not 0..255")
        value = contributions[seat]
        _check(value, "contribution")
        message.append(seat)
        message += value
    return hmac.new(secret, bytes(message), hashlib.sha256).digest()


def _numbers(key: bytes) -> Iterator[int]:
    """The 32-bit integers of the random stream (step 2)."""
    block = 0
    while True:
        digest = hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k:k + 4], "big")
        block += 1


def canonical_order(cards: Iterable[int]) -> list[Card]:
    """The cards in ascending card code: the order the shuffle starts from."""
    return sorted(Card(c) for c in cards)


def deal_order(secret: bytes, contributions: Mapping[int, bytes],
               cards: Iterable[int]) -> tuple[Card, ...]:
    """The order of ``cards`` that ``secret`` and ``contributions`` (seat -> 32 bytes)
    give: ``order[0]`` is dealt (or drawn) first. Raises :class:`BadDealValue`."""
    order = canonical_order(cards)
    numbers = _numbers(deal_key(secret, contributions))
    for i in range(len(order) - 1, 0, -1):
        span = i + 1
        limit = _LIMIT - _LIMIT % span
        x = next(numbers)
        while x >= limit:
            x = next(numbers)
        j = x % span
        order[i], order[j] = order[j], order[i]
    return tuple(order)


# ------------------------------------------------------------------ what a seat checks


@dataclass(frozen=True)
class DealCheck:
    """The outcome of :func:`verify_deal`: ``ok`` when every check passed.

    ``problems`` says in words what failed; ``withheld`` lists the seats that committed
    to a contribution and did not reveal it (each such seat chose between two decks: the
    deal is still fair for an honest seat whose own contribution was used, but a seat
    that withholds is suspect); ``mine_used`` is whether this seat's own contribution is
    in the mix (None: it did not contribute); ``checked`` counts the cards compared.
    """

    ok: bool
    problems: tuple[str, ...] = ()
    withheld: tuple[int, ...] = ()
    mine_used: bool | None = None
    checked: int = 0
    seeded: bool = False


def verify_deal(*, commitment_seen: bytes | None, commitments_seen: Mapping[int, bytes],
                secret: bytes, contributions: Mapping[int, bytes], cards: Sequence[int],
                seen: Mapping[int, int], mine: bytes | None = None, seat: int | None = None,
                seeded: bool = False) -> DealCheck:
    """Check one revealed shuffle against what this client saw.

    ``commitment_seen`` is the server's commitment as announced before the shuffle (None:
    this client never saw it, which fails the check); ``commitments_seen`` the seats'
    commitments that announcement listed; ``secret`` and ``contributions`` what the
    server revealed; ``cards`` the cards shuffled; ``seen`` maps positions of the order
    to the card this client saw there; ``mine`` this seat's own contribution, if it sent
    one, and ``seat`` its number. Returns a :class:`DealCheck`; never raises on bad
    values from the server (they are problems).
    """
    problems: list[str] = []
    if commitment_seen is None:
        problems.append("the server's commitment was not seen before the deal")
    elif len(secret) != SECRET_BYTES or hashlib.sha256(secret).digest() != commitment_seen:
        problems.append("the revealed secret does not match the server's commitment")
    used: dict[int, bytes] = {}
    for s, value in contributions.items():
        listed = commitments_seen.get(s)
        if listed is None:
            problems.append(f"seat {s}'s contribution was never committed to")
        elif len(value) != SECRET_BYTES or hashlib.sha256(value).digest() != listed:
            problems.append(f"seat {s}'s contribution does not match its commitment")
        else:
            used[s] = value
    withheld = tuple(sorted(s for s in commitments_seen if s not in contributions))
    mine_used: bool | None = None
    if mine is not None:
        mine_used = seat is not None and contributions.get(seat) == mine
        if not mine_used:
            problems.append("this seat's own contribution was left out of the shuffle")
    checked = 0
    if not problems:
        try:
            order = deal_order(secret, used, cards)
        except BadDealValue as exc:
            problems.append(str(exc))
        else:
            for position, card in sorted(seen.items()):
                if position >= len(order) or order[position] != card:
                    problems.append(f"card {checked + 1} seen ({Card(card)}) is not where "
                                    "the revealed shuffle puts it")
                    break
                checked += 1
    return DealCheck(not problems, tuple(problems), withheld, mine_used, checked, seeded)


@dataclass
class DealWatch:
    """What one seat saw of a hand's shuffled cards, by position, fed its events in order.

    The deal gives this seat's cards (dealt one at a time round the table from the
    dealer's left) and the upcard; a draw from the stock took the position its
    ``stock_count`` says (the stock's size after the draw), counted from the start of the
    last shuffle's stock (a stock turned over unshuffled is not a shuffle: its draws are
    not tracked). ``shuffles[k]`` maps positions of the hand's ``k``-th shuffle (0: the
    deal) to the cards seen there. :meth:`interrupt` (events were missed: a snapshot
    came instead) stops the tracking until the next deal.
    """

    seat: int | None
    shuffles: list[dict[int, Card]] = field(default_factory=list)
    hand: int = 0  # the hand the shuffles are of (0: none seen)
    #: (position of the stock's first card in the last shuffle, the stock's size then);
    #: None: draws are not tracked
    _stock: tuple[int, int] | None = None

    def interrupt(self) -> None:
        """Some events were missed: track nothing more of this hand."""
        self._stock = None

    def feed(self, event: Event, *, shuffled: bool = True) -> None:
        """Take one event of the hand (``shuffled``: a stock_rebuilt was a shuffle)."""
        if isinstance(event, HandDealt):
            self.shuffles, self.hand = [{}], event.hand_no
            seen = self.shuffles[0]
            seats = {s for s, size in enumerate(event.hand_sizes) if size}
            n = len(event.hand_sizes)
            ring = [s for s in ((event.dealer + i) % n for i in range(1, n + 1)) if s in seats]
            size = max(event.hand_sizes, default=0)
            mine = event.hands[self.seat] if self.seat is not None else None
            if mine is not None and self.seat in ring:
                at = ring.index(self.seat)
                for k, card in enumerate(mine):
                    seen[k * len(ring) + at] = card
            seen[size * len(ring)] = event.upcard
            self._stock = (size * len(ring) + 1, event.stock_count)
        elif isinstance(event, StockRebuilt):
            if shuffled and self._stock is not None:
                self.shuffles.append({})
                self._stock = (0, event.stock_count)
            else:
                self._stock = None
        elif isinstance(event, Drew) and event.source == "stock" and self._stock is not None:
            base, size = self._stock
            if event.card is not None and self.shuffles:
                self.shuffles[-1][base + size - event.stock_count - 1] = event.card
        elif isinstance(event, HandScored):
            self._stock = None


def verify_recorded(*, commitment_made: bytes, commitments: Mapping[int, bytes],
                    secret: bytes, contributions: Mapping[int, bytes],
                    order: Sequence[int], seeded: bool = False) -> DealCheck:
    """Check a recorded shuffle (a journal's): the secret against its commitment, each
    contribution against its seat's, and the whole ``order`` recorded against the one
    the values give. Returns a :class:`DealCheck` (``checked``: the cards compared)."""
    return verify_deal(commitment_seen=commitment_made, commitments_seen=commitments,
                       secret=secret, contributions=contributions, cards=order,
                       seen=dict(enumerate(order)), seeded=seeded)
