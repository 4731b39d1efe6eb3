"""The journal's figures (prints figures, asserts nothing).

    python bench/bench_journal.py [--seconds 3] [--tables 100] [--load-seconds 5]
                                  [--games 50000] [--skip-queries]

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
4. History at ``--games`` finished games (each with the journal of a real game): the
   median time of a player's last 100 games, a game by id, a filter that matches
   nothing and the ratings, asked as the server answers the protocol's requests (SQL on
   the query connection, in a worker thread), beside the same reading done the way
   the server did it before (every game read, filtered in Python) and the goal; then the
   journal's append rate (16 tables at once) with and without a client asking those
   queries back to back, in alternating rounds, medians. The machine is shared: only
   medians mean much.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from rummyhall.bots import SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client import open_session
from rummyhall.protocol import GetRecord, ListGamesPlayed, ListRatings, Message, action_to_entry
from rummyhall.rules import new_game, seat_view
from rummyhall.server import Hall, Settings
from rummyhall.server.journal import Journal
from rummyhall.server.names import name_key
from rummyhall.server.store import RATE_SQL, Store, _summary
from rummyhall.server.tokens import digest

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                    messages_per_second=10_000, burst=10_000, log_level="warning",
                    max_tables=10_000, max_tables_per_address=10_000)
ACTION = '{"kind":"discard","seat":0,"card":"Td"}'


async def appends(path: str, seconds: float, writers: int, fsync: bool
                  ) -> tuple[float, float]:
    """(appends per second, commits per second) of ``writers`` tables appending at once."""
    journal = await Journal.open(Settings(data=path, fsync=fsync))
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(journal.run)
            count = await _append_for(journal, seconds, writers)
            nursery.cancel_scope.cancel()
    finally:
        journal.close()
    return count / seconds, journal.commits / seconds


async def _append_for(journal: Journal, seconds: float, writers: int) -> int:
    """Append actions to a new game from ``writers`` tasks for ``seconds``: how many."""
    number = journal._next_game
    journal._next_game += 1
    journal.store.write([("INSERT INTO games (id, table_id, game, options, seating, "
                          "first_dealer, seeded, state, started) VALUES "
                          "(?, 1, 'gin', '{}', '[]', 0, 0, 'playing', 0)", (number,))])
    count = 0
    n = iter(range(10**9))
    end = trio.current_time() + seconds

    async def writer() -> None:
        nonlocal count
        while trio.current_time() < end:
            await journal._submit([("INSERT INTO journal (game, n, action) VALUES (?, ?, ?)",
                                    (number, next(n), ACTION))])
            count += 1

    async with trio.open_nursery() as writers_nursery:
        for _ in range(writers):
            writers_nursery.start_soon(writer)
    return count


# ------------------------------------------------------------------ history at scale

NAMES = 200  # players of the history file; each sits in about 1 game in 70
RUNS = 31  # runs of each query (the median is printed)
PACED = 10  # queries a second of the paced client (a person paging through history fast)


def real_journals(count: int) -> list[list[dict[str, Any]]]:
    """The journals of ``count`` Gin games of two simple bots (one or two hands each)."""
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        game = new_game("gin", {"target_score": 25}, players=2, first_dealer=0)
        bots = [SimpleBot(), SimpleBot()]
        actions = []
        while not game.is_over:
            seat = game.to_move
            action = shuffle_for(game, rng) if seat is None else \
                bots[seat].choose(seat_view(game, seat), game.legal_actions())
            game.apply(action)
            actions.append(action_to_entry(action))
        out.append(actions)
    return out


def history_file(path: str, games: int) -> None:
    """A data file with ``games`` finished games of 2 to 4 of :data:`NAMES` players,
    written as the server writes them (games, game_names, journal, ratings)."""
    store = Store.open(path)
    journals = [[json.dumps(a, separators=(",", ":")) for a in j] for j in real_journals(20)]
    rng = random.Random(1)
    conn = store.conn
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                     [(p, f"player{p}", "person", digest(str(p))) for p in range(1, NAMES + 1)])
    for first in range(1, games + 1, 5000):
        rows, names, actions = [], [], []
        for number in range(first, min(games, first + 4999) + 1):
            seats = rng.sample(range(1, NAMES + 1), rng.randint(2, 4))
            seating = [{"seat": i, "name": f"player{p}", "kind": "person", "player": p}
                       for i, p in enumerate(seats)]
            totals = [rng.randrange(200) for _ in seats]
            rows.append((number, number % 50 + 1, json.dumps(seating), number, number + 60,
                         json.dumps([totals.index(max(totals))]), json.dumps(totals)))
            names += [(name_key(f"player{p}"), number) for p in seats]
            actions += [(number, n, a) for n, a in enumerate(journals[number % 20])]
        conn.executemany(
            "INSERT INTO games (id, table_id, game, options, seating, first_dealer, seeded, "
            "state, started, finished, hands, winners, totals) VALUES "
            "(?, ?, 'gin', '{}', ?, 0, 0, 'finished', ?, ?, '[]', ?, ?)", rows)
        conn.executemany("INSERT INTO game_names (name_key, game) VALUES (?, ?)", names)
        conn.executemany("INSERT INTO journal (game, n, action) VALUES (?, ?, ?)", actions)
    conn.executemany(RATE_SQL, [(f"player:{p}", "gin", p, f"player{p}", 25 + p / 10, 3.0,
                                 16 + p / 10, 300) for p in range(1, NAMES + 1)])
    conn.execute("COMMIT")
    store.close()


def old_games(store: Store, *, limit: int, name: str | None) -> list[dict[str, Any]]:
    """History as the server read it before it asked SQL to filter: every finished game,
    newest first, filtered by name in Python (kept here as the baseline)."""
    rows = store.reader.execute("SELECT * FROM games WHERE 1 AND state = 'finished' "
                                "ORDER BY id DESC").fetchall()
    out = []
    for row in rows:
        summary = _summary(row)
        if name is not None and not any(
                (s["name"] or "").casefold() == name.casefold() for s in summary["seats"]):
            continue
        out.append(summary)
        if len(out) >= limit:
            break
    return out


async def median_ms(call: Callable[[], Awaitable[object]], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def history_figures(path: str, games: int, rounds: int, seconds: float) -> None:
    journal = await Journal.open(Settings(data=path))
    store = Store.open_for_reading(path)
    player = f"player{NAMES // 2}"
    requests: dict[str, Message] = {
        "a player's last 100 games": ListGamesPlayed(limit=100, name=player, id=1),
        "a game by id": GetRecord(number=games // 2, id=2),
        "a filter that matches nothing": ListGamesPlayed(limit=100, name="nobody", id=3),
        "the ratings, best first": ListRatings(game="gin", limit=100, id=4),
    }
    news: dict[str, Callable[[], object]] = {
        "a player's last 100 games": lambda: store.games(limit=100, name=player),
        "a game by id": lambda: store.record(games // 2),
        "a filter that matches nothing": lambda: store.games(limit=100, name="nobody"),
        "the ratings, best first": lambda: store.ratings("gin", limit=100),
    }
    olds: dict[str, Callable[[], object] | None] = {
        "a player's last 100 games": lambda: old_games(store, limit=100, name=player),
        "a game by id": None,  # (the same lookups by key as now)
        "a filter that matches nothing": lambda: old_games(store, limit=100, name="nobody"),
        "the ratings, best first": None,  # (a sort of every rating in memory before)
    }
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(journal.run)
            print(f"history at {games:,} finished games, median ms of {RUNS} runs (the old "
                  f"way: of 5):")
            print(f"  {'':<32} {'SQL now':>8} {'old way':>8} {'request now':>12} "
                  f"{'goal':>6}")
            for what, request in requests.items():
                now = await median_ms(_sync(news[what]), RUNS)
                via = await median_ms(_asking(journal.answer, request), RUNS)
                old_call = olds[what]
                old = (await median_ms(_sync(old_call), 5)) if old_call else None
                print(f"  {what:<32} {now:>8.1f} "
                      f"{f'{old:.1f}' if old is not None else '-':>8} {via:>12.1f} "
                      f"{'< 10':>6}")
            print("  (SQL: the store's query and the decoding of its rows; request: the "
                  "protocol's request answered by the journal, from a worker thread to the "
                  "reply message)")
            paces: dict[str, float | None] = {"without queries": 0.0,
                                              f"{PACED} queries/s": 1 / PACED,
                                              "queries back to back": None}
            figures: dict[str, list[float]] = {what: [] for what in paces}
            asked: dict[str, list[float]] = {what: [] for what in paces}
            for _ in range(rounds):
                for what, pause in paces.items():
                    rate, count = await _appends_while_asking(journal, requests, pause,
                                                              seconds)
                    figures[what].append(rate)
                    asked[what].append(count / seconds)
            base = statistics.median(figures["without queries"])
            print(f"  journal appends, 16 tables at once (medians of {rounds} rounds of "
                  f"{seconds:g} s each), while a client asks those four queries:")
            for what in paces:
                rate = statistics.median(figures[what])
                print(f"    {what:<22} {rate:>9,.0f} appends/s ({rate / base - 1:+.0%}), "
                      f"{statistics.median(asked[what]):>5,.0f} queries/s answered")
            nursery.cancel_scope.cancel()
    finally:
        store.close()
        journal.close()


async def _appends_while_asking(journal: Journal, requests: dict[str, Message],
                                pause: float | None, seconds: float) -> tuple[float, int]:
    """(appends per second, queries answered) with a client asking ``requests`` in turn
    every ``pause`` seconds (None: back to back; 0: no queries at all)."""
    asked = 0

    async def asker() -> None:
        nonlocal asked
        while True:
            for request in requests.values():
                await journal.answer(request)
                asked += 1
                if pause:
                    await trio.sleep(pause)

    async with trio.open_nursery() as nursery:
        if pause != 0.0:
            nursery.start_soon(asker)
        count = await _append_for(journal, seconds, 16)
        nursery.cancel_scope.cancel()
    return count / seconds, asked


def _asking(fn: Callable[[Message], Awaitable[object]], request: Message
                      ) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return await fn(request)
    return call


def _sync(fn: Callable[[], object]) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return fn()
    return call


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
        actions = sum(t.played for t in hall.lobby.tables.values())
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
    parser.add_argument("--games", type=int, default=50_000,
                        help="finished games in the history file (50,000)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of appends with and without queries (5)")
    parser.add_argument("--skip-queries", action="store_true")
    parser.add_argument("--fsync", action="store_true",
                        help="the load bench's server with --fsync (synchronous=FULL)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        if not args.skip_queries:
            path = f"{tmp}/history.sqlite3"
            started = time.perf_counter()
            history_file(path, args.games)
            print(f"(history file of {args.games:,} games written in "
                  f"{time.perf_counter() - started:.0f} s, "
                  f"{Path(path).stat().st_size / 2**20:,.0f} MiB)")
            trio.run(history_figures, path, args.games, args.rounds, 2.0)
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
