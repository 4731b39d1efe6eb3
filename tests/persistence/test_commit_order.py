"""Commit before broadcast: no event leaves the server before its action is committed.

Every message the server queues for any connection passes ``Player.send``; every commit
passes the journal's ``Store.write``. The test watches both while players, a house bot
and the turn timer play whole games: whenever an event is queued, every action its
table has applied (the one that caused the event included) is already in a committed
transaction.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import FAST

from rummyhall.bots import make_strategy
from rummyhall.client import open_session
from rummyhall.client.session import Session
from rummyhall.protocol import EventMessage, Message
from rummyhall.server import Hall
from rummyhall.server.players import Player, Prepared
from rummyhall.server.store import Statement, Store


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


async def test_no_event_is_sent_before_its_action_is_committed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hall = Hall(dataclasses.replace(FAST, data=str(tmp_path / "hall.sqlite3")))
    committed: Counter[int] = Counter()  # game number -> journal rows committed
    checked: list[int] = []
    early: list[str] = []  # (recorded, not raised: the server would take it for a bug)
    write = Store.write

    def counting_write(self: Store, statements: Iterable[Statement]) -> None:
        statements = list(statements)
        write(self, statements)  # (raises, and counts nothing, if the commit fails)
        for sql, params in statements:
            if sql.startswith("INSERT INTO journal"):
                committed[params[0]] += 1

    send = Player.send

    def checking_send(self: Player, message: Any) -> bool:
        messages: tuple[Message, ...] = message.messages if isinstance(message, Prepared) \
            else (message,)
        for m in messages:
            if isinstance(m, EventMessage):
                table = hall.lobby.tables[m.table]
                assert hall.journal is not None
                number = hall.journal._game_of.get(table.id, 0)  # (0: not started yet)
                if committed[number] != len(table.journal):
                    early.append(f"event {m.seq} of table {m.table} queued with "
                                 f"{len(table.journal)} actions applied and "
                                 f"{committed[number]} committed")
                checked.append(m.seq)
        return send(self, message)

    monkeypatch.setattr(Store, "write", counting_write)
    monkeypatch.setattr(Player, "send", checking_send)
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
        hall.stop()
    assert not early, early[:5]
    assert len(checked) > 100 and sum(committed.values()) > 50
