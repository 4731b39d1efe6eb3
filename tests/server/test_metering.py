"""What reading costs (server/metering.py; docs/protocol.md, section 8): the rules of the
read meter, one by one, on a real connection's buffer and real buckets.

A frame gets FREE_READS (4) reads for nothing, and one more per SHORT_READ (256) bytes
its header announces; past those, a read of fewer than 256 bytes costs a token, a larger
one nothing; a whole frame starts the count again; and past the free reads no read is
made while a bucket is in debt: the reader waits until it is not.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import trio
import trio.testing

from rummyhall.protocol import SERVER, Connection, TokenBucket
from rummyhall.server.metering import FREE_READS, SHORT_READ, ReadMeter


class Meter:
    """A meter on a server connection's buffer, recording what it charges and when it
    was told bytes came."""

    def __init__(self, *buckets: TokenBucket) -> None:
        self.conn = Connection(SERVER)
        self.charged: list[int] = []
        self.began = 0
        self.buckets = buckets or (TokenBucket(rate=10, burst=10),)
        self.meter = ReadMeter(self.conn, self.buckets, self.charged.append, self._began)

    def _began(self) -> None:
        self.began += 1

    def read(self, data: bytes) -> None:
        """A read of the socket that brought ``data`` (what the session does)."""
        self.meter.after(len(data))
        self.conn.receive_data(data)

    def reads(self, count: int, size: int = 1) -> None:
        for _ in range(count):
            self.read(b"\x00" * size)

    async def wait_before_read(self) -> float:
        """The seconds (the clock's) the meter holds the next read back."""
        start = trio.current_time()
        await self.meter.before()
        return round(trio.current_time() - start, 9)


def header(body_size: int) -> bytes:
    return struct.pack(">I", body_size)


def test_the_figures_are_the_ones_the_protocol_documents() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    said = re.search(r"take (\d+) reads, and one more per (\d+) bytes it announces", text)
    assert said is not None
    assert (FREE_READS, SHORT_READ) == (4, 256) == (int(said[1]), int(said[2]))


def test_a_frame_announcing_nothing_has_its_free_reads_then_a_short_read_costs_a_token() -> None:
    m = Meter()
    m.reads(FREE_READS)
    assert m.charged == []  # the free reads
    m.reads(1)
    assert m.charged == [1]  # the first one past them
    m.reads(2)
    assert m.charged == [1, 1, 1]  # and each one after
    assert m.began == FREE_READS + 3  # every read told that bytes came


def test_the_announced_length_buys_a_read_per_256_bytes() -> None:
    m = Meter()
    m.read(header(3 * SHORT_READ + SHORT_READ - 1))  # (1,023 bytes: three more reads)
    m.reads(FREE_READS - 1 + 3)
    assert m.charged == []
    m.reads(1)
    assert m.charged == [1]


def test_each_whole_256_bytes_announced_counts() -> None:
    m = Meter()
    m.read(header(5 * SHORT_READ + SHORT_READ - 1))  # five more reads (not four, not six)
    m.reads(FREE_READS - 1 + 5)
    assert m.charged == []
    m.reads(1)
    assert m.charged == [1]


def test_reads_that_bring_no_length_yet_have_the_same_free_reads() -> None:
    """Under TLS the meter counts the socket's reads, whose bytes may not yet make any
    plaintext: the frame's length is then unknown, and it announces nothing."""
    m = Meter()
    for _ in range(FREE_READS):
        m.meter.after(1)  # (nothing reaches the connection's buffer)
    assert m.charged == []
    m.meter.after(1)
    assert m.charged == [1]


def test_a_length_under_256_bytes_buys_nothing_more() -> None:
    m = Meter()
    m.read(header(SHORT_READ - 1))
    m.reads(FREE_READS - 1)
    assert m.charged == []
    m.reads(1)
    assert m.charged == [1]


def test_a_read_of_256_bytes_or_more_never_costs_a_token() -> None:
    m = Meter()
    m.reads(FREE_READS)
    m.reads(3, size=SHORT_READ)
    m.reads(1, size=10 * SHORT_READ)
    assert m.charged == []
    m.reads(1, size=SHORT_READ - 1)
    assert m.charged == [1]


def test_a_closed_side_costs_nothing_and_counts_as_no_read() -> None:
    m = Meter()
    m.reads(FREE_READS)
    m.meter.after(0)  # (the client closed: b"")
    assert m.charged == [] and m.meter.reads == FREE_READS and m.began == FREE_READS


def test_a_whole_frame_starts_the_count_again() -> None:
    m = Meter()
    m.reads(FREE_READS + 2)
    assert m.charged == [1, 1]
    m.meter.frame_ended()
    assert m.meter.reads == 0
    m.reads(FREE_READS)
    assert m.charged == [1, 1]
    m.reads(1)
    assert m.charged == [1, 1, 1]


async def test_within_the_free_reads_a_read_never_waits_for_a_debt(
        mock_clock: trio.testing.MockClock) -> None:
    bucket = TokenBucket(rate=10, burst=10)
    bucket.charge(20)  # 10 tokens owed: a second's wait
    m = Meter(bucket)
    for _ in range(FREE_READS):
        assert await m.wait_before_read() == 0
        m.reads(1)


async def test_past_the_free_reads_a_read_waits_out_the_debt_of_either_bucket(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    own, shared = TokenBucket(rate=10, burst=10), TokenBucket(rate=100, burst=10)
    m = Meter(own, shared)
    m.reads(FREE_READS)
    assert await m.wait_before_read() == 0  # no debt: no wait
    shared.charge(15)  # 5 tokens owed at 100 a second: 50 ms
    assert await m.wait_before_read() == 0.05
    assert own.affords(trio.current_time(), 10)  # (full again)
    own.charge(12)  # 2 tokens owed at 10 a second: 200 ms, the longer wait
    assert await m.wait_before_read() == 0.2


async def test_the_read_that_would_be_the_first_past_the_free_ones_waits(
        mock_clock: trio.testing.MockClock) -> None:
    """before() looks at the read about to be made: the fifth of a frame with no length
    waits for a debt, the fourth does not."""
    mock_clock.autojump_threshold = 0
    bucket = TokenBucket(rate=10, burst=10)
    m = Meter(bucket)
    m.reads(FREE_READS - 1)
    bucket.charge(11)  # 1 token owed: 100 ms
    assert await m.wait_before_read() == 0  # the fourth read: free
    m.reads(1)
    assert await m.wait_before_read() == 0.1  # the fifth


async def test_a_frame_that_announces_more_waits_only_past_its_own_free_reads(
        mock_clock: trio.testing.MockClock) -> None:
    """A frame announcing 300 bytes may take five reads for nothing: before the fifth
    nothing waits for a debt, before the sixth the reader does."""
    mock_clock.autojump_threshold = 0
    bucket = TokenBucket(rate=10, burst=10)
    m = Meter(bucket)
    m.read(header(300))
    m.reads(FREE_READS - 1)
    bucket.charge(11)  # 1 token owed: 100 ms
    assert await m.wait_before_read() == 0  # the fifth read: free
    m.reads(1)
    assert await m.wait_before_read() == 0.1  # the sixth
