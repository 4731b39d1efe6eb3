"""Ctrl-C ends every long-running command with one short line and status 130.

Each test starts the command as a terminal would (in its own process group, SIGINT at
its default: the test runner may ignore it), waits until the command shows it is at
work by reading its output, then sends SIGINT to the group, as the terminal's Ctrl-C
does. Every wait is bounded.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

WAIT = 30.0  # seconds: the longest any step may take
RUMMYHALL = [sys.executable, "-m", "rummyhall"]


def _sigint_at_its_default() -> None:
    """(In the child, before exec: Python then turns SIGINT into KeyboardInterrupt.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Command:
    """A command running in its own process group; its output read as it comes.

    ``tty``: its standard input, output and error are one terminal (a pty), as for
    ``play``: then what it writes after the interruption is its "stderr".
    """

    def __init__(self, args: list[str], *, tty: bool = False,
                 program: Sequence[str] = RUMMYHALL) -> None:
        self.master: int | None = None
        stdin: int = subprocess.PIPE  # (kept open: a prompt waits for an answer)
        stdout: int = subprocess.PIPE
        stderr: int = subprocess.PIPE
        if tty:
            self.master, slave = pty.openpty()
            stdin = stdout = stderr = slave
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([*program, *args], stdin=stdin, stdout=stdout,
                                     stderr=stderr, env=env, process_group=0,
                                     # (it only resets a signal: safe beside threads)
                                     preexec_fn=_sigint_at_its_default)  # noqa: PLW1509
        if tty:
            os.close(slave)
        self.out = ""

    def _fd(self) -> int:
        if self.master is not None:
            return self.master
        assert self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def read_until(self, pattern: str) -> re.Match[str]:
        """Read the output until ``pattern`` (a regular expression) shows; its match."""
        end = time.monotonic() + WAIT
        while (found := re.search(pattern, self.out)) is None:
            left = end - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.out!r}"
            ready, _, _ = select.select([self._fd()], [], [], left)
            if ready:
                try:
                    data = os.read(self._fd(), 65_536)
                except OSError:  # (a pty whose other end closed)
                    data = b""
                assert data, f"the command ended before {pattern!r}: {self.out!r}"
                self.out += data.decode(errors="replace")
        return found

    def interrupt(self) -> tuple[int, str]:
        """Ctrl-C: SIGINT to the command's process group; (exit status, stderr)."""
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            if self.master is not None:  # the terminal: what it shows from now on
                seen = len(self.out)
                self.proc.wait(WAIT)
                self._read_to_the_end()
                return self.proc.returncode, self.out[seen:].replace("\r\n", "\n")
            out, err = self.proc.communicate(timeout=WAIT)
            self.out += (out or b"").decode(errors="replace")
        finally:
            self.close()
        return self.proc.returncode, err.decode()

    def _read_to_the_end(self) -> None:
        assert self.master is not None
        while select.select([self.master], [], [], 0)[0]:
            try:
                data = os.read(self.master, 65_536)
            except OSError:  # (the other end closed: all read)
                return
            if not data:
                return
            self.out += data.decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        if self.master is not None:
            os.close(self.master)
            self.master = None


def assert_one_line(err: str, line: str) -> None:
    assert "Traceback" not in err and "Error" not in err, err
    assert err.strip().splitlines() == [line], err


def serve_args(data: Path) -> list[str]:
    return ["serve", "--host", "127.0.0.1", "--port", "0", "--no-beacon", "--data", str(data),
            "--house-delay", "0", "--hand-pause", "0", "--log-level", "warning"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Command, int]]:
    """A ``rummyhall serve`` on a fresh data file: the command and its port."""
    command = Command(serve_args(tmp_path / "hall.sqlite3"))
    try:
        port = int(command.read_until(r"listening on 127\.0\.0\.1:(\d+)")[1])
        yield command, port
    finally:
        command.close()


def test_serve(server: tuple[Command, int]) -> None:
    command, _ = server
    command.read_until(r"Data file: .*hall\.sqlite3")
    code, err = command.interrupt()
    assert code == 130
    assert_one_line(err, "rummyhall serve: interrupted; the server stopped cleanly")


def test_serve_stopped_by_sigterm_is_not_an_interruption(tmp_path: Path) -> None:
    command = Command(serve_args(tmp_path / "hall.sqlite3"))
    try:
        command.read_until("Data file")
        command.proc.terminate()
        _, err = command.proc.communicate(timeout=WAIT)
    finally:
        command.close()
    assert command.proc.returncode == 0
    assert_one_line(err.decode(), "rummyhall serve: stopped")


def test_bot(server: tuple[Command, int]) -> None:
    _, port = server
    bot = Command(["bot", "--server", f"127.0.0.1:{port}", "--games", "1000",
                   "-o", "target_score=1000"])
    try:
        bot.read_until(r"table \d+: hand 1:")  # playing
    finally:
        code, err = bot.interrupt()
    assert code == 130, (err, bot.out)
    assert_one_line(err, "rummyhall bot: interrupted")


def test_selfplay() -> None:
    command = Command(["selfplay", "--games", "10000000"])
    command.read_until("10000000 games of gin")
    code, err = command.interrupt()
    assert code == 130
    assert_one_line(err, "rummyhall selfplay: interrupted")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_arena(jobs: str) -> None:
    """The arena says what its figures cover, and prints them (its workers say nothing)."""
    command = Command(["arena", "--games", "1000000", "--bots", "simple,random", "-j", jobs])
    command.read_until(r"1000000 games \(")  # the head line: at work
    code, err = command.interrupt()
    assert code == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert re.fullmatch(r"rummyhall arena: interrupted; the figures cover the \d+ games "
                        r"played\n", err), err
    assert re.search(r"\d+ games played", command.out)  # the figures of those games
    assert "win rate" in command.out


def test_play_at_its_prompts() -> None:
    """At the prompt for a server (the terminal is a pty: play needs one)."""
    command = Command(["play", "--discover-seconds", "0.1"], tty=True)
    command.read_until(r"Server number or HOST:PORT \[.*\]: ")
    code, err = command.interrupt()
    assert code == 130
    assert_one_line(err, "rummyhall play: interrupted")


ASKING = """
from rummyhall.prompts import ask
for n in range(1, ROUNDS + 1):
    try:
        ask(f"question {n}: ")
    except KeyboardInterrupt:
        print(f"interrupted {n}", flush=True)
"""


def test_a_question_is_interrupted_whenever_ctrl_c_comes() -> None:
    """Ctrl-C as soon as each question shows: input() misses the ones that come before
    its read() blocks (it then waits for a line); the questions of play and replay don't."""
    rounds = 200
    command = Command(["-c", ASKING.replace("ROUNDS", str(rounds))], tty=True,
                      program=[sys.executable])
    try:
        for n in range(1, rounds + 1):
            command.read_until(f"question {n}: ")
            os.killpg(command.proc.pid, signal.SIGINT)
            command.read_until(f"interrupted {n}\r?\n")
        command.proc.wait(WAIT)
    finally:
        command.close()
    assert command.proc.returncode == 0


def test_a_question_reads_one_line_and_a_secret_is_not_echoed() -> None:
    script = ("from rummyhall.prompts import ask\n"
              "print(repr(ask('name: ')), repr(ask('password: ', secret=True)), flush=True)\n"
              "try:\n    ask('more: ')\nexcept EOFError:\n    print('end of input')\n")
    command = Command(["-c", script], tty=True, program=[sys.executable])
    try:
        assert command.master is not None
        command.read_until("name: ")
        os.write(command.master, b"Ann\n")
        command.read_until("password: ")
        seen = len(command.out)
        os.write(command.master, b"s3cret pass\n")
        command.read_until("'Ann' 's3cret pass'")
        assert "s3cret" not in command.out[seen:].split("'Ann'")[0]  # (not echoed)
        command.read_until("more: ")
        os.write(command.master, b"\x04")  # Ctrl-D on an empty line: the end of input
        command.read_until("end of input")
        command.proc.wait(WAIT)
    finally:
        command.close()
    assert command.proc.returncode == 0


def test_replay_at_its_pause(server: tuple[Command, int], tmp_path: Path) -> None:
    command, port = server
    # (to 150: one Gin hand scores less, so the game has a second hand to pause before)
    game = subprocess.run([*RUMMYHALL, "bot", "--server", f"127.0.0.1:{port}", "--quiet",
                           "-o", "target_score=150"], capture_output=True, timeout=WAIT,
                          check=False)
    assert game.returncode == 0, game.stderr.decode()
    command.proc.terminate()
    command.proc.wait(WAIT)
    replay = Command(["replay", "1", "--data", str(tmp_path / "hall.sqlite3")])
    replay.read_until("Enter: next hand")
    code, err = replay.interrupt()
    assert code == 130
    assert_one_line(err, "rummyhall replay: interrupted")


def test_play_checks_the_server_before_asking_for_a_name() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        command = Command(["play", "--server", f"127.0.0.1:{port}"], tty=True)
        try:
            command.proc.wait(WAIT)
            command.read_until(r"cannot reach")
        finally:
            command.close()
    assert command.proc.returncode == 1
    assert "Your name" not in command.out
    assert f"rummyhall play: cannot reach 127.0.0.1:{port}: " in command.out
