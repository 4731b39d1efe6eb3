"""The tables' alarm clock: one task that wakes each table whose next timer is due.

Theory of operation
-------------------
A table's timers (the turn's deadline, a house bot's move, an absent player's grace, the
pause between hands, a shuffle's contribution window) come down to one instant, the
earliest, which its run loop works out before it waits for its next command. A cancel
scope with that deadline around each wait would cost every command a scope set up and
torn down (10 to 20 µs of trio's bookkeeping, a share of every action); instead the table
files the instant here (:meth:`Alarms.set`) and waits on its inbox alone.

The clock keeps at most one live entry per table in a heap: the earliest instant the
table filed since its entry was made. A later instant (a turn's deadline moving on with
each action, the usual case) changes nothing; when the entry comes due the clock looks
at the table's instant as it is *then* (:attr:`~.table.Table.wake_at`) and files the table
again if its instant has moved on, or puts a wake-up in its inbox if it has come (without
waiting: a table whose inbox is full is busy, and looks at its timers between commands
anyway). So a table that plays costs the clock one entry per turn timer, not one per
action. An entry made stale by an earlier one is dropped when it comes up, and the heap is
rebuilt from the live entries once the stale ones outnumber them: its size stays bounded
by the number of tables.

The clock task sleeps until the heap's first entry, in a cancel scope whose deadline is
moved when an earlier entry comes.
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from .table import Table

COMPACT_AT = 64  # stale entries are swept once the heap holds this many more than 2 per table


class Alarms:
    """Wake tables when their timers are due; run :meth:`run` in a task."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Table]] = []
        self._filed = 0  # entries made (their order in the heap among equal instants)
        self._live = 0  # entries that are their table's current one
        self._scope = trio.CancelScope()  # the clock task's sleep

    def __len__(self) -> int:
        """Entries in the heap, stale ones included."""
        return len(self._heap)

    def set(self, table: Table, at: float) -> None:
        """``table`` wants to be woken at ``at`` (its earliest timer), at the latest."""
        if at >= table.alarm_at:
            return  # its entry comes first: the clock looks again then
        if table.alarm_at == math.inf:
            self._live += 1
        table.alarm_at = at
        self._filed += 1
        heapq.heappush(self._heap, (at, self._filed, table))
        self._scope.deadline = min(self._scope.deadline, at)
        if len(self._heap) > 2 * self._live + COMPACT_AT:
            self._heap = [e for e in self._heap if e[2].alarm_at == e[0]]
            heapq.heapify(self._heap)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Ring the tables' alarms as they come due, until cancelled."""
        task_status.started()
        while True:
            with self._scope:
                await trio.sleep_forever()
            self._scope = trio.CancelScope(deadline=self._ring(trio.current_time()))

    def _ring(self, now: float) -> float:
        """Handle the entries due at ``now``; the instant of the next one."""
        while self._heap and self._heap[0][0] <= now:  # (set may rebuild the heap)
            at, _, table = heapq.heappop(self._heap)
            if table.alarm_at != at:
                continue  # stale: the table filed an earlier instant since
            table.alarm_at = math.inf
            self._live -= 1
            if table.closed:
                continue
            if table.wake_at <= now:
                table.wake_up()
            else:
                self.set(table, table.wake_at)  # its instant moved on: filed again
        return self._heap[0][0] if self._heap else math.inf
