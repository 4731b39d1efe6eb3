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
"""

from __future__ import annotations

import math


class TokenBucket:
    """``burst`` tokens at once, refilled at ``rate`` tokens per second (a small frame
    costs one).

    :meth:`take` answers whether a frame arriving at ``now`` (seconds, any monotonic
    clock) may be handled, and spends what it costs. ``refused_in_a_row`` counts the
    tokens the frames refused since the last accepted one would have cost: the spec
    closes the connection when it reaches ``burst``.
    :meth:`charge` takes more for a frame that caused more work (a big reply); the bucket
    may then owe up to ``burst`` tokens, and :meth:`wait_ms` says how long until the next
    frame is welcome.
    """

    __slots__ = ("_last", "_tokens", "burst", "rate", "refused_in_a_row")

    def __init__(self, rate: float, burst: int) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last: float | None = None
        self.refused_in_a_row = 0

    def _refill(self, now: float) -> None:
        if self._last is not None and now > self._last:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        if self._last is None or now > self._last:
            self._last = now

    def take(self, now: float, tokens: int = 1) -> bool:
        """Spend ``tokens`` if there is at least one (the rest, if missing, is owed, up to
        ``burst``); False, and count the refusal as ``tokens``, when there is none."""
        self._refill(now)
        if self._tokens >= 1.0:
            self._tokens = max(-float(self.burst), self._tokens - tokens)
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += tokens
        return False

    def charge(self, tokens: int) -> None:
        """Spend ``tokens`` more for work already done (the debt is at most ``burst``)."""
        self._tokens = max(-float(self.burst), self._tokens - tokens)

    def wait_ms(self, now: float) -> int:
        """Milliseconds from ``now`` until a frame will be taken (0: now)."""
        self._refill(now)
        missing = 1.0 - self._tokens
        return 0 if missing <= 0 else max(1, math.ceil(missing / self.rate * 1000))

    @property
    def exhausted(self) -> bool:
        """True once the frames refused in a row would have cost ``burst`` tokens (``burst``
        small ones): close with rate_limited."""
        return self.refused_in_a_row >= self.burst
