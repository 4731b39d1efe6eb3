"""A ``rummyhall serve`` subprocess on a data file, killed and restarted at will."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import trio
from hang_guard import HANG_GUARD

from rummyhall.protocol import CLIENT, CLOSED, Connection, Hello, Message, TableRemoved, TableUpdate
from rummyhall.server import Hall, Settings

FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                messages_per_second=10_000, burst=10_000, log_level="warning")
"""In-process server settings of the persistence tests (a data file is given per test)."""


@asynccontextmanager
async def serving(data: Path) -> AsyncIterator[Hall]:
    """A server on ``data`` in this trio run, stopped cleanly at the end."""
    hall = Hall(dataclasses.replace(FAST, data=str(data)))
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        yield hall
        hall.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve_command(data: Path | str, port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "rummyhall", "serve", "--host", "127.0.0.1", "--port",
            str(port), "--no-beacon", "--data", str(data), "--house-delay", "0",
            "--hand-pause", "0", "--messages-per-second", "10000", "--burst", "10000",
            "--log-level", "warning", *extra]


class Server:
    """The server process. ``start`` waits until it listens; ``kill`` is SIGKILL.

    Real time: a subprocess runs on the machine's clock, not on a trio MockClock; each
    wait for it is bounded (by HANG_GUARD), and nothing measures how long it took."""

    def __init__(self, data: Path, port: int, *extra: str) -> None:
        self.data, self.port, self.extra = data, port, extra
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        log = Path(str(self.data) + ".log")
        with log.open("ab") as err:
            self.proc = subprocess.Popen(serve_command(self.data, self.port, *self.extra),
                                         stdout=subprocess.PIPE, stderr=err, env=env)
        stdout = self.proc.stdout
        assert stdout is not None
        line = await trio.to_thread.run_sync(stdout.readline)
        if b"listening" not in line:
            self.proc.wait(timeout=HANG_GUARD)
            raise RuntimeError(f"the server did not start: {line!r} {log.read_text()}")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=HANG_GUARD)
            self._close()

    def stop(self) -> int:
        if self.proc is None:
            return 0
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=HANG_GUARD)
        self._close()
        return code

    def _close(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None


def run_serve(data: Path | str, *extra: str, timeout: float = HANG_GUARD,
              preexec_fn: Callable[[], object] | None = None
              ) -> subprocess.CompletedProcess[str]:
    """``rummyhall serve`` expected to refuse to start (its exit code and stderr)."""
    return subprocess.run(serve_command(data, free_port(), *extra), capture_output=True,
                          text=True, timeout=timeout, check=False, preexec_fn=preexec_fn)


async def ask(port: int, request: Message, name: str = "reader") -> Message:
    """Connect, say hello, send one request and return its reply (raw socket)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(CLIENT)
    try:
        with trio.fail_after(HANG_GUARD):
            await stream.send_all(conn.send(Hello(versions=(1,), name=name, kind="bot")))
            await next_message(stream, conn)  # welcome
            await stream.send_all(conn.send(request))
            while True:
                message = await next_message(stream, conn)
                if getattr(message, "id", None) == getattr(request, "id", None) and \
                        not isinstance(message, (TableUpdate, TableRemoved)):
                    return message
    finally:
        await stream.aclose()


async def next_message(stream: trio.SocketStream, conn: Connection) -> Message:
    while True:
        event = conn.next_event()
        if isinstance(event, Message):
            return event
        if event is CLOSED:
            raise EOFError("the server closed the connection")
        conn.receive_data(bytes(await stream.receive_some(65_536)))
