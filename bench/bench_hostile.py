"""What hostile and buggy clients cost everyone else (prints figures, asserts nothing).

python bench/bench_hostile.py [--seconds 5] [--baseline TREE]

Each attack runs against a fresh ``rummyhall serve`` with its default limits, from
127.0.0.1, while a bystander on another loopback address (127.0.0.2, as another machine
on the LAN would be) pings every 20 ms. For each attack the bench prints the server's
CPU and the bystander's round trips (p50, p99, max), first with no attack at all. The
attacks, each within or near the documented limits (docs/server.md, "Protecting the
host"):

- ``junk flood``: 4 connections send pings carrying 1 KiB of empty maps (the costliest
  bytes to decode) as fast as their sockets take them.
- ``many legal``: 63 connections (one address's most, less one) each send such a ping
  95 times a second, each connection within its own rate.
- ``reconnect``: 20 new connections a second, each spending its fresh bucket on three
  64 KiB frames of tiny maps.
- ``chat flood``: 4 connections say 95 lobby chat lines a second each.
- ``chorus``: 60 connections each say 2 lobby chat lines a second, each within a
  player's chat rate.
- ``trickle``: 32 connections each send a 60 KiB frame one byte per segment, a byte
  every millisecond, each within its rate in frames.

With ``--baseline TREE`` (another checkout of the project) every attack also runs
against that tree's server, and the two are printed side by side.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

import msgpack
from bench_server import baseline_env, cpu_seconds, free_port

VICTIM_ADDRESS = "127.0.0.2"  # the bystander: another "machine" on the loopback network
TIMEOUT = 5.0  # seconds the bystander waits for a pong


def frame(message: dict[str, object]) -> bytes:
    body: bytes = msgpack.packb(message)
    return struct.pack(">I", len(body)) + body


def hello(name: str) -> bytes:
    return frame({"type": "hello", "protocol": "rummyhall", "versions": [1], "name": name,
                  "kind": "bot"})


JUNK_KIB = frame({"type": "ping", "id": 1, "junk": [{}] * 1000})
JUNK_64K = frame({"type": "ping", "id": 1, "junk": [[{}] * 15] * 3990})


def start(port: int, env: dict[str, str] | None) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "rummyhall", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--data", ":memory:", "--no-beacon", "--log-level", "error"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert server.stdout is not None
    server.stdout.readline()  # listening
    return server


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def drain(sock: socket.socket) -> bool:
    """Read what has come (non-blocking); False once the server closed."""
    try:
        while True:
            data = sock.recv(1 << 16, socket.MSG_DONTWAIT)
            if not data:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def victim(port: int, stop: threading.Event, rtts: list[float]) -> None:
    sock = connect(port, VICTIM_ADDRESS)
    sock.sendall(hello("bystander"))
    sock.recv(1 << 16)
    sock.settimeout(TIMEOUT)
    n = 0
    while not stop.is_set():
        began = time.perf_counter()
        sock.sendall(frame({"type": "ping", "id": n}))
        try:
            sock.recv(1 << 16)
        except OSError:  # (no answer in TIMEOUT: counted as that long, and it stops)
            rtts.append(TIMEOUT * 1000)
            break
        rtts.append((time.perf_counter() - began) * 1000)
        n += 1
        time.sleep(0.02)
    sock.close()


def paced(port: int, name: str, data: bytes, rate: float, stop: threading.Event) -> None:
    """One connection sending ``data`` ``rate`` times a second (0: as fast as it can)."""
    sock = connect(port)
    sock.sendall(hello(name))
    began, sent = time.monotonic(), 0
    while not stop.is_set():
        try:
            sock.sendall(data)
        except OSError:
            break
        sent += 1
        if not drain(sock):
            break
        if rate:
            time.sleep(max(0.0, began + sent / rate - time.monotonic()))
    sock.close()


def junk_flood(port: int, stop: threading.Event) -> list[threading.Thread]:
    return [threading.Thread(target=paced, args=(port, f"junk{n}", JUNK_KIB, 0, stop))
            for n in range(4)]


def many_legal(port: int, stop: threading.Event) -> list[threading.Thread]:
    return [threading.Thread(target=paced, args=(port, f"legal{n}", JUNK_KIB, 95, stop))
            for n in range(63)]


def chat_flood(port: int, stop: threading.Event) -> list[threading.Thread]:
    line = frame({"type": "say", "text": "x" * 400, "id": 1})
    return [threading.Thread(target=paced, args=(port, f"chat{n}", line, 95, stop))
            for n in range(4)]


def reconnect(port: int, stop: threading.Event) -> list[threading.Thread]:
    def churn() -> None:
        began, n = time.monotonic(), 0
        while not stop.is_set():
            try:
                sock = connect(port)
                sock.sendall(hello(f"churn{n}") + JUNK_64K * 3)
                sock.close()
            except OSError:
                pass
            n += 1
            time.sleep(max(0.0, began + n / 20 - time.monotonic()))
    return [threading.Thread(target=churn)]


def chorus(port: int, stop: threading.Event) -> list[threading.Thread]:
    line = frame({"type": "say", "text": "x" * 400, "id": 1})
    return [threading.Thread(target=paced, args=(port, f"chorus{n}", line, 2, stop))
            for n in range(60)]


def trickle(port: int, stop: threading.Event) -> list[threading.Thread]:
    def one(n: int) -> None:
        try:
            sock = connect(port)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(hello(f"trickle{n}"))
        except OSError:
            return
        data, i = JUNK_64K, 0
        while not stop.is_set():
            try:
                sock.send(data[i % len(data):i % len(data) + 1])
            except OSError:
                break
            i += 1
            if i % 64 == 0 and not drain(sock):
                break
            time.sleep(0.001)
        sock.close()
    return [threading.Thread(target=one, args=(n,)) for n in range(32)]


def nothing(port: int, stop: threading.Event) -> list[threading.Thread]:
    return []


ATTACKS: dict[str, Callable[[int, threading.Event], list[threading.Thread]]] = {
    "no attack": nothing, "junk flood": junk_flood, "many legal": many_legal,
    "reconnect": reconnect, "chat flood": chat_flood, "chorus": chorus, "trickle": trickle,
}


def measure(attack: str, seconds: float, env: dict[str, str] | None) -> dict[str, float]:
    port = free_port()
    server = start(port, env)
    try:
        stop = threading.Event()
        rtts: list[float] = []
        threads = [*ATTACKS[attack](port, stop),
                   threading.Thread(target=victim, args=(port, stop, rtts))]
        before, began = cpu_seconds(server.pid), time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        cpu = (cpu_seconds(server.pid) - before) / (time.monotonic() - began)
    finally:
        server.terminate()
        server.wait()
    rtts.sort()
    if not rtts:
        rtts = [TIMEOUT * 1000]
    return {"cpu": cpu * 100, "p50": statistics.median(rtts),
            "p99": rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))], "max": rtts[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--baseline", default=None, metavar="TREE",
                        help="another checkout of the project, measured beside this one")
    args = parser.parse_args()
    print(f"loopback, {os.cpu_count()} cores, {args.seconds:g} s an attack; the bystander "
          f"pings every 20 ms from {VICTIM_ADDRESS}")
    with tempfile.TemporaryDirectory() as tmp:
        trees: list[tuple[str, dict[str, str] | None]] = [("this tree", None)]
        if args.baseline:
            trees.insert(0, ("baseline", baseline_env(args.baseline, tmp)))
        print(f"  {'attack':<12} {'tree':<10} {'server CPU':>10} {'ping p50':>9} "
              f"{'p99':>8} {'max':>8}")
        for attack in ATTACKS:
            for label, env in trees:
                row = measure(attack, args.seconds, env)
                print(f"  {attack:<12} {label:<10} {row['cpu']:>9.0f}% {row['p50']:>7.2f}ms "
                      f"{row['p99']:>6.2f}ms {row['max']:>6.1f}ms", flush=True)


if __name__ == "__main__":
    main()
