"""``rummyhall admin ...`` against a real server on 127.0.0.1 with a data file.

The command runs in a worker thread (it has its own trio run), the server in the test's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from fast_settings import FAST
from players import RawClient
from sessions import session_of

from rummyhall.cli import main
from rummyhall.protocol import Error, Hello, Verifier, Welcome
from rummyhall.server import Hall


@asynccontextmanager
async def serving(data: Path, admin_key: str = "", password: str = "") -> AsyncIterator[Hall]:
    hall = Hall(dataclasses.replace(FAST, data=str(data), admin_key=admin_key,
                                    password=password))
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        try:
            yield hall
        finally:
            hall.stop()


async def admin(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``rummyhall admin ARGV``: its status, stdout and stderr."""
    capsys.readouterr()
    status = await trio.to_thread.run_sync(main, ["admin", *argv])
    out, err = capsys.readouterr()
    return status, out, err


async def test_the_admin_commands_drive_a_running_server(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        where = ("--data", str(data), "--port", str(hall.port))
        bob = await RawClient.connect(hall.port or 0)
        await bob.send(Hello(versions=(1,), name="bob", kind="person"))
        welcome = await bob.receive()
        assert isinstance(welcome, Welcome)

        status, out, _ = await admin(capsys, "kick", "bob", "--reason", "be nice", *where)
        assert (status, out) == (0, "kicked bob (seats: wait)\n")
        closing = (await bob.receive_until_closed())[-1]
        assert isinstance(closing, Error) and closing.code == "kicked"

        status, _, err = await admin(capsys, "ban", "ghost", "--minutes", "5", *where)
        assert status == 1 and "no_such_player" in err and err.count("\n") == 1
        status, out, _ = await admin(capsys, "ban", "bob", "--minutes", "5", "--reason",
                                     "cheating", *where)
        assert (status, out) == (0, "banned bob for 300 s\n")
        status, out, _ = await admin(capsys, "bans", *where)
        assert status == 0 and out.startswith("bob  until ") and "cheating" in out
        again = await RawClient.connect(hall.port or 0)
        await again.send(Hello(versions=(1,), name="bob", kind="person",
                               token=session_of(welcome).token))
        assert [m.code for m in await again.receive_until_closed()
                if isinstance(m, Error)] == ["banned"]
        status, out, _ = await admin(capsys, "unban", "bob", *where)
        assert (status, out) == (0, "lifted the bans of bob\n")
        status, out, _ = await admin(capsys, "notice", "closing", "soon", *where)
        assert (status, out) == (0, "notice sent\n")
        status, _, err = await admin(capsys, "close", "4", *where)
        assert status == 1 and "no_such_table" in err
        status, _, err = await admin(capsys, "kick", " bad name", *where)
        assert status == 1 and "name" in err
    # the log reads the data file: the server need not run
    status, out, _ = await admin(capsys, "log", "--data", str(data))
    actions = [line.split(": ", 1)[1].split(" ")[0] for line in out.splitlines()]
    assert status == 0
    # (newest first; each command logs in, its login kept too, the failed ones' included)
    assert actions == ["login", "notice", "login", "unban", "login", "login", "ban",
                       "login", "login", "kick", "login"]
    assert "kick bob (seat wait, reason be nice)" in out
    assert "rummyhall admin" in out.splitlines()[0]
    status, out, _ = await admin(capsys, "log", "--data", str(data), "--limit", "1")
    assert status == 0 and len(out.splitlines()) == 1


async def test_the_admin_commands_say_what_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = await admin(capsys, "notice", "hi", "--data", str(tmp_path / "none"))
    assert status == 1 and "cannot read the admin credential" in err
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        port = hall.port
    status, _, err = await admin(capsys, "notice", "hi", "--data", str(data), "--port",
                                 str(port))
    assert status == 1 and "cannot reach the server" in err
    status, _, err = await admin(capsys, "ban", "--data", str(data))
    assert status == 1 and "give a NAME" in err
    key = tmp_path / "elsewhere.key"  # a server given its admin_key: --admin-key finds it
    async with serving(tmp_path / "other.sqlite3", admin_key=str(key)) as hall:
        status, out, _ = await admin(capsys, "notice", "hi", "--admin-key", str(key),
                                     "--port", str(hall.port))
        assert (status, out) == (0, "notice sent\n")


async def test_the_admin_commands_log_in_to_a_hall_with_a_password(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "hall.sqlite3"
    verifier = Verifier.of("four random words", bytes(16), 1000).text()
    async with serving(data, password=verifier) as hall:
        where = ("--data", str(data), "--port", str(hall.port))
        status, _, err = await admin(capsys, "bans", *where)
        assert status == 1 and "password" in err  # a verifier logs nobody in
        status, _, _ = await admin(capsys, "bans", *where, "--password", "four random words")
        assert status == 0
