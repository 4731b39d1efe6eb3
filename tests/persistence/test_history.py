"""History, records, ratings and the data file's commands, on a real server and file."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import FAST, ask, next_message
from sessions import charged_to, session_of
from trio.testing import wait_all_tasks_blocked

from rummyhall import history
from rummyhall.cli import main
from rummyhall.client import open_session
from rummyhall.protocol import (
    CLIENT,
    Connection,
    Error,
    GameRecord,
    GamesPlayed,
    GetRecord,
    Hello,
    ListGamesPlayed,
    ListRatings,
    Message,
    Ping,
    Pong,
    Ratings,
    TableRemoved,
    TableUpdate,
    Welcome,
    action_from_entry,
)
from rummyhall.protocol.framing import encode_message
from rummyhall.protocol.limits import MAX_SERVER_FRAME, REPLY_BYTES_PER_TOKEN
from rummyhall.rules import new_game
from rummyhall.server import Hall
from rummyhall.server import journal as journal_module
from rummyhall.server import lobby as lobby_module


@asynccontextmanager
async def serving(data: Path, **changes: object) -> AsyncIterator[Hall]:
    hall = Hall(dataclasses.replace(FAST, data=str(data), **changes))  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        yield hall
        hall.stop()


async def play_house_game(port: int, name: str = "host") -> int:
    """A gin table of two house bots, played to its end; its table number."""
    async with open_session(port=port, name=name) as s:
        table = await s.create_table("gin", 2, options={"target_score": 30})
        await s.add_bot(table, 0, "simple")
        await s.add_bot(table, 1, "random")
        await s.watch(table)
        await s.start(table)
        with trio.fail_after(HANG_GUARD):
            while True:
                state = s.tables.get(table)
                if state is not None and state.view is not None and \
                        state.view.phase == "game_over":
                    return table
                await s.next_update()


async def test_history_record_and_ratings_over_the_protocol(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None
        # (the end of a game is committed before its last event goes out: no wait here)
        await play_house_game(hall.port)
        played = await ask(hall.port, ListGamesPlayed(id=1))
        assert isinstance(played, GamesPlayed) and len(played.games) == 1
        game = played.games[0]
        assert game.state == "finished" and game.game == "gin" and game.winners
        assert [s.name for s in game.seats] == ["simple bot", "random bot"]
        record = await ask(hall.port, GetRecord(number=game.number, id=2))
        assert isinstance(record, GameRecord) and record.next is None
        g = new_game("gin", dict(record.options), players=2, first_dealer=record.first_dealer)
        for entry in record.journal:
            g.apply(action_from_entry({**entry.action, "seat": entry.seat}))
        assert g.is_over and tuple(g.scores) == game.totals
        assert len(record.hands) == game.hands
        missing = await ask(hall.port, GetRecord(number=999, id=3))
        assert isinstance(missing, Error) and missing.code == "no_such_game"
        ratings = await ask(hall.port, ListRatings(game="gin", id=4))
        assert isinstance(ratings, Ratings)
        assert {r.name for r in ratings.ratings} == {"simple bot", "random bot"}
        assert all(r.games == 1 for r in ratings.ratings)
        # the lobby shows the ratings in the seats
        async with open_session(port=hall.port, name="look") as s:
            table = await s.create_table("gin", 2)
            await s.add_bot(table, 0, "simple")
            infos = await s.list_tables()
            seat = next(t for t in infos if t.table == table).seats[0]
            assert seat.rating is not None


async def test_a_record_is_read_a_page_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each get_record reply reads its page of the journal, never the whole game (a
    client asking for one page again and again must not cost a whole game each time):
    the pages, read one after another, are the whole journal in order. Pages of two
    entries: the shortest game (a shuffle, a first draw, a knock for gin that ends it)
    still spans two pages, whatever the server's random deal."""
    monkeypatch.setattr(journal_module, "RECORD_PART", 2)
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None
        await play_house_game(hall.port)
        played = await ask(hall.port, ListGamesPlayed(id=1))
        assert isinstance(played, GamesPlayed)
        number = played.games[0].number
        assert hall.journal is not None
        whole = hall.journal.store.record(number)
        assert whole is not None and len(whole["actions"]) > 2

        def no_whole_game(game_id: int) -> list[dict[str, object]]:
            raise AssertionError("a page read the whole journal")

        monkeypatch.setattr(hall.journal.store, "_journal", no_whole_game)
        entries: list[tuple[int | None, object]] = []
        start: int | None = 0
        while start is not None:
            page = await ask(hall.port, GetRecord(number=number, start=start, id=start))
            assert isinstance(page, GameRecord) and page.start == start
            assert len(page.journal) <= 2
            entries += [(e.seat, e.action) for e in page.journal]
            start = page.next
        assert len(entries) == len(whole["actions"])
        assert [seat for seat, _ in entries] == [a.get("seat") for a in whole["actions"]]


async def test_a_record_page_costs_the_rate_its_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A get_record page costs its asker's rate a token per RECORD_ENTRIES_PER_TOKEN (20)
    journal entries it carries, besides its bytes: decoding them costs the server what
    that many small frames would (a hostile-client audit had one address hold 45% of a
    core asking for finished games' pages within its rate). Here 2 entries a token: the
    house bots' game is not seeded by the test, and one of 11 entries happens."""
    monkeypatch.setattr(lobby_module, "RECORD_ENTRIES_PER_TOKEN", 2)
    charged = charged_to("pager", monkeypatch)
    async with serving(tmp_path / "hall.sqlite3") as hall:
        assert hall.port is not None
        await play_house_game(hall.port)
        played = await ask(hall.port, ListGamesPlayed(id=1))
        assert isinstance(played, GamesPlayed)
        charged.clear()
        page = await ask(hall.port, GetRecord(number=played.games[0].number, id=2),
                         name="pager")
        assert isinstance(page, GameRecord)
        assert len(page.journal) >= lobby_module.RECORD_ENTRIES_PER_TOKEN
        size = len(encode_message(page.to_wire(), MAX_SERVER_FRAME))
        paid = sum(charged)
        assert paid == 1 + size // REPLY_BYTES_PER_TOKEN \
            + len(page.journal) // lobby_module.RECORD_ENTRIES_PER_TOKEN  # (1: its frame)


async def test_a_record_refused_reads_none_of_the_games_journal(tmp_path: Path) -> None:
    """get_record of a game still being played is refused (no_such_game) before any of
    its journal is read: asking again and again for it costs a lookup by its number,
    not a page of its actions decoded and thrown away (a hostile-client audit measured
    6 ms of the server's CPU for each such one-token request)."""
    async with serving(tmp_path / "hall.sqlite3") as hall:
        assert hall.port is not None and hall.journal is not None
        statements: list[str] = []
        hall.journal.store.reader.set_trace_callback(statements.append)
        async with open_session(port=hall.port, name="ada") as ada:
            table = await ada.create_table("gin", 2)
            await ada.join(table, 0)
            await ada.add_bot(table, 1, "simple")
            await ada.start(table)  # game 1, under way: nobody moves in it
            for _ in range(3):
                refused = await ask(hall.port, GetRecord(number=1, id=7))
                assert isinstance(refused, Error) and refused.code == "no_such_game"
        assert statements and not [q for q in statements if "journal" in q], statements


async def test_no_history_without_the_journal(tmp_path: Path) -> None:
    async with serving(tmp_path / "unused.sqlite3", journal=False) as hall:
        assert hall.port is not None
        reply = await ask(hall.port, ListGamesPlayed(id=1))
        assert isinstance(reply, Error) and reply.code == "no_history"
    assert not (tmp_path / "unused.sqlite3").exists()


async def test_a_history_reply_goes_to_the_connection_that_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal answers in its own time: if the player connects again meanwhile, the
    answer is dropped, never sent to the new connection, which did not ask."""
    async with serving(tmp_path / "hall.sqlite3") as hall:
        assert hall.port is not None and hall.lobby.journal is not None
        journal = hall.lobby.journal
        asked, go_on = trio.Event(), trio.Event()
        real = journal.answer

        async def slow(message: Message, viewer: int | None = None) -> Message:
            asked.set()
            await go_on.wait()
            return await real(message, viewer)

        monkeypatch.setattr(journal, "answer", slow)
        with trio.fail_after(HANG_GUARD):
            first, conn = await trio.open_tcp_stream("127.0.0.1", hall.port), Connection(CLIENT)
            await first.send_all(conn.send(Hello(versions=(1,), name="ada", kind="person")))
            welcome = await next_message(first, conn)
            assert isinstance(welcome, Welcome)
            await first.send_all(conn.send(ListGamesPlayed(id=1)))
            await asked.wait()
            again, conn = await trio.open_tcp_stream("127.0.0.1", hall.port), Connection(CLIENT)
            await again.send_all(conn.send(Hello(versions=(1,), name="ada", kind="person",
                                                 token=session_of(welcome).token)))
            assert isinstance(await next_message(again, conn), Welcome)
            go_on.set()
            await wait_all_tasks_blocked()
            monkeypatch.setattr(journal, "answer", real)  # (the new connection asks itself)
            await again.send_all(conn.send(Ping(id=2)) + conn.send(ListGamesPlayed(id=3)))
            replies: list[Message] = []
            while len(replies) < 2:
                message = await next_message(again, conn)
                if not isinstance(message, (TableUpdate, TableRemoved)):
                    replies.append(message)
            await again.send_all(conn.send(ListGamesPlayed(id=4)) + conn.send(Ping(id=5)))
            while not isinstance(replies[-1], Pong) or replies[-1].id != 5:
                message = await next_message(again, conn)
                if not isinstance(message, (TableUpdate, TableRemoved)):
                    replies.append(message)
        assert [(type(m).__name__, getattr(m, "id", None)) for m in replies] == [
            ("Pong", 2), ("GamesPlayed", 3), ("GamesPlayed", 4), ("Pong", 5)]
        await again.aclose()
        await first.aclose()


async def test_a_restart_restores_waiting_and_playing_tables(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data, house_delay=1.0) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name="ada") as ada:
            waiting = await ada.create_table("basic", 3, options={"target_score": 50})
            await ada.join(waiting, 1)
            playing = await ada.create_table("gin", 2, turn_seconds=0)
            await ada.join(playing, 0)
            await ada.add_bot(playing, 1, "simple")
            await ada.start(playing)
            with trio.fail_after(HANG_GUARD):
                while not (ada.tables[playing].my_turn):
                    await ada.next_update()
            await ada.act(playing, ada.tables[playing].legal[0])
            token = ada.token
            moves = hall.lobby.tables[playing].game.move_number  # type: ignore[union-attr]
            # (a clean stop writes the seats' last changes: no wait here)
            hall.stop()  # the server goes while ada sits (no bye: her seats stay hers)
            with trio.fail_after(HANG_GUARD):
                while ada.connected:
                    await ada.next_update()
    async with serving(data, house_delay=1.0) as hall:
        assert hall.port is not None
        tables = hall.lobby.tables
        assert set(tables) == {waiting, playing}
        assert tables[waiting].state == "waiting" and tables[waiting].seats[1].player
        t = tables[playing]
        assert t.state == "playing" and t.game is not None and t.game.move_number == moves
        assert t.seats[1].house is not None and t.seats[0].absent_since is not None
        async with open_session(port=hall.port, name="ada", token=token) as ada:
            assert ada.welcome is not None and session_of(ada.welcome).resumed
            with trio.fail_after(HANG_GUARD):
                while playing not in ada.tables or ada.tables[playing].view is None:
                    await ada.next_update()
            assert ada.tables[playing].view.move_number >= moves  # type: ignore[union-attr]


async def test_a_game_whose_table_goes_before_its_end_is_abandoned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The host closes a table in the middle of its game: the history says the game was
    abandoned (not that it is still being played), and a restart abandons a game that
    an older server left 'playing' when its table went."""
    data = tmp_path / "hall.sqlite3"
    async with serving(data, house_delay=1.0) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name="host") as s:
            table = await s.create_table("gin", 2)
            await s.add_bot(table, 0, "simple")
            await s.add_bot(table, 1, "simple")
            await s.watch(table)
            await s.start(table)
            with trio.fail_after(HANG_GUARD):  # (the deal is committed before it shows)
                while table not in s.tables or s.tables[table].view is None:
                    await s.next_update()
            assert hall.lobby.close_table(table, "closing time")
        hall.stop()  # (a clean stop writes the last batch)

    def state() -> tuple[str, float | None]:
        with sqlite3.connect(data) as c:
            row = c.execute("SELECT state, finished FROM games").fetchone()
        return row[0], row[1]

    got, finished = state()
    assert got == "abandoned" and finished is not None
    capsys.readouterr()
    assert main(["history", "--data", str(data)]) == 0
    assert capsys.readouterr().out.strip() == "no games yet"
    assert main(["history", "--data", str(data), "--all"]) == 0
    assert "(abandoned)" in capsys.readouterr().out
    with sqlite3.connect(data) as c:  # as an older server left it
        c.execute("UPDATE games SET state = 'playing', finished = NULL")
    async with serving(data) as hall:
        hall.stop()
    assert state() == ("abandoned", None)


DOCS = Path(__file__).resolve().parents[2] / "docs"
REPLAY_EXAMPLE = re.search(r"To replay:.*?```python\n(.*?)```",
                           (DOCS / "persistence.md").read_text(encoding="utf-8"),
                           re.S)[1]  # type: ignore[index]


async def test_the_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None
        await play_house_game(hall.port)
        copy = tmp_path / "copy.sqlite3"
        assert main(["backup", "--data", str(data), str(copy)]) == 0  # while it runs
    capsys.readouterr()
    for path in (data, copy):
        assert main(["history", "--data", str(path)]) == 0
        out = capsys.readouterr().out
        assert "#1" in out and "gin" in out and "simple bot" in out
    assert main(["ratings", "--data", str(data)]) == 0
    assert "random bot" in capsys.readouterr().out
    assert main(["replay", "1", "--data", str(data), "--no-pause"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1" in out and "Game over" in out
    assert re.search(r"upcard [2-9TJQKA][♣♦♥♠]", out)  # suits as symbols where they show
    assert main(["replay", "1", "--data", str(data), "--no-pause", "--ascii"]) == 0
    ascii_out = capsys.readouterr().out
    assert re.search(r"upcard [2-9TJQKA][cdhs]", ascii_out) and not re.search("[♣♦♥♠]",
                                                                             ascii_out)
    exported = tmp_path / "game.json"
    assert main(["export", "1", "--data", str(data), "-o", str(exported)]) == 0
    record = json.loads(exported.read_text())
    assert record["format"] == "rummyhall-game" and record["version"] == 1
    replayed: dict[str, Any] = {"record": record}
    exec(REPLAY_EXAMPLE, replayed)  # docs/persistence.md's replay, as written there
    assert replayed["game"].is_over
    assert main(["export", "7", "--data", str(data)]) == 1
    assert main(["history", "--data", str(tmp_path / "none.sqlite3")]) == 1
    assert "no such data file" in capsys.readouterr().err
    nowhere = tmp_path / "no" / "such" / "dir.json"
    assert main(["export", "1", "--data", str(data), "-o", str(nowhere)]) == 1
    assert f"cannot write {nowhere}" in capsys.readouterr().err
    for bad in (["history", "--limit", "0"], ["ratings", "--game", "poker"]):
        with pytest.raises(SystemExit) as info:
            main([*bad, "--data", str(data)])
        assert info.value.code == 2


async def test_a_seat_left_before_a_restart_stays_left_and_unwatched(tmp_path: Path) -> None:
    """After the restart the player who had left its seat is neither at the table nor a
    spectator of it: it comes back by joining, as before the restart."""
    data = tmp_path / "hall.sqlite3"
    async with serving(data, house_delay=1.0) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name="ada") as ada:
            table = await ada.create_table("gin", 2, turn_seconds=0)
            await ada.join(table, 0)
            await ada.add_bot(table, 1, "simple")
            await ada.start(table)
            await ada.leave(table)
            token = ada.token
            hall.stop()  # (a clean stop writes the seats' last changes: no wait here)
    async with serving(data, house_delay=1.0) as hall:
        assert hall.port is not None
        t = hall.lobby.tables[table]
        assert t.seats[0].left and t.seats[0].stand_in is not None
        async with open_session(port=hall.port, name="ada", token=token) as ada:
            assert ada.welcome is not None and session_of(ada.welcome).resumed
            await ada.ping()  # the hello is handled: the table has her connection queued
            await wait_all_tasks_blocked()  # (the server runs here: the table took it in)
            await ada.ping()  # and anything it sent her has arrived
            assert not t.spectators and table not in ada.tables
            assert await ada.join(table) == 0  # the seat is still hers to take back


def test_history_lists_by_time_newest_first_and_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A game that started first but finished last comes first: the list goes by the
    time it shows, not by the games' numbers."""
    def summary(number: int, started: str, finished: str | None) -> dict[str, object]:
        return {"id": number, "started": started, "finished": finished, "game": "gin",
                "hands_scored": 1, "state": "finished" if finished else "playing",
                "seats": [{"seat": 0, "name": "ada"}, {"seat": 1, "name": "bob"}],
                "totals": [10, 0], "winners": [0]}

    class Store:
        def games(self, **_: object) -> list[dict[str, object]]:  # as the store: by number
            return [summary(3, "2026-01-01T12:00:00Z", "2026-01-01T12:05:00Z"),
                    summary(2, "2026-01-01T11:00:00Z", "2026-01-01T14:00:00Z"),
                    summary(1, "2026-01-01T10:00:00Z", "2026-01-01T10:30:00Z")]

        def close(self) -> None:
            pass

    monkeypatch.setattr(history, "open_store", lambda args, command: Store())
    assert main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("3 games, newest first (by the time each finished, or started if "
                        "still playing); * marks the winners")
    assert [line.split()[0] for line in lines[1:]] == ["#2", "#3", "#1"]
