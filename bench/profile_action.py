"""Where the server's CPU goes per action, stage by stage (prints figures, asserts nothing).

    python bench/profile_action.py [--tables 16] [--idle 1000] [--seconds 10] [--procs 2]
                                   [--no-journal] [--sample]

It starts the server twice (three times with ``--sample``) on bench/bench_server.py's
full-speed Gin load (the same client processes, the same idle connections), each time in
a fresh process with the journal on a temporary file (the default policy):

1. **plain**: ``rummyhall serve`` as it ships, for the CPU per action with no
   instrumentation at all;
2. **timed**: the same server with a timer around each stage of the action path. Each
   timer charges the time since the last stage change to the stage that was running (an
   exclusive time: a stage's callees that are stages of their own are theirs), so the
   stages add up to the time the server's one thread spent inside them, and the rest of
   the process's CPU is trio's run loop (scheduling, ``epoll``, wake-ups), the garbage
   collector and the threads (the journal's checkpoints).

The stages (server/ unless said):

=============  ======================================================================
read           the session's wait for its socket and its ``recv`` (trio's ``receive_some``
               during the handshake and over TLS)
decode         protocol.Connection: cutting frames, msgpack
validate       the message readers (schema checks, message objects), ``action_from_wire``
route          the session's reader loop, the rate bucket, the lobby handing the
               request to the table's inbox and waiting for it to be handled
table          the table task's own logic (handlers, prompts, deal rounds)
rules          ``Game.apply`` and ``Game.legal_actions`` (rules/; on the compiled build
               their methods cannot be wrapped, and their time counts in "table")
views          per-seat views: ``event_for``, ``seat_view``, their wire forms, the
               legal actions' wire forms
journal        the journal: its statements, the committer, SQLite's ``commit``
encode         messages to bytes: ``Prepared`` (once per distinct view), the
               connection's ``send`` (replies), queueing in the outboxes
write          the flusher and the non-blocking ``send`` to each socket
lobby          the lobby's table updates (every connection, idle ones included)
=============  ======================================================================

3. **sampled** (``--sample``, when ``py-spy`` is installed: ``pip install py-spy``; it is
   never a dependency of Rummy Hall): the plain server once more, sampled from outside
   by ``py-spy record --nonblocking`` (no code in the server changes, so nothing is
   added to what it measures). It prints the server thread's samples by task (the
   tables, the flusher with its socket writes and journal commits, the sessions, the
   lobby's rounds, the clocks, and trio's own loop: scheduling and ``epoll``) and the
   functions with the most samples of their own. py-spy may need the right to trace
   another process (root, or ``kernel.yama.ptrace_scope`` 0).

Each stage is printed in microseconds per action (the server's CPU between the first and
the last second of the load, over the actions the clients saw acknowledged) and as a
share of the timed server's CPU. The timers cost about a microsecond per timed call;
the number of timed calls per action is printed, and the totals of the plain and the
timed server side by side show what the instrumentation adds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

import trio
from bench_server import collect, cpu_seconds, free_port, server_command, spawn

from rummyhall.cli import main as cli_main
from rummyhall.protocol import connection
from rummyhall.rules import game as rules_game
from rummyhall.server import flusher, journal, lobby, players, session, store, table

CLOCK = time.thread_time  # CPU time of the server's one thread: a loaded machine's waits
# (another process on the core, a thread holding the GIL) are nobody's stage
STAGES = ("read", "decode", "validate", "route", "table", "rules", "views", "journal",
          "encode", "write", "lobby")


# ---------------------------------------------------------------- the timers (server side)


class Timers:
    """Exclusive time per stage: a stack of the stages running, charged at each change."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.calls = 0
        self._stack: list[str] = []
        self._since = 0.0

    def enter(self, stage: str) -> None:
        now = CLOCK()
        stack = self._stack
        if stack:
            self.totals[stack[-1]] += now - self._since
        stack.append(stage)
        self._since = now
        self.calls += 1

    def leave(self) -> None:
        now = CLOCK()
        self.totals[self._stack.pop()] += now - self._since
        self._since = now

    def reset(self) -> None:
        self.totals = dict.fromkeys(STAGES, 0.0)
        self.calls = 0


TIMERS = Timers()


def timed(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its time charged to ``stage``."""
    enter, leave = TIMERS.enter, TIMERS.leave

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        enter(stage)
        try:
            return fn(*args, **kwargs)
        finally:
            leave()

    return wrapper


def _drive(coro: Any, stage: str) -> Generator[Any, Any, Any]:
    """Run ``coro`` step by step (as trio would), each step charged to ``stage``."""
    enter, leave = TIMERS.enter, TIMERS.leave
    value: Any = None
    error: BaseException | None = None
    while True:
        enter(stage)
        try:
            yielded = coro.send(value) if error is None else coro.throw(error)
        except StopIteration as stop:
            return stop.value
        finally:
            leave()
        try:
            value, error = (yield yielded), None
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:
            value, error = None, exc


class _Steps:
    def __init__(self, coro: Any, stage: str) -> None:
        self.coro, self.stage = coro, stage

    def __await__(self) -> Generator[Any, Any, Any]:
        return _drive(self.coro, self.stage)


def timed_async(stage: str, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """The coroutine function ``fn`` with the steps of its coroutines charged to ``stage``."""

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return await _Steps(fn(*args, **kwargs), stage)

    return wrapper


def instrument() -> None:
    """Put the timers around every stage of the action path."""
    def sync(cls: Any, stage: str, *names: str) -> None:
        for name in names:
            setattr(cls, name, timed(stage, getattr(cls, name)))

    def asynchronous(cls: Any, stage: str, *names: str) -> None:
        for name in names:
            setattr(cls, name, timed_async(stage, getattr(cls, name)))

    asynchronous(trio.SocketStream, "read", "receive_some")  # (the handshake, TLS)
    asynchronous(session.ServerSession, "read", "_receive")
    sync(connection.Connection, "decode", "receive_data", "next_event")
    for readers in (*connection._PLAIN.values(), *connection._CLOSER.values()):
        for kind, read in readers.items():
            readers[kind] = timed("validate", read)
    asynchronous(session.ServerSession, "route", "_reader")
    asynchronous(lobby.Lobby, "route", "handle")
    asynchronous(table.Table, "table", "_handle_command", "_play", "_advance", "_bot_move",
                 "_contribute", "_on_timer")
    if not hasattr(rules_game.Game, "__mypyc_attrs__"):  # (compiled: its methods are
        sync(rules_game.Game, "rules", "apply", "legal_actions")  # fixed; in "table")
    for name, stage in (("action_from_wire", "validate"), ("event_for", "views"),
                        ("seat_view", "views"), ("event_to_wire", "views"),
                        ("view_to_wire", "views"), ("_legal_wire", "views")):
        setattr(table, name, timed(stage, getattr(table, name)))
    asynchronous(journal.Journal, "journal", "before_broadcast", "_commit", "settle")
    sync(journal.Journal, "journal", "settle_now")
    sync(journal.Journal, "journal", "_table_statements", "table_changed")
    sync(store.Store, "journal", "write")
    sync(players.Prepared, "encode", "__init__")
    sync(players.Outbox, "encode", "put", "offer")
    sync(connection.Connection, "encode", "send")
    asynchronous(flusher.Flusher, "write", "run")
    sync(session.ServerSession, "write", "_flush", "_write_now")
    asynchronous(lobby.Lobby, "lobby", "_send_updates")
    sync(lobby.Lobby, "lobby", "_tell", "_update_of")
    sync(table.Table, "lobby", "info")


def serve_timed(out: str, argv: list[str]) -> int:
    """``rummyhall serve argv`` with the timers; SIGUSR1 starts the count, SIGUSR2 writes
    the totals to ``out`` (JSON)."""
    instrument()
    started = [time.process_time()]

    def start(signum: int, frame: object) -> None:
        TIMERS.reset()
        started[:] = [time.process_time()]

    def dump(signum: int, frame: object) -> None:
        cpu = time.process_time() - started[0]
        Path(out).write_text(json.dumps({"cpu": cpu, "calls": TIMERS.calls,
                                         "stages": TIMERS.totals,
                                         "pair_cost": pair_cost()}))

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, dump)
    return cli_main(["serve", *argv])


def pair_cost() -> float:
    """Seconds one enter and leave of a timer take (its overhead), measured here."""
    timers = Timers()
    timers.enter("read")
    began = CLOCK()
    for _ in range(20_000):
        timers.enter("decode")
        timers.leave()
    return (CLOCK() - began) / 20_000


# ---------------------------------------------------------------- orchestration


def measure(args: argparse.Namespace, tmp: str, label: str, timed_run: bool,
            sampler: str | None = None) -> dict[str, Any]:
    """One server under the load: its CPU per action (and the stages if ``timed_run``;
    py-spy's samples, written to ``<tmp>/<label>.raw``, with ``sampler``)."""
    port = free_port()
    data = os.path.join(tmp, f"{label}.sqlite3")
    serve = server_command(port, data, journal=not args.no_journal)
    out = os.path.join(tmp, f"{label}.json")
    command = [sys.executable, str(Path(__file__)), "serve-timed", out, *serve[4:]] \
        if timed_run else serve
    server = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert server.stdout is not None
    server.stdout.readline()
    per = max(1, args.tables // args.procs)
    try:
        idle = [spawn("client", "idle", str(port), "--count", str(args.idle // args.procs),
                      "--seconds", str(args.seconds + 15), "--tag", f"p{i}")
                for i in range(args.procs)]
        time.sleep(min(10.0, 2 + args.idle / 200))
        play = [spawn("client", "play", str(port), "--tables", str(per), "--seconds",
                      str(args.seconds), "--tag", f"q{i}") for i in range(args.procs)]
        time.sleep(1.0)  # the tables set up and start: counted from the second second
        if timed_run:
            server.send_signal(signal.SIGUSR1)
        spy = None
        if sampler is not None:  # (the middle of the load: it stops a second early)
            spy = subprocess.Popen(
                [sampler, "record", "--nonblocking", "--pid", str(server.pid), "--rate",
                 str(SAMPLE_RATE), "--duration", str(max(1, int(args.seconds) - 2)),
                 "--format", "raw", "--output", os.path.join(tmp, f"{label}.raw")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu_before, began = cpu_seconds(server.pid), time.perf_counter()
        results = collect(play)
        if spy is not None:
            spy.wait(timeout=60)
        cpu = cpu_seconds(server.pid) - cpu_before
        elapsed = time.perf_counter() - began
        if timed_run:
            server.send_signal(signal.SIGUSR2)
            time.sleep(0.5)
        actions = sum(int(str(r["actions"])) for r in results)
        # (the clients count from the start of their tables; the server from a second on)
        longest = max(float(str(r["elapsed"])) for r in results)
        counted = actions * min(1.0, elapsed / longest)
        for proc in idle:
            proc.kill()
            proc.wait()
    finally:
        server.terminate()
        server.wait(timeout=30)
    figures: dict[str, Any] = {"cpu": cpu, "actions": counted, "rate": counted / elapsed}
    if timed_run:
        figures["timed"] = json.loads(Path(out).read_text())
    return figures


def report(plain: dict[str, Any], timed_figures: dict[str, Any]) -> None:
    actions = timed_figures["actions"]
    timed_data = timed_figures["timed"]
    cpu = timed_data["cpu"]
    per_action = cpu / actions * 1e6
    stages = timed_data["stages"]
    print(f"  {'stage':<10} {'us/action':>10} {'share':>7}")
    for stage in STAGES:
        us = stages[stage] / actions * 1e6
        print(f"  {stage:<10} {us:>10.1f} {us / per_action:>7.1%}")
    rest = per_action - sum(stages.values()) / actions * 1e6
    print(f"  {'trio+rest':<10} {rest:>10.1f} {rest / per_action:>7.1%}   (trio's run loop, "
          "epoll, wake-ups, GC, the journal's threads)")
    print(f"  {'total':<10} {per_action:>10.1f} {1:>7.0%}   server CPU per action, timed "
          f"({timed_figures['rate']:,.0f} actions/s)")
    calls = timed_data["calls"] / actions
    print(f"  timers: {calls:.0f} timed calls per action, about "
          f"{calls * timed_data['pair_cost'] * 1e6:.0f} us of the timed total")
    print(f"  plain server (no timers), the same load: "
          f"{plain['cpu'] / plain['actions'] * 1e6:.1f} us per action "
          f"({plain['rate']:,.0f} actions/s)")


# ---------------------------------------------------------------- the sampled pass

SAMPLE_RATE = 250  # samples a second
#: The server thread's tasks, by a frame of their stack (the first found from the root).
TASKS = (
    ("Table.run", "tables (their commands, prompts and events; the rules)"),
    ("Flusher.run", "flusher (journal commits, socket writes)"),
    ("ServerSession.", "sessions (reading, decoding, the hand-over to a table)"),
    ("Lobby._send_updates", "lobby rounds (table updates to every connection)"),
    ("Lobby.", "lobby requests"),
    ("Alarms.run", "alarm clock"),
    ("Hall._watch_idle", "idle watchdog"),
    ("Journal.", "journal (checkpoints)"),
)


def find_sampler() -> str | None:
    """py-spy's program: beside this Python, or on the PATH."""
    here = Path(sys.executable).with_name("py-spy")
    return str(here) if here.exists() else shutil.which("py-spy")


def frame_name(frame: str) -> str:
    """``Function (path/file.py:line)`` without the line and with the path cut short."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rsplit(":", 1)[0]
    marker = "/rummyhall/"
    if marker in where:
        where = where[where.rindex(marker) + 1:]
    elif "site-packages/" in where:
        where = where.split("site-packages/", 1)[1]
    else:
        where = Path(where).name
    return f"{name} ({where})"


def sampled_report(raw: str) -> None:
    """Print the server thread's samples by task and its top functions (own samples)."""
    tasks: dict[str, int] = {}
    own: dict[str, int] = {}
    main_thread = other = 0
    for line in Path(raw).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        n = int(count)
        if any("threading.py" in f for f in frames[:3]):
            other += n  # a worker thread (SQLite's checkpoints, trio's thread cache)
            continue
        main_thread += n
        task = next((label for key, label in TASKS if any(f.startswith(key) for f in frames)),
                    "trio's loop (scheduling, epoll, wake-ups) and the rest")
        tasks[task] = tasks.get(task, 0) + n
        leaf = frame_name(frames[-1])
        own[leaf] = own.get(leaf, 0) + n
    if not main_thread:
        print("  sampled: no samples (is py-spy allowed to trace the server?)")
        return
    print(f"  sampled (py-spy, {SAMPLE_RATE}/s): {main_thread:,} samples of the server "
          f"thread, {other:,} of worker threads")
    for task, n in sorted(tasks.items(), key=lambda kv: -kv[1]):
        print(f"    {n / main_thread:6.1%}  {task}")
    print("  functions with the most samples of their own (the server thread):")
    for leaf, n in sorted(own.items(), key=lambda kv: -kv[1])[:15]:
        print(f"    {n / main_thread:6.1%}  {leaf}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--no-journal", action="store_true")
    parser.add_argument("--sample", action="store_true",
                        help="also sample the plain server with py-spy (if installed)")
    args = parser.parse_args()
    sampler = find_sampler() if args.sample else None
    if args.sample and sampler is None:
        print("--sample: py-spy is not installed (pip install py-spy); no sampled pass")
    print(f"loopback, {os.cpu_count()} cores; {args.tables} Gin tables at full speed, "
          f"{args.idle} idle connections, {args.seconds:g} s; journal "
          f"{'off' if args.no_journal else 'on a file'}")
    with tempfile.TemporaryDirectory() as tmp:
        plain = measure(args, tmp, "plain", False)
        timed_figures = measure(args, tmp, "timed", True)
        report(plain, timed_figures)
        if sampler is not None:
            sampled = measure(args, tmp, "sampled", False, sampler)
            print(f"  sampled server (no timers): "
                  f"{sampled['cpu'] / sampled['actions'] * 1e6:.1f} us per action "
                  f"({sampled['rate']:,.0f} actions/s)")
            sampled_report(os.path.join(tmp, "sampled.raw"))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "serve-timed":
        sys.exit(serve_timed(sys.argv[2], sys.argv[3:]))
    main()
