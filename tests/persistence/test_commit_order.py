"""Commit before broadcast: no event leaves the server before its action is committed.

Every message the server queues for a connection passes ``Outbox.put``, and its bytes
leave for the socket through ``Outbox.take``; every commit passes the journal's
``Store.write``. The test watches all three while players, a house bot and the turn timer
play whole games: whenever bytes of a connection are taken to be written, every action
applied by the table of each event and ``ok`` among them (when it was queued: the one that
caused the event included) is already in a committed transaction. (A table queues its
messages as soon as it has staged its action's rows; the flusher commits them before it
takes any bytes.)
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import FAST, next_message

from rummyhall.bots import make_strategy
from rummyhall.client import open_session
from rummyhall.client.session import Session
from rummyhall.protocol import (
    CLIENT,
    ActionMessage,
    Connection,
    CreateTable,
    EventMessage,
    Hello,
    Join,
    Message,
    Ok,
    Start,
    Turn,
    Welcome,
    YourTurn,
)
from rummyhall.protocol import Error as ErrorMessage
from rummyhall.server import Hall
from rummyhall.server.players import Outbox, Prepared
from rummyhall.server.store import Statement, Store, StoreBusy, StoreError


async def _play(session: Session, table: int, done: trio.Event) -> None:
    bot = make_strategy("simple")
    while True:
        state = session.tables.get(table)
        if state is not None and state.view is not None and state.view.phase == "game_over":
            done.set()
            return
        if state is not None and state.my_turn and state.view is not None:
            await session.act(table, bot.choose(state.view, state.legal))
        else:
            await session.next_update()


async def _hold_the_lock(data: Path, checked: list[int], busy: list[int]) -> None:
    """Another program takes the file's write lock once the game is under way, and keeps
    it until a commit of the server has found it taken."""
    while len(checked) < 30:
        await trio.sleep(0.001)
    other = sqlite3.connect(data, check_same_thread=False, isolation_level=None)
    try:
        await trio.to_thread.run_sync(other.execute, "BEGIN IMMEDIATE")
        while not busy:
            await trio.sleep(0.001)
        other.execute("ROLLBACK")
    finally:
        other.close()


SEED = 3  # its three-seat Basic Rummy game commits some 1,500 journal rows


@pytest.mark.parametrize("policy", ["normal", "fsync", "locked"])
async def test_no_event_is_sent_before_its_action_is_committed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str) -> None:
    """Under the default policy (the flusher commits what the tables staged), with
    ``fsync`` (the tables wait for the committer), and while another program holds the
    file's lock for a while (the commit waits in a worker thread)."""
    data = tmp_path / "hall.sqlite3"
    # (A seeded deal: a random one ends in its first hand now and then, a short game that
    # proves little and never lets the lock holder below see its commit.)
    hall = Hall(dataclasses.replace(FAST, data=str(data), fsync=policy == "fsync", seed=SEED))
    committed: Counter[int] = Counter()  # game number -> journal rows committed
    checked: list[int] = []
    busy: list[int] = []  # commits that found the lock taken
    early: list[str] = []  # (recorded, not raised: the server would take it for a bug)
    write = Store.write

    def counting_write(self: Store, statements: Iterable[Statement]) -> None:
        statements = list(statements)
        try:
            write(self, statements)  # (raises, and counts nothing, if the commit fails)
        except StoreBusy:
            busy.append(1)
            raise
        for sql, params in statements:
            if sql.startswith("INSERT INTO journal"):
                committed[params[0]] += 1

    waiting: dict[int, list[tuple[int, int, str]]] = {}  # outbox -> (game, rows, what)
    put, take = Outbox.put, Outbox.take

    def recording_put(self: Outbox, message: Any) -> bool:
        messages: tuple[Message, ...] = message.messages if isinstance(message, Prepared) \
            else (message,)
        for m in messages:
            if isinstance(m, EventMessage | Ok) and m.table is not None:
                table = hall.lobby.tables.get(m.table)
                if table is None:
                    continue
                assert hall.journal is not None
                number = hall.journal._game_of.get(table.id, 0)  # (0: not started yet)
                what = f"event {m.seq}" if isinstance(m, EventMessage) else "an ok"
                waiting.setdefault(id(self), []).append(
                    (number, table.played, f"{what} of table {m.table}"))
                checked.append(1)
        return put(self, message)

    def checking_take(self: Outbox) -> bytes:
        for number, applied, what in waiting.pop(id(self), []):
            if committed[number] < applied:
                early.append(f"{what} written with {applied} actions applied and "
                             f"{committed[number]} committed")
        return take(self)

    monkeypatch.setattr(Store, "write", counting_write)
    monkeypatch.setattr(Outbox, "put", recording_put)
    monkeypatch.setattr(Outbox, "take", checking_take)
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        assert hall.port is not None
        with trio.fail_after(HANG_GUARD):
            async with open_session(port=hall.port, name="ada", kind="bot") as ada, \
                    open_session(port=hall.port, name="bob", kind="bot") as bob:
                table = await ada.create_table("basic", 3, options={"target_score": 60})
                await ada.join(table, 0)
                await bob.join(table, 1)
                await ada.add_bot(table, 2, "strong")
                await bob.watch(await ada.create_table("gin", 2))  # (a spectator elsewhere)
                await ada.start(table)
                done = [trio.Event(), trio.Event()]
                async with trio.open_nursery() as players:
                    players.start_soon(_play, ada, table, done[0])
                    players.start_soon(_play, bob, table, done[1])
                    if policy == "locked":
                        players.start_soon(_hold_the_lock, data, checked, busy)
        hall.stop()
    assert not early, early[:5]
    assert len(checked) > 100 and sum(committed.values()) > 50
    assert bool(busy) == (policy == "locked")


class _Raw:
    """A client on a raw socket: every message it was sent, in order."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream, self.conn = stream, Connection(CLIENT)
        self.got: list[Message] = []

    @classmethod
    async def hello(cls, port: int, name: str) -> _Raw:
        raw = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await raw.send(Hello(versions=(1,), name=name, kind="bot"))
        await raw.until(lambda m: isinstance(m, Welcome))
        return raw

    async def send(self, message: Message) -> None:
        await self.stream.send_all(self.conn.send(message))

    async def until(self, done: Callable[[Message], bool]) -> Message:
        """Read until a message for which ``done`` is true (EOFError: closed first)."""
        while True:
            message = await next_message(self.stream, self.conn)
            self.got.append(message)
            if done(message):
                return message

    async def until_closed(self) -> None:
        with contextlib.suppress(EOFError, trio.BrokenResourceError):
            await self.until(lambda m: False)
        await self.stream.aclose()


async def test_a_failed_commit_sends_nothing_of_what_it_did_not_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commit of an action fails (the disk is full): neither its ``ok`` nor its
    events reach anyone; both players are told ``internal_error`` and closed, and the
    server stops."""
    hall = Hall(dataclasses.replace(FAST, data=str(tmp_path / "hall.sqlite3")))
    write = Store.write

    def failing_write(self: Store, statements: Iterable[Statement]) -> None:
        statements = list(statements)
        if any(sql.startswith("INSERT INTO journal") for sql, _ in statements):
            raise StoreError("database or disk is full")
        write(self, statements)

    with trio.fail_after(HANG_GUARD):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.serve)
            assert hall.port is not None
            ada, bob = await _Raw.hello(hall.port, "ada"), await _Raw.hello(hall.port, "bob")
            await ada.send(CreateTable(game="gin", players=2, id=1))
            created = await ada.until(lambda m: isinstance(m, Ok) and m.id == 1)
            assert isinstance(created, Ok) and created.table is not None
            table = created.table
            await ada.send(Join(table=table, seat=0, id=2))
            await ada.until(lambda m: isinstance(m, Ok) and m.id == 2)
            await bob.send(Join(table=table, seat=1, id=2))
            await bob.until(lambda m: isinstance(m, Ok) and m.id == 2)
            await ada.send(Start(table=table, id=3))
            first = await ada.until(lambda m: isinstance(m, Turn))
            await bob.until(lambda m: isinstance(m, Turn))
            assert isinstance(first, Turn)
            mover = (ada, bob)[first.seat]  # (the other hears nothing more before it acts)
            turn = await mover.until(lambda m: isinstance(m, YourTurn))
            assert isinstance(turn, YourTurn)
            told = [len(ada.got), len(bob.got)]
            monkeypatch.setattr(Store, "write", failing_write)
            await mover.send(ActionMessage(table=table, move=turn.move,
                                           action=turn.legal[0], id=4))
            await ada.until_closed()
            await bob.until_closed()
    for client, before in zip((ada, bob), told, strict=True):
        after = client.got[before:]
        assert not any(isinstance(m, EventMessage | YourTurn | Turn) or
                       (isinstance(m, Ok) and m.id == 4) for m in after), after
        last = after[-1]
        assert isinstance(last, ErrorMessage) and last.code == "internal_error" \
            and last.fatal, after
    assert hall.journal is not None and hall.journal.failed is not None
