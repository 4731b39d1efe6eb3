"""lobby_updates: a connection gets every table's pushes, or only its own tables'."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient, play_seat, wait_for

from rummyhall.bots import SimpleBot
from rummyhall.client import Session, open_session
from rummyhall.protocol import (
    Hello,
    LobbyUpdates,
    Ok,
    Ping,
    Pong,
    TableRemoved,
    TableUpdate,
    Welcome,
)
from rummyhall.server import Hall, Settings
from rummyhall.server import lobby as lobby_module
from rummyhall.server.session import FEATURES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")


def pushed_tables(session: Session) -> set[int]:
    """The tables of the table_update pushes queued for ``session`` so far (drained)."""
    seen: set[int] = set()
    while True:
        try:
            update = session._updates.receive_nowait()
        except trio.WouldBlock:
            return seen
        if update.kind in ("table_update", "table_removed") and update.table is not None:
            seen.add(update.table)


async def test_off_means_only_the_tables_where_it_sits_or_watches(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bot", kind="bot") as bot, \
            open_session("127.0.0.1", hall.port, name="eve") as eve:
        mine = await bot.create_table("gin", 2)
        watched = await ada.create_table("gin", 2)
        await bot.set_lobby_updates(False)
        await bot.join(mine, 0)
        await bot.watch(watched)
        others = [await ada.create_table("gin", 2) for _ in range(3)]
        await ada.join(watched, 0)  # changes of the tables it is at still come
        await ada.join(mine, 1)
        last = await eve.create_table("gin", 2)  # the last change of all, for everyone
        await wait_for(lambda: last in ada.lobby and last in eve.lobby)
        await wait_for(lambda: not hall.lobby._dirty)  # every round has gone out
        await bot.ping()  # (and reached the bot before this pong)
        assert pushed_tables(bot) == {mine, watched}
        assert {mine, watched, *others, last} <= pushed_tables(ada)
        assert not set(others) & set(bot.lobby)
        # back on: every change from now, and list_tables for the ones it missed
        await bot.set_lobby_updates(True)
        again = await eve.create_table("gin", 2)
        await wait_for(lambda: again in bot.lobby)
        assert {t.table for t in await bot.list_tables()} >= {*others, last, again}


async def test_the_setting_is_the_connections_and_the_client_keeps_it(hall: Hall) -> None:
    """Each new connection starts with every update; the client library asks again for
    its choice when it resumes its session."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="bot", kind="bot",
                            reconnect_seconds=10) as bot, \
            open_session("127.0.0.1", hall.port, name="eve") as eve:
        await bot.set_lobby_updates(False)
        player = next(p for p in hall.lobby.players.connected() if p.name == "bot")
        assert not player.lobby_updates
        assert bot._stream is not None
        bot._stream.socket.close()  # drop the connection under the session's feet
        await wait_for(lambda: not bot.connected)
        await wait_for(lambda: bot.connected)
        await bot.ping()
        assert not player.lobby_updates  # asked again on the new connection
        pushed_tables(bot)
        table = await eve.create_table("gin", 2)
        await wait_for(lambda: table in eve.lobby)
        await wait_for(lambda: not hall.lobby._dirty)  # every round has gone out
        await bot.ping()  # (and reached the bot before this pong)
        assert table not in pushed_tables(bot)


async def test_a_resumed_connection_starts_with_every_update_whatever_the_last_chose(
        hall: Hall) -> None:
    """The server's side of the above: a client that turned updates off and comes back
    with its token, asking nothing, gets every table's pushes again."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.send(Hello(versions=(1,), name="quiet", kind="bot"))
    welcome = await raw.receive()
    assert isinstance(welcome, Welcome) and welcome.session is not None
    await raw.send(LobbyUpdates(on=False, id=1))
    while not isinstance(await raw.receive(), Ok):
        pass
    await raw.aclose()
    await wait_for(lambda: not any(p.name == "quiet" for p in hall.lobby.players.connected()))
    back = await RawClient.connect(hall.port)
    await back.send(Hello(versions=(1,), name="quiet", kind="bot",
                          token=welcome.session.token))
    again = await back.receive()
    assert isinstance(again, Welcome) and again.session is not None and again.session.resumed
    async with open_session("127.0.0.1", hall.port, name="eve") as eve:
        table = await eve.create_table("gin", 2)
        await wait_for(lambda: not hall.lobby._dirty)  # every round has gone out
        await back.send(Ping(id=2))
        pushed = [await back.receive()]
        while not isinstance(pushed[-1], Pong):  # (the pushes before the pong)
            pushed.append(await back.receive())
    assert any(isinstance(m, TableUpdate) and m.info.table == table for m in pushed)
    await back.aclose()


async def test_the_welcome_lists_the_documented_features(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        assert ada.welcome is not None
        assert set(ada.welcome.features) == set(FEATURES)
    start = DOC.index("`features` lists optional abilities")
    paragraph = DOC[start:DOC.index("\n\n", start)]  # the document's list of features
    for feature in FEATURES:
        assert f"`{feature}`" in paragraph, feature


async def test_rounds_come_further_apart_with_many_connections(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each round visits every connection: past VISITS_PER_SECOND visits a second the
    rounds are spaced in proportion to the connections (here 3 connections, 10 visits a
    second: 0.3 s, three times update_interval)."""
    assert hall.port
    monkeypatch.setattr(lobby_module, "VISITS_PER_SECOND", 10)
    interval = hall.settings.update_interval
    assert hall.lobby.round_wait(3) == pytest.approx(0.3) and 2 * interval < 0.3
    assert hall.lobby.round_wait(0) == interval
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bob") as bob, \
            open_session("127.0.0.1", hall.port, name="eve") as eve:
        first = await ada.create_table("gin", 2)
        await wait_for(lambda: first in eve.lobby)  # a round for 3 connections went out
        told = trio.current_time()
        second = await bob.create_table("gin", 2)
        await wait_for(lambda: second in eve.lobby)
        assert trio.current_time() - told >= 0.3 - interval


async def lobby_viewer(port: int) -> RawClient:
    """A client in the lobby, once the updates of what came before it have gone out."""
    viewer = await RawClient.connect(port)
    await viewer.hello("viewer")
    await trio.sleep(2)
    return viewer


async def record_updates(viewer: RawClient, table: int,
                         updates: list[tuple[float, TableUpdate]]) -> None:
    """Each ``table_update`` of ``table`` that ``viewer`` receives, with when it came
    (until cancelled)."""
    while True:
        message = await viewer.receive()
        if isinstance(message, TableUpdate) and message.info.table == table:
            updates.append((trio.current_time(), message))


@pytest.mark.parametrize("settings", [with_settings(table_update_seconds=1.0)])
async def test_a_table_changed_again_and_again_is_announced_once_a_second(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """A client toggling a seat every 0.15 s for three seconds costs each lobby about one
    update of that table a second (each its latest state), not one a change; the last
    tells how the table ends up, and a table's removal is not held back."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="toggler") as toggler:
        table = await toggler.create_table("gin", 2)
        viewer = await lobby_viewer(hall.port)
        updates: list[tuple[float, TableUpdate]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(record_updates, viewer, table, updates)
            for n in range(20):
                if n % 2 == 0:
                    await toggler.add_bot(table, 1)
                else:
                    await toggler.remove_bot(table, 1)
                await trio.sleep(0.15)
            await toggler.add_bot(table, 1)  # the end state: a house bot in seat 1
            await trio.sleep(3)
            nursery.cancel_scope.cancel()
        assert 2 <= len(updates) <= 6, len(updates)  # 21 changes over about 3 s
        assert updates[-1][1].info.seats[1].kind == "house"
        await viewer.aclose()


@pytest.mark.parametrize("settings", [with_settings(table_update_seconds=1.0)])
async def test_watching_and_leaving_in_a_loop_is_announced_every_ten_seconds(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """Anybody may watch any table: a client that watches and leaves a table every
    0.15 s for six seconds changes only its count of spectators, and each lobby hears of
    that at most once in SPECTATOR_GAP (10 s), then the count as it ends up; a real
    change (a seat) is still told within the second. (A hostile-client audit's watcher
    cost every lobby an update of each of 64 tables a second.)"""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="maker") as maker, \
            open_session("127.0.0.1", hall.port, name="toggler") as toggler:
        table = await maker.create_table("gin", 2)
        viewer = await lobby_viewer(hall.port)
        updates: list[tuple[float, TableUpdate]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(record_updates, viewer, table, updates)
            start = trio.current_time()
            for n in range(40):
                if n % 2 == 0:
                    await toggler.watch(table)
                else:
                    await toggler.leave(table)
                await trio.sleep(0.15)
            await toggler.watch(table)  # the end state: one spectator
            await trio.sleep(1)
            watched = len(updates)
            await maker.add_bot(table, 1)  # a seat changes: told within the second
            await trio.sleep(1.5)
            seated = [u for _, u in updates[watched:] if u.info.seats[1].kind == "house"]
            await trio.sleep(12)
            nursery.cancel_scope.cancel()
        assert watched <= 1, updates  # 41 changes of the count over six seconds
        assert seated
        assert updates[-1][1].info.spectators == 1 and updates[-1][0] - start > 6
        await viewer.aclose()


async def test_a_spectator_keeps_no_table_whose_players_are_gone(hall: Hall) -> None:
    """A waiting table nobody sits at goes when its creator leaves, and a finished one
    when its players have left, whoever still watches them: a client that watches other
    people's tables would otherwise keep them for ever, and with them their creators'
    places (32 tables an address) and names."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="watcher") as watcher:
        async with open_session("127.0.0.1", hall.port, name="maker") as maker:
            waiting = await maker.create_table("gin", 2)
            finished = await maker.create_table("gin", 2, options={"target_score": 1})
            await maker.add_bot(finished, 0, "simple")
            await maker.join(finished, 1)
            await watcher.watch(waiting)
            await watcher.watch(finished)
            await maker.start(finished)
            await play_seat(maker, finished, SimpleBot())
            assert {waiting, finished} <= set(hall.lobby.tables)
        # the maker is gone: nobody sits at the waiting table, no player is at the
        # finished one; both go though the watcher still watches them
        await wait_for(lambda: not {waiting, finished} & set(hall.lobby.tables))


async def test_a_creator_watching_its_house_bots_game_keeps_it_when_it_ends(
        hall: Hall) -> None:
    """House bots are never "present": a finished game of house bots stays while its
    creator watches it (it sees the result), and goes when the creator leaves it."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="maker") as maker:
        table = await maker.create_table("gin", 2, options={"target_score": 1})
        await maker.add_bot(table, 0, "simple")
        await maker.add_bot(table, 1, "simple")
        await maker.watch(table)
        await maker.start(table)
        await play_seat(maker, table, SimpleBot())  # (it only watches: to the game's end)
        await trio.testing.wait_all_tasks_blocked()
        assert table in hall.lobby.tables  # still there: its creator watches it
        await maker.leave(table)
        await wait_for(lambda: table not in hall.lobby.tables)


@pytest.mark.parametrize("settings", [with_settings(table_update_seconds=1.0)])
async def test_a_held_update_goes_out_when_its_time_comes_without_another_change(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """A table changed twice within table_update_seconds, then left alone: its second
    state is held, and the lobby wakes when it may go (nothing else changes to wake
    it), so every lobby has the table as it is within the second and a half."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="maker") as maker:
        table = await maker.create_table("gin", 2)
        viewer = await lobby_viewer(hall.port)
        updates: list[tuple[float, TableUpdate]] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(record_updates, viewer, table, updates)
            await maker.add_bot(table, 1)
            await trio.sleep(0.3)
            start = trio.current_time()
            await maker.remove_bot(table, 1)  # the last change: held for the gap
            await trio.sleep(3)
            nursery.cancel_scope.cancel()
        last_at, last = updates[-1]
        assert last.info.seats[1].kind == "empty" and last_at - start <= 1.5, updates
        await viewer.aclose()


@pytest.mark.parametrize("settings", [with_settings(table_update_seconds=1.0)])
async def test_a_held_or_removed_table_holds_back_no_other_tables_update(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """A round of the lobby's updates that holds one table's update back (changed again
    within table_update_seconds), or tells of a table removed, still tells the other
    tables that changed in it: first a held table then another, then a removed table
    then another, each pair changed in one round."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="maker") as maker:
        held = await maker.create_table("gin", 2)
        other = await maker.create_table("gin", 2)
        gone = await maker.create_table("gin", 2, options={"target_score": 1})
        await maker.add_bot(gone, 0, "simple")
        await maker.add_bot(gone, 1, "simple")
        await maker.watch(gone)
        await maker.start(gone)
        await play_seat(maker, gone, SimpleBot())  # (it watches the house bots' game end)
        viewer = await lobby_viewer(hall.port)  # (every table told, two seconds ago)
        told: list[tuple[float, TableUpdate | TableRemoved]] = []

        async def record() -> None:
            while True:
                message = await viewer.receive()
                if isinstance(message, TableUpdate | TableRemoved):
                    told.append((trio.current_time(), message))

        def seat_told(table: int, kind: str, since: float) -> float:
            return min(at for at, m in told if at >= since and isinstance(m, TableUpdate)
                       and m.info.table == table and m.info.seats[1].kind == kind)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(record)
            await maker.add_bot(held, 1)
            await trio.sleep(0.3)
            changed = trio.current_time()
            await maker.remove_bot(held, 1)  # (told 0.3 s ago: held)
            await maker.add_bot(other, 1)
            await trio.sleep(2)
            assert seat_told(other, "house", changed) - changed < 0.5, told
            assert seat_told(held, "empty", changed) - changed < 1.5, told
            removed = trio.current_time()
            await maker.leave(gone)  # (its game over, its creator gone from it: removed)
            await maker.remove_bot(other, 1)
            await trio.sleep(2)
            assert [at for at, m in told if isinstance(m, TableRemoved) and m.table == gone]
            assert seat_told(other, "empty", removed) - removed < 0.5, told
            nursery.cancel_scope.cancel()
        await viewer.aclose()
