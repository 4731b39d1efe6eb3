"""A house bot that searches thinks in a worker thread: the server goes on meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
from players import wait_for

from rummyhall.bots.expert_bot import ExpertBot
from rummyhall.client import open_session
from rummyhall.rules import SeatAction, SeatView
from rummyhall.server import Hall


async def test_an_expert_house_bot_does_not_hold_up_the_server(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    thinking = threading.Event()
    release = threading.Event()
    choose = ExpertBot.choose

    def slow_choose(self: ExpertBot, view: SeatView | None,
                    legal: Sequence[SeatAction]) -> SeatAction:
        thinking.set()
        assert release.wait(timeout=30), "the test never let the bot decide"
        return choose(self, view, legal)

    monkeypatch.setattr(ExpertBot, "choose", slow_choose)
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="host") as host:
        table = await host.create_table("gin", 2, {"target_score": 10})
        await host.add_bot(table, 0, "expert")
        await host.add_bot(table, 1, "simple")
        await host.watch(table)  # (house bots play for someone to see)
        await host.start(table)
        await wait_for(thinking.is_set, timeout=30, poll=0.01)
        # the expert is deciding: the server still answers, other tables can be made
        await host.ping()
        other = await host.create_table("basic", 2)
        assert other in hall.lobby.tables
        release.set()

        def moved_on() -> bool:
            game = hall.lobby.tables[table].game
            return game is not None and game.move_number > 2

        await wait_for(moved_on, timeout=30)


async def test_expert_house_bots_think_one_at_a_time(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """However many tables have an expert house bot, one thinks at a time: the server's
    own thread shares the interpreter with one worker at most."""
    lock = threading.Lock()
    now = [0]
    most = [0]
    choose = ExpertBot.choose

    def counted(self: ExpertBot, view: SeatView | None,
                legal: Sequence[SeatAction]) -> SeatAction:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        try:
            return choose(self, view, legal)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(ExpertBot, "choose", counted)
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="host") as host:
        tables = []
        for _ in range(4):
            table = await host.create_table("gin", 2, {"target_score": 10})
            await host.add_bot(table, 0, "expert")
            await host.add_bot(table, 1, "expert")
            await host.watch(table)
            tables.append(table)
        for table in tables:
            await host.start(table)

        def moved() -> bool:
            return all((g := hall.lobby.tables[t].game) is not None and g.move_number > 6
                       for t in tables)

        await wait_for(moved, timeout=120)
    assert most[0] == 1
