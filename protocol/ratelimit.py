"""The rate limit of docs/protocol.md as a pure token bucket (time comes in as an argument).

    >>> bucket = TokenBucket(rate=2, burst=3)
    >>> [bucket.take(0.0) for _ in range(4)]
    [True, True, True, False]
    >>> bucket.take(0.5)  # half a second refills one frame
    True
    >>> bucket.charge(2)  # a big reply costs two more
    >>> bucket.take(1.0), bucket.wait_ms(1.0)
    (False, 1000)
    >>> bucket.take(3.0, tokens=3), bucket.take(3.0)  # a big frame takes three at once
    (True, False)
    >>> bucket.take(4.0, tokens=3), bucket.wait_ms(4.0, tokens=3)  # two there, three needed
    (False, 500)
"""

from __future__ import annotations

import math

from .limits import FRAME_BYTES_PER_TOKEN


def frame_cost(body_size: int) -> int:
    """The rate tokens a frame of ``body_size`` bytes of body costs (docs/protocol.md,
    section 8): one, and one more per whole 256 bytes.

    >>> frame_cost(0), frame_cost(255), frame_cost(256), frame_cost(65_536)
    (1, 1, 2, 257)
    """
    return 1 + body_size // FRAME_BYTES_PER_TOKEN


class TokenBucket:
    """``burst`` tokens at once, refilled at ``rate`` tokens per second (a small frame
    costs one); it starts full, or with ``tokens``.

    :meth:`take` answers whether a frame arriving at ``now`` (seconds, any monotonic
    clock) may be handled, and spends what it costs. Refusals have an allowance of their
    own, ``burst`` tokens refilled at ``rate``: each refused frame spends what it would
    have cost, and the spec closes the connection once it is spent (:attr:`exhausted`),
    so a client that sends far past the rate is closed however its frames are spread.
    :meth:`charge` takes more for a frame that caused more work (a big reply); the bucket
    may then owe up to ``burst`` tokens, and :meth:`wait_ms` says how long until the next
    frame is welcome.
    """

    __slots__ = ("_last", "_spare", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, tokens: float | None = None) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst) if tokens is None else min(float(burst), tokens)
        self._last: float | None = None
        self._spare = float(burst)  # the refusals' allowance

    def _refill(self, now: float) -> None:
        if self._last is not None and now > self._last:
            grown = (now - self._last) * self.rate
            self._tokens = min(float(self.burst), self._tokens + grown)
            self._spare = min(float(self.burst), self._spare + grown)
        if self._last is None or now > self._last:
            self._last = now

    def affords(self, now: float, tokens: int = 1) -> bool:
        """Whether ``tokens`` (or, past ``burst``, a full bucket) are there at ``now``."""
        self._refill(now)
        return self._tokens >= min(tokens, self.burst)

    def take(self, now: float, tokens: int = 1) -> bool:
        """Spend ``tokens`` if the bucket :meth:`affords` them; False, and count the
        refusal as ``tokens``, when it does not."""
        if self.affords(now, tokens):
            self._tokens -= tokens
            return True
        self.refuse(tokens)
        return False

    def refuse(self, tokens: int = 1) -> None:
        """Count a frame of ``tokens`` refused (the bucket did not afford it) against the
        refusals' allowance (refilled by :meth:`affords` and the other calls that look
        at the clock)."""
        self._spare -= tokens

    def charge(self, tokens: int) -> None:
        """Spend ``tokens`` more for work already done (the debt is at most ``burst``)."""
        self._tokens = max(-float(self.burst), self._tokens - tokens)

    def wait_ms(self, now: float, tokens: int = 1) -> int:
        """Milliseconds from ``now`` until a frame of ``tokens`` will be taken (0: now)."""
        self._refill(now)
        missing = min(tokens, self.burst) - self._tokens
        return 0 if missing <= 0 else max(1, math.ceil(missing / self.rate * 1000))

    @property
    def exhausted(self) -> bool:
        """True once the refusals' allowance is spent: refused frames worth ``burst``
        tokens (``burst`` small ones) more than ``rate`` a second bring back. Close with
        rate_limited."""
        return self._spare <= 0
