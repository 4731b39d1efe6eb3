"""Reconnect-storm bench: clients that reconnect in a loop, next to tables in play (prints,
asserts nothing).

    python bench/bench_reconnect.py [--tls] [--storms 8] [--tables 8] [--seconds 6]

A bot whose error path only reconnects, with no pause, opens connections as fast as the
loopback carries them. For each of two servers, one with the per-address connection rate
off (``--connect-rate 100000``: the server before it had one) and one with its default
limits (``connect_rate`` 20/s after ``connect_burst`` 64), the bench:

1. plays ``--tables`` Gin tables, paced (bench_server.py's ``client play``), for
   ``--seconds``: the baseline;
2. plays them again while ``--storms`` loops, each connecting, saying hello, reading the
   answer and closing, with no pause, from another address (127.0.0.2) than the tables' clients;

and prints the playing tables' latency beside the baseline, the server's CPU per second
during the storm, and what the storm got (tries, welcomes, refusals, closed without a
word). The tables' clients connect once, inside the limits, so the limit never refuses
them. With ``--tls`` every connection is TLS: a refused try then costs no handshake.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import trio
from bench_server import client_context, collect, cpu_seconds, free_port, server_command, spawn

UNLIMITED = ("--connect-rate", "100000", "--connect-burst", "100000")
STORM_ADDRESS = "127.0.0.2"
"""The storm's machine: another loopback address than the tables' clients (127.0.0.1),
as another machine of the LAN would be."""


def frame(message: dict[str, object]) -> bytes:
    body: bytes = msgpack.packb(message)
    return struct.pack(">I", len(body)) + body


async def open_from(port: int, tls: bool) -> trio.abc.Stream:
    """A connection from :data:`STORM_ADDRESS`, over TLS (its handshake done) or not."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=STORM_ADDRESS)
    if not tls:
        return stream
    secure = trio.SSLStream(stream, client_context(), server_hostname="127.0.0.1")
    await secure.do_handshake()
    return secure


async def storm(port: int, loops: int, seconds: float, tls: bool) -> dict[str, int]:
    """``loops`` clients that connect, say hello, read one answer and close, again and
    again with no pause; what they got, counted."""
    counts = {"tries": 0, "welcome": 0, "refused": 0, "closed": 0}
    stop_at = trio.current_time() + seconds

    async def one(n: int) -> None:
        attempt = 0
        while trio.current_time() < stop_at:
            attempt += 1
            counts["tries"] += 1
            try:
                stream = await open_from(port, tls)
            except (OSError, trio.BrokenResourceError):
                counts["closed"] += 1  # (over TLS: closed before the handshake)
                continue
            try:
                await stream.send_all(frame({"type": "hello", "protocol": "rummyhall",
                                             "versions": [1], "name": f"s{n}x{attempt}",
                                             "kind": "bot"}))
                data = b""
                while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
                    chunk = await stream.receive_some(65_536)
                    if not chunk:
                        break
                    data += chunk
                if len(data) < 4:
                    counts["closed"] += 1
                else:
                    answer = msgpack.unpackb(data[4:4 + struct.unpack(">I", data[:4])[0]])
                    counts["welcome" if answer.get("type") == "welcome" else "refused"] += 1
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                counts["closed"] += 1
            finally:
                await trio.aclose_forcefully(stream)

    async with trio.open_nursery() as nursery:
        for n in range(loops):
            nursery.start_soon(one, n)
    return counts


def latency(results: list[dict[str, object]]) -> tuple[int, float, float]:
    lat = sorted(x for r in results for x in r["latencies"])  # type: ignore[attr-defined]
    actions = sum(int(r["actions"]) for r in results)  # type: ignore[call-overload]
    if not lat:
        return actions, float("nan"), float("nan")
    return (actions, lat[len(lat) // 2] * 1000,
            lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000)


def one_server(label: str, limited: bool, args: argparse.Namespace) -> list[str]:
    port = free_port()
    command = server_command(port, tls=args.tls)
    at = command.index("--connect-rate")
    del command[at:at + 4]  # the bench's own: off
    if not limited:
        command += UNLIMITED
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-reconnect-{os.getpid()}"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp)}  # (the self-signed pair, for --tls)
    server = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    assert server.stdout is not None
    server.stdout.readline()
    play = ["client", "play", str(port), "--tables", str(args.tables), "--seconds",
            str(args.seconds), "--rate", str(args.rate), *(["--tls"] if args.tls else [])]
    try:
        base = collect([spawn(*play, "--tag", "a")])
        cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
        storms = subprocess.Popen(
            [sys.executable, str(Path(__file__)), "storm", str(port), str(args.storms),
             str(args.seconds + 1), *(["--tls"] if args.tls else [])],
            stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)  # the storm is on before the tables play
        during = collect([spawn(*play, "--tag", "b")])
        out, _ = storms.communicate(timeout=120)
        cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
        got = json.loads(out.strip().splitlines()[-1])
    finally:
        server.terminate()
        server.wait(timeout=30)
    (n0, p50_0, p99_0), (n1, p50_1, p99_1) = latency(base), latency(during)
    seconds = args.seconds + 1
    return [f"{label}:",
            f"  tables alone       {n0:>7,} actions  p50 {p50_0:6.2f} ms  p99 {p99_0:6.2f} ms",
            f"  during the storm   {n1:>7,} actions  p50 {p50_1:6.2f} ms  p99 {p99_1:6.2f} ms"
            f"  ({p99_1 / p99_0:.1f}x the p99 alone)",
            f"  server CPU during the storm: {cpu * 100:.0f}% of a core",
            f"  the storm: {got['tries'] / seconds:,.0f} tries/s; welcomed "
            f"{got['welcome'] / seconds:,.0f}/s, refused {got['refused'] / seconds:,.0f}/s, "
            f"closed without a word {got['closed'] / seconds:,.0f}/s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tls", action="store_true", help="every connection over TLS")
    parser.add_argument("--storms", type=int, default=8, help="reconnect loops at once")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rate", type=float, default=20.0,
                        help="actions per second of each playing table (paced)")
    args = parser.parse_args()
    print(f"loopback, {os.cpu_count()} cores; {args.tables} Gin tables paced at "
          f"{args.rate:g} actions/s each; {args.storms} reconnect loops with no pause"
          f"{' (TLS)' if args.tls else ''}; {args.seconds:g} s per run; load "
          f"{os.getloadavg()[0]:.1f}")
    for line in (*one_server("connection rate off (before)", False, args),
                 *one_server("default limits (connect_rate 20/s, connect_burst 64)", True,
                             args)):
        print(line)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "storm":
        print(json.dumps(trio.run(storm, int(sys.argv[2]), int(sys.argv[3]),
                                  float(sys.argv[4]), "--tls" in sys.argv[5:])))
    else:
        main()
