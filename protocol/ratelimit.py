"""The rate limit of docs/protocol.md as a pure token bucket (time comes in as an argument).

    >>> bucket = TokenBucket(rate=2, burst=3)
    >>> [bucket.take(0.0) for _ in range(4)]
    [True, True, True, False]
    >>> bucket.take(0.5)  # half a second refills one frame
    True
"""

from __future__ import annotations


class TokenBucket:
    """``burst`` frames at once, refilled at ``rate`` frames per second.

    :meth:`take` answers whether a frame arriving at ``now`` (seconds, any monotonic
    clock) may be handled. ``refused_in_a_row`` counts the refusals since the last
    accepted frame: the spec closes the connection when it reaches ``burst``.
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

    def take(self, now: float) -> bool:
        """Spend one token if there is one; False (and count a refusal) otherwise."""
        if self._last is not None and now > self._last:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        if self._last is None or now > self._last:
            self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False

    @property
    def exhausted(self) -> bool:
        """True once ``burst`` frames in a row were refused: close with rate_limited."""
        return self.refused_in_a_row >= self.burst
