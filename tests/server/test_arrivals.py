"""New connections: a client that reconnects in a loop is let in at ``connect_rate`` and
costs nobody else anything; refusals under way are bounded (server/arrivals.py).

Time is trio's MockClock standing still, moved by hand: a token comes back only when a
test jumps the clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient

from rummyhall.protocol import Error, Welcome
from rummyhall.server import Hall, Settings
from rummyhall.server.arrivals import ArrivalLimiter, RefusalSlots

SLOW = with_settings(connect_rate=2.0, connect_burst=3)


def errors(messages: list[object]) -> list[tuple[str, bool]]:
    return [(m.code, m.fatal) for m in messages if isinstance(m, Error)]


class Machines:
    """The hall's seam for peer addresses: each connection seems to come from the
    machine named last (a connection's address is read as soon as it is accepted, and
    each test waits for its answer before it names another)."""

    def __init__(self, hall: Hall) -> None:
        self.current = "10.0.0.1"
        hall.addresses = self.addresses  # type: ignore[method-assign]

    def addresses(self, stream: trio.SocketStream) -> tuple[str, str]:
        return self.current, "127.0.0.1"

    async def connect(self, port: int, machine: str) -> RawClient:
        self.current = machine
        return await RawClient.connect(port)


@pytest.fixture
async def machines(hall: Hall) -> AsyncIterator[Machines]:
    yield Machines(hall)


async def knock(machines: Machines, port: int, machine: str, name: str
                ) -> list[tuple[str, bool]]:
    """One try to connect and say hello; the errors it got (none: welcomed)."""
    raw = await machines.connect(port, machine)
    try:
        got = await raw.hello(name)
    except (EOFError, trio.BrokenResourceError):  # (a reset may meet the hello)
        await raw.aclose()
        return [("(closed without a word)", True)]
    if isinstance(got, Welcome):
        await raw.aclose()
        return []
    return errors([got, *await raw.receive_until_closed()])


@pytest.mark.parametrize("settings", [SLOW])
async def test_a_client_that_reconnects_in_a_loop_is_let_in_at_the_rate(
        hall: Hall, settings: Settings, machines: Machines,
        mock_clock: trio.testing.MockClock) -> None:
    """The burst is let in at once; past it every try is refused at once, and spends
    nothing: half a second later (rate 2) exactly one more is let in."""
    assert hall.port
    for n in range(3):  # the burst: a client inside the limits is never refused
        assert await knock(machines, hall.port, "10.0.0.1", f"loop{n}") == []
    for _ in range(10):  # a reconnect loop with no pause: refused, however long it goes
        assert await knock(machines, hall.port, "10.0.0.1", "loop") == [
            ("too_many_connections", True)]
    assert hall.refused["too_many_connections"] == 10
    mock_clock.jump(0.5)
    assert await knock(machines, hall.port, "10.0.0.1", "again") == []
    assert await knock(machines, hall.port, "10.0.0.1", "again") == [
        ("too_many_connections", True)]


@pytest.mark.parametrize("settings", [SLOW])
async def test_another_machine_is_let_in_while_one_reconnects_in_a_loop(
        hall: Hall, settings: Settings, machines: Machines,
        mock_clock: trio.testing.MockClock) -> None:
    assert hall.port
    for n in range(3):
        await knock(machines, hall.port, "10.0.0.1", f"loop{n}")
    for n in range(20):
        assert await knock(machines, hall.port, "10.0.0.1", "loop") != []
        assert await knock(machines, hall.port, f"10.0.1.{n}", f"other{n}") == []


@pytest.mark.parametrize("settings", [with_settings(max_per_address=1)])
async def test_refusals_under_way_are_bounded(
        hall: Hall, settings: Settings, machines: Machines,
        mock_clock: trio.testing.MockClock) -> None:
    """Each refusal lingers for the client to read it (the clock stands still here, so
    they linger until their clients close); past the slots a refused connection is closed
    at once, without a word. Once a slot is free, refusals are written again."""
    assert hall.port
    hall.refusing = RefusalSlots(2)
    opened: list[RawClient] = []  # closed at the end, pass or fail: with the clock
    try:  # standing still, a server lingering on an open client would wait for good
        opened.append(await machines.connect(hall.port, "10.0.0.1"))
        assert isinstance(await opened[0].hello("holder"), Welcome)
        for _ in range(2):
            opened.append(await machines.connect(hall.port, "10.0.0.1"))
            assert errors([await opened[-1].receive()]) == [("too_many_connections", True)]
            # (read, not closed: the server lingers, holding a slot)
        assert hall.refusing.busy == 2
        opened.append(third := await machines.connect(hall.port, "10.0.0.1"))
        await wait_until(lambda: hall.closed_at_once + hall.refusing.busy > 2)
        assert hall.closed_at_once == 1 and hall.refusing.busy == 2
        assert await third.receive_until_closed() == []  # closed, nothing written
        await opened.pop(1).aclose()
        await wait_until(lambda: hall.refusing.busy == 1)
        assert await knock(machines, hall.port, "10.0.0.1", "fourth") == [
            ("too_many_connections", True)]
    finally:
        for raw in opened:
            await raw.aclose()


async def wait_until(condition: Callable[[], bool]) -> None:
    for _ in range(10_000):  # (the clock stands still: a bounded wait for the server)
        if condition():
            return
        await trio.sleep(0)
    raise AssertionError("the server never got there")


def test_the_limiter_remembers_the_addresses_seen_last() -> None:
    """Bounded memory: past ``capacity`` the address seen longest ago is forgotten, and
    starts again with a full bucket; one seen lately keeps its empty one."""
    limiter = ArrivalLimiter(rate=1, burst=1, capacity=2)
    assert limiter.admit("a", 0.0) and limiter.admit("b", 0.0)
    assert not limiter.admit("a", 0.0)  # (a is now the one seen last)
    assert limiter.admit("c", 0.0)  # b is forgotten
    assert len(limiter) == 2
    assert not limiter.admit("a", 0.0)
    assert limiter.admit("b", 0.0)  # forgotten, so afresh


def test_the_limiter_refuses_a_bad_setting() -> None:
    with pytest.raises(ValueError):
        ArrivalLimiter(rate=0, burst=1)
    with pytest.raises(ValueError):
        ArrivalLimiter(rate=1, burst=1, capacity=0)
    with pytest.raises(ValueError):
        RefusalSlots(0)
