"""The tables' alarm clock: one entry per table, woken when its instant comes (no socket)."""

from __future__ import annotations

import math
from typing import cast

import trio
import trio.testing

from rummyhall.server.alarms import COMPACT_AT, Alarms
from rummyhall.server.table import Table


class FakeTable:
    """What the clock reads of a table: its instant, its entry, its inbox (counted)."""

    def __init__(self) -> None:
        self.wake_at = math.inf
        self.alarm_at = math.inf
        self.closed = False
        self.woken: list[float] = []

    def wake_up(self) -> None:
        self.woken.append(trio.current_time())

    def waits_until(self, alarms: Alarms, at: float) -> None:
        """As the run loop does before it waits: its instant, filed."""
        self.wake_at = at
        alarms.set(cast(Table, self), at)


async def test_a_table_is_woken_when_its_instant_comes(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    alarms = Alarms()
    early, late, gone = FakeTable(), FakeTable(), FakeTable()
    async with trio.open_nursery() as nursery:
        await nursery.start(alarms.run)
        late.waits_until(alarms, 5.0)
        early.waits_until(alarms, 2.0)  # earlier than the clock's sleep: it moves
        gone.waits_until(alarms, 3.0)
        gone.closed = True
        await trio.sleep(10)
        nursery.cancel_scope.cancel()
    assert early.woken == [2.0] and late.woken == [5.0] and gone.woken == []
    assert len(alarms) == 0


async def test_an_instant_that_moves_on_costs_no_entry_and_is_kept(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    alarms = Alarms()
    table = FakeTable()
    async with trio.open_nursery() as nursery:
        await nursery.start(alarms.run)
        for n in range(100):  # a turn deadline moving on with each action
            table.waits_until(alarms, 1.0 + n * 0.01)
        assert len(alarms) == 1  # one entry, at the first instant
        await trio.sleep(1.5)  # it came: the table's instant (1.99) had moved on
        assert table.woken == [] and len(alarms) == 1
        await trio.sleep(1.0)
        nursery.cancel_scope.cancel()
    assert table.woken == [1.99]


async def test_a_busy_table_is_not_woken_and_files_again_when_it_waits(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0
    alarms = Alarms()
    table = FakeTable()
    async with trio.open_nursery() as nursery:
        await nursery.start(alarms.run)
        table.waits_until(alarms, 1.0)
        table.wake_at = math.inf  # busy with a command when the entry comes up
        await trio.sleep(2)
        assert table.woken == [] and table.alarm_at == math.inf
        table.waits_until(alarms, 3.0)
        await trio.sleep(2)
        nursery.cancel_scope.cancel()
    assert table.woken == [3.0]


def test_stale_entries_are_swept() -> None:
    alarms = Alarms()
    tables = [FakeTable() for _ in range(10)]
    for n in range(1_000):  # each table files an earlier instant again and again
        tables[n % 10].waits_until(alarms, 10_000.0 - n)
    assert len(alarms) <= 2 * len(tables) + COMPACT_AT
    assert all(t.alarm_at == 10_000.0 - 990 - i for i, t in enumerate(tables))
