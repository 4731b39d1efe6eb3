"""The journal: every table's actions and shuffles in the SQLite file, committed before
anyone hears of them; the restart that rebuilds every unfinished table from it.

Theory of operation
-------------------
Where SQLite runs: a commit under the default policy (``synchronous=NORMAL``) hands its
pages to the operating system and returns, in a tenth of a millisecond or so; it runs on
the event loop, which is cheaper and steadier than a hop to a worker thread (that hop,
with its wait for the GIL, used to cost a commit a millisecond or more under load). With
the ``fsync`` setting a commit waits for the disk, so it runs in a worker thread. The
checkpoints (copying the WAL into the database, with the fsyncs of the NORMAL policy) and
every query run in a worker thread on the store's second connection, one at a time, so
neither ever holds up a commit. Because commits on the event loop must not wait long,
their connection gives up on a lock held by another program after
:data:`LOOP_LOCK_WAIT_MS`; such a batch is retried in a worker thread, which waits up to
:data:`LOCK_WAIT_SECONDS`. An in-memory database (tests, benchmarks) has one connection:
everything runs on the event loop.

A passive checkpoint runs alongside the commits, so commits made meanwhile stay in the
WAL, which SQLite only starts again from its beginning once a checkpoint has copied all
of it. So when the WAL holds more than :data:`WAL_PAGES` pages, a second checkpoint copies
that remainder with the commits held back for its duration (a few milliseconds): the
WAL's size stays bounded under any load.

Where commits run on the event loop (the default policy), a table's ``before_broadcast``
hook *stages* the statements of its action in the batch gathering and returns at once:
the table queues the ``ok``, the events and the next prompts in the outboxes, and the
hall's flusher, before it writes any byte of any outbox, calls :meth:`Journal.settle_now`,
which commits everything staged in one transaction (group commit: the actions of every
table that ran since the last write, with the seat changes and the players). So a
message never reaches a socket before the rows of what it announces are committed, and
an action costs no trip through the scheduler to a committer task and back. A commit
that must wait (the write lock held by a checkpoint emptying the WAL, or by another
program) is awaited by the writer, :meth:`Journal.settle`, before it writes.

With the ``fsync`` setting a commit waits for the disk in a worker thread: there the hook
hands the statements to the committer task and waits for their transaction, so the
``ok`` and the events are queued only once it has committed (its fsync paid once per
batch of every table waiting).

If a commit fails (the disk is full, the file was taken away) nothing more is
acknowledged: the journal turns failed, every later action is refused with an internal
error, and the server is asked to stop. The messages queued on the strength of staged
rows that the failed commit did not write are dropped unsent (:attr:`Journal.on_unsaved`:
the hall closes those connections with an ``internal_error``). A restart resumes from
the last committed action, which is also the last one any client saw.

Event numbers: each game's row keeps ``first_seq``, the table's event number before the
game's first event, so a table rebuilt from its journal numbers its events on from where
they were (docs/protocol.md promises that a table's seq only grows).

Restart: :meth:`Journal.restore` reads every player (their token digests resume them) and
every table of the last run with its latest game's journal, as plain records
(:mod:`.records`); the lobby builds the tables from them (:mod:`.restoring`: the
deterministic engine plus the journalled shuffles rebuild each game exactly). The journal
never needs the lobby.

Queries (history, records, ratings, the restart) run in a worker thread on the store's
query connection, one at a time; checkpoints on a connection of their own, so a query
never holds up a checkpoint and neither holds up a commit.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable, MutableSequence, Sequence
from typing import TYPE_CHECKING, Any

import trio

from rummyhall.protocol import Error as ErrorMessage
from rummyhall.protocol import (
    GameRecord,
    GamesPlayed,
    GetRecord,
    HandResult,
    JournalEntry,
    ListGamesPlayed,
    ListRatings,
    Message,
    PlayedGame,
    PlayedSeat,
    RatingInfo,
    Ratings,
    SeatInfo,
    action_from_entry,
    action_to_entry,
)
from rummyhall.rules import (
    Action,
    Event,
    Game,
    Shuffle,
    new_game,
    options_to_dict,
    parse_options,
    seat_view,
)

from .bans import Ban
from .config import Settings
from .names import name_key
from .ratings import Rating
from .records import LatestGame, PlayerRecord, RestoredHall, SeatRecord, TableRecord
from .store import (
    MEMORY,
    RATE_SQL,
    Restored,
    Statement,
    Store,
    StoreBusy,
    StoreError,
    game_ratings,
    rating_key,
    rating_row,
)

if TYPE_CHECKING:
    from .players import Player
    from .table import Seat, Table

log = logging.getLogger("rummyhall.journal")

CHECKPOINT_SECONDS = 1.0  # how often the WAL is copied into the database, at most
WAL_PAGES = 10_000  # past this many pages (40 MiB) in the WAL, the next checkpoint empties it
LOOP_LOCK_WAIT_MS = 20  # a commit on the event loop waits this long for a lock, at most
LOCK_WAIT_SECONDS = 5.0  # then a worker thread waits this long before the commit fails
RECORD_PART = 1500  # journal entries per record message (well within a frame)


class JournalError(Exception):
    """The journal could not commit: the action is not acknowledged."""


# ------------------------------------------------------------------ the journal's format


def replay(game: str, options: dict[str, Any], players: int, first_dealer: int,
           actions: Sequence[dict[str, Any]], *,
           before: Callable[[Game, Action], None] | None = None,
           events: MutableSequence[Event] | None = None) -> tuple[Any, int, int]:
    """The game rebuilt from its journal: (game, number of actions, number of events).

    ``before(game, action)`` is called before each action is applied; ``events``, when
    given, receives every event in order (a deque with a ``maxlen`` keeps the last).
    """
    g = new_game(game, parse_options(game, dict(options)), players=players,
                 first_dealer=first_dealer)
    count = 0
    for d in actions:
        action = action_from_entry(d)
        if before is not None:
            before(g, action)
        produced = g.apply(action)
        count += len(produced)
        if events is not None:
            events += produced
    return g, len(actions), count


def house_bots_recall(seats: Sequence[Seat]) -> Callable[[Game, Action], None]:
    """A ``before`` for :func:`replay`: the house bots that can remember (the strong one)
    relearn each of their seats' past decisions, so a restored table's bots play on with
    the memory of the hand they had."""
    def before(game: Game, action: Action) -> None:
        seat = getattr(action, "seat", None)
        if seat is None:
            return  # a shuffle
        bot = seats[seat].bot
        recall = getattr(bot, "recall", None)
        if recall is not None:
            recall(seat_view(game, seat), action)
    return before


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


_TEXT_OF: dict[Action, str] = {}
_TEXT_CACHE = 20_000  # actions remembered (a few hundred bytes each at most)


def _entry_text(action: Action) -> str:
    """The journal's text of a seat's action, remembered: the same draws, discards and
    knocks of a seat come up again and again (an action is a value: its text never
    changes)."""
    text = _TEXT_OF.get(action)
    if text is None:
        if len(_TEXT_OF) >= _TEXT_CACHE:
            _TEXT_OF.clear()
        text = _TEXT_OF[action] = _dumps(action_to_entry(action))
    return text


# ------------------------------------------------------------------ the journal


class _Batch:
    def __init__(self) -> None:
        self.statements: list[Statement] = []
        self.done = trio.Event()
        self.error: BaseException | None = None
        #: It holds staged rows: messages queued since announce them (none may be
        #: written before it is committed).
        self.staged = False


class Journal:
    """The server's journal over one :class:`Store`."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._limiter = trio.CapacityLimiter(1)  # the queries: one at a time
        self._checkpointing = trio.CapacityLimiter(1)  # the checkpoints, on their connection
        self._writing = trio.Lock()  # one commit at a time; a tail checkpoint holds it too
        memory = store.path == MEMORY
        self._in_thread = settings.fsync and not memory  # commits that wait for the disk
        #: Actions' rows are staged and settled by the writers (commits on the event loop).
        self.staging = not self._in_thread
        self._settling: _Batch | None = None  # a batch of staged rows being committed
        self._queries_in_thread = not memory  # an in-memory store has one connection
        self._batch = _Batch()
        self._wake = trio.Event()
        self._dirty: dict[int, Table | None] = {}  # table snapshots to write (None: removed)
        self._game_of: dict[int, int] = {}  # table id -> its current game's number
        self._seating_of: dict[int, list[dict[str, Any]]] = {}  # game number -> seats
        self._next_game = 1
        #: (rating key, game) -> (rating, games rated): the lobby shows them in the seats
        self._ratings: dict[tuple[str, str], tuple[Rating, int]] = {}
        self.failed: str | None = None
        self.on_failure: Callable[[], None] | None = None
        #: Called when a commit of staged rows failed: every message queued since the
        #: last commit may announce what is not in the journal, and must be dropped.
        self.on_unsaved: Callable[[], None] | None = None
        #: Called when rows are staged (the flusher: it settles them soon, even when no
        #: message of theirs was queued).
        self.on_staged: Callable[[], None] | None = None
        self.commits = 0  # transactions committed
        self.checkpoints = 0
        self.appended = 0  # actions journalled
        #: The bans kept by the last run (rows of the bans table), read at open.
        self.bans_at_start: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, settings: Settings) -> Journal:
        """Open the settings' data file; :class:`StoreError` when it cannot be used."""
        store = await trio.to_thread.run_sync(
            functools.partial(Store.open, settings.data, fsync=settings.fsync,
                              autocheckpoint=False, exclusive=True))
        journal = cls(store, settings)
        if not journal._in_thread:
            store.wait_for_locks(LOOP_LOCK_WAIT_MS)
        journal._next_game = await journal._call(store.next_game_id)
        for row in await journal._call(store.ratings):
            journal._ratings[(row["key"], row["game"])] = (
                Rating(row["mu"], row["sigma"]), row["games"])
        journal.bans_at_start = await journal._call(store.bans)
        return journal

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A query or checkpoint: in a worker thread, one at a time."""
        if not self._queries_in_thread:
            return fn(*args)
        return await trio.to_thread.run_sync(fn, *args, limiter=self._limiter)

    async def _checkpoint(self) -> tuple[int, int]:
        if not self._queries_in_thread:
            return self.store.checkpoint()
        result: tuple[int, int] = await trio.to_thread.run_sync(
            self.store.checkpoint, limiter=self._checkpointing)
        return result

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------------ committing

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """The committer (write each batch as it gathers) and the checkpoints, until
        cancelled."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._checkpoints)
            task_status.started()
            while True:
                await self._wake.wait()
                await self._commit()

    async def _checkpoints(self) -> None:
        """Checkpoint every :data:`CHECKPOINT_SECONDS` while commits come in."""
        done = 0
        while True:
            await trio.sleep(CHECKPOINT_SECONDS)
            if self.commits == done or self.failed is not None:
                continue
            done = self.commits
            try:
                pages, _ = await self._checkpoint()
                if pages > WAL_PAGES:  # copy what was committed meanwhile, commits held
                    async with self._writing:  # (so the writing connection is free)
                        await trio.to_thread.run_sync(
                            functools.partial(self.store.checkpoint, writer=True))
                self.checkpoints += 1
            except StoreError as exc:  # the commits will meet it too; say it once here
                log.warning("checkpoint failed: %s", exc)

    async def flush(self) -> None:
        """Commit what is waiting now (the clean shutdown's last write)."""
        if self._batch.statements or self._dirty:
            await self._commit()

    def _take(self) -> _Batch:
        """The batch gathered so far, with the table rows to write (a new one gathers)."""
        batch, self._batch = self._batch, _Batch()
        batch.statements += self._table_statements()
        return batch

    async def _commit(self, *, on_loop: bool = True) -> None:
        """Commit the batch gathered (on the event loop first, unless ``on_loop`` is
        False: in a worker thread)."""
        self._wake = trio.Event()
        batch = self._take()
        if self.failed is not None:
            batch.error = JournalError(self.failed)
        elif batch.statements:
            if batch.staged:
                self._settling = batch  # (the writers wait for it)
            try:
                # (the lock without a trip through the scheduler when it is free, as it
                # nearly always is: only a checkpoint emptying the WAL holds it)
                try:
                    self._writing.acquire_nowait()
                except trio.WouldBlock:
                    await self._writing.acquire()
                try:
                    if not (on_loop and not self._in_thread and self._write_on_loop(batch)):
                        await self._write_in_thread(batch)
                finally:
                    self._writing.release()
            finally:
                if self._settling is batch:
                    self._settling = None
        batch.done.set()

    def _write_on_loop(self, batch: _Batch) -> bool:
        """Commit ``batch`` on the event loop (the write lock held); False if another
        program holds the file's lock (nothing was written: a worker thread waits)."""
        try:
            self.store.write(batch.statements)
        except StoreBusy:
            log.info("the data file is locked by another program; waiting")
            return False
        except StoreError as exc:
            self._failed_batch(batch, exc)
            return True
        self.commits += 1
        return True

    async def _write_in_thread(self, batch: _Batch) -> None:
        try:
            await trio.to_thread.run_sync(self._write_waiting, batch.statements)
        except StoreError as exc:
            self._failed_batch(batch, exc)
            return
        self.commits += 1

    def _failed_batch(self, batch: _Batch, exc: StoreError) -> None:
        batch.error = JournalError(str(exc))
        self._fail(str(exc))
        if batch.staged and self.on_unsaved is not None:
            self.on_unsaved()

    @property
    def settled(self) -> bool:
        """No message queued so far waits for a commit: every one may be written."""
        return not self._batch.staged and self._settling is None

    def settle_now(self) -> bool:
        """Commit the staged rows now, if that needs no wait; True when every message
        queued so far may be written (committed, or dropped after a failed commit).

        The flusher and the session writers call it before they take any bytes of an
        outbox; on False they await :meth:`settle`.
        """
        if self._settling is not None:
            return False
        batch = self._batch
        if not batch.staged:
            return True
        if self.failed is not None:  # (never committed: the messages queued for its rows
            batch.staged = False  # were dropped when the journal failed)
            return True
        try:
            self._writing.acquire_nowait()
        except trio.WouldBlock:
            return False  # a checkpoint empties the WAL: wait for it
        try:
            batch = self._take()
            if self._write_on_loop(batch):
                batch.done.set()
                return True
            # another program holds the file's lock: the batch waits for a worker thread
            batch.statements += self._batch.statements
            self._batch = batch
            return False
        finally:
            self._writing.release()

    async def settle(self) -> None:
        """Return once every message queued so far may be written (see
        :meth:`settle_now`): the commit under way is waited for, the staged rows
        committed (in a worker thread if another program holds the file's lock)."""
        while not self.settle_now():
            settling = self._settling
            if settling is not None:
                await settling.done.wait()
            elif self._writing.locked():
                async with self._writing:
                    pass
            else:
                await self._commit(on_loop=False)

    def _write_waiting(self, statements: list[Statement]) -> None:
        """Commit, retrying while another program holds the lock (in a worker thread)."""
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                self.store.write(statements)
                return
            except StoreBusy:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(LOOP_LOCK_WAIT_MS / 1000)

    def _fail(self, why: str) -> None:
        self.failed = why
        log.critical("the journal cannot write: %s; nothing more is acknowledged and the "
                     "server stops (a restart resumes from the last committed action)", why)
        if self.on_failure is not None:
            self.on_failure()

    def _stage(self, statements: list[Statement]) -> None:
        """Add an action's rows to the batch gathering; the messages queued from here are
        written only once it is committed (:meth:`settle_now`)."""
        if self.failed is not None:
            raise JournalError(self.failed)
        batch = self._batch
        batch.statements += statements
        if not batch.staged:
            batch.staged = True
            if self.on_staged is not None:
                self.on_staged()

    async def _submit(self, statements: list[Statement]) -> None:
        if self.failed is not None:
            raise JournalError(self.failed)
        batch = self._batch
        batch.statements += statements
        self._wake.set()
        await batch.done.wait()
        if batch.error is not None:
            raise batch.error

    # ------------------------------------------------------------------ the hooks

    def attach(self, table: Table) -> None:
        """Journal this table (the lobby's ``on_new_table``)."""
        table.before_broadcast = self.before_broadcast
        name = table.game_name
        table.rating_of = lambda seat: self.shown_rating(name, seat)

    def table_changed(self, table: Table, removed: bool) -> None:
        """Seats, state or the table's removal: written with the next batch."""
        self._dirty[table.id] = None if removed else table
        if removed:
            self._forget_table(table.id)
        self._wake.set()

    def _forget_table(self, table_id: int) -> None:
        """The table goes: a game it had not finished is abandoned (its row says so,
        with the time, in the next batch; the history never shows it as being played)."""
        number = self._game_of.pop(table_id, None)
        if number is not None and self._seating_of.pop(number, None) is not None:
            self._batch.statements.append((
                "UPDATE games SET state = 'abandoned', finished = ? "
                "WHERE id = ? AND state = 'playing'", (time.time(), number)))

    async def before_broadcast(self, table: Table, action: Action) -> None:
        """Journal ``action`` of ``table`` (with the game's record when it starts or ends):
        staged, so that nothing queued from here is written before it is committed, or
        (with ``fsync``) committed before this returns. :class:`JournalError` if the
        journal has failed."""
        game = table.game
        assert game is not None
        out: list[Statement] = []
        n = table.played - 1
        if n == 0 or table.id not in self._game_of:
            out += self._start_statements(table)
        number = self._game_of[table.id]
        if isinstance(action, Shuffle):
            entry = action_to_entry(action)
            if table.shuffle_proof is not None:  # (a restart and a replay need it)
                entry["proof"] = table.shuffle_proof.to_json()
            text = _dumps(entry)
        else:
            text = _entry_text(action)
        out.append(("INSERT INTO journal (game, n, action) VALUES (?, ?, ?)",
                    (number, n, text)))
        if game.is_over:
            out += self._finish_statements(table, number)
        self.appended += 1
        if self.staging:
            self._stage(out)  # (committed before any message queued from here is written)
        else:
            await self._submit(out)

    def _start_statements(self, table: Table) -> list[Statement]:
        number = self._next_game
        self._next_game += 1
        self._game_of[table.id] = number
        seating = []
        for seat in table.seats:
            p = seat.player
            if seat.house is not None:
                seating.append({"seat": seat.index, "name": table.house_name(seat),
                                "kind": "house", "player": None})
            else:
                seating.append({"seat": seat.index, "name": p.name if p else "?",
                                "kind": "bot" if p and p.kind == "bot" else "person",
                                "player": p.id if p else None})
        self._seating_of[number] = seating
        out = self._player_statements(table)
        private = int(table.code is not None)
        # (called before the first action's events: the table's seq is the game's base)
        out.append(("INSERT INTO games (id, table_id, game, options, seating, first_dealer, "
                    "seeded, state, started, first_seq, private) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?, ?, ?)",
                    (number, table.id, table.game_name,
                     _dumps(options_to_dict(table.options)), _dumps(seating),
                     table.first_dealer, int(table.seeded), time.time(), table.seq,
                     private)))
        out += [("INSERT OR IGNORE INTO game_names (name_key, game, private) VALUES (?, ?, ?)",
                 (name_key(str(s["name"])), number, private)) for s in seating]
        if private:  # (the history shows the game to these players alone)
            out += [("INSERT OR IGNORE INTO private_players (player, game) VALUES (?, ?)",
                     (s["player"], number)) for s in seating if s["player"] is not None]
        self._dirty[table.id] = table
        return out

    def _finish_statements(self, table: Table, number: int) -> list[Statement]:
        game = table.game
        assert game is not None
        hands = [{"hand_no": r.hand_no, "outcome": r.outcome, "winners": list(r.winners),
                  "points": list(r.points), "totals": list(r.totals)} for r in game.results]
        out: list[Statement] = [
            ("UPDATE games SET state = 'finished', finished = ?, hands = ?, winners = ?, "
             "totals = ? WHERE id = ?",
             (time.time(), _dumps(hands), _dumps(list(game.winners)), _dumps(list(game.scores)),
              number))]
        seating = self._seating_of.pop(number, None)
        self._dirty[table.id] = table  # (its row keeps this game as the table's latest)
        if seating is None:
            return out
        name = table.game_name

        def known(key: str) -> tuple[Rating, int]:
            return self._ratings.get((key, name), (Rating(), 0))

        by_key = {rating_key(s): s for s in seating}
        for key, rating, games in game_ratings(name, seating, game.winners, game.scores,
                                               known):
            self._ratings[(key, name)] = (rating, games)
            out.append((RATE_SQL, rating_row(key, name, by_key[key], rating, games)))
        return out

    def shown_rating(self, game: str, seat: SeatInfo) -> int | None:
        """The rating of whoever sits in ``seat`` at ``game`` (None: not rated yet)."""
        if seat.player is not None:
            key = rating_key({"player": seat.player})
        elif seat.kind == "house" and seat.name:
            key = rating_key({"player": None, "name": seat.name})
        else:
            return None
        found = self._ratings.get((key, game))
        return found[0].shown if found else None

    def _player_statements(self, table: Table) -> list[Statement]:
        players = {table.creator.id: table.creator}
        for seat in table.seats:
            if seat.player is not None:
                players[seat.player.id] = seat.player
        return [("INSERT INTO players (id, name, kind, token_digest, owns_name) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                 "kind = excluded.kind, token_digest = excluded.token_digest, "
                 "owns_name = excluded.owns_name",
                 (p.id, p.name, p.kind, p.token_digest, int(p.owns_name)))
                for p in players.values()]

    def _table_statements(self) -> list[Statement]:
        dirty, self._dirty = self._dirty, {}
        out: list[Statement] = []
        for table_id, table in dirty.items():
            if table is None:
                out.append(("DELETE FROM tables WHERE id = ?", (table_id,)))
                continue
            seating = [{"player": s.player.id if s.player else None,
                        "house": s.house.name if s.house else None, "left": s.left}
                       for s in table.seats]
            out += self._player_statements(table)
            out.append((
                "INSERT INTO tables (id, game, options, creator, turn_seconds, grace_seconds, "
                "seeded, state, seating, current_game, lock) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET game = excluded.game, "
                "options = excluded.options, creator = excluded.creator, "
                "turn_seconds = excluded.turn_seconds, grace_seconds = excluded.grace_seconds, "
                "seeded = excluded.seeded, state = excluded.state, seating = excluded.seating, "
                "current_game = excluded.current_game, lock = excluded.lock",
                (table.id, table.game_name, _dumps(options_to_dict(table.options)),
                 table.creator.id, table.turn_seconds, table.grace_seconds, int(table.seeded),
                 table.state, _dumps(seating), self._game_of.get(table.id),
                 _dumps(table.code.to_record()) if table.code is not None else None)))
        return out

    # ------------------------------------------------------------------ the host's controls

    async def record_admin(self, at: float, who: str, action: str, target: str,
                           details: dict[str, Any], *, ban: Ban | None = None,
                           lifted: Sequence[Ban] = ()) -> None:
        """Commit one admin action to the admin log, with the ban it makes or the bans it
        lifts, before it takes effect (:class:`JournalError` if it cannot be)."""
        statements: list[Statement] = [(
            "INSERT INTO admin_log (at, who, action, target, details) VALUES (?, ?, ?, ?, ?)",
            (at, who, action, target, _dumps(details)))]
        if ban is not None:
            statements.append((
                "INSERT INTO bans (id, name, player, address, until, reason, since) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ban.number, ban.name, ban.player, ban.address, ban.until_unix, ban.reason,
                 ban.since_unix)))
        statements += self._forget_statements(lifted)
        await self._submit(statements)

    def names_changed(self, players: Sequence[Player]) -> None:
        """Players whose name, or whether they own it, changed: the rows of those the
        file keeps follow with the next batch (not waited for; a player it does not keep
        has no row, and none is made)."""
        if players and self.failed is None:
            self._batch.statements += [
                ("UPDATE players SET name = ?, owns_name = ? WHERE id = ?",
                 (p.name, int(p.owns_name), p.id)) for p in players]
            self._wake.set()

    def forget_bans(self, ended: Sequence[Ban]) -> None:
        """Bans that have run out: their rows go with the next batch (not waited for)."""
        if ended and self.failed is None:
            self._batch.statements += self._forget_statements(ended)
            self._wake.set()

    @staticmethod
    def _forget_statements(bans: Sequence[Ban]) -> list[Statement]:
        return [("DELETE FROM bans WHERE id = ?", (b.number,)) for b in bans]

    # ------------------------------------------------------------------ restart

    async def restore(self) -> RestoredHall:
        """Every player and every table of the last run, with each table's latest game
        (the lobby builds the tables: :func:`~.restoring.rebuild_table`). From here the
        journal goes on with those games: their next actions and their results."""
        restored: Restored = await self._call(self.store.restored)
        players = tuple(PlayerRecord(r["id"], r["name"], r["kind"], r["token_digest"],
                                     bool(r["owns_name"]))
                        for r in restored.players)
        tables = []
        for row in restored.tables:
            try:
                tables.append(self._table_record(row, restored))
            except (ValueError, KeyError, TypeError):
                log.exception("table %s cannot be read; it is dropped", row["id"])
                self.table_dropped(row["id"])
        # A game left 'playing' by a table that is gone (removed by a server before this
        # one abandoned such games) is abandoned now; when is not known.
        kept = [t.latest.number for t in tables if t.latest is not None]
        self._batch.statements.append((
            "UPDATE games SET state = 'abandoned' WHERE state = 'playing' "
            "AND id NOT IN (SELECT value FROM json_each(?))", (_dumps(kept),)))
        self._wake.set()
        return RestoredHall(players, tuple(tables))

    def _table_record(self, row: Any, restored: Restored) -> TableRecord:
        seats = tuple(SeatRecord(s["player"], s["house"], bool(s["left"]))
                      for s in json.loads(row["seating"]))
        number = row["current_game"]
        game_row = restored.games.get(number) if number is not None else None
        latest = None
        if game_row is not None:
            latest = LatestGame(number, json.loads(game_row["options"]),
                                game_row["first_dealer"], game_row["first_seq"],
                                json.loads(game_row["seating"]), restored.journals[number])
            self._game_of[row["id"]] = number
            if game_row["state"] == "playing":
                self._seating_of[number] = latest.seating
        return TableRecord(row["id"], row["game"], json.loads(row["options"]),
                           row["creator"], row["turn_seconds"], row["grace_seconds"],
                           bool(row["seeded"]), row["state"], seats, latest,
                           json.loads(row["lock"]) if row["lock"] is not None else None)

    def table_dropped(self, table_id: int) -> None:
        """A table of the last run that could not be rebuilt: its row goes (and its
        unfinished game is abandoned)."""
        self._forget_table(table_id)
        self._dirty[table_id] = None
        self._wake.set()

    # ------------------------------------------------------------------ history requests

    async def answer(self, message: Message, viewer: int | None = None) -> Message:
        """The reply to a history or ratings request of player ``viewer`` (a private
        table's games are shown only to the players who sat in them; None: every game,
        for the host's own tools)."""
        request_id = getattr(message, "id", None)
        if isinstance(message, ListGamesPlayed):
            rows = await self._call(lambda: self.store.games(
                limit=message.limit or 20, before=message.before, name=message.name,
                viewer=viewer))
            return GamesPlayed(games=tuple(_played(r) for r in rows), id=request_id)
        if isinstance(message, GetRecord):
            start = message.start or 0
            # (a game still played, or of a private table the viewer did not sit at, is
            # refused before any of its actions is read: as if there were none, its
            # number tells nothing)
            record = await self._call(functools.partial(
                self.store.record_part, message.number, start, RECORD_PART, viewer=viewer))
            if record is None:
                return ErrorMessage(code="no_such_game", fatal=False, id=request_id,
                                    message=f"no finished game has number {message.number}")
            part = record["actions"]
            end = start + len(part)
            return GameRecord(
                summary=_played(record), options=record["options"],
                first_dealer=record["first_dealer"], seeded=record["seeded"],
                hands=tuple(HandResult(**_tuples(h)) for h in record["hands"]), start=start,
                journal=tuple(JournalEntry(seat=a.get("seat"), action=_tuples(
                    {k: v for k, v in a.items() if k != "seat"})) for a in part),
                next=end if end < record["actions_total"] else None, id=request_id)
        if isinstance(message, ListRatings):
            rows = await self._call(functools.partial(
                self.store.ratings, message.game, limit=message.limit or 100))
            return Ratings(ratings=tuple(
                RatingInfo(name=r["name"], game=r["game"],
                           rating=Rating(r["mu"], r["sigma"]).shown, skill=round(r["mu"]),
                           games=r["games"], player=r["player"]) for r in rows),
                id=request_id)
        raise TypeError(f"not a history request: {message!r}")


def _tuples(value: Any) -> Any:
    """JSON's lists as the tuples the wire wants."""
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def _played(r: dict[str, Any]) -> PlayedGame:
    seats = tuple(PlayedSeat(seat=s["seat"], name=s["name"], kind=s["kind"],
                             player=s["player"]) for s in r["seats"])
    finished = r["finished_unix"]
    return PlayedGame(number=r["id"], table=r["table"], game=r["game"], state=r["state"],
                      seats=seats, winners=tuple(r["winners"]), totals=tuple(r["totals"]),
                      hands=r["hands_scored"], started=int(r["started_unix"]),
                      finished=None if finished is None else int(finished))
