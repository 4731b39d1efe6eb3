"""A data file that cannot be used stops `rummyhall serve` at once with a clear message,
and leaves no half-written file behind; an older schema is migrated."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import run_serve

from rummyhall.cli import main
from rummyhall.server import Settings
from rummyhall.server import journal as journal_module
from rummyhall.server.journal import Journal
from rummyhall.server.store import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    WAL_SIZE_LIMIT,
    Store,
    StoreError,
)


def test_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    data = tmp_path / "notes.txt"
    data.write_bytes(b"shopping list: eggs, milk\n" * 100)
    before = data.read_bytes()
    done = run_serve(data)
    assert done.returncode == 1
    assert "not a Rummy Hall data file" in done.stderr and "Traceback" not in done.stderr
    assert data.read_bytes() == before


def test_the_database_of_another_program(tmp_path: Path) -> None:
    data = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(data)) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        conn.commit()
    before = data.read_bytes()
    done = run_serve(data)
    assert done.returncode == 1 and "another program" in done.stderr
    assert data.read_bytes() == before


def test_a_damaged_file(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    store = Store.open(str(data))
    store.write([("INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                  (i, f"p{i}", "person", f"{i:032x}")) for i in range(1, 2000)])
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    raw = bytearray(data.read_bytes())
    raw[4096 * 2: 4096 * 4] = b"\xa5" * 8192  # two pages of the players' tree
    data.write_bytes(bytes(raw))
    done = run_serve(data)
    assert done.returncode == 1, done.stderr
    assert "damaged" in done.stderr and "Traceback" not in done.stderr


def test_a_file_of_a_newer_schema(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    Store.open(str(data)).close()
    with contextlib.closing(sqlite3.connect(data)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    done = run_serve(data)
    assert done.returncode == 1 and "newer" in done.stderr
    with contextlib.closing(sqlite3.connect(data)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_an_older_schema_is_migrated(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    with contextlib.closing(sqlite3.connect(data)) as conn:
        script = MIGRATIONS[1]
        assert isinstance(script, str)
        conn.executescript(script)
        conn.execute("INSERT INTO players VALUES (1, 'ada', 'person', ?)", ("a" * 32,))
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
    store = Store.open(str(data))
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.ratings() == []  # the table version 2 added
        assert store.admin_log() == [] and store.bans() == []  # the tables of version 4
        assert store.restored().players[0]["name"] == "ada"
    finally:
        store.close()


def test_a_full_disk_leaves_no_file(tmp_path: Path) -> None:
    """SQLite's own limit as the injected fault: the file may hold only 2 pages."""
    data = tmp_path / "hall.sqlite3"
    with pytest.raises(StoreError, match="disk is full"):
        Store.open(str(data), max_pages=2)
    assert not list(tmp_path.iterdir())


@contextlib.contextmanager
def mounted(path: Path, options: str) -> Iterator[None]:
    """A tmpfs at ``path`` (root only); the test is skipped where it cannot be mounted."""
    path.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(path)], check=False)


def _small_files() -> None:
    """In the child: no file may grow past 8 KiB (a write past it fails with EFBIG, as
    one on a full disk fails with ENOSPC), and SIGXFSZ does not kill it."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))


def test_a_write_that_fails_at_start(tmp_path: Path) -> None:
    """The data file cannot grow (a file size limit: any user can set one): the server
    refuses to start in one line naming the file, and leaves nothing half-written."""
    disk = tmp_path / "small"
    disk.mkdir()
    data = disk / "hall.sqlite3"
    done = run_serve(data, preexec_fn=_small_files)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert str(data) in lines[0] and "I/O error" in lines[0], lines[0]
    assert not list(disk.iterdir())


def test_a_full_disk_at_start(tmp_path: Path) -> None:
    """The same on a real full disk (a tiny tmpfs: only where the test may mount one;
    test_a_write_that_fails_at_start covers the path for everyone)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tiny tmpfs needs root")
    disk = tmp_path / "tiny"
    with mounted(disk, "size=8k"):
        done = run_serve(disk / "hall.sqlite3")
        assert done.returncode == 1, done.stderr
        assert "disk is full" in done.stderr or "cannot" in done.stderr, done.stderr
        assert not list(disk.iterdir())  # nothing half-written


def test_a_read_only_directory(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    if os.geteuid() != 0:
        folder.mkdir()
        folder.chmod(0o555)
        context: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    else:  # root writes through permissions: a read-only mount instead
        context = mounted(folder, "ro,size=1m")
    with context:
        done = run_serve(folder / "hall.sqlite3")
        assert done.returncode == 1, done.stderr
        assert "writable" in done.stderr or "cannot create" in done.stderr, done.stderr
        assert not list(folder.iterdir())


def test_the_server_checkpoints_the_wal_itself(tmp_path: Path) -> None:
    """Opened for the server, commits never checkpoint; :meth:`Store.checkpoint` copies
    the WAL into the database, and a query on the second connection sees every commit."""
    path = str(tmp_path / "wal.sqlite3")
    store = Store.open(path, autocheckpoint=False)
    try:
        for n in range(300):
            store.write([("INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                          (n + 1, f"p{n}", "bot", f"{n:032x}"))])
        wal = Path(path + "-wal").stat().st_size
        assert wal > 300 * 4096  # every commit appended to the WAL, none copied back
        log, copied = store.checkpoint()
        assert log > 0 and copied == log
        assert store.reader.execute("SELECT count(*) FROM players").fetchone()[0] == 300
        store.write([("DELETE FROM players WHERE id = ?", (1,))])
        assert Path(path + "-wal").stat().st_size == wal  # the WAL restarts from its start
    finally:
        store.close()
    assert not os.path.exists(path + "-wal")  # the last close checkpoints and removes it


async def test_the_wal_stays_bounded_under_steady_commits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mock_clock: trio.testing.MockClock
) -> None:
    """Commits land during every passive checkpoint; the WAL is still emptied, so its
    file stops growing (back-to-back commits of 40,000 rows, and on until 20 checkpoints
    have run). The checkpoints' clock is trio's mock clock, moved on by one checkpoint
    period every 2,000 rows: their pace is the work's, whatever the machine's load."""
    monkeypatch.setattr(journal_module, "WAL_PAGES", 100)
    path = str(tmp_path / "busy.sqlite3")
    journal = await Journal.open(Settings(data=path))
    sizes = []
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(journal.run)
            n = 0
            while n < 40_000 or journal.checkpoints < 20:
                assert n < 1_000_000, "the checkpoints never ran"
                await journal._submit([(
                    "INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                    (n + k, "p" * 500, "bot", f"{n + k:032x}")) for k in range(1, 21)])
                n += 20
                if n % 2000 == 0:
                    sizes.append(Path(path + "-wal").stat().st_size)
                    mock_clock.jump(journal_module.CHECKPOINT_SECONDS)  # a checkpoint is due
            nursery.cancel_scope.cancel()
    finally:
        journal.close()
    assert journal.checkpoints >= 20 and len(sizes) >= 20
    # without the held-back checkpoint the WAL never starts again: it grows with every
    # commit; with it, it starts again at each checkpoint, so it stops growing (and it
    # shrinks back to the size limit past that)
    assert sizes[-1] <= 2 * max(sizes[:len(sizes) // 2]), sizes
    assert sizes[-1] < 3 * WAL_SIZE_LIMIT, sizes


async def test_a_lock_held_by_another_program_does_not_stall_the_server(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A commit that meets another program's write lock waits for it in a worker thread:
    the event loop keeps running, and the commit lands once the lock is released. Counted
    in turns of the loop, not in seconds: this task takes turn after turn while the commit
    waits, and it is this task that releases the lock (a commit waiting on the loop would
    never let it)."""
    path = str(tmp_path / "locked.sqlite3")
    journal = await Journal.open(Settings(data=path))
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    guard = threading.Lock()
    released_by: list[str] = []

    def release(by: str) -> None:
        with guard:
            if not released_by:
                released_by.append(by)
                other.execute("COMMIT")

    # Only a hang's end: a commit that blocked the loop for good is freed after a minute,
    # and the test then fails on who released the lock.
    backstop = threading.Timer(60, release, ("the backstop",))
    committed = trio.Event()

    async def commit() -> None:
        await journal._submit([("INSERT INTO players (id, name, kind, token_digest) "
                                "VALUES (1, 'ada', 'person', ?)", ("0" * 32,))])
        committed.set()

    caplog.set_level(logging.INFO, logger="rummyhall.journal")
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(journal.run)
            other.execute("BEGIN IMMEDIATE")  # another program takes the write lock
            backstop.start()
            nursery.start_soon(commit)
            turns = 0
            while "locked by another program" not in caplog.text:  # the commit met it
                assert turns < 100_000, "the commit never tried to write"
                await trio.sleep(0)
                turns += 1
            for _ in range(1_000):  # the loop runs while the commit waits in its thread
                await trio.sleep(0)
            assert not committed.is_set()  # it waits for the lock
            release("the test")
            with trio.fail_after(HANG_GUARD):  # (the commit lands at once)
                await committed.wait()
            nursery.cancel_scope.cancel()
    finally:
        backstop.cancel()
        other.close()
        journal.close()
    assert released_by == ["the test"]
    store = Store.open(path)
    try:
        assert store.reader.execute("SELECT name FROM players").fetchone()[0] == "ada"
    finally:
        store.close()


def test_one_server_per_data_file(tmp_path: Path) -> None:
    """A second server on a file in use stops at once, naming the first one's process;
    once the first has let go (a crash would do too), the file opens again."""
    data = tmp_path / "hall.sqlite3"
    first = Store.open(str(data), exclusive=True)
    try:
        with pytest.raises(StoreError, match=f"in use by another rummyhall server "
                                             f"\\(process {os.getpid()}\\)"):
            Store.open(str(data), exclusive=True)
        done = run_serve(data)
        assert done.returncode == 1
        assert "in use by another rummyhall server" in done.stderr
        assert "Traceback" not in done.stderr
        Store.open(str(data)).close()  # the commands that only read still open it
    finally:
        first.close()
    Store.open(str(data), exclusive=True).close()


def _damaged(path: Path) -> None:
    store = Store.open(str(path))
    store.write([("INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                  (i, f"p{i}", "person", f"{i:064x}")) for i in range(1, 2000)])
    store.close()
    raw = bytearray(path.read_bytes())
    raw[4096 * 2: 4096 * 4] = b"\xa5" * 8192
    path.write_bytes(bytes(raw))


def _newer(path: Path) -> None:
    Store.open(str(path)).close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def _other_program(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        conn.commit()


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"shopping list: eggs, milk\n" * 100)


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "not SQLite": (_not_sqlite, "not a Rummy Hall data file"),
    "damaged": (_damaged, "damaged"),
    "newer": (_newer, "newer"),
    "another program's": (_other_program, "another program"),
}
TO_DO = ("give another --data file", "restore a backup", "upgrade rummyhall")


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_bad_file_gets_one_line_from_every_command_and_is_never_modified(
        tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    make, why = BAD_FILES[kind]
    data = tmp_path / "hall.sqlite3"
    make(data)
    before = data.read_bytes()
    beside = sorted(p.name for p in tmp_path.iterdir())
    commands = [["serve"], ["history"], ["ratings"], ["export", "1"],
                ["replay", "1", "--no-pause"], ["backup", str(tmp_path / "b.sqlite3")]]
    for command in commands:
        if command[0] == "serve":
            done = run_serve(data)
            code, err = done.returncode, done.stderr
        else:
            code = main([command[0], "--data", str(data), *command[1:]])
            err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 1, (command, err)
        assert len(lines) == 1, (command, err)
        assert str(data) in lines[0] and why in lines[0], (command, lines[0])
        assert any(advice in lines[0] for advice in TO_DO), (command, lines[0])
        assert data.read_bytes() == before, command
        assert sorted(p.name for p in tmp_path.iterdir()) == beside, command


def test_a_data_file_in_a_read_only_directory(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The server refuses it in one line and leaves it as it was; the commands that only
    read still read it."""
    folder = tmp_path / "ro"
    root = os.geteuid() == 0
    with mounted(folder, "size=4m") if root else contextlib.nullcontext():
        if not root:
            folder.mkdir()
        data = folder / "hall.sqlite3"
        Store.open(str(data)).close()
        before = data.read_bytes()
        if root:  # root writes through permissions: the mount goes read-only instead
            made = subprocess.run(["mount", "-o", "remount,ro", str(folder)],
                                  capture_output=True, check=False)
            if made.returncode != 0:
                pytest.skip(f"cannot remount read-only: {made.stderr.decode().strip()}")
        else:
            folder.chmod(0o555)
        try:
            done = run_serve(data)
            lines = done.stderr.strip().splitlines()
            assert done.returncode == 1 and len(lines) == 1, done.stderr
            assert str(data) in lines[0] and "writable" in lines[0], lines[0]
            assert main(["history", "--data", str(data)]) == 0
            assert "no games yet" in capsys.readouterr().out
            assert data.read_bytes() == before
            assert sorted(p.name for p in folder.iterdir()) == ["hall.sqlite3"]
        finally:
            if not root:
                folder.chmod(0o755)
