"""The journal's figures (prints figures, asserts nothing).

    python bench/bench_journal.py [--seconds 3] [--tables 100] [--load-seconds 5]

1. Journal appends per second with the server's real commit policy (WAL,
   synchronous=NORMAL, a temporary file in the current directory): one action per
   commit (one table, each action waits for its commit) and with group commit (16 tables
   appending at once through the journal's committer, as the server does), and the same
   with ``--fsync`` (synchronous=FULL) for comparison.
2. The time to restore a server holding ``--tables`` unfinished tables (house bots in
   the middle of their games): from the start of ``Hall.serve`` to listening.
3. bench/bench_server.py's load (full-speed Gin tables over loopback) with the journal
   on a file and with ``--no-journal``: the action rate of each and the cut (add
   ``--fsync`` to run the server with it).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from rummyhall.client import open_session
from rummyhall.server import Hall, Settings
from rummyhall.server.journal import Journal

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                    messages_per_second=10_000, burst=10_000, log_level="warning",
                    max_tables=10_000)
ACTION = '{"kind":"discard","seat":0,"card":"Td"}'


async def appends(path: str, seconds: float, writers: int, fsync: bool
                  ) -> tuple[float, float]:
    """(appends per second, commits per second) of ``writers`` tables appending at once."""
    journal = await Journal.open(Settings(data=path, fsync=fsync))
    journal.store.write([("INSERT INTO games (id, table_id, game, options, seating, "
                          "first_dealer, seeded, state, started) VALUES "
                          "(1, 1, 'gin', '{}', '[]', 0, 0, 'playing', 0)", ())])
    count = 0
    n = iter(range(10**9))
    end = trio.current_time() + seconds

    async def writer() -> None:
        nonlocal count
        while trio.current_time() < end:
            await journal._submit([("INSERT INTO journal (game, n, action) VALUES (1, ?, ?)",
                                    (next(n), ACTION))])
            count += 1

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(journal.run)
            async with trio.open_nursery() as writers_nursery:
                for _ in range(writers):
                    writers_nursery.start_soon(writer)
            nursery.cancel_scope.cancel()
    finally:
        journal.close()
    return count / seconds, journal.commits / seconds


async def fill(path: str, tables: int) -> None:
    """A data file with ``tables`` gin tables of two house bots, each mid-game."""
    hall = Hall(dataclasses.replace(SETTINGS, data=path))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(hall.serve)
        async with open_session(port=port, name="host") as s:
            for _ in range(tables):
                t = await s.create_table("gin", 2, options={"target_score": 10_000})
                await s.add_bot(t, 0, "simple")
                await s.add_bot(t, 1, "simple")
                await s.start(t)
            await trio.sleep(1.0)
        hall.stop()


async def restore_time(path: str) -> tuple[float, int, int]:
    hall = Hall(dataclasses.replace(SETTINGS, data=path, house_delay=60.0))
    async with trio.open_nursery() as nursery:
        started = time.perf_counter()
        await nursery.start(hall.serve)
        elapsed = time.perf_counter() - started
        actions = sum(len(t.journal) for t in hall.lobby.tables.values())
        count = len(hall.lobby.tables)
        nursery.cancel_scope.cancel()
    return elapsed, count, actions


def load(seconds: float, journal: bool, data: str, fsync: bool) -> float:
    command = [sys.executable, str(ROOT / "bench" / "bench_server.py"), "--idle", "0",
               "--seconds", str(seconds), "--data", data]
    if not journal:
        command.append("--no-journal")
    if fsync:
        command.append("--fsync")
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    match = re.search(r"server, full speed\s+([\d,]+) requests/s", out)
    assert match, out
    return float(match.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--load-seconds", type=float, default=5.0)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--fsync", action="store_true",
                        help="the load bench's server with --fsync (synchronous=FULL)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        print(f"journal appends, data file in {tmp} ({args.seconds:g} s each):")
        for fsync in (False, True):
            for writers in (1, 16):
                path = f"{tmp}/append-{fsync}-{writers}.sqlite3"
                rate, commits = trio.run(appends, path, args.seconds, writers, fsync)
                policy = "FULL (--fsync)" if fsync else "NORMAL (default)"
                print(f"  synchronous={policy:<17} {writers:>2} tables at once: "
                      f"{rate:>9,.0f} appends/s in {commits:>7,.0f} commits/s")
        path = f"{tmp}/restore.sqlite3"
        trio.run(fill, path, args.tables)
        elapsed, count, actions = trio.run(restore_time, path)
        print(f"restore: {count} unfinished tables ({actions:,} journalled actions) "
              f"in {elapsed * 1000:.0f} ms (open, replay, listen)")
        if not args.skip_load:
            with_journal = load(args.load_seconds, True, f"{tmp}/load.sqlite3", args.fsync)
            without = load(args.load_seconds, False, f"{tmp}/unused.sqlite3", False)
            cut = 1 - with_journal / without if without else 0.0
            print(f"load bench (bench_server.py, {args.load_seconds:g} s): "
                  f"{with_journal:,.0f} actions/s with the journal"
                  f"{' (--fsync)' if args.fsync else ''}, {without:,.0f} without: "
                  f"{cut:+.0%} cut")


if __name__ == "__main__":
    main()
