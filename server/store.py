"""The SQLite file: schema, migrations, checks at open, and every query (synchronous).

The ``rummyhall history/replay/export/ratings/backup`` commands call it directly; the
server calls it through :mod:`.journal`, which says on which thread each call runs.
docs/persistence.md describes the schema, the commit policy and the export format.

Commit policy: WAL mode, ``synchronous=NORMAL`` by default: a commit is in the WAL file
(written to the operating system) before the call returns, so a committed action survives
a crash of the process (SIGKILL, a bug); the WAL is fsynced at checkpoints, so a power
loss or a kernel crash may lose the last commits. The ``fsync`` setting selects
``synchronous=FULL`` (an fsync per commit: a commit also survives a power loss) at about
half the load bench's action rate. The server groups the actions of all tables waiting at
one moment into one transaction (group commit).

Two connections: :attr:`Store.conn` writes, and reads what the writer must see; the
queries (history, records, ratings, backups) and the checkpoints use a second one, so
that a long query or a checkpoint never holds up a commit. A store opened with
``autocheckpoint=False`` (the server's) leaves checkpoints to :meth:`Store.checkpoint`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

APPLICATION_ID = 0x52484C31  # "RHL1": marks the file as a Rummy Hall database
SCHEMA_VERSION = 2
SYNCHRONOUS = "NORMAL"  # the default; "FULL" with the fsync setting
EXPORT_FORMAT = "rummyhall-game"
EXPORT_VERSION = 1
MEMORY = ":memory:"
LOCK_SUFFIX = ".lock"  # the server's lock file, beside the data file
LOCK_BYTE = 64  # the byte locked on Windows (the process id is written before it)
WAL_SIZE_LIMIT = 64 * 2**20  # bytes the WAL file keeps when it starts again (server)

Statement = tuple[str, Sequence[Any]]


class StoreError(Exception):
    """The data file cannot be used; the message says why and what to do, for a human."""


class StoreBusy(StoreError):
    """Another connection holds the file's write lock (nothing was written)."""


def default_data_dir() -> Path:
    """The per-user data directory (what platformdirs' user_data_dir gives, computed here)."""
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(base) / "rummyhall"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "rummyhall"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else
            Path.home() / ".local" / "share") / "rummyhall"


def data_path(setting: str) -> str:
    """The file a ``data`` setting names: itself, or the default when empty."""
    return setting or str(default_data_dir() / "rummyhall.sqlite3")


# Version 1 -> 2 added the ratings table; each step runs in the migration's transaction.
MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        token TEXT NOT NULL UNIQUE
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,            -- the table number players see
        game TEXT NOT NULL,
        options TEXT NOT NULL,             -- JSON: every option
        creator INTEGER NOT NULL REFERENCES players(id),
        turn_seconds INTEGER NOT NULL,
        grace_seconds INTEGER NOT NULL,
        seeded INTEGER NOT NULL,
        state TEXT NOT NULL,               -- waiting, playing, finished
        seating TEXT NOT NULL,             -- JSON: per seat {player, house, left}
        current_game INTEGER REFERENCES games(id)
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,            -- GAME of rummyhall replay/export
        table_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        options TEXT NOT NULL,             -- JSON
        seating TEXT NOT NULL,             -- JSON: per seat {seat, name, kind, player}
        first_dealer INTEGER NOT NULL,
        seeded INTEGER NOT NULL,
        state TEXT NOT NULL,               -- playing, finished
        started REAL NOT NULL,
        finished REAL,
        hands TEXT,                        -- JSON: the hands' results, when finished
        winners TEXT,                      -- JSON
        totals TEXT                        -- JSON
    );
    CREATE INDEX games_by_state ON games(state, id);
    CREATE TABLE journal (
        game INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,                -- 0, 1, 2... without gaps
        action TEXT NOT NULL,              -- JSON: {"kind", "seat"?, fields}
        PRIMARY KEY (game, n)
    ) WITHOUT ROWID;
    """,
    2: """
    CREATE TABLE ratings (
        key TEXT NOT NULL,                 -- the name, casefolded
        game TEXT NOT NULL,
        name TEXT NOT NULL,                -- the name as last seen
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (key, game)
    ) WITHOUT ROWID;
    """,
}


@dataclass
class Restored:
    """What a restart needs: players, unfinished tables, and their games' journals."""

    players: list[sqlite3.Row]
    tables: list[sqlite3.Row]
    games: dict[int, sqlite3.Row]
    journals: dict[int, list[dict[str, Any]]]


class Store:
    """The data file. Each of its two connections is used from one thread at a time."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn = conn
        self.path = path
        self._reader: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None  # the server lock (see _server_lock)

    @property
    def reader(self) -> sqlite3.Connection:
        """The connection of the queries and checkpoints (opened on first use).

        An in-memory database has only its one connection.
        """
        if self.path == MEMORY:
            return self.conn
        if self._reader is None:
            try:
                conn = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False)
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA busy_timeout = 5000")
                conn.execute("PRAGMA query_only = ON")
            except sqlite3.Error as exc:
                raise StoreError(_explain(self.path, exc)) from exc
            self._reader = conn
        return self._reader

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, setting: str, *, create: bool = True, max_pages: int | None = None,
             fsync: bool = False, autocheckpoint: bool = True,
             exclusive: bool = False) -> Store:
        """Open (and create or migrate) the file; :class:`StoreError` if it cannot be used.

        Nothing is left behind when a new file cannot be created completely. Without
        ``autocheckpoint`` a commit never checkpoints: call :meth:`checkpoint`.
        ``exclusive`` (the server): hold the file's server lock until :meth:`close`, or
        fail if another server holds it.
        """
        path = data_path(setting)
        memory = path == MEMORY
        existed = memory or (os.path.exists(path) and os.path.getsize(path) > 0)
        if not memory:
            if not existed and not create:
                raise StoreError(f"{path}: no such data file")
            if os.path.isdir(path):
                raise StoreError(f"{path} is a directory, not a data file")
            if existed:
                cls._check_header(path)
            else:
                try:
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(f"cannot create the data directory of {path}: "
                                     f"{exc.strerror or exc}") from None
        lock = _server_lock(path) if exclusive and not memory else None
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            if max_pages is not None:  # tests: a "disk" this small is full
                conn.execute(f"PRAGMA max_page_count = {int(max_pages)}")
            store = cls(conn, path)
            store._prepare(fresh=not existed, synchronous="FULL" if fsync else SYNCHRONOUS)
            if not autocheckpoint:
                conn.execute("PRAGMA wal_autocheckpoint = 0")
                # each time the WAL starts again, a file grown past this shrinks back
                conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
            store._lock, lock = lock, None  # the store holds it from here
            return store
        except StoreError:
            if conn is not None:
                conn.close()
            if not existed:
                _remove_quietly(path)
            raise
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            if not existed:
                _remove_quietly(path)
            raise StoreError(_explain(path, exc)) from None
        finally:
            if lock is not None:  # not handed to a store: nothing was opened
                if not existed:  # (removed while still held: nobody else takes it meanwhile)
                    with contextlib.suppress(OSError):
                        os.remove(path + LOCK_SUFFIX)
                _release(lock)

    @staticmethod
    def _check_header(path: str) -> None:
        try:
            with open(path, "rb") as f:
                head = f.read(100)
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
        if not head.startswith(b"SQLite format 3\x00"):
            raise StoreError(f"{path} is not a Rummy Hall data file (not an SQLite "
                             f"database); give another --data file")
        app_id = int.from_bytes(head[68:72], "big")
        if app_id not in (0, APPLICATION_ID):
            raise StoreError(f"{path} is an SQLite database of another program "
                             f"(application id {app_id:#x}); give another --data file")

    def _prepare(self, *, fresh: bool, synchronous: str) -> None:
        c = self.conn
        c.execute("PRAGMA busy_timeout = 5000")
        app_id = c.execute("PRAGMA application_id").fetchone()[0]
        version = c.execute("PRAGMA user_version").fetchone()[0]
        objects = c.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if app_id != APPLICATION_ID and objects:
            raise StoreError(f"{self.path} is an SQLite database of another program (it has "
                             f"tables but no Rummy Hall mark); give another --data file")
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {version}, written by a newer "
                             f"Rummy Hall (this one knows up to {SCHEMA_VERSION}): upgrade "
                             f"rummyhall, or give another --data file")
        if self.path != MEMORY:  # only now: it rewrites the header of an old-style file
            mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot use WAL mode (journal mode {mode})")
        c.execute(f"PRAGMA synchronous = {synchronous}")
        c.execute("PRAGMA foreign_keys = ON")
        if not fresh and objects:
            check = c.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"{self.path} is damaged ({check}); restore a backup "
                                 f"(rummyhall backup) or give another --data file")
        # Take the write lock now: a read-only file or directory fails here, at start.
        c.execute("BEGIN IMMEDIATE")
        try:
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for sql in _statements(MIGRATIONS[step]):
                    c.execute(sql)
            c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            c.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                c.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close both connections (the last one checkpoints and removes the WAL), then
        let go of the server lock."""
        with contextlib.suppress(sqlite3.Error):
            if self._reader is not None:
                self._reader.close()
            self.conn.close()
        if self._lock is not None:
            _release(self._lock)
            self._lock = None

    def checkpoint(self, *, writer: bool = False) -> tuple[int, int]:
        """Copy the WAL's committed pages into the database, without waiting for anyone
        (a passive checkpoint): (pages in the WAL, pages copied). Commits may go on
        meanwhile; once everything is copied the next commit starts the WAL again from
        its start. ``writer``: on the writing connection (the caller holds back commits).
        """
        if self.path == MEMORY:
            return 0, 0
        conn = self.conn if writer else self.reader
        try:
            _, log, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from exc
        return int(log), int(copied)

    # ------------------------------------------------------------------ writing

    def write(self, statements: Iterable[Statement]) -> None:
        """Run ``statements`` in one transaction and commit it (durably: see the policy).

        Raises :class:`StoreBusy` when another connection holds the write lock past the
        connection's busy timeout (see :meth:`wait_for_locks`): nothing was written.
        """
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")  # the write lock first: busy means nothing done
        except sqlite3.Error as exc:
            if exc.sqlite_errorcode == sqlite3.SQLITE_BUSY:
                raise StoreBusy(f"{self.path} is locked by another program") from exc
            raise StoreError(_explain(self.path, exc)) from exc
        try:
            for sql, params in statements:
                c.execute(sql, params)
            c.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                c.execute("ROLLBACK")
            raise StoreError(_explain(self.path, exc)) from exc

    def wait_for_locks(self, milliseconds: int) -> None:
        """How long a write waits for another connection's lock before :class:`StoreBusy`."""
        self.conn.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")

    def next_game_id(self) -> int:
        row = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()
        return int(row[0])

    # ------------------------------------------------------------------ reading

    def restored(self) -> Restored:
        """Every player, every unfinished table and the journal of each one's game."""
        c = self.reader
        tables = c.execute("SELECT * FROM tables WHERE state != 'finished' ORDER BY id"
                           ).fetchall()
        ids = {t["current_game"] for t in tables if t["current_game"] is not None}
        games = {r["id"]: r for r in c.execute(
            "SELECT * FROM games WHERE state = 'playing'").fetchall() if r["id"] in ids}
        journals = {g: self.journal(g) for g in games}
        players = c.execute("SELECT * FROM players ORDER BY id").fetchall()
        return Restored(players, tables, games, journals)

    def journal(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.reader.execute("SELECT action FROM journal WHERE game = ? ORDER BY n",
                                 (game_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def games(self, *, limit: int = 20, before: int | None = None, name: str | None = None,
              finished_only: bool = True) -> list[dict[str, Any]]:
        """Recent games, newest first, as summaries."""
        sql = "SELECT * FROM games WHERE 1"
        params: list[Any] = []
        if finished_only:
            sql += " AND state = 'finished'"
        if before is not None:
            sql += " AND id < ?"
            params.append(before)
        sql += " ORDER BY id DESC"
        rows = self.reader.execute(sql, params).fetchall()
        out = []
        for row in rows:
            summary = _summary(row)
            if name is not None and not any(
                    (s["name"] or "").casefold() == name.casefold() for s in summary["seats"]):
                continue
            out.append(summary)
            if len(out) >= limit:
                break
        return out

    def record(self, game_id: int) -> dict[str, Any] | None:
        """The versioned export record of a game (docs/persistence.md), or None."""
        row = self.reader.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, **_summary(row),
                "first_dealer": row["first_dealer"], "seeded": bool(row["seeded"]),
                "hands": json.loads(row["hands"]) if row["hands"] else [],
                "actions": self.journal(game_id)}

    def ratings(self, game: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM ratings"
        params: tuple[Any, ...] = ()
        if game is not None:
            sql += " WHERE game = ?"
            params = (game,)
        rows = self.reader.execute(sql + " ORDER BY game, mu - 3 * sigma DESC, name",
                                 params).fetchall()
        return [dict(r) for r in rows]

    def backup(self, target: str) -> None:
        """A consistent copy of the whole file at ``target`` (SQLite's online backup)."""
        dest = sqlite3.connect(target)
        try:
            self.reader.backup(dest)
        finally:
            dest.close()


def _summary(row: sqlite3.Row) -> dict[str, Any]:
    return {"id": row["id"], "table": row["table_id"], "game": row["game"],
            "options": json.loads(row["options"]), "state": row["state"],
            "seats": json.loads(row["seating"]),
            "started": _iso(row["started"]), "finished": _iso(row["finished"]),
            "winners": json.loads(row["winners"]) if row["winners"] else [],
            "totals": json.loads(row["totals"]) if row["totals"] else [],
            "hands_scored": len(json.loads(row["hands"])) if row["hands"] else 0,
            "started_unix": row["started"], "finished_unix": row["finished"]}


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _statements(script: str) -> Iterator[str]:
    """The statements of a migration script (none contains a semicolon inside)."""
    for part in script.split(";"):
        lines = [ln.split("--")[0] for ln in part.splitlines()]
        sql = "\n".join(lines).strip()
        if sql:
            yield sql


def _explain(path: str, exc: sqlite3.Error) -> str:
    text = str(exc)
    lowered = text.lower()
    if "disk is full" in lowered or ("i/o error" in lowered and _no_space(path)):
        return f"{path}: the disk is full ({text}); free some space"
    if "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
        return (f"{path}: cannot write the data file ({text}); is its directory writable? "
                f"Give another --data file")
    if "not a database" in lowered or "malformed" in lowered:
        return f"{path} is damaged or not a Rummy Hall data file ({text})"
    if "locked" in lowered or "busy" in lowered:
        return f"{path} is locked by another program ({text})"
    return f"{path}: {text}"


def _no_space(path: str) -> bool:
    """Less than a megabyte free where the file lives (SQLite may say "disk I/O error")."""
    try:
        return shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free < 1 << 20
    except OSError:
        return False


def _server_lock(path: str) -> IO[bytes]:
    """Take the lock that keeps a second server off the data file ``path``: an advisory
    lock on a file beside it, released by the system when the process ends in any way
    (a crash included). Raises :class:`StoreError` naming the holder's process."""
    lock_path = path + LOCK_SUFFIX
    try:
        f = open(lock_path, "a+b")  # noqa: SIM115 (held until Store.close)
    except OSError as exc:
        raise StoreError(f"cannot create {lock_path}: {exc.strerror or exc}") from None
    try:
        if sys.platform == "win32":  # one byte past the process id, which stays readable
            f.seek(LOCK_BYTE)
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = ""
        with contextlib.suppress(OSError):
            f.seek(0)
            holder = f.read(32).decode(errors="replace").strip()
        f.close()
        raise StoreError(f"{path} is in use by another rummyhall server"
                         + (f" (process {holder})" if holder.isdigit() else "")
                         + ": stop it first, or give another --data file") from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()).encode())
    f.flush()
    return f


def _release(lock: IO[bytes]) -> None:
    """Let go of the server lock (Windows wants its byte unlocked before the close)."""
    with contextlib.suppress(OSError):
        if sys.platform == "win32":
            lock.seek(LOCK_BYTE)
            msvcrt.locking(lock.fileno(), msvcrt.LK_UNLCK, 1)
    lock.close()


def _remove_quietly(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.remove(path + suffix)
