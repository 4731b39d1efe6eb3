"""The flusher: one task that writes every connection's queued messages.

Theory of operation
-------------------
Tables, the lobby and sessions queue messages in outboxes and never write. The first
message queued in an outbox since its last write hands the outbox to the flusher; the
flusher runs once per turn of the event loop (trio runs the tasks woken in one turn in
the next, so it usually comes after the tasks that queued) and writes each waiting
outbox with one non-blocking system call. So the ``ok``, the events and the next
prompts of an action reach each client in one write, the actions of many tables that
ran in one turn share one wake-up of one task, and no connection needs a task of its
own to be woken for every message.

Nothing is written before the journal has committed what it announces: a table stages
its action's rows in the journal and queues its messages at once, and before each round
of writes the flusher settles the journal (:meth:`~.journal.Journal.settle_now`: one
transaction for every action staged since the last round). So an action's ``ok`` and
events reach no client before its row is committed, and the table's task never waits
for a committer task (a commit that must wait, in a worker thread or for a checkpoint,
is awaited here, before any write).

A socket that does not take everything at once keeps the rest; its session's writer
task waits for it to drain (bounded by the send timeout) and takes over that outbox
until then (settling the journal the same way before it takes more). Writing a thousand
lobby updates is a thousand system calls: the flusher lets the tables run every
:data:`CHUNK` writes, and settles again before the next chunk.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING

import trio

from .players import Outbox

if TYPE_CHECKING:
    from .journal import Journal

log = logging.getLogger("rummyhall.flusher")

CHUNK = 64  # outboxes written between two chances for the tables to run


class Flusher:
    """Write the outboxes handed to :meth:`schedule`; run :meth:`run` in a task."""

    def __init__(self) -> None:
        self._ready: list[Outbox] = []
        self._wake = trio.Event()
        #: Settled before each round of writes (None: no data file, nothing to wait for).
        self.journal: Journal | None = None

    def poke(self) -> None:
        """Run a round soon even if nothing is queued (the journal has staged rows)."""
        self._wake.set()

    def schedule(self, outbox: Outbox) -> None:
        """``outbox`` has messages to write: write them in the next round."""
        self._ready.append(outbox)
        if len(self._ready) == 1:
            self._wake.set()  # (an event already set, or that nobody waits on: no matter)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Write outboxes as they are scheduled, :data:`CHUNK` at a time, until cancelled.

        Between two chunks the tables run; what they queue meanwhile is written before the
        rest of a long round (a thousand lobby updates wait, a game's prompt does not).
        """
        task_status.started()
        backlog: deque[Outbox] = deque()
        while True:
            journal = self.journal
            if not self._ready and not backlog and (journal is None or journal.settled):
                self._wake = trio.Event()
                await self._wake.wait()
                continue
            if journal is not None and not journal.settle_now():
                await journal.settle()  # (from its return to the writes below, no wait)
            ready, self._ready = self._ready, []
            backlog.extendleft(reversed(ready))
            for _ in range(min(CHUNK, len(backlog))):
                outbox = backlog.popleft()
                try:
                    outbox.flush()
                except Exception:  # a bug writing one connection must not stop the others
                    log.exception("failed to write an outbox; it is closed")
                    outbox.close()
            if backlog:
                await trio.sleep(0)
