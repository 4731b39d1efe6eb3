"""What reading a client's bytes costs, besides its frames.

The rate limit charges each frame by its size (docs/protocol.md, section 8), but each
read of the socket costs the server a call too: a client that sends a frame a byte a
segment would make the server read thousands of times for the one token of its frame.
A :class:`ReadMeter` counts the reads since the client's last whole frame, every read
of the socket, the session's own or TLS's under it (one decrypted chunk may take many).
A frame gets :data:`FREE_READS` of them, and one more per :data:`SHORT_READ` bytes it
announces, whatever their size: a client that writes a frame's length and its body
apart, or whose frame a segment boundary cuts, pays nothing. Past those, a read of
fewer than :data:`SHORT_READ` bytes costs a rate token, and no read is made while the
connection's bucket or its address's is in debt: the kernel's buffers then hold the
client back, and the server reads it at its rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import trio

from rummyhall.protocol import Connection, TokenBucket

SHORT_READ: Final = 256
"""A read of fewer bytes than this, past a frame's free reads, costs a rate token."""
FREE_READS: Final = 4
"""Reads a frame may take for nothing, besides one per :data:`SHORT_READ` bytes."""


class ReadMeter:
    """The reads of one connection since its client's last whole frame (see above).

    ``charge(tokens)`` spends from the connection's buckets; ``began()`` is told when
    bytes came (a frame may have begun: its time to end runs)."""

    __slots__ = ("_began", "_buckets", "_charge", "_conn", "reads")

    def __init__(self, conn: Connection, buckets: Sequence[TokenBucket],
                 charge: Callable[[int], None], began: Callable[[], None]) -> None:
        self._conn = conn
        self._buckets = tuple(buckets)
        self._charge = charge
        self._began = began
        self.reads = 0

    def frame_ended(self) -> None:
        """A whole frame came: the next one starts with its free reads."""
        self.reads = 0

    def _past_free(self, reads: int) -> bool:
        """Whether ``reads`` are more than the frame under way may take for nothing (the
        frame's length is looked at only past :data:`FREE_READS`: every read asks)."""
        if reads <= FREE_READS:
            return False
        announced = self._conn.announced_size()
        return reads > FREE_READS + (announced or 0) // SHORT_READ

    async def before(self) -> None:
        """Before a read: past the frame's free reads, wait until no bucket is in debt."""
        if self._past_free(self.reads + 1):
            now = trio.current_time()
            wait = max(bucket.wait_ms(now, 0) for bucket in self._buckets)
            if wait:
                await trio.sleep(wait / 1000)

    def after(self, size: int) -> None:
        """After a read of ``size`` bytes (0: the client closed)."""
        if not size:
            return
        self.reads += 1
        if size < SHORT_READ and self._past_free(self.reads):
            self._charge(1)
        self._began()
