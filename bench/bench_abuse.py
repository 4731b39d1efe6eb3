"""Abuse bench: clients that never read, next to tables in play (prints, asserts nothing).

    python bench/bench_abuse.py [--tables 8] [--flooders 16] [--seconds 10]

1. Starts ``rummyhall serve`` with its default limits (rate, burst, output bounds) and
   fills its lobby: a maker holds 248 open six-seat tables, so that the largest reply a
   client can ask for, a page of ``tables``, is as large as it gets.
2. Plays ``--tables`` Gin tables, paced (each table a Poisson process of actions), for
   ``--seconds``, and prints their action latency: the baseline.
3. Plays them again while ``--flooders`` clients, each with a tiny receive buffer, send
   200 ``list_tables`` at once and never read; a flooder the server closes connects
   again and floods again, for the whole run. Prints the playing tables' latency beside
   the baseline, the server's peak memory growth over its size before the flood, and how
   often the flooders were closed.
Goals (issue 14): memory growth under 64 MiB, p99 under 20 ms during the flood.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgpack
import trio
from bench_server import LightClient, collect, free_port, rss_kib, spawn

LOBBY_TABLES = 248
PAGE_REQUESTS = 200


def frame(message: dict[str, object]) -> bytes:
    body: bytes = msgpack.packb(message)
    return struct.pack(">I", len(body)) + body


async def flood(port: int, clients: int, seconds: float) -> dict[str, object]:
    """``clients`` connections that ask for the largest reply again and again and never
    read; each closed one connects again."""
    stop_at = trio.current_time() + seconds
    closed = sent = 0
    request = b"".join(frame({"type": "list_tables", "id": i}) for i in range(PAGE_REQUESTS))

    async def one(n: int) -> None:
        nonlocal closed, sent
        attempt = 0
        while trio.current_time() < stop_at:
            attempt += 1
            sock = trio.socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            try:
                await sock.connect(("127.0.0.1", port))
                stream = trio.SocketStream(sock)
                hello = frame({"type": "hello", "protocol": "rummyhall", "versions": [1],
                               "name": f"flood{n}x{attempt}", "kind": "bot"})
                await stream.send_all(hello)
                with trio.move_on_after(max(0.0, stop_at - trio.current_time())):
                    while True:  # never read: send until the server gives up on us
                        await stream.send_all(request)
                        sent += PAGE_REQUESTS
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                closed += 1
            finally:
                sock.close()
            await trio.sleep(0.05)

    async with trio.open_nursery() as nursery:
        for n in range(clients):
            nursery.start_soon(one, n)
    return {"closed": closed, "sent": sent}


async def fill_lobby(port: int, ready: threading.Event, done: threading.Event) -> None:
    maker = await LightClient.connect(port, "maker" + "m" * 26)
    options = {"target_score": 500, "scoring_mode": "low_score_wins"}
    for _ in range(LOBBY_TABLES):  # (request waits as the server's refusals say)
        await maker.request({"type": "create_table", "game": "basic", "players": 6,
                             "options": options})
    ready.set()
    while not done.is_set():  # the maker stays (its tables stay) and reads its pushes
        with trio.move_on_after(0.2):
            await maker.receive()


def start_server(port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "rummyhall", "serve", "--host", "127.0.0.1",
               "--data", ":memory:", "--port", str(port), "--no-beacon",
               "--house-delay", "0", "--hand-pause", "0", "--log-level", "error",
               "--max-connections", "5000", "--max-per-address", "5000", "--max-tables", "300",
               "--max-tables-per-address", "300", "--connect-rate", "100000",
               "--connect-burst", "5000"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert server.stdout is not None
    server.stdout.readline()
    return server


def latency_line(label: str, results: list[dict[str, object]]) -> float:
    lat = sorted(x for r in results for x in r["latencies"])  # type: ignore[attr-defined]
    actions = sum(int(r["actions"]) for r in results)  # type: ignore[call-overload]
    if not lat:
        print(f"  {label:<34} no actions")
        return float("nan")
    p50 = lat[len(lat) // 2] * 1000
    p99: float = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    print(f"  {label:<34} {actions:>7,} actions  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  "
          f"max {lat[-1] * 1000:7.1f} ms")
    return p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--flooders", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=20.0,
                        help="actions per second of each playing table (paced)")
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    ready, done = threading.Event(), threading.Event()
    maker = threading.Thread(target=trio.run, args=(fill_lobby, port, ready, done),
                             daemon=True)
    maker.start()
    try:
        ready.wait(timeout=120)
        print(f"loopback, {os.cpu_count()} cores; the server's default limits; "
              f"{LOBBY_TABLES} open six-seat tables in the lobby; {args.tables} Gin tables "
              f"paced at {args.rate:g} actions/s each; {args.seconds:g} s per run")
        play = ["client", "play", str(port), "--tables", str(args.tables), "--seconds",
                str(args.seconds), "--rate", str(args.rate)]
        base = collect([spawn(*play, "--tag", "a")])
        before = rss_kib(server.pid)
        peak = before
        flooders = subprocess.Popen(
            [sys.executable, str(Path(__file__)), "flood", str(port),
             str(args.flooders), str(args.seconds + 2)], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)  # the flood is on before the tables play
        players = spawn(*play, "--tag", "b")
        while players.poll() is None:
            peak = max(peak, rss_kib(server.pid))
            time.sleep(0.05)
        during = collect([players])
        out, _ = flooders.communicate(timeout=120)
        flood_result = json.loads(out.strip().splitlines()[-1])
        time.sleep(1.0)
        after = rss_kib(server.pid)
        print("playing tables' action latency:")
        p99_base = latency_line("without the flood (baseline)", base)
        p99_flood = latency_line(f"during the flood ({args.flooders} clients)", during)
        print(f"  p99 during / without: {p99_flood / p99_base:.2f}x  (goal: under 20 ms)")
        print(f"server memory: {before / 1024:.1f} MiB before the flood, peak "
              f"{peak / 1024:.1f} MiB (+{(peak - before) / 1024:.1f} MiB; goal: under "
              f"+64 MiB), {after / 1024:.1f} MiB after it")
        print(f"flooders: {flood_result['sent']:,} list_tables sent, closed by the server "
              f"{flood_result['closed']} times")
    finally:
        done.set()
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "flood":
        result = trio.run(flood, int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        print(json.dumps(result))
    else:
        main()
