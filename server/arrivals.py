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
from rummyhall.protocol.limits import ADDRESS_SHARE

CAPACITY = 4096
"""Addresses an :class:`AddressBuckets` remembers at once (the least recently seen go)."""
REFUSAL_SLOTS = 256
"""Refusals written at once; past them a refused connection is closed without a word."""


class AddressBuckets:
    """A :class:`~rummyhall.protocol.TokenBucket` per address (``rate``, ``burst``), made
    at the address's first sight; remembers the ``capacity`` addresses seen last (one it
    forgot starts with a full bucket again). A caller may keep a bucket it was given.

    >>> buckets = AddressBuckets(rate=10, burst=20)
    >>> one, two = buckets.bucket("10.0.0.9"), buckets.bucket("10.0.0.9")
    >>> one is two, one.rate, one.burst, buckets.bucket("10.0.0.8") is one
    (True, 10, 20, False)
    """

    def __init__(self, rate: float, burst: int, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        TokenBucket(rate, burst)  # (the same checks of rate and burst)
        self.rate, self.burst, self.capacity = rate, burst, capacity
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def bucket(self, address: str) -> TokenBucket:
        """The bucket of ``address``."""
        found = self._buckets.get(address)
        if found is None:
            found = self._buckets[address] = TokenBucket(self.rate, self.burst)
            while len(self._buckets) > self.capacity:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return found


class ArrivalLimiter(AddressBuckets):
    """New connections per address: ``burst`` at once, then ``rate`` a second.

    >>> limiter = ArrivalLimiter(rate=2, burst=3)
    >>> [limiter.admit("10.0.0.9", 0.0) for _ in range(4)]
    [True, True, True, False]
    >>> limiter.admit("10.0.0.8", 0.0)  # another address has its own bucket
    True
    >>> limiter.admit("10.0.0.9", 0.5)  # half a second brings one more
    True
    """

    def admit(self, address: str, now: float) -> bool:
        """Whether a new connection from ``address`` at ``now`` may go on (it then spends
        one of the address's tokens; a refused one spends nothing)."""
        return self.bucket(address).take(now)


def address_rates(rate: float, burst: int) -> AddressBuckets:
    """The rate buckets the connections of one address share, on top of each one's own:
    :data:`~rummyhall.protocol.limits.ADDRESS_SHARE` times the rate and the burst of one
    connection (docs/protocol.md, section 8)."""
    return AddressBuckets(rate * ADDRESS_SHARE, burst * ADDRESS_SHARE)


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
