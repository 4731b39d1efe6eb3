"""Tables nobody is at, and how many tables one address may hold: a client that fills
tables with house bots, starts them and goes costs the server no CPU, and its tables do
not stay; a client from elsewhere can still make its own."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient, wait_for

from rummyhall.client import RequestRefused, open_session
from rummyhall.protocol import AddBot, CreateTable, Error, Ok, Start
from rummyhall.server import Hall, Settings

UNATTENDED = with_settings(house_delay=0.2, abandoned_seconds=60, max_tables_per_address=4)


def moves(hall: Hall, table: int) -> int:
    game = hall.lobby.tables[table].game
    assert game is not None
    return game.move_number


@pytest.mark.parametrize("settings", [UNATTENDED])
async def test_a_game_nobody_is_at_waits_and_goes_on_when_someone_watches(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="host") as host:
        table = await host.create_table("gin", 2, {"target_score": 500})
        await host.add_bot(table, 0)
        await host.add_bot(table, 1)
        async with open_session("127.0.0.1", hall.port, name="fan") as fan:
            await fan.watch(table)
            await host.start(table)
            await wait_for(lambda: moves(hall, table) >= 6)
        # the only spectator went: the house bots stop where they are
        live = hall.lobby.tables[table]
        await wait_for(lambda: live.stalled)
        stopped = moves(hall, table)
        await trio.sleep(30)  # 150 house delays of virtual time
        assert moves(hall, table) == stopped
        assert live.stalled
        assert table in hall.lobby.tables  # (not yet abandoned_seconds)
        await host.watch(table)  # someone is at the table again: the game goes on
        await wait_for(lambda: moves(hall, table) > stopped + 4)
        assert live.unattended_since == float("inf")  # (and it no longer waits:)
        assert moves(hall, table) > stopped


@pytest.mark.parametrize("settings", [UNATTENDED])
async def test_tables_filled_with_house_bots_and_left_stop_then_close(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """The hostile version: a client makes as many tables as it may, fills them with
    house bots, starts them and leaves without a word. Its games make no move from then
    on; each table closes abandoned_seconds later and the lobby says so; meanwhile a
    client from another address makes its own table."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("filler", kind="bot")
    made: list[int] = []
    for n in range(settings.max_tables_per_address):
        await raw.send(CreateTable(game="basic", players=2, id=n,
                                   options={"target_score": 10_000}))
        reply = await raw.receive()
        assert isinstance(reply, Ok) and reply.table is not None, reply
        made.append(reply.table)
        for seat in range(2):
            await raw.send(AddBot(table=reply.table, seat=seat, id=f"b{seat}"))
        await raw.send(Start(table=reply.table, id="s"))
    await raw.send(CreateTable(game="basic", players=2, id="one too many"))
    answers = 0
    while answers < len(made) * 3 + 1:  # (each add_bot and start answered too)
        reply = await raw.receive()
        if isinstance(reply, Ok | Error) and reply.id is not None:
            answers += 1
            if reply.id == "one too many":
                assert isinstance(reply, Error) and reply.code == "too_many_tables"
                assert "from your address (127.0.0.1)" in reply.message
    await raw.stream.aclose()  # gone, without a bye
    await wait_for(lambda: all(hall.lobby.tables[t].stalled for t in made))
    stopped = {t: moves(hall, t) for t in made}
    hall.addresses = lambda stream: ("10.0.0.9", "127.0.0.1")  # type: ignore[method-assign]
    async with open_session("127.0.0.1", hall.port, name="other") as other:
        own = await other.create_table("gin", 2)  # another machine is not refused
        await trio.sleep(40)
        assert {t: moves(hall, t) for t in made} == stopped  # nobody there: no move
        with trio.fail_after(60):  # abandoned_seconds after the last one was left
            while any(t in hall.lobby.tables for t in made):
                await trio.sleep(1)
        await wait_for(lambda: not set(made) & set(other.lobby))  # the lobby told others
        assert own in hall.lobby.tables  # (a waiting table of a player still here stays)


@pytest.mark.parametrize("settings", [with_settings(max_tables_per_address=2,
                                                    tables_per_second=1000.0)])
async def test_one_address_holds_at_most_max_tables_per_address(
        hall: Hall, settings: Settings) -> None:
    """The bound is the address's, whichever of its players made the tables; a table
    that closes gives its place back."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bob") as bob:
        first = await ada.create_table("gin", 2)
        await bob.create_table("gin", 2)
        for player in (ada, bob):
            with pytest.raises(RequestRefused) as refused:
                await player.create_table("gin", 2)
            assert refused.value.code == "too_many_tables"
        assert hall.lobby.close_table(first, "closed by the host")
        await ada.create_table("basic", 3)  # its place is free again

