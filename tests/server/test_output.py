"""The outbox and the server's output budget, bounded in bytes (no socket)."""

from __future__ import annotations

from rummyhall.protocol import Chat, Message, Ping
from rummyhall.server.players import Outbox, Outgoing, OutputBudget


class Connection:
    """An outbox with a fake encoder: a message's bytes are ``size`` of its ``id``."""

    def __init__(self, budget: OutputBudget, limit: int) -> None:
        self.overflows = 0
        self.scheduled = 0
        self.outbox = Outbox(limit, budget, encode=self.encode, on_overflow=self.overflow,
                             flush=lambda: None, schedule=self.schedule)

    @staticmethod
    def encode(message: Outgoing) -> bytes:
        assert isinstance(message, Message)
        return b"x" * int(getattr(message, "id", 0) or 0)

    def overflow(self) -> None:
        self.overflows += 1

    def schedule(self, outbox: Outbox) -> None:
        self.scheduled += 1


def lags(outbox: Outbox) -> bool:
    return outbox.lagging


def ping(size: int) -> Ping:
    return Ping(id=size)


def test_pending_bytes_are_bounded_and_the_overflow_closes_only_that_connection() -> None:
    budget = OutputBudget(10_000)
    slow, calm = Connection(budget, 1_000), Connection(budget, 1_000)
    assert slow.outbox.put(ping(600)) and calm.outbox.put(ping(600))
    assert budget.total == 1_200 and slow.scheduled == 1
    assert slow.outbox.put(ping(400))  # exactly the bound: kept
    assert slow.outbox.pending == 1_000
    assert not slow.outbox.put(ping(1))  # one byte over: closed, its bytes dropped
    assert slow.overflows == 1 and slow.outbox.closed and slow.outbox.pending == 0
    assert budget.total == 600 and calm.overflows == 0
    assert not slow.outbox.put(ping(1))  # closed: nothing more, no second overflow
    assert slow.overflows == 1
    big = Connection(budget, 1_000)
    assert big.outbox.put(ping(5_000))  # nothing else waits: a big message still goes
    assert not big.outbox.put(ping(1)) and big.overflows == 1


def test_written_bytes_leave_the_budget() -> None:
    budget = OutputBudget(10_000)
    conn = Connection(budget, 1_000)
    conn.outbox.put(ping(300))
    conn.outbox.put(ping(200))
    data = conn.outbox.take()
    assert len(data) == 500 and conn.outbox.pending == 500  # taken is not yet written
    conn.outbox.written(450)
    assert conn.outbox.pending == budget.total == 50 and conn.outbox in budget.outboxes
    conn.outbox.written(50)
    assert budget.total == 0 and conn.outbox not in budget.outboxes
    conn.outbox.put(ping(10))
    assert conn.scheduled == 2  # the first put after a take schedules again


def test_the_sum_over_connections_is_bounded_the_largest_goes_first() -> None:
    budget = OutputBudget(2_000)
    big, mid, small = (Connection(budget, 1_500) for _ in range(3))
    big.outbox.put(ping(1_200))
    mid.outbox.put(ping(500))
    small.outbox.put(ping(200))
    assert budget.total == 1_900
    assert small.outbox.put(ping(300))  # 2,200 > 2,000: the largest (big) is closed
    assert big.overflows == 1 and not mid.overflows and not small.overflows
    assert budget.total == 1_000 <= budget.limit


def test_what_a_lagging_reader_can_do_without_is_dropped_not_fatal() -> None:
    budget = OutputBudget(100_000)
    conn = Connection(budget, 4_000)  # lags past a quarter: 1,000 bytes
    chat = Chat(player=1, name="ada", text="hi")
    assert conn.outbox.offer(ping(900)) and not lags(conn.outbox)
    assert conn.outbox.put(ping(200)) and lags(conn.outbox)
    for _ in range(100):
        assert not conn.outbox.offer(chat)
    assert conn.outbox.dropped == 100 and conn.overflows == 0 and not conn.outbox.closed
    assert conn.outbox.put(ping(2_000))  # what must go still goes, within the bound
    conn.outbox.written(conn.outbox.pending)
    assert conn.outbox.offer(ping(10))  # caught up: offers are queued again


def test_offers_stop_before_the_server_is_full() -> None:
    budget = OutputBudget(2_000)
    conn, other = Connection(budget, 8_000), Connection(budget, 8_000)
    other.outbox.put(ping(1_000))  # the server holds 1,000 of 2,000; a lag is 2,000
    assert not conn.outbox.offer(ping(10)) and not other.overflows
