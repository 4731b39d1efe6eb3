"""How fast new connections may arrive, per address, and how many refusals are under way.

A client that reconnects in a loop (a bot whose error path only reconnects, with no
pause) would otherwise cost the server a connection's set-up, a TLS handshake and a
polite refusal on every turn of its loop, as fast as the network carries them: the
work of everyone else's actions. Two bounds, both pure (time comes in as an argument):

- :class:`ArrivalLimiter`: each address gets ``burst`` new connections at once, then
  ``rate`` a second on average (a :class:`~rummyhall.protocol.TokenBucket` each). A
  connection past it is refused at once (``too_many_connections``), and a refused one
  spends nothing, so a client that keeps knocking is admitted at exactly ``rate``. The
  limiter remembers the addresses seen last, at most ``capacity`` of them: one it forgot
  starts with a full bucket again.
- :class:`RefusalSlots`: a refusal is written and the connection lingers up to a
  second, so that the client reads the error rather than a reset; at most ``slots`` do
  at once. Past that, a refused connection is closed at once without a word: refused
  clients share the slots, and no client inside the limits is ever refused.
"""

from __future__ import annotations

from collections import OrderedDict

from rummyhall.protocol import TokenBucket
from rummyhall.protocol.limits import START_RESERVE, START_TOKENS

CAPACITY = 4096
"""Addresses an :class:`ArrivalLimiter` remembers at once (the least recently seen go)."""
REFUSAL_SLOTS = 256
"""Refusals written at once; past them a refused connection is closed without a word."""


class ArrivalLimiter:
    """New connections per address: ``burst`` at once, then ``rate`` a second.

    >>> limiter = ArrivalLimiter(rate=2, burst=3)
    >>> [limiter.admit("10.0.0.9", 0.0) for _ in range(4)]
    [True, True, True, False]
    >>> limiter.admit("10.0.0.8", 0.0)  # another address has its own bucket
    True
    >>> limiter.admit("10.0.0.9", 0.5)  # half a second brings one more
    True
    """

    def __init__(self, rate: float, burst: int, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        TokenBucket(rate, burst)  # (the same checks of rate and burst)
        self.rate, self.burst, self.capacity = rate, burst, capacity
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def admit(self, address: str, now: float) -> bool:
        """Whether a new connection from ``address`` at ``now`` may go on (it then spends
        one of the address's tokens; a refused one spends nothing)."""
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
            while len(self._buckets) > self.capacity:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket.take(now)


class StartingTokens:
    """The rate tokens each new connection of an address starts with.

    A connection's frames are bounded by its own bucket (``burst`` tokens, refilled at
    ``rate``); but a client that reconnects would get a full bucket each time, so that
    ``connect_rate`` connections a second, each spending its burst on the costliest
    frames, could cost the server far more than one connection at the rate. So the
    tokens an address's new connections start with come from an allowance of
    ``reserve`` full buckets, refilled at ``rate``: a connection takes a full bucket
    from it while it has one, else what is left, and never starts with fewer than
    ``floor`` (what a client's first requests need). Remembers ``capacity`` addresses
    (one it forgot starts with a full allowance).

    >>> start = StartingTokens(rate=100, burst=200, reserve=2, floor=10)
    >>> [start.grant("10.0.0.9", 0.0) for _ in range(4)]
    [200, 200, 10, 10]
    >>> start.grant("10.0.0.9", 0.5), start.grant("10.0.0.8", 0.5)
    (50, 200)
    """

    def __init__(self, rate: float, burst: int, *, reserve: int = START_RESERVE,
                 floor: int = START_TOKENS, capacity: int = CAPACITY) -> None:
        self.rate, self.burst, self.reserve, self.floor = rate, burst, reserve, floor
        self.capacity = capacity
        self._allowances: OrderedDict[str, TokenBucket] = OrderedDict()

    def grant(self, address: str, now: float) -> int:
        """The tokens a new connection from ``address`` at ``now`` starts with."""
        allowance = self._allowances.get(address)
        if allowance is None:
            allowance = self._allowances[address] = TokenBucket(
                self.rate, self.burst * self.reserve)
            while len(self._allowances) > self.capacity:
                self._allowances.popitem(last=False)
        else:
            self._allowances.move_to_end(address)
        granted = max(0, min(self.burst, int(allowance.tokens(now))))
        allowance.charge(granted)
        return max(min(self.floor, self.burst), granted)


class RefusalSlots:
    """At most ``slots`` refusals under way at once.

    >>> slots = RefusalSlots(1)
    >>> slots.take(), slots.take()
    (True, False)
    >>> slots.give_back(); slots.take()
    True
    """

    def __init__(self, slots: int = REFUSAL_SLOTS) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.slots = slots
        self.busy = 0

    def take(self) -> bool:
        """A slot for one refusal (give it back when it is done), or False: none free."""
        if self.busy >= self.slots:
            return False
        self.busy += 1
        return True

    def give_back(self) -> None:
        self.busy -= 1
