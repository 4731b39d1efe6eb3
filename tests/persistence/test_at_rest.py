"""What the data file holds and who may read it: token digests only, owner-only modes,
no stale files; the data file's path at start; one server per file."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import Server, free_port, run_serve, serving
from sessions import session_of

from rummyhall.cli import main
from rummyhall.client import open_session
from rummyhall.server.journal import replay
from rummyhall.server.store import (
    APPLICATION_ID,
    LOCK_SUFFIX,
    MIGRATIONS,
    SCHEMA_VERSION,
    Store,
    StoreError,
)
from rummyhall.server.tokens import digest

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def _files(data: Path) -> dict[str, bytes]:
    """The data file and whatever SQLite keeps beside it, by suffix."""
    return {suffix: Path(str(data) + suffix).read_bytes()
            for suffix in ("", "-wal", "-shm") if Path(str(data) + suffix).exists()}


def _holds(content: bytes, token: str) -> bool:
    """The token in any form a file could hold it: its hex text (any case) or its bytes."""
    return any(form in content for form in (token.encode(), token.upper().encode(),
                                            bytes.fromhex(token)))


async def test_the_data_file_its_wal_and_backups_hold_only_token_digests(tmp_path: Path
                                                                          ) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None and hall.journal is not None
        async with open_session(port=hall.port, name="ada") as ada:
            table = await ada.create_table("gin", 2)
            await ada.join(table, 0)
            await ada.add_bot(table, 1, "simple")
            await ada.start(table)  # a game: its seats, players and actions are written
            await hall.journal.flush()
            token, player = ada.token, ada.player_id
            assert token is not None and player is not None
            running = _files(data)
            assert "-wal" in running  # (the server checkpoints in the background)
            reader = Store.open_for_reading(str(data))
            try:
                reader.backup(str(tmp_path / "copy.sqlite3"))
            finally:
                reader.close()
            backup = (tmp_path / "copy.sqlite3").read_bytes()
            for name, content in [*running.items(), ("backup", backup)]:
                assert not _holds(content, token), name
            assert digest(token).encode() in b"".join(running.values())
            assert digest(token).encode() in backup
    # after the restart the token still resumes its player
    async with serving(data) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name="ada", token=token) as ada:
            assert ada.welcome is not None and session_of(ada.welcome).resumed
            assert ada.player_id == player
    for content in _files(data).values():
        assert not _holds(content, token)


def _version_2_file(path: Path, tokens: list[str]) -> Path:
    """A data file of schema version 2 (plain tokens, as older servers wrote them), with
    its last commits still in the WAL as a killed server leaves them: a copy of the file
    pair taken while its connection is open."""
    scratch = path.parent / "writing"
    scratch.mkdir()
    conn = sqlite3.connect(scratch / path.name, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for step in (1, 2):
        script = MIGRATIONS[step]
        assert isinstance(script, str)
        conn.executescript(script)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 2")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    for n, token in enumerate(tokens, 1):
        conn.execute("INSERT INTO players VALUES (?, ?, 'person', ?)", (n, f"p{n}", token))
    conn.execute("INSERT INTO tables VALUES (1, 'gin', '{}', 1, 60, 120, 0, 'waiting', "
                 "'[{\"player\": 1, \"house\": null, \"left\": false}, "
                 "{\"player\": null, \"house\": null, \"left\": false}]', NULL)")
    conn.execute("INSERT INTO ratings VALUES ('p1', 'gin', 'p1', 30.0, 7.0, 3)")
    for suffix in ("", "-wal"):
        shutil.copy(str(scratch / path.name) + suffix, str(path) + suffix)
    conn.close()
    assert _holds(path.read_bytes() + Path(str(path) + "-wal").read_bytes(), tokens[0])
    return path


async def test_a_version_2_file_has_its_plain_tokens_replaced_by_digests(tmp_path: Path
                                                                         ) -> None:
    tokens = [os.urandom(16).hex() for _ in range(50)]
    data = _version_2_file(tmp_path / "old.sqlite3", tokens)
    store = Store.open(str(data))
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        rows = store.reader.execute("SELECT id, token_digest FROM players ORDER BY id")
        assert [tuple(r) for r in rows] == [(n, digest(t)) for n, t in enumerate(tokens, 1)]
        for content in _files(data).values():  # not left in free space or the old WAL
            assert not any(_holds(content, t) for t in tokens)
    finally:
        store.close()
    for content in _files(data).values():
        assert not any(_holds(content, t) for t in tokens)
    async with serving(data) as hall:  # the old token still resumes its player
        assert hall.port is not None
        async with open_session(port=hall.port, name="p1", token=tokens[0]) as p1:
            assert p1.welcome is not None and session_of(p1.welcome).resumed
            assert p1.player_id == 1
            with trio.fail_after(HANG_GUARD):
                while 1 not in p1.tables:
                    await p1.next_update()


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@POSIX
def test_files_and_directories_are_the_owners_only(tmp_path: Path) -> None:
    """With the usual umask (022, which would give 0644 and 0755), a new data file, its
    WAL, shared memory, lock and backups are 0600, in directories created 0700; a
    directory that was there keeps its mode."""
    tmp_path.chmod(0o755)
    data = tmp_path / "new" / "rummyhall" / "hall.sqlite3"
    with umask(0o022):
        store = Store.open(str(data), autocheckpoint=False, exclusive=True)
        try:
            store.write([("INSERT INTO players (id, name, kind, token_digest) "
                          "VALUES (1, 'ada', 'person', ?)", (digest("0" * 32),))])
            assert store.reader.execute("SELECT count(*) FROM players").fetchone()[0] == 1
            for suffix in ("", "-wal", "-shm", LOCK_SUFFIX):
                assert _mode(str(data) + suffix) == 0o600, suffix
            assert _mode(data.parent) == 0o700 and _mode(data.parent.parent) == 0o700
            assert _mode(tmp_path) == 0o755
            store.backup(str(tmp_path / "copy.sqlite3"))
            assert _mode(tmp_path / "copy.sqlite3") == 0o600
            with pytest.raises(StoreError, match="exists"):  # never over another file
                store.backup(str(tmp_path / "copy.sqlite3"))
        finally:
            store.close()
    # a clean close leaves the data file alone: no WAL, no shared memory, no lock file
    assert sorted(p.name for p in data.parent.iterdir()) == ["hall.sqlite3"]


async def test_a_killed_server_leaves_nothing_that_stops_the_next_start(tmp_path: Path
                                                                        ) -> None:
    """The lock is the kernel's (released when the process dies), not a file's existence;
    serve prints the data file's path; a clean stop leaves no stale file."""
    data = tmp_path / "hall.sqlite3"
    server = Server(data, free_port())
    await server.start()
    try:
        assert server.proc is not None and server.proc.stdout is not None
        lines = [await trio.to_thread.run_sync(server.proc.stdout.readline)
                 for _ in range(2)]
        assert lines[1].decode().strip() == f"Data file: {data}"
        refused = run_serve(data)
        assert refused.returncode == 1
        assert f"in use by another rummyhall server (process {server.proc.pid})" in \
            refused.stderr
        assert refused.stderr.count("\n") == 1  # one line
        server.kill()
        assert Path(str(data) + LOCK_SUFFIX).exists()  # left by the kill: it stops nobody
        await server.start()
    finally:
        assert server.stop() == 0
    # (the admin credential stays: it is made once, for the owner only)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "hall.sqlite3", "hall.sqlite3.admin-key", "hall.sqlite3.log"]
    assert _mode(str(data) + ".admin-key") == 0o600


async def test_a_backup_while_the_server_plays_is_consistent(tmp_path: Path) -> None:
    """``rummyhall backup`` while eight tables of house bots play at full speed: every
    copy passes SQLite's check, and every game in it replays from its journal (a
    finished one to its recorded totals), with its journal gap-free."""
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None and hall.journal is not None
        async with open_session(port=hall.port, name="host") as host:
            for _ in range(8):  # (long games: they play on through every backup)
                table = await host.create_table("gin", 2, options={"target_score": 5000})
                await host.add_bot(table, 0, "simple")
                await host.add_bot(table, 1, "random")
                await host.watch(table)
                await host.start(table)
            copies = []
            for n in range(4):
                appended = hall.journal.appended
                copy = tmp_path / f"copy{n}.sqlite3"
                code = await trio.to_thread.run_sync(
                    main, ["backup", "--data", str(data), str(copy)])
                assert code == 0
                copies.append(copy)
                assert hall.journal.appended > appended  # the tables played meanwhile
    games = 0
    for copy in copies:
        store = Store.open(str(copy))
        try:
            for summary in store.games(limit=100, finished_only=False):
                record = store.record(summary["id"])
                assert record is not None
                game, _, _ = replay(record["game"], record["options"], len(record["seats"]),
                                    record["first_dealer"], record["actions"])
                if record["state"] == "finished":
                    assert game.is_over and list(game.scores) == record["totals"]
                games += 1
            gaps = store.reader.execute(
                "SELECT count(*) FROM (SELECT game, max(n) + 1 - count(*) AS gap FROM "
                "journal GROUP BY game) WHERE gap != 0").fetchone()[0]
            assert gaps == 0
        finally:
            store.close()
    assert games >= 8
