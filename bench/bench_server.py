"""Load bench of the server over loopback (prints figures, asserts nothing).

    python bench/bench_server.py [--tables 16] [--idle 1000] [--seconds 10] [--procs 2] [--tls]

1. Starts ``rummyhall serve`` in its own process, then ``--procs`` client processes.
   Each client process plays ``--tables / --procs`` Gin tables as fast as it can, two
   remote bot clients per table (uniformly random legal moves, on raw msgpack frames:
   the echo clients' framing code, so the figures are the server's), and measures every
   action from send to its ``ok``.
2. Prints the actions per second, p50/p99 latency, the connections held (it also opens
   ``--idle`` idle connections), and the server's resident memory per connection. Every
   table starts its game in the same instant, a burst no real room makes: the latencies
   of the first second (``WARM_UP``) are left out; the rates count every action.
3. Runs the same client pattern against a bare trio msgpack echo server (the floor: the
   cost of sockets, framing and msgpack with no game at all) and prints its rate.
   It plays the same load again with seats that do not contribute to the verifiable
   deals (as a 1.1 client): side by side, what the contributions' round trip costs.
4. Repeats the game load paced at half the peak rate and prints that latency. Each table
   then waits a random think time before each action (exponential, so each table's
   actions are a Poisson process): tables paced by one fixed sleep would act in lockstep
   waves, a load no room of players makes.
5. With ``--tls``: the cost of TLS. A plain server and a ``--tls`` server (its
   self-signed certificate; the clients do not check it: the cost is the same) each get
   the same game load without idle connections, at full speed and paced at one rate
   (half of the plain server's peak), and a series of connections that each make their
   handshake (TCP, then TLS for the TLS server), say hello and close. It prints the rows
   side by side, then the server CPU per action and the time to connect of each.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
import paths
import trio

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 1.0  # seconds of each game run whose latencies are not counted
CONNECTS = 200  # connections made one after the other to time a connection's setup


def client_context() -> ssl.SSLContext:
    """The bench clients' TLS: what ``rummyhall`` clients negotiate, without the check of
    the certificate (a pinned or remembered fingerprint costs a hash per connection)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


async def open_stream(port: int, tls: bool) -> trio.abc.Stream:
    """A connection to the server on ``port``, over TLS (its handshake done) or not."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    if not tls:
        return stream
    secure = trio.SSLStream(stream, client_context(), server_hostname="127.0.0.1")
    await secure.do_handshake()
    return secure


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------- client processes


class LightClient:
    """A minimal bot client on raw msgpack frames: the same framing code as the echo
    clients, so that the bench measures the server, not a client library."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.buffer = b""
        self.ids = 0
        self.sending = trio.Lock()  # a seat's action and the creator's start may overlap
        self.mine: bytes | None = None  # the contribution the server holds a commitment to

    def answer(self, deal_commit: dict[str, object], seat: int) -> dict[str, object]:
        """The contribute that answers a deal_commit (its ok is read and passed over)."""
        listed = deal_commit["commitments"][seat]  # type: ignore[index]
        answer: dict[str, object] = {"type": "contribute", "table": deal_commit["table"],
                                     "commitment": deal_commit["commitment"]}
        if self.mine is not None and listed == hashlib.sha256(self.mine).hexdigest():
            answer["reveal"] = self.mine.hex()
        answer["next"] = self.commit()
        self.ids += 1
        return {**answer, "id": self.ids}

    async def first_commitment(self, table: int, contribute: bool) -> None:
        """Once seated: the commitment to the first deal's contribution (if contributing)."""
        if contribute:
            await self.request({"type": "contribute", "table": table, "next": self.commit()})

    def commit(self) -> str:
        """A fresh contribution; its commitment (verifiable deals)."""
        self.mine = os.urandom(32)
        return hashlib.sha256(self.mine).hexdigest()

    @classmethod
    async def connect(cls, port: int, name: str, tls: bool = False, *, lobby: bool = True
                      ) -> LightClient:
        """Say hello; ``lobby``: False to ask for our own tables' lobby updates only."""
        client = cls(await open_stream(port, tls))
        await client.send({"type": "hello", "protocol": "rummyhall", "versions": [1],
                           "name": name, "kind": "bot"})
        welcome = await client.receive()
        assert welcome["type"] == "welcome", welcome
        if not lobby:
            await client.request({"type": "lobby_updates", "on": False})
        return client

    async def send(self, message: dict[str, object]) -> None:
        body = msgpack.packb(message)
        async with self.sending:
            await self.stream.send_all(struct.pack(">I", len(body)) + body)

    async def request(self, message: dict[str, object]) -> dict[str, object]:
        """Send a request; its ``ok`` (asked again after the wait a ``rate_limited`` told:
        the server paces the tables one address makes)."""
        while True:
            self.ids += 1
            await self.send({**message, "id": self.ids})
            while True:
                reply = await self.receive()
                if reply.get("id") == self.ids and reply["type"] in ("ok", "error"):
                    break
            if reply["type"] == "ok":
                return reply
            assert reply.get("code") == "rate_limited" and not reply.get("fatal"), reply
            await trio.sleep(int(reply["retry_ms"]) / 1000)  # type: ignore[call-overload]

    async def receive(self) -> dict[str, object]:
        while len(self.buffer) < 4 or len(self.buffer) < 4 + struct.unpack(
                ">I", self.buffer[:4])[0]:
            data = await self.stream.receive_some(65_536)
            if not data:
                raise EOFError
            self.buffer += data
        size = struct.unpack(">I", self.buffer[:4])[0]
        value = msgpack.unpackb(self.buffer[4:4 + size], raw=False)
        self.buffer = self.buffer[4 + size:]
        assert isinstance(value, dict)
        return value


async def play_tables(port: int, tables: int, seconds: float, rate: float | None,
                      tag: str, *, tls: bool = False, contribute: bool = True,
                      ready: bool = False, lobby: bool = True) -> dict[str, object]:
    """Play Gin tables for ``seconds``; ``rate`` caps each table's actions per second;
    ``contribute``: each seat contributes to every shuffle (docs/protocol.md, "Verifiable
    deals"), as our client library does; ``ready``: print ``ready`` once every table is
    set up (the clock starts then); ``lobby``: the seats get every table's lobby updates
    (False: only their own table's, as the client library's bots ask)."""
    latencies: list[float] = []
    actions = frames = 0
    stop_at = warm_until = math.inf
    rng = random.Random()
    set_up = 0
    go = trio.Event()

    async def act(client: LightClient, table: int, message: dict[str, object],
                  sent_at: dict[object, float]) -> None:
        if rate:
            # a player's think time: random (a Poisson process per table), so that the
            # tables do not act in lockstep waves; the mean is 1 / rate
            await trio.sleep(rng.expovariate(rate))
        client.ids += 1
        legal = message["legal"]
        assert isinstance(legal, list)
        sent_at[client.ids] = time.perf_counter()
        await client.send({"type": "action", "table": table, "id": client.ids,
                           "move": message["move"], "action": rng.choice(legal)})

    async def seat(client: LightClient, table: int, creator: bool,
                   nursery: trio.Nursery) -> None:
        nonlocal actions, frames
        sent_at: dict[object, float] = {}
        while trio.current_time() < stop_at:
            message = await client.receive()
            frames += 1
            kind = message["type"]
            if kind == "your_turn":
                nursery.start_soon(act, client, table, message, sent_at)
            elif kind == "deal_commit" and contribute:
                nursery.start_soon(client.send, client.answer(message, 0 if creator else 1))
            elif kind in ("ok", "error") and message.get("id") in sent_at:
                latency = time.perf_counter() - sent_at.pop(message["id"])
                if trio.current_time() >= warm_until:
                    latencies.append(latency)
                actions += 1
            elif kind == "event" and creator and \
                    message["event"]["kind"] == "game_over":  # type: ignore[index]
                client.ids += 1
                await client.send({"type": "start", "table": table, "id": client.ids})

    async def table_pair(n: int) -> None:
        a = await LightClient.connect(port, f"{tag}a{n}", tls, lobby=lobby)
        b = await LightClient.connect(port, f"{tag}b{n}", tls, lobby=lobby)
        reply = await a.request({"type": "create_table", "game": "gin", "players": 2,
                                 "options": {"target_score": 50}})
        table = reply["table"]
        assert isinstance(table, int)
        await a.request({"type": "join", "table": table, "seat": 0})
        await b.request({"type": "join", "table": table, "seat": 1})
        await a.first_commitment(table, contribute)
        await b.first_commitment(table, contribute)
        nonlocal set_up
        set_up += 1
        if set_up == tables:
            if ready:
                print("ready", flush=True)
            go.set()
        await go.wait()  # the clock starts once every table is set up
        await a.request({"type": "start", "table": table})
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat, a, table, True, nursery)
            nursery.start_soon(seat, b, table, False, nursery)
        await a.stream.aclose()
        await b.stream.aclose()

    started = 0.0

    async def clock() -> None:
        nonlocal stop_at, started, warm_until
        await go.wait()
        started = time.perf_counter()
        stop_at = trio.current_time() + seconds
        warm_until = trio.current_time() + WARM_UP

    async with trio.open_nursery() as nursery:
        nursery.start_soon(clock)
        for n in range(tables):
            nursery.start_soon(table_pair, n)
    elapsed = time.perf_counter() - started
    return {"actions": actions, "elapsed": elapsed, "latencies": latencies,
            "frames": frames + actions}


async def hold_idle(port: int, count: int, seconds: float, tag: str) -> dict[str, object]:
    """Open ``count`` connections that say hello, then only read what the lobby pushes.

    Each reads what has arrived once a second: the server's writes are the same (the
    kernel holds the bytes meanwhile), but a thousand Python clients waking for every
    lobby update would take the two cores from the server they are meant to load.
    """
    held = 0
    received = 0

    async def idle(n: int) -> None:
        nonlocal held, received
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            body = msgpack.packb({"type": "hello", "protocol": "rummyhall", "versions": [1],
                                  "name": f"{tag}i{n}", "kind": "spectator"})
            await stream.send_all(struct.pack(">I", len(body)) + body)
            held += 1
            with trio.move_on_after(seconds):
                while True:
                    await trio.sleep(1.0)
                    data = await stream.receive_some(1 << 20)
                    if not data:
                        break
                    received += len(data)

    async with trio.open_nursery() as nursery:
        for n in range(count):
            nursery.start_soon(idle, n)
            if n % 50 == 49:
                await trio.sleep(0.05)
    return {"held": held, "received": received}


async def echo_clients(port: int, clients: int, seconds: float) -> dict[str, object]:
    """The echo floor: each client sends an action-sized map and waits for it back."""
    latencies: list[float] = []
    frame_body = msgpack.packb({"type": "action", "table": 1, "move": 17, "id": 99,
                                "action": {"kind": "discard", "card": "Td"}})
    frame = struct.pack(">I", len(frame_body)) + frame_body
    stop_at = trio.current_time() + seconds

    async def client() -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        buffer = b""
        async with stream:
            while trio.current_time() < stop_at:
                began = time.perf_counter()
                await stream.send_all(frame)
                while len(buffer) < 4 or len(buffer) < 4 + struct.unpack(">I", buffer[:4])[0]:
                    buffer += await stream.receive_some(65_536)
                size = struct.unpack(">I", buffer[:4])[0]
                msgpack.unpackb(buffer[4:4 + size])
                buffer = buffer[4 + size:]
                latencies.append(time.perf_counter() - began)

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(clients):
            nursery.start_soon(client)
    return {"actions": len(latencies), "elapsed": time.perf_counter() - started,
            "latencies": latencies, "frames": 2 * len(latencies)}


async def echo_server(port: int) -> None:
    """A bare trio msgpack echo server: framing and msgpack both ways, nothing else."""

    async def handle(stream: trio.SocketStream) -> None:
        buffer = b""
        try:
            while True:
                data = await stream.receive_some(65_536)
                if not data:
                    return
                buffer += data
                while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack(">I",
                                                                             buffer[:4])[0]:
                    size = struct.unpack(">I", buffer[:4])[0]
                    value = msgpack.unpackb(buffer[4:4 + size])
                    buffer = buffer[4 + size:]
                    body = msgpack.packb(value)
                    await stream.send_all(struct.pack(">I", len(body)) + body)
        except trio.BrokenResourceError:
            return

    await trio.serve_tcp(handle, port, host="127.0.0.1")


async def connect_series(port: int, count: int, tls: bool, tag: str) -> dict[str, object]:
    """Connect ``count`` times, one after the other: handshake, hello, welcome, close."""
    times: list[float] = []
    for n in range(count):
        began = time.perf_counter()
        client = await LightClient.connect(port, f"{tag}{n}", tls)
        times.append(time.perf_counter() - began)
        await client.stream.aclose()
    return {"times": times}


def client_main(args: argparse.Namespace) -> None:
    async def main() -> dict[str, object]:
        if args.mode == "play":
            return await play_tables(args.port, args.tables, args.seconds, args.rate, args.tag,
                                     tls=args.tls, contribute=not args.no_contribute,
                                     ready=args.ready, lobby=not args.no_lobby)
        if args.mode == "connect":
            return await connect_series(args.port, args.count, args.tls, args.tag)
        if args.mode == "idle":
            return await hold_idle(args.port, args.count, args.seconds, args.tag)
        return await echo_clients(args.port, args.tables * 2, args.seconds)

    result = trio.run(main)
    print(json.dumps(result))


# ---------------------------------------------------------------- orchestration


def spawn(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(Path(__file__)), *argv],
                            stdout=subprocess.PIPE, text=True)


def collect(procs: list[subprocess.Popen[str]]) -> list[dict[str, object]]:
    results = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def summary(label: str, results: list[dict[str, object]]) -> tuple[float, float]:
    """Print a run's figures; return its round trips and frames (both ways) per second."""
    actions = sum(int(r["actions"]) for r in results)  # type: ignore[call-overload]
    frames = sum(int(r["frames"]) for r in results)  # type: ignore[call-overload]
    elapsed = max(float(r["elapsed"]) for r in results)  # type: ignore[arg-type]
    lat = sorted(x for r in results for x in r["latencies"])  # type: ignore[attr-defined]
    rate = actions / elapsed if elapsed else 0.0
    frame_rate = frames / elapsed if elapsed else 0.0
    if lat:
        p50 = statistics.median(lat) * 1000
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        print(f"  {label:<30} {rate:>8,.0f} requests/s {frame_rate:>8,.0f} frames/s   "
              f"p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    return rate, frame_rate


def start_server(port: int, data: str = ":memory:", journal: bool = True, tls: bool = False,
                 env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The server on ``data`` (the journal's real commit policy on a file), or with
    ``--no-journal`` (no persistence at all); with ``tls``, over TLS (its self-signed
    certificate is made beside ``data``)."""
    server = subprocess.Popen(server_command(port, data, journal, tls), stdout=subprocess.PIPE,
                              env=env)
    assert server.stdout is not None
    server.stdout.readline()
    return server


def server_command(port: int, data: str = ":memory:", journal: bool = True,
                   tls: bool = False, connections: int = 5000, *,
                   tables: int = 0) -> list[str]:
    """The command line of the bench's server (``python -m rummyhall serve ...``); with
    ``tables`` past the default of one address (32), the setting that lets one address
    make them (a setting a baseline tree from before it would not know)."""
    many = ["--max-tables-per-address", str(tables)] if tables > 32 else []
    return [sys.executable, "-m", "rummyhall", "serve", "--host", "127.0.0.1",
               "--data", data, "--journal" if journal else "--no-journal",
               "--port", str(port), "--no-beacon", "--house-delay", "0", "--hand-pause", "0",
               "--messages-per-second", "10000", "--burst", "10000",
               "--max-connections", str(connections), "--max-per-address", str(connections),
               "--connect-rate", "100000", "--connect-burst", str(connections),
               "--max-tables", "500", *many,
               "--log-level", "warning", "--tls" if tls else "--no-tls"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--data", default=None,
                        help="the server's data file (default: a new temporary file)")
    parser.add_argument("--no-journal", action="store_true",
                        help="run the server without persistence (for comparison)")
    parser.add_argument("--tls", action="store_true",
                        help="also measure the cost of TLS: the game load and connections "
                             "against a plain and a --tls server, side by side")
    parser.add_argument("--baseline", default=None, metavar="TREE",
                        help="another source tree of the project (a checkout of main): "
                             "run its server and this tree's in alternating rounds and "
                             "print the medians side by side")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the comparison (with --baseline)")
    parser.add_argument("--quick", action="store_true",
                        help="leave out the run without contributions")
    args = parser.parse_args()
    per = max(1, args.tables // args.procs)
    print(f"loopback, {os.cpu_count()} cores; {args.procs} client processes, "
          f"{per * args.procs} Gin tables ({per * args.procs * 2} playing connections), "
          f"{args.seconds:g} s per run")

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            compare(args, per, tmp)
            return
        figures = run(args, per, port, args.data or os.path.join(tmp, "bench.sqlite3"))
        against_echo(figures, echo(args, per))
        if args.tls:
            tls_cost(args, per, tmp)


def tls_cost(args: argparse.Namespace, per: int, tmp: str) -> None:
    """The same game load and a series of connections, against plain TCP and TLS.

    The server's CPU is counted per action and per frame: the lobby's updates go out on a
    clock (every ``update_interval``), not per action, so a run with fewer actions per
    second has more frames per action, and the CPU per frame compares runs of different
    rates better.
    """
    print(f"  TLS against plain TCP ({per * args.procs} tables, no idle connections; "
          f"{CONNECTS} connections one after the other):")
    paced_rate: float | None = None
    cost: dict[tuple[bool, str], tuple[float, float]] = {}  # (us per action, us per frame)
    connect: dict[bool, list[float]] = {}
    for tls in (False, True):
        label = "TLS" if tls else "plain TCP"
        flag = ["--tls"] if tls else []
        port = free_port()
        server = start_server(port, os.path.join(tmp, f"cost-{label[:3]}.sqlite3"),
                              journal=not args.no_journal, tls=tls)
        try:
            (series,) = collect([spawn("client", "connect", str(port), "--count",
                                       str(CONNECTS), "--tag", "c", *flag)])
            connect[tls] = sorted(series["times"])  # type: ignore[call-overload]
            for run_name in ("full speed", "paced"):
                rate = ["--rate", f"{paced_rate:.3f}"] if run_name == "paced" and \
                    paced_rate is not None else []
                play = [spawn("client", "play", str(port), "--tables", str(per),
                              "--seconds", str(args.seconds), "--tag",
                              f"{run_name[0]}{i}", *rate, *flag)
                        for i in range(args.procs)]
                cpu_before = cpu_seconds(server.pid)
                results = collect(play)
                cpu = cpu_seconds(server.pid) - cpu_before
                actions = sum(int(r["actions"]) for r in results)  # type: ignore[call-overload]
                frames = sum(int(r["frames"]) for r in results)  # type: ignore[call-overload]
                cost[tls, run_name] = (cpu / max(actions, 1) * 1e6,
                                       cpu / max(frames, 1) * 1e6)
                title = run_name if not rate else \
                    f"paced ({float(rate[1]) * per * args.procs:,.0f}/s asked)"
                peak, _ = summary(f"{label}, {title}", results)
                if paced_rate is None and run_name == "full speed":
                    paced_rate = peak / 2 / (per * args.procs)  # the plain half peak, both
        finally:
            server.terminate()
            server.wait(timeout=30)
    for run_name in ("full speed", "paced"):
        (plain_action, plain_frame), (tls_action, tls_frame) = \
            cost[False, run_name], cost[True, run_name]
        print(f"  server CPU, {run_name:<10}: per action plain {plain_action:5.0f} us, TLS "
              f"{tls_action:5.0f} us ({tls_action - plain_action:+.0f} us); per frame plain "
              f"{plain_frame:4.0f} us, TLS {tls_frame:4.0f} us "
              f"({tls_frame - plain_frame:+.0f} us, {tls_frame / plain_frame - 1:+.0%})")
    for tls in (False, True):
        times = connect[tls]
        print(f"  connect + hello + welcome, {'TLS' if tls else 'plain TCP':<9}: "
              f"p50 {statistics.median(times) * 1000:6.2f} ms  "
              f"p99 {times[int(len(times) * 0.99)] * 1000:6.2f} ms")


def run(args: argparse.Namespace, per: int, port: int, data: str,
        env: dict[str, str] | None = None) -> dict[str, float]:
    """The game loads against one server (``env``: its environment, a baseline tree's);
    prints their lines and returns the figures compared with the echo's."""
    print(f"  data: {'none (--no-journal)' if args.no_journal else data}")
    server = start_server(port, data, journal=not args.no_journal, env=env)
    figures: dict[str, float] = {}
    try:
        base = rss_kib(server.pid)
        idle = [spawn("client", "idle", str(port), "--count", str(args.idle // args.procs),
                      "--seconds", str(args.seconds * 2 + 10), "--tag", f"p{i}")
                for i in range(args.procs)]
        time.sleep(min(10.0, 2 + args.idle / 200))
        with_idle = rss_kib(server.pid)
        held = args.idle // args.procs * args.procs
        figures["kib_per_idle"] = (with_idle - base) / max(held, 1)
        print(f"  connections held idle: {held}; server memory {base / 1024:.1f} MiB -> "
              f"{with_idle / 1024:.1f} MiB, {figures['kib_per_idle']:.1f} KiB "
              f"per connection")
        play = [spawn("client", "play", str(port), "--tables", str(per), "--seconds",
                      str(args.seconds), "--tag", f"q{i}") for i in range(args.procs)]
        cpu_before = cpu_seconds(server.pid)
        results = collect(play)
        server_cpu = cpu_seconds(server.pid) - cpu_before
        peak, peak_frames = summary("server, full speed (seats contribute to every deal)",
                                    results)
        done = sum(int(r["actions"]) for r in results)  # type: ignore[call-overload]
        figures.update(peak=peak, peak_frames=peak_frames,
                       cpu_per_action=server_cpu / max(done, 1) * 1e6)
        if not args.quick:
            quiet = [spawn("client", "play", str(port), "--tables", str(per), "--seconds",
                           str(args.seconds), "--tag", f"s{i}", "--no-contribute")
                     for i in range(args.procs)]
            without, _ = summary("server, full speed (no seat contributes: 1.1 clients)",
                                 collect(quiet))
            if without:
                print(f"  contributing / not: {peak / without:.3f} in actions per second "
                      "(the contributions and their oks; the commitments and the reveals "
                      "are paid in both)")
        half = peak / 2 / (per * args.procs)  # per table: one seat acts at a time
        paced = [spawn("client", "play", str(port), "--tables", str(per), "--seconds",
                       str(args.seconds), "--rate", f"{half:.3f}", "--tag", f"r{i}")
                 for i in range(args.procs)]
        paced_results = collect(paced)
        summary("server, paced at half of peak", paced_results)
        figures["p99_paced"] = p99(paced_results) * 1000
        print(f"  connections held during the runs: {held} idle + "
              f"{per * args.procs * 2} playing; peak server memory "
              f"{rss_kib(server.pid) / 1024:.1f} MiB")
        pushed = sum(int(r["received"]) for r in collect(idle))  # type: ignore[call-overload]
        print(f"  the idle connections received {pushed / 2**20:.1f} MiB of lobby updates")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return figures


def p99(results: list[dict[str, object]]) -> float:
    """The 99th percentile of the runs' latencies (seconds; 0 without any)."""
    lat = sorted(x for r in results for x in r["latencies"])  # type: ignore[attr-defined]
    return float(lat[min(len(lat) - 1, int(len(lat) * 0.99))]) if lat else 0.0


def echo(args: argparse.Namespace, per: int) -> dict[str, float]:
    """The bare trio msgpack echo under the same client pattern: its rates and CPU."""
    echo_port = free_port()
    server = subprocess.Popen([sys.executable, str(Path(__file__)), "echo-server",
                               str(echo_port)])
    time.sleep(1.0)
    try:
        clients = [spawn("client", "echo", str(echo_port), "--tables", str(per),
                         "--seconds", str(args.seconds)) for _ in range(args.procs)]
        cpu_before = cpu_seconds(server.pid)
        echo_results = collect(clients)
        echo_cpu = cpu_seconds(server.pid) - cpu_before
        floor, floor_frames = summary("bare trio msgpack echo", echo_results)
        echoed = sum(int(r["actions"]) for r in echo_results)  # type: ignore[call-overload]
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"rate": floor, "frames": floor_frames, "cpu": echo_cpu / max(echoed, 1) * 1e6}


def against_echo(figures: dict[str, float], floor: dict[str, float]) -> None:
    """Print a server's figures as ratios to the echo's."""
    if floor["rate"]:
        print(f"  server / echo: {figures['peak'] / floor['rate']:.2f} in requests, "
              f"{figures['peak_frames'] / floor['frames']:.2f} in frames (each action is "
              f"answered with its ok, its events and the next prompts to both seats)")
    per_action, per_echo = figures["cpu_per_action"], floor["cpu"]
    print(f"  server CPU per action {per_action:.0f} us (one core: "
          f"{1e6 / per_action:,.0f} actions/s); echo CPU per round trip {per_echo:.0f} us "
          f"(one core: {1e6 / per_echo:,.0f}/s); ratio {per_echo / per_action:.2f}")


def baseline_env(tree: str, tmp: str) -> dict[str, str]:
    """The environment that runs ``python -m rummyhall`` from another source tree of the
    project (bench/paths.py's tree of links first on PYTHONPATH)."""
    return {**os.environ, "PYTHONPATH": paths.tree_links(tree, tmp)}


def compare(args: argparse.Namespace, per: int, tmp: str) -> None:
    """``--rounds`` rounds, each: the baseline's server, this tree's, then the echo; the
    medians side by side with the issue's goals."""
    env = baseline_env(args.baseline, tmp)
    rows: dict[str, list[dict[str, float]]] = {"baseline": [], "this tree": []}
    for n in range(args.rounds):
        for label, runs in rows.items():
            print(f"round {n + 1}, {label}:")
            runs.append(run(args, per, free_port(), os.path.join(tmp, f"{label[0]}{n}.sqlite3"),
                            env if label == "baseline" else None))
        floor = echo(args, per)
        for label, runs in rows.items():
            runs[-1]["frames_ratio"] = runs[-1]["peak_frames"] / max(floor["frames"], 1.0)
            runs[-1]["cpu_ratio"] = runs[-1]["cpu_per_action"] / max(floor["cpu"], 1e-9)
            runs[-1]["echo_cpu"] = floor["cpu"]
            print(f"  {label}:", end="")
            against_echo(runs[-1], floor)
    print(f"medians of {args.rounds} rounds ({args.baseline} against this tree):")
    lines = (("actions per second, full speed", "peak", ",.0f", ""),
             ("server CPU per action (us)", "cpu_per_action", ",.0f", ""),
             ("echo CPU per round trip (us)", "echo_cpu", ",.0f", ""),
             ("CPU per action / echo's", "cpu_ratio", ".2f", "at most 3"),
             ("frames per second / echo's", "frames_ratio", ".2f", "at least 0.8"),
             ("p99 at half of peak (ms)", "p99_paced", ".2f", "under 5"),
             ("memory per idle connection (KiB)", "kib_per_idle", ".1f", "under 12"))
    print(f"  {'':<34} {'baseline':>10} {'this tree':>10}   goal")
    for title, key, form, goal in lines:
        before = statistics.median(r[key] for r in rows["baseline"])
        after = statistics.median(r[key] for r in rows["this tree"])
        print(f"  {title:<34} {before:>10{form}} {after:>10{form}}   {goal}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        sub = argparse.ArgumentParser()
        sub.add_argument("mode")
        sub.add_argument("port", type=int)
        sub.add_argument("--tables", type=int, default=1)
        sub.add_argument("--count", type=int, default=0)
        sub.add_argument("--seconds", type=float, default=10)
        sub.add_argument("--rate", type=float, default=None)
        sub.add_argument("--tag", default="c")
        sub.add_argument("--tls", action="store_true")
        sub.add_argument("--no-contribute", action="store_true")
        sub.add_argument("--ready", action="store_true")
        sub.add_argument("--no-lobby", action="store_true")
        client_main(sub.parse_args(sys.argv[2:]))
    elif len(sys.argv) > 1 and sys.argv[1] == "echo-server":
        trio.run(echo_server, int(sys.argv[2]))
    else:
        main()
