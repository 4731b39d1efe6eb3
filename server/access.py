"""The hall's two doors: its password (the login) and private tables' codes.

Everything here is pure but for the random draws (nonces, salts, invite codes): the
proofs are checked by :mod:`rummyhall.protocol.proofs`, and time comes in as an argument,
so tests drive the limiter with any clock.

:class:`AttemptLimiter` makes guessing slow: each address has a few wrong guesses free,
then waits a delay that doubles with every further wrong one, up to a cap; a right
guess clears its record, and a quiet spell forgets it. Its memory is bounded: it keeps
the addresses seen last, at most ``capacity`` of them (an LRU map). An attempt that comes
before its address's delay is over is refused without being checked, and it does not
count: a client that waits as told is never punished further.

Its records may be kept per address and something else (a table code's, per address and
table), each key in a *group* (its address): a group holds at most ``per_group``
records. A group that has them all waits, before a guess at a key it has no record of,
until its oldest record is forgotten. Were a record only dropped as the least recently
seen, an address could drop its own record of a table, and its waits there, by guessing
at thousands of tables of its own.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass

from rummyhall.protocol import ProofError, Verifier, check_proof
from rummyhall.protocol.proofs import DEFAULT_ITERATIONS, KDF, LOGIN_LABEL, table_label

FREE_FAILURES = 3
"""Wrong guesses of an address that cost it nothing (typing errors); each further one
makes it wait before its next guess is checked."""
FIRST_DELAY = 1.0
"""Seconds of the first wait; each further wrong guess doubles it."""
MAX_DELAY = 60.0
"""The longest wait between two guesses of one address: at most about 1440 a day."""
FORGET_AFTER = 900.0
"""An address with no wrong guess for this long starts afresh."""
CAPACITY = 4096
"""Addresses a limiter remembers at once (the least recently seen go first)."""
CODES_PER_ADDRESS = 16
"""Private tables at which one address may have wrong codes on record at once."""
SALT_BYTES = 16
INVITE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: read aloud, typed
INVITE_GROUPS = 3
INVITE_GROUP_LEN = 4
INVITE_ITERATIONS = 10_000
"""PBKDF2's rounds for an invite code: it is random (59 bits), so a modest count keeps
offline guessing out of reach while a client's proof costs a few milliseconds."""


def new_nonce() -> str:
    """A welcome's nonce: 16 random bytes as lowercase hex."""
    return secrets.token_hex(16)


def new_salt() -> bytes:
    return secrets.token_bytes(SALT_BYTES)


def new_invite() -> str:
    """A fresh invite code, such as ``k7pq-3mzx-9vfd``: 12 characters of 31, 59 bits."""
    groups = ("".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_GROUP_LEN))
              for _ in range(INVITE_GROUPS))
    return "-".join(groups)


@dataclass(slots=True)
class _Record:
    failures: int
    last: float
    group: str | None = None


class AttemptLimiter:
    """Wrong guesses per address, and how long each address must wait before its next.

    >>> limiter = AttemptLimiter(free=0, first=1.0, cap=4.0)
    >>> limiter.wait("10.0.0.9", 0.0)
    0.0
    >>> limiter.failed("10.0.0.9", 0.0), limiter.failed("10.0.0.9", 1.0)
    (1.0, 2.0)
    >>> limiter.wait("10.0.0.9", 2.5), limiter.wait("10.0.0.8", 2.5)
    (0.5, 0.0)

    Keys in groups of at most two records (a group full: a new key waits for the oldest
    record to be forgotten, here 900 s after it was made):

    >>> codes = AttemptLimiter(per_group=2)
    >>> for table in ("1", "2"):
    ...     _ = codes.failed(f"10.0.0.9 {table}", 0.0, group="10.0.0.9")
    >>> codes.wait("10.0.0.9 3", 10.0, group="10.0.0.9"), codes.wait("10.0.0.8 3", 10.0,
    ...                                                              group="10.0.0.8")
    (890.0, 0.0)
    """

    def __init__(self, *, free: int = FREE_FAILURES, first: float = FIRST_DELAY,
                 cap: float = MAX_DELAY, forget_after: float = FORGET_AFTER,
                 capacity: int = CAPACITY, per_group: int | None = None) -> None:
        if capacity < 1 or free < 0 or first <= 0 or cap < first or (
                per_group is not None and per_group < 1):
            raise ValueError("capacity >= 1, free >= 0, 0 < first <= cap, per_group >= 1")
        self.free, self.first, self.cap = free, first, cap
        self.forget_after = forget_after
        self.capacity = capacity
        self.per_group = per_group
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._groups: dict[str, set[str]] = {}  # a group's keys on record

    def __len__(self) -> int:
        return len(self._records)

    def delay(self, failures: int) -> float:
        """The wait after ``failures`` wrong guesses in a row."""
        if failures <= self.free:
            return 0.0
        return min(self.cap, self.first * 2.0 ** min(failures - self.free - 1, 64))

    def _record(self, key: str, now: float) -> _Record | None:
        record = self._records.get(key)
        if record is not None and now - record.last >= self.forget_after:
            self._drop(key)
            return None
        return record

    def _drop(self, key: str) -> None:
        record = self._records.pop(key, None)
        if record is not None and record.group is not None:
            keys = self._groups[record.group]
            keys.discard(key)
            if not keys:
                del self._groups[record.group]

    def _group_wait(self, group: str | None, now: float) -> float:
        """Seconds until ``group`` may have one record more (0.0: it may now)."""
        if group is None or self.per_group is None:
            return 0.0
        for key in list(self._groups.get(group, ())):
            self._record(key, now)  # (forgets those past forget_after)
        keys = self._groups.get(group, ())
        if len(keys) < self.per_group:
            return 0.0
        return min(self._records[k].last for k in keys) + self.forget_after - now

    def wait(self, key: str, now: float, *, group: str | None = None) -> float:
        """Seconds until a guess from ``key`` (of ``group``) is checked (0.0: now)."""
        record = self._record(key, now)
        if record is None:
            return self._group_wait(group, now)
        return max(0.0, record.last + self.delay(record.failures) - now)

    def failed(self, key: str, now: float, *, group: str | None = None) -> float:
        """Count a wrong guess from ``key`` (of ``group``: one :meth:`wait` let through);
        the wait it must now keep."""
        record = self._record(key, now)
        if record is None:
            record = self._records[key] = _Record(0, now, group)
            if group is not None:
                self._groups.setdefault(group, set()).add(key)
            while len(self._records) > self.capacity:
                self._drop(next(iter(self._records)))
        else:
            self._records.move_to_end(key)
        record.failures += 1
        record.last = now
        return self.delay(record.failures)

    def failures(self, key: str) -> int:
        """The wrong guesses on record of ``key`` (0: none, or forgotten)."""
        record = self._records.get(key)
        return 0 if record is None else record.failures

    def succeeded(self, key: str) -> None:
        """A right guess from ``key``: its record goes."""
        self._drop(key)


# ------------------------------------------------------------------ the hall's password


class HallPassword:
    """The hall's password as the server keeps it: a :class:`Verifier`.

    The setting holds either the password itself (its verifier is made at start with a
    fresh salt: clients that kept a derived key must derive it again after a restart) or
    a verifier's text (``rummyhall hall-key`` prints one), which keeps its salt.
    """

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier

    @classmethod
    def from_setting(cls, text: str) -> HallPassword | None:
        """The password of a ``password`` setting (None: empty, no password); raises
        :class:`~rummyhall.protocol.ProofError` for a verifier text that is malformed."""
        if not text:
            return None
        if text.startswith(KDF + "$"):
            return cls(Verifier.parse(text))
        return cls(Verifier.of(text, new_salt(), DEFAULT_ITERATIONS))

    def check(self, proof: str, nonce: str) -> bool:
        """True if ``proof`` proves the password on the connection of ``nonce``."""
        return check_proof(self.verifier.stored_key, proof, LOGIN_LABEL, nonce)


# ------------------------------------------------------------------ private tables


@dataclass(frozen=True, slots=True)
class TableCode:
    """A private table's lock: the verifier of its code, and what needs the code."""

    verifier: Verifier
    invite: bool
    watch_code: bool

    def check(self, table: int, proof: str, nonce: str) -> bool:
        """True if ``proof`` proves this table's code on the connection of ``nonce``."""
        return check_proof(self.verifier.stored_key, proof, table_label(table), nonce)

    def to_record(self) -> dict[str, object]:
        """What the journal keeps (the verifier: never the code)."""
        return {"verifier": self.verifier.text(), "invite": self.invite,
                "watch_code": self.watch_code}

    @classmethod
    def from_record(cls, record: dict[str, object]) -> TableCode:
        """The lock the journal kept; raises ProofError or KeyError if damaged."""
        return cls(Verifier.parse(str(record["verifier"])), bool(record["invite"]),
                   bool(record["watch_code"]))


def table_code(salt_hex: str, iterations: int, stored_key_hex: str,
               watch_code: bool) -> TableCode:
    """The lock of a table whose creator set a password (its verifier, as sent)."""
    try:
        verifier = Verifier(bytes.fromhex(salt_hex), iterations, bytes.fromhex(stored_key_hex))
    except ValueError as exc:  # (the schema let only whole hex bytes through)
        raise ProofError(str(exc)) from None
    Verifier.parse(verifier.text())  # the same bounds as any verifier
    return TableCode(verifier, invite=False, watch_code=watch_code)


def invite_code(watch_code: bool) -> tuple[str, TableCode]:
    """A fresh invite code and the lock that checks it (the server forgets the code)."""
    code = new_invite()
    verifier = Verifier.of(code, new_salt(), INVITE_ITERATIONS)
    return code, TableCode(verifier, invite=True, watch_code=watch_code)
