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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import platformdirs

from .names import name_key
from .ratings import Rating, ranks_from_result, rate
from .tokens import digest

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

APPLICATION_ID = 0x52484C31  # "RHL1": marks the file as a Rummy Hall database
SCHEMA_VERSION = 7
SYNCHRONOUS = "NORMAL"  # the default; "FULL" with the fsync setting
EXPORT_FORMAT = "rummyhall-game"
EXPORT_VERSION = 1
MEMORY = ":memory:"
LOCK_SUFFIX = ".lock"  # the server's lock file, beside the data file
LOCK_BYTE = 64  # the byte locked on Windows (the process id is written before it)
WAL_SIZE_LIMIT = 64 * 2**20  # bytes the WAL file keeps when it starts again (server)
FILE_MODE = 0o600  # the data file, its WAL and shared memory, the lock, backups
DIR_MODE = 0o700  # a directory the server creates for its data file

Statement = tuple[str, Sequence[Any]]


class StoreError(Exception):
    """The data file cannot be used; the message says why and what to do, for a human."""


class StoreBusy(StoreError):
    """Another connection holds the file's write lock (nothing was written)."""


def default_data_dir() -> Path:
    """The per-user data directory: platformdirs' ``user_data_path`` for "rummyhall".

    Local, not roaming, on Windows (``%LOCALAPPDATA%\\rummyhall``): a SQLite file with its
    write-ahead log is one machine's, not something to copy between machines at logon.
    """
    return platformdirs.user_data_path("rummyhall", appauthor=False, roaming=False)


def data_path(setting: str) -> str:
    """The file a ``data`` setting names: itself, or the default when empty."""
    return setting or str(default_data_dir() / "rummyhall.sqlite3")


def _migrate_to_3(c: sqlite3.Connection) -> None:
    """Version 2 -> 3: tokens as digests, the seq of each game, names indexed for history,
    ratings by player (recomputed from the finished games), listings in index order."""
    # The old plain tokens are overwritten, not just unlinked: with secure_delete the
    # freed bytes of the file are zeroed (the WAL holding old pages is emptied at close).
    c.execute("PRAGMA secure_delete = ON")
    c.execute("ALTER TABLE players RENAME COLUMN token TO token_digest")
    for player_id, token in c.execute("SELECT id, token_digest FROM players").fetchall():
        if not is_digest(token):  # a plain token of an older version
            c.execute("UPDATE players SET token_digest = ? WHERE id = ?",
                      (digest(token), player_id))
    c.execute("ALTER TABLE games ADD COLUMN first_seq INTEGER NOT NULL DEFAULT 0")
    c.execute("CREATE TABLE game_names (name_key TEXT NOT NULL, game INTEGER NOT NULL "
              "REFERENCES games(id), PRIMARY KEY (name_key, game)) WITHOUT ROWID")
    for game_id, seating in c.execute("SELECT id, seating FROM games").fetchall():
        c.executemany("INSERT OR IGNORE INTO game_names (name_key, game) VALUES (?, ?)",
                      [(name_key(s["name"]), game_id) for s in json.loads(seating)])
    c.execute("DROP TABLE ratings")
    c.execute(RATINGS_TABLE)
    c.execute(RATINGS_INDEX)
    _rate_again(c)


RATINGS_TABLE = """CREATE TABLE ratings (
    key TEXT NOT NULL,
    game TEXT NOT NULL,
    player INTEGER REFERENCES players(id),
    name TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    rating REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (key, game)
) WITHOUT ROWID"""
RATINGS_INDEX = "CREATE INDEX ratings_by_game ON ratings(game, rating DESC, name)"
RATE_SQL = ("INSERT INTO ratings (key, game, player, name, mu, sigma, rating, games) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key, game) DO UPDATE SET "
            "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
            "rating = excluded.rating, games = excluded.games")


def rating_key(seat: dict[str, Any]) -> str:
    """Whose rating a seat of a game's seating is: ``player:ID`` (the identity that holds
    the token), or ``house:NAME`` for a house bot (its seat name's key, names.name_key)."""
    if seat.get("player") is not None:
        return f"player:{int(seat['player'])}"
    return f"house:{name_key(seat.get('name') or '?')}"


def rating_row(key: str, game: str, seat: dict[str, Any], rating: Rating, games: int
               ) -> tuple[Any, ...]:
    """The parameters of :data:`RATE_SQL` for one seat's new rating."""
    return (key, game, seat.get("player"), seat.get("name") or "?", rating.mu, rating.sigma,
            rating.mu - 3 * rating.sigma, games)


def game_ratings(game: str, seating: Sequence[dict[str, Any]], winners: Sequence[int],
                 totals: Sequence[int], known: Callable[[str], tuple[Rating, int]]
                 ) -> list[tuple[str, Rating, int]]:
    """Each seat's (key, new rating, games rated) after a finished game, or nothing when
    two seats have one rating key (house bots are numbered apart: see Table.house_name;
    a record from before that): such a game is not
    rated. ``known(key)`` gives a key's rating and games before it."""
    keys = [rating_key(s) for s in seating]
    if len(set(keys)) != len(keys) or len(totals) != len(keys):
        return []
    before = [known(k) for k in keys]
    after = rate([r for r, _ in before], ranks_from_result(winners, totals))
    return [(k, r, n + 1) for k, r, (_, n) in zip(keys, after, before, strict=True)]


def _rate_again(c: sqlite3.Connection) -> None:
    """Rate every finished game again, in the order they finished, by player identity."""
    table: dict[tuple[str, str], tuple[Rating, int, dict[str, Any]]] = {}
    rows = c.execute("SELECT game, seating, winners, totals FROM games WHERE state = "
                     "'finished' AND totals IS NOT NULL ORDER BY finished, id").fetchall()
    for game, seating_text, winners, totals in rows:
        seating = json.loads(seating_text)

        def known(key: str, game: str = game) -> tuple[Rating, int]:
            found = table.get((key, game))
            return (found[0], found[1]) if found else (Rating(), 0)

        by_key = {rating_key(s): s for s in seating}
        for key, rating, games in game_ratings(game, seating, json.loads(winners or "[]"),
                                               json.loads(totals), known):
            table[(key, game)] = (rating, games, by_key[key])
    for (key, game), (rating, games, seat) in table.items():
        c.execute(RATE_SQL, rating_row(key, game, seat, rating, games))


def is_digest(value: str) -> bool:
    """A token's digest as the server keeps it: 64 lowercase hex digits."""
    return len(value) == 64 and all(ch in "0123456789abcdef" for ch in value)


# Each step runs in the migration's transaction: an SQL script, or Python for what SQL
# cannot do (SQLite has no SHA-256). 1 -> 2 added the ratings table; 2 -> 3: see
# _migrate_to_3; 3 -> 4 added the host's admin log and bans; 4 -> 5 the tables' locks.
#: The rows of the private games' indexes (schema 7), from their games' rows: the
#: migration to 7 fills them so; the journal writes them with each game after.
PRIVATE_BACKFILL = """
    INSERT OR IGNORE INTO private_players (player, game)
        SELECT p.player, p.game FROM (
            SELECT json_extract(g.seating, s.fullkey || '.player') AS player, g.id AS game
            FROM games g, json_each(g.seating) s WHERE g.private = 1 AND s.type = 'object'
        ) p WHERE typeof(p.player) = 'integer';
    UPDATE game_names SET private = 1 WHERE game IN (SELECT id FROM games WHERE private = 1);
    """

MIGRATIONS: dict[int, str | Callable[[sqlite3.Connection], None]] = {
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
        key TEXT NOT NULL,                 -- the name's key (names.name_key)
        game TEXT NOT NULL,
        name TEXT NOT NULL,                -- the name as last seen
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (key, game)
    ) WITHOUT ROWID;
    """,
    3: _migrate_to_3,
    4: """
    CREATE TABLE admin_log (
        id INTEGER PRIMARY KEY,            -- in the order the actions were taken
        at REAL NOT NULL,                  -- Unix time
        who TEXT NOT NULL,                 -- the admin connection's name and address
        action TEXT NOT NULL,              -- login, kick, ban, unban, close, mute, notice
        target TEXT NOT NULL,              -- the name, address or table ('' for a notice)
        details TEXT NOT NULL              -- JSON: the request's other fields
    );
    CREATE TABLE bans (
        id INTEGER PRIMARY KEY,
        name TEXT,                         -- the banned name (compared case-blind)
        player INTEGER,                    -- the player that held it (its token too)
        address TEXT,                      -- the banned address
        until REAL,                        -- Unix time (NULL: until lifted)
        reason TEXT NOT NULL,
        since REAL NOT NULL                -- Unix time
    );
    """,
    # 4 -> 5: a private table's lock (its code's verifier and what needs the code; never
    # the code itself), JSON, NULL for an open table; and which games were played at a
    # private table (the history shows them to their players only).
    5: """
    ALTER TABLE tables ADD COLUMN lock TEXT;
    ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
    """,
    # 5 -> 6: whether a player owns its name or holds it on loan (taken while its owner
    # held nothing): a borrower must not come back from a restart as the owner.
    6: """
    ALTER TABLE players ADD COLUMN owns_name INTEGER NOT NULL DEFAULT 1;
    """,
    # 6 -> 7: the history of a hall of many private games, read on indexes: the games by
    # privacy, the players of each private game, whether a name's game was private.
    # Before, one page for a player who sat in none of them read every private game (the
    # JSON of its seats): 128 ms for 100,000, a rate token.
    7: """
    CREATE INDEX games_by_privacy ON games(private, state, id);
    CREATE TABLE private_players (
        player INTEGER NOT NULL,
        game INTEGER NOT NULL REFERENCES games(id),
        PRIMARY KEY (player, game)
    ) WITHOUT ROWID;
    ALTER TABLE game_names ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX game_names_by_privacy ON game_names(name_key, private, game);
    """ + PRIVATE_BACKFILL,
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
        self._checkpointer: sqlite3.Connection | None = None
        self._readonly = False  # opened by open_for_reading: one connection, for queries

    @property
    def reader(self) -> sqlite3.Connection:
        """The connection of the queries (opened on first use): it never writes, so a
        query never holds up a commit or a checkpoint for longer than it reads.

        An in-memory database, and a store opened for reading, have only one connection.
        """
        if self.path == MEMORY or self._readonly:
            return self.conn
        if self._reader is None:
            self._reader = self._second_connection()
        return self._reader

    @property
    def checkpointer(self) -> sqlite3.Connection:
        """The connection of the checkpoints (opened on first use), apart from the
        queries' so that neither waits for the other."""
        if self.path == MEMORY or self._readonly:
            return self.conn
        if self._checkpointer is None:
            self._checkpointer = self._second_connection()
        return self._checkpointer

    def _second_connection(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from exc
        return conn

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, setting: str, *, create: bool = True, max_pages: int | None = None,
             fsync: bool = False, autocheckpoint: bool = True,
             exclusive: bool = False) -> Store:
        """Open (and create or migrate) the file; :class:`StoreError` if it cannot be used.

        Nothing is left behind when a new file cannot be created completely. A new file is
        created readable by its owner only (0600), in a directory of the owner only
        (0700) where this creates the directory. Without ``autocheckpoint`` a commit
        never checkpoints: call :meth:`checkpoint`. ``exclusive`` (the server): hold the
        file's server lock until :meth:`close`, or fail if another server holds it.
        """
        path = data_path(setting)
        memory = path == MEMORY
        existed = cls._existing(path, create=create)
        lock = _server_lock(path) if exclusive and not memory else None
        conn: sqlite3.Connection | None = None
        try:
            if not existed:
                _create_private(path)
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            store = cls._configured(conn, path, fresh=not existed, max_pages=max_pages,
                                    fsync=fsync, autocheckpoint=autocheckpoint)
            store._lock, lock = lock, None  # the store holds it from here
            return store
        except StoreError:
            _abandon(conn, path, existed)
            raise
        except (sqlite3.Error, OSError) as exc:
            _abandon(conn, path, existed)
            if isinstance(exc, OSError):
                raise StoreError(f"cannot create {path}: {exc.strerror or exc}; is its "
                                 f"directory writable? Give another --data file") from None
            raise StoreError(_explain(path, exc)) from None
        finally:
            if lock is not None:  # not handed to a store: nothing was opened
                _release(lock, path)

    @classmethod
    def _existing(cls, path: str, *, create: bool) -> bool:
        """True if ``path`` is a data file already (its header checked; an in-memory
        store counts as one); for a new file, make its directory. :class:`StoreError` if
        the file cannot be used, or is missing and ``create`` is false."""
        if path == MEMORY:
            return True
        existed = os.path.exists(path) and os.path.getsize(path) > 0
        if not existed and not create:
            raise StoreError(f"{path}: no such data file")
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a data file")
        if existed:
            cls._check_header(path)
        else:
            _make_directory(Path(path).parent, path)
        return existed

    @classmethod
    def _configured(cls, conn: sqlite3.Connection, path: str, *, fresh: bool,
                    max_pages: int | None, fsync: bool, autocheckpoint: bool) -> Store:
        """The store over a new connection: its schema created or migrated, its pragmas set."""
        conn.row_factory = sqlite3.Row
        if max_pages is not None:  # tests: a "disk" this small is full
            conn.execute(f"PRAGMA max_page_count = {int(max_pages)}")
        store = cls(conn, path)
        store._prepare(fresh=fresh, synchronous="FULL" if fsync else SYNCHRONOUS)
        if not autocheckpoint:
            conn.execute("PRAGMA wal_autocheckpoint = 0")
            # each time the WAL starts again, a file grown past this shrinks back
            conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        return store

    @classmethod
    def open_for_reading(cls, setting: str) -> Store:
        """Open an existing file for the commands that only read it (history, replay,
        export, ratings, backup), without ever writing to it: a read-only connection that
        takes no write lock (``query_only``), so it never holds up a running server's
        commits.

        A file of an older schema (never opened by this version's server) is migrated
        first, as :meth:`open` does. Raises :class:`StoreError` like :meth:`open`.
        """
        path = data_path(setting)
        if path == MEMORY:
            raise StoreError("an in-memory data file cannot be read by another command")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            raise StoreError(f"{path}: no such data file")
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a data file")
        cls._check_header(path)
        conn = _connect_for_reading(path)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA query_only = ON")
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            objects = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(_explain(path, exc)) from None
        if app_id != APPLICATION_ID and objects:
            conn.close()
            raise StoreError(f"{path} is an SQLite database of another program (it has "
                             f"tables but no Rummy Hall mark); give another --data file")
        if version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(_newer(path, version))
        if version < SCHEMA_VERSION:
            conn.close()
            cls.open(setting, create=False).close()  # migrate it once
            return cls.open_for_reading(setting)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0] if objects else "ok"
        except sqlite3.Error as exc:
            check = str(exc)
        if check != "ok":
            conn.close()
            raise StoreError(_damaged(path, check))
        store = cls(conn, path)
        store._readonly = True
        return store

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
            raise StoreError(_newer(self.path, version))
        if not fresh and objects:  # before anything writes to it: a damaged file stays as is
            check = c.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(_damaged(self.path, check))
        if self.path != MEMORY:  # only now: it rewrites the header of an old-style file
            mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot use WAL mode (journal mode {mode})")
        c.execute(f"PRAGMA synchronous = {synchronous}")
        c.execute("PRAGMA foreign_keys = ON")
        # Take the write lock now: a read-only file or directory fails here, at start.
        c.execute("BEGIN IMMEDIATE")
        try:
            for step in range(version + 1, SCHEMA_VERSION + 1):
                migration = MIGRATIONS[step]
                if callable(migration):
                    migration(c)
                else:
                    for sql in _statements(migration):
                        c.execute(sql)
            c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            c.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                c.execute("ROLLBACK")
            raise
        finally:
            with contextlib.suppress(sqlite3.Error):
                c.execute("PRAGMA secure_delete = OFF")
        if version < SCHEMA_VERSION and objects and self.path != MEMORY:
            # the old pages (plain tokens of version 2) must not stay in the WAL file
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Close both connections (the last one checkpoints and removes the WAL), then
        let go of the server lock."""
        with contextlib.suppress(sqlite3.Error):
            for conn in (self._reader, self._checkpointer):
                if conn is not None:
                    conn.close()
            self.conn.close()
        if self._lock is not None:
            _release(self._lock, self.path)  # (the lock file goes: no stale file is left)
            self._lock = None

    def checkpoint(self, *, writer: bool = False) -> tuple[int, int]:
        """Copy the WAL's committed pages into the database, without waiting for anyone
        (a passive checkpoint): (pages in the WAL, pages copied). Commits may go on
        meanwhile; once everything is copied the next commit starts the WAL again from
        its start. ``writer``: on the writing connection (the caller holds back commits).
        """
        if self.path == MEMORY:
            return 0, 0
        conn = self.conn if writer else self.checkpointer
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
        """Every player, every table of the last run and the journal of each one's latest
        game (the one being played, or the one that ended last)."""
        with self._reading():
            c = self.reader
            tables = c.execute("SELECT * FROM tables ORDER BY id").fetchall()
            ids = [t["current_game"] for t in tables if t["current_game"] is not None]
            games = {r["id"]: r for r in (
                c.execute("SELECT * FROM games WHERE id = ?", (i,)).fetchone() for i in ids)
                if r is not None}
            journals = {g: self._journal(g) for g in games}
            players = c.execute("SELECT * FROM players ORDER BY id").fetchall()
        return Restored(players, tables, games, journals)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """One read transaction (one consistent moment of the file), its errors as
        :class:`StoreError` (a damaged page is met only when it is read)."""
        c = self.reader
        try:
            c.execute("BEGIN")
            try:
                yield
            finally:
                if c.in_transaction:
                    c.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from exc

    def journal(self, game_id: int) -> list[dict[str, Any]]:
        """The actions of a game, in order."""
        with self._reading():
            return self._journal(game_id)

    def record_part(self, game_id: int, start: int, count: int, *,
                    viewer: int | None = None) -> dict[str, Any] | None:
        """:meth:`record` of a finished game with only the actions from ``start``, at
        most ``count`` of them (read by the journal's key, never the whole game), and
        their number in all as ``actions_total``: what one page of a game's record costs.
        None, before any action is read, when no such game has finished (or, with
        ``viewer``, when it is of a private table where that player did not sit)."""
        sql = "SELECT * FROM games g WHERE g.id = ? AND g.state = 'finished'"
        params: list[Any] = [game_id]
        if viewer is not None:
            sql += f" AND {PRIVATE_FILTER}"
            params.append(viewer)
        with self._reading():
            row = self.reader.execute(sql, params).fetchone()
            if row is None:
                return None
            rows = self.reader.execute(
                "SELECT action FROM journal WHERE game = ? AND n >= ? ORDER BY n LIMIT ?",
                (game_id, max(0, start), max(0, count))).fetchall()
            last = self.reader.execute(
                "SELECT n FROM journal WHERE game = ? ORDER BY n DESC LIMIT 1",
                (game_id,)).fetchone()
        return {**_record(row, [json.loads(r[0]) for r in rows]),
                "actions_total": 0 if last is None else last[0] + 1}

    def _journal(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.reader.execute("SELECT action FROM journal WHERE game = ? ORDER BY n",
                                   (game_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def games(self, *, limit: int = 20, before: int | None = None, name: str | None = None,
              finished_only: bool = True, viewer: int | None = None) -> list[dict[str, Any]]:
        """Recent games, newest first, as summaries: at most ``limit``, numbered below
        ``before``, where ``name`` sat (any case); with ``viewer`` (a player's id), only
        the games of private tables where that player sat. Filtered, ordered and limited
        by SQLite on its indexes (games_by_state, game_names), whatever the number of
        games."""
        if viewer is not None and finished_only:
            return self._visible_games(limit, before, name, viewer)
        where: list[str] = []
        params: list[Any] = []
        if viewer is not None:
            where.append(PRIVATE_FILTER)
            params.append(viewer)
        if name is not None:
            sql = f"SELECT {SUMMARY_COLUMNS} FROM game_names n JOIN games g ON g.id = n.game"
            where.append("n.name_key = ?")
            params.append(name_key(name))
            order = "n.game"
        else:
            sql = f"SELECT {SUMMARY_COLUMNS} FROM games g"
            order = "g.id"
        if finished_only:
            where.append("g.state = 'finished'")
        if before is not None:
            where.append(f"{order} < ?")
            params.append(before)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {order} DESC LIMIT ?"
        params.append(max(0, limit))
        with self._reading():
            rows = self.reader.execute(sql, params).fetchall()
        return _summaries(rows)

    def _visible_games(self, limit: int, before: int | None, name: str | None,
                       viewer: int) -> list[dict[str, Any]]:
        """:meth:`games` of finished games that ``viewer`` may see: the open tables'
        newest first, and the private tables' where it sat (``private_players``), each
        read on an index and limited; the page is the newest of both."""
        def below(column: str) -> str:  # (each read is ordered and bounded by its key)
            return "" if before is None else f" AND {column} < ?"

        tail = [] if before is None else [before]
        if name is None:
            public = (f"SELECT {SUMMARY_COLUMNS} FROM games g WHERE g.private = 0 AND "
                      f"g.state = 'finished'{below('g.id')} ORDER BY g.id DESC LIMIT ?")
            mine = (f"SELECT {SUMMARY_COLUMNS} FROM private_players p JOIN games g "
                    f"ON g.id = p.game WHERE p.player = ? AND g.state = 'finished'"
                    f"{below('p.game')} ORDER BY p.game DESC LIMIT ?")
            first: list[Any] = []
            second: list[Any] = [viewer]
        else:
            public = (f"SELECT {SUMMARY_COLUMNS} FROM game_names n JOIN games g "
                      f"ON g.id = n.game WHERE n.name_key = ? AND n.private = 0 AND "
                      f"g.state = 'finished'{below('n.game')} ORDER BY n.game DESC LIMIT ?")
            mine = (f"SELECT {SUMMARY_COLUMNS} FROM private_players p JOIN game_names n "
                    "ON n.name_key = ? AND n.game = p.game JOIN games g ON g.id = p.game "
                    f"WHERE p.player = ? AND g.state = 'finished'"
                    f"{below('p.game')} ORDER BY p.game DESC LIMIT ?")
            first, second = [name_key(name)], [name_key(name), viewer]
        count = max(0, limit)
        with self._reading():
            rows = (self.reader.execute(public, [*first, *tail, count]).fetchall()
                    + self.reader.execute(mine, [*second, *tail, count]).fetchall())
        rows.sort(key=lambda r: -r["id"])
        return _summaries(rows[:count])

    def record(self, game_id: int) -> dict[str, Any] | None:
        """The versioned export record of a game (docs/persistence.md), or None."""
        with self._reading():
            row = self.reader.execute("SELECT * FROM games WHERE id = ?",
                                      (game_id,)).fetchone()
            if row is None:
                return None
            actions = self._journal(game_id)
        return _record(row, actions)

    def ratings(self, game: str | None = None, *, limit: int | None = None
                ) -> list[dict[str, Any]]:
        """The ratings, per game best first (in the order of the ratings_by_game index):
        ``key``, ``game``, ``player`` (its id; None for a house bot), ``name`` (the
        player's name now, else the name last rated), ``mu``, ``sigma``, ``games``."""
        sql = ("SELECT r.key, r.game, r.player, coalesce(p.name, r.name) AS name, r.mu, "
               "r.sigma, r.games FROM ratings r LEFT JOIN players p ON p.id = r.player")
        params: list[Any] = []
        if game is not None:
            sql += " WHERE r.game = ?"
            params.append(game)
        sql += " ORDER BY r.game, r.rating DESC, r.name"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(max(0, limit))
        with self._reading():
            rows = self.reader.execute(sql, params).fetchall()
        return [dict(r) for r in rows]

    def admin_log(self, *, limit: int = 50, before: int | None = None
                  ) -> list[dict[str, Any]]:
        """The host's admin actions, newest first: at most ``limit``, numbered below
        ``before`` (the next page). Each: ``id``, ``at`` (ISO 8601, UTC), ``who``,
        ``action``, ``target``, ``details`` (a dict)."""
        # (always a bound on id: the rowid is searched from there, in order, never scanned)
        sql = ("SELECT id, at, who, action, target, details FROM admin_log WHERE id < ? "
               "ORDER BY id DESC LIMIT ?")
        with self._reading():
            rows = self.reader.execute(
                sql, (before if before is not None else 2**63 - 1, max(0, limit))).fetchall()
        return [{"id": r["id"], "at": _iso(r["at"]), "who": r["who"], "action": r["action"],
                 "target": r["target"], "details": json.loads(r["details"])} for r in rows]

    def bans(self) -> list[dict[str, Any]]:
        """Every ban kept (ended ones included until a server forgets them), oldest first:
        ``id``, ``name``, ``player``, ``address``, ``until`` and ``since`` (Unix time;
        ``until`` None: until lifted), ``reason``."""
        with self._reading():
            rows = self.reader.execute("SELECT id, name, player, address, until, reason, "
                                       "since FROM bans ORDER BY id").fetchall()
        return [dict(r) for r in rows]

    def backup(self, target: str) -> None:
        """A consistent copy of the whole file at ``target`` (SQLite's online backup),
        created for its owner only (0600): it holds what the data file holds.

        Raises :class:`StoreError` (``target`` exists, cannot be written, the disk is full).
        """
        try:
            _create_private(target, exclusive=True)
        except OSError as exc:
            raise StoreError(f"cannot create {target}: {exc.strerror or exc}") from None
        try:
            dest = sqlite3.connect(target)
            try:
                self.reader.backup(dest)
            finally:
                dest.close()
        except sqlite3.Error as exc:
            _remove_quietly(target)
            raise StoreError(_explain(target, exc)) from None


# A summary's columns: the hands counted by SQLite, not decoded here (the GIL is free
# meanwhile, and the server's event loop runs).
PRIVATE_FILTER = ("(g.private = 0 OR EXISTS (SELECT 1 FROM private_players v "
                  "WHERE v.player = ? AND v.game = g.id))")
"""A game a player may see: not of a private table, or one where that player sat (a key
of ``private_players``, which :meth:`Store._visible_games` reads in order)."""
SUMMARY_COLUMNS = ("g.id, g.table_id, g.game, g.options, g.state, g.seating, g.started, "
                   "g.finished, g.winners, g.totals, json_array_length(g.hands) AS hands_scored")


def _record(row: sqlite3.Row, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A game's export record (docs/persistence.md) from its row and its actions (all of
    them, or a page)."""
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, **_summary(row),
            "private": bool(row["private"]),
            "first_dealer": row["first_dealer"], "seeded": bool(row["seeded"]),
            "hands": json.loads(row["hands"]) if row["hands"] else [],
            "actions": actions}


def _summary(row: sqlite3.Row) -> dict[str, Any]:
    return {"id": row["id"], "table": row["table_id"], "game": row["game"],
            "options": json.loads(row["options"]), "state": row["state"],
            "seats": json.loads(row["seating"]),
            "started": _iso(row["started"]), "finished": _iso(row["finished"]),
            "winners": json.loads(row["winners"]) if row["winners"] else [],
            "totals": json.loads(row["totals"]) if row["totals"] else [],
            "hands_scored": len(json.loads(row["hands"])) if row["hands"] else 0,
            "started_unix": row["started"], "finished_unix": row["finished"]}


def _summaries(rows: Sequence[sqlite3.Row]) -> list[dict[str, Any]]:
    """The summaries of many games' rows: their JSON columns decoded in one call (the
    decoder's cost is mostly per call; the columns hold JSON the server wrote)."""
    texts = ",".join(f"[{r['options']},{r['seating']},{r['winners'] or '[]'},"
                     f"{r['totals'] or '[]'}]" for r in rows)
    out = []
    for row, (options, seating, winners, totals) in zip(rows, json.loads(f"[{texts}]"),
                                                        strict=True):
        out.append({"id": row["id"], "table": row["table_id"], "game": row["game"],
                    "options": options, "state": row["state"], "seats": seating,
                    "started": _iso(row["started"]), "finished": _iso(row["finished"]),
                    "winners": winners, "totals": totals,
                    "hands_scored": row["hands_scored"] or 0,
                    "started_unix": row["started"], "finished_unix": row["finished"]})
    return out


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
        return (f"{path} is damaged or not a Rummy Hall data file ({text}); restore a backup "
                f"(rummyhall backup) or give another --data file")
    if "locked" in lowered or "busy" in lowered:
        return f"{path} is locked by another program ({text})"
    return f"{path}: {text}"


def _no_space(path: str) -> bool:
    """Less than a megabyte free where the file lives (SQLite may say "disk I/O error")."""
    try:
        return shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free < 1 << 20
    except OSError:
        return False


def _connect_for_reading(path: str) -> sqlite3.Connection:
    """A connection that only reads: an ordinary one (query_only), which cleans up the
    WAL and shared-memory files it made; in a directory it cannot write to, a read-only
    one (immutable when there is no WAL: no server can be writing it)."""
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA schema_version").fetchone()  # (opens the file for real)
        return conn
    except sqlite3.Error:
        with contextlib.suppress(UnboundLocalError, sqlite3.Error):
            conn.close()
    uri = f"{Path(path).absolute().as_uri()}?mode=ro"
    if not os.path.exists(path + "-wal") and not os.path.exists(path + "-shm"):
        # nothing can write here (no WAL can be made beside it): the file is immutable
        uri += "&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.Error as exc:
        raise StoreError(_explain(path, exc)) from None


def _damaged(path: str, check: str) -> str:
    return (f"{path} is damaged ({check}); restore a backup (rummyhall backup) or give "
            f"another --data file")


def _newer(path: str, version: int) -> str:
    return (f"{path} has schema version {version}, written by a newer Rummy Hall (this one "
            f"knows up to {SCHEMA_VERSION}): upgrade rummyhall, or give another --data file")


def _make_directory(folder: Path, path: str) -> None:
    """Create the missing directories of ``folder``, each for its owner only (0700)."""
    missing: list[Path] = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    try:
        for directory in reversed(missing):
            directory.mkdir(mode=DIR_MODE)
            os.chmod(directory, DIR_MODE)  # (mkdir's mode passes through the umask)
    except OSError as exc:
        raise StoreError(f"cannot create the data directory of {path}: "
                         f"{exc.strerror or exc}") from None


def _create_private(path: str, *, exclusive: bool = False) -> None:
    """Create ``path`` (empty) for its owner only, before SQLite opens it: SQLite then
    gives its WAL and shared-memory files the same mode."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else 0)
    os.close(os.open(path, flags, FILE_MODE))
    os.chmod(path, FILE_MODE)  # (an empty file that was there, or a umask that differs)


def _server_lock(path: str) -> IO[bytes]:
    """Take the lock that keeps a second server off the data file ``path``: an advisory
    lock on a file beside it, released by the system when the process ends in any way
    (a crash included); the file itself is removed at a clean stop, and its existence
    means nothing. Raises :class:`StoreError` naming the holder's process."""
    lock_path = path + LOCK_SUFFIX
    for _ in range(10):  # (a server stopping removes the file just as we open it: again)
        try:
            f = os.fdopen(os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE), "r+b")
        except OSError as exc:
            raise StoreError(f"cannot create {lock_path} beside {path}: "
                             f"{exc.strerror or exc}; is its directory writable? Give "
                             f"another --data file") from None
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
        if sys.platform != "win32" and not _same_file(f, lock_path):
            f.close()  # we locked a file a stopping server had just removed
            continue
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()).encode())
        f.flush()
        return f
    raise StoreError(f"cannot take the lock {lock_path}: it keeps being replaced")


def _same_file(f: IO[bytes], path: str) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(f.fileno()).st_ino
    except OSError:
        return False


def _release(lock: IO[bytes], path: str) -> None:
    """Let go of the server lock and remove its file (removed while still held, so a
    server starting meanwhile finds that it locked a removed file, and tries again)."""
    lock_path = path + LOCK_SUFFIX
    if sys.platform == "win32":  # Windows wants its byte unlocked, and the file closed
        with contextlib.suppress(OSError):
            lock.seek(LOCK_BYTE)
            msvcrt.locking(lock.fileno(), msvcrt.LK_UNLCK, 1)
        lock.close()
        with contextlib.suppress(OSError):
            os.remove(lock_path)
        return
    if _same_file(lock, lock_path):
        with contextlib.suppress(OSError):
            os.remove(lock_path)
    lock.close()


def _abandon(conn: sqlite3.Connection | None, path: str, existed: bool) -> None:
    """A file that could not be opened: close its connection; remove it if it is new."""
    if conn is not None:
        conn.close()
    if not existed:
        _remove_quietly(path)


def _remove_quietly(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.remove(path + suffix)
