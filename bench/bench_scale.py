"""How the server's CPU per action and memory grow with playing tables and idle
connections (prints figures, asserts nothing).

    python bench/bench_scale.py [--seconds 5] [--procs 2] [--tables 1,16,128,512]
                                [--idle 100,1000,5000] [--idle-tables 16] [--rate 2]

Each row is a fresh server (the journal on a temporary file, its default policy) under
bench/bench_server.py's client processes:

1. **Playing tables.** ``--tables`` Gin tables (two remote bots each, which ask for their
   own table's lobby updates only, as the client library's bots do; no idle
   connection), each acting ``--rate`` times a second on average (a random think time
   before each action: the tables do not act in step). Printed: the actions per second
   (the load grows with the tables), the server's CPU per action, the same less what the
   server spends idle (its clocks: the marginal cost of an action), its share of a
   core, the latency from an action to its ``ok`` (p50, p99) and the server's memory
   per table (its resident memory once the tables play, less the memory before they
   were made). One server holds at most 500 tables (``max_tables``): a row asking for
   more plays 500 and says so.
2. **Idle connections.** ``--idle`` spectator connections that only read what the lobby
   pushes, held while ``--idle-tables`` tables play at that pace: the memory per idle
   connection, the server's CPU per action with them (every table change is a lobby
   update written to each of them) and the lobby's bytes pushed.

A line, not a cliff: the CPU per action should stay flat as the rows grow, the latency
stay low until the one core the server runs on is full, and the memory per table and per
connection stay constant. (At full speed two Python client processes cannot keep 500
tables busy on two cores: the pace keeps the clients light, so that the server is what
is measured.) The connections each row needs must fit the open-file limit
(``ulimit -n``) of this process and the server's (both raise their soft limit to the
hard one): a row that does not fit is left out, and the bench says why. Every run is
bounded by ``--seconds`` (and a setup of a few seconds).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import time

from bench_server import collect, cpu_seconds, free_port, rss_kib, server_command, spawn

MAX_TABLES = 500  # the most tables one server holds (the max_tables setting's ceiling)
SPARE_FILES = 100  # descriptors a process needs besides its connections


def file_limit() -> int:
    """This process's open-file limit, raised to the hard limit (what a child inherits)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def start(connections: int, tmp: str, label: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = server_command(port, os.path.join(tmp, f"{label}.sqlite3"),
                             connections=connections + 16, tables=MAX_TABLES)
    server = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert server.stdout is not None
    server.stdout.readline()
    return server, port


def stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    server.wait(timeout=60)


def play(server: subprocess.Popen[bytes], port: int, tables: int, args: argparse.Namespace,
         tag: str) -> tuple[list[dict[str, object]], float, float]:
    """``tables`` tables for ``--seconds``, each at ``--rate`` actions per second (a
    random think time before each action), over the client processes. Returns their
    results, and the server's CPU seconds and the wall seconds from the moment every table
    was set up (a table's setup, its joins and its commitments, is not an action)."""
    procs = min(args.procs, tables)
    shares = [tables // procs + (i < tables % procs) for i in range(procs)]
    clients = [spawn("client", "play", str(port), "--tables", str(share), "--seconds",
                     str(args.seconds), "--tag", f"{tag}{i}", "--rate", str(args.rate),
                     "--ready", "--no-lobby") for i, share in enumerate(shares)]
    for client in clients:
        assert client.stdout is not None
        client.stdout.readline()  # "ready"
    cpu_before, began = cpu_seconds(server.pid), time.perf_counter()
    results = collect(clients)
    return results, cpu_seconds(server.pid) - cpu_before, time.perf_counter() - began


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_for_connections(server: subprocess.Popen[bytes], before: int, count: int,
                         seconds: float) -> int:
    """Wait until the server holds ``count`` more open files than ``before``, or their
    number has not grown for 3 s, or ``seconds`` have passed; the connections it holds
    then (its open files less ``before``)."""
    deadline = time.monotonic() + seconds
    held, grew = 0, time.monotonic()
    while time.monotonic() < deadline and held < count and time.monotonic() - grew < 3:
        time.sleep(0.2)
        now = open_files(server.pid) - before
        if now > held:
            held, grew = now, time.monotonic()
    time.sleep(1.0)  # (their hellos answered, their first lobby updates written)
    return open_files(server.pid) - before


def idle_rate(server: subprocess.Popen[bytes], seconds: float = 2.0) -> float:
    """The server's CPU seconds per second with nothing to do (its clocks: the idle
    watchdog, the journal's checkpoints): what the marginal CPU per action leaves out."""
    before = cpu_seconds(server.pid)
    time.sleep(seconds)
    return (cpu_seconds(server.pid) - before) / seconds


def latencies(results: list[dict[str, object]]) -> tuple[float, float]:
    lat = sorted(x for r in results for x in r["latencies"])  # type: ignore[attr-defined]
    if not lat:
        return 0.0, 0.0
    return lat[len(lat) // 2] * 1000, lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000


def table_rows(args: argparse.Namespace, tmp: str, limit: int) -> None:
    print(f"  {'tables':>7} {'actions/s':>10} {'CPU/action':>11} {'marginal':>9} "
          f"{'core':>5} {'p50':>8} {'p99':>8} {'KiB/table':>10}")
    for asked in args.tables:
        tables = min(asked, MAX_TABLES)
        if 2 * tables + SPARE_FILES > limit:
            print(f"  {asked:>7}  left out: {2 * tables} connections need more than the "
                  f"open-file limit of {limit} (ulimit -n)")
            continue
        server, port = start(2 * tables, tmp, f"t{tables}")
        try:
            base = rss_kib(server.pid)
            idle_cpu = idle_rate(server)
            results, cpu, wall = play(server, port, tables, args, f"t{tables}_")
            grown = rss_kib(server.pid) - base
        finally:
            stop(server)
        actions = max(1, sum(int(r["actions"]) for r in results))  # type: ignore[call-overload]
        p50, p99 = latencies(results)
        note = f"  ({asked} asked: one server holds {MAX_TABLES})" if asked > tables else ""
        print(f"  {tables:>7} {actions / args.seconds:>10,.0f} {cpu / actions * 1e6:>8.0f} us"
              f" {(cpu - idle_cpu * wall) / actions * 1e6:>6.0f} us {cpu / wall:>5.0%}"
              f" {p50:>5.1f} ms {p99:>5.0f} ms {grown / tables:>10.1f}{note}")


def idle_rows(args: argparse.Namespace, tmp: str, limit: int) -> None:
    print(f"  {'idle':>7} {'KiB/conn':>9} {'actions/s':>10} {'CPU/action':>11} "
          f"{'core':>5} {'lobby MiB':>10}   ({args.idle_tables} tables playing)")
    for count in args.idle:
        per_proc = count // args.procs
        need = max(count + 2 * args.idle_tables, per_proc + 2 * args.idle_tables) \
            + SPARE_FILES
        if need > limit:
            print(f"  {count:>7}  left out: needs {need} open files, more than the limit "
                  f"of {limit} (ulimit -n)")
            continue
        server, port = start(count + 2 * args.idle_tables, tmp, f"i{count}")
        try:
            base, files = rss_kib(server.pid), open_files(server.pid)
            # (the idle clients open 50 connections every 0.05 s: wait for them all; they
            # hold them through the play, and a little longer)
            setup = 10 + count / 100  # (at most: a loaded machine admits them slowly)
            idle = [spawn("client", "idle", str(port), "--count", str(per_proc),
                          "--seconds", f"{setup + args.seconds + 3:.1f}", "--tag",
                          f"i{count}_{i}") for i in range(args.procs)]
            connected = wait_for_connections(server, files, per_proc * args.procs, setup)
            held = rss_kib(server.pid)
            results, cpu, wall = play(server, port, args.idle_tables, args, f"p{count}_")
            pushed = sum(int(r["received"]) for r in collect(idle))  # type: ignore[call-overload]
        finally:
            stop(server)
        actions = max(1, sum(int(r["actions"]) for r in results))  # type: ignore[call-overload]
        print(f"  {connected:>7} {(held - base) / max(connected, 1):>9.1f} "
              f"{actions / args.seconds:>10,.0f} {cpu / actions * 1e6:>8.0f} us "
              f"{cpu / wall:>5.0%} {pushed / 2**20:>10.1f}")


def numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--tables", type=numbers, default=[1, 16, 128, 512])
    parser.add_argument("--idle", type=numbers, default=[100, 1000, 5000])
    parser.add_argument("--idle-tables", type=int, default=16)
    parser.add_argument("--rate", type=float, default=2.0,
                        help="actions per second of each table (a quick player's pace)")
    args = parser.parse_args()
    limit = file_limit()
    print(f"loopback, {os.cpu_count()} cores, open-file limit {limit}; {args.procs} client "
          f"processes, {args.seconds:g} s per row; journal on a file")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"playing tables (Gin, {args.rate:g} actions/s each, no idle connection):")
        table_rows(args, tmp, limit)
        print("idle connections:")
        idle_rows(args, tmp, limit)


if __name__ == "__main__":
    main()
