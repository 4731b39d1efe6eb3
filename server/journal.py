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

A table's ``before_broadcast`` hook hands the journal the statements of its action and
waits; a single committer task takes *every* statement waiting at that moment (the
actions of all tables, the seat changes, the players) and commits them in one
transaction: group commit (with the ``fsync`` setting, its fsync is paid once per batch).
A table's ``ok`` and events go out only once its action is committed. While a batch
is being written the next one gathers.

If a commit fails (the disk is full, the file was taken away) nothing more is
acknowledged: the journal turns failed, every waiting and later action is refused with
an internal error, and the server is asked to stop. A restart resumes from the last
committed action, which is also the last one any client saw.

Restart: :meth:`Journal.restore` reads every player (their tokens resume them) and every
unfinished table; a table in play gets its game rebuilt by replaying its journal through
the rules engine (the deterministic engine plus the journalled shuffles rebuild it
exactly), its seats, house bots and stand-ins back, and the grace period of each absent
player running from the restart.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from rummyhall.bots import make_strategy
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
    action_from_wire,
    action_to_wire,
    json_value,
)
from rummyhall.rules import (
    Action,
    Card,
    Game,
    Shuffle,
    new_game,
    options_to_dict,
    parse_options,
    seat_view,
)

from .config import Settings
from .ratings import Rating, ranks_from_result, rate
from .store import MEMORY, Restored, Statement, Store, StoreBusy, StoreError

if TYPE_CHECKING:
    from .lobby import Lobby
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


def action_to_json(action: Action) -> dict[str, Any]:
    """``{"kind", "seat", fields}``; a shuffle is ``{"kind": "shuffle", "order": [...]}``."""
    if isinstance(action, Shuffle):
        return {"kind": "shuffle", "order": [str(c) for c in action.order]}
    wire = action_to_wire(action)
    return {"kind": wire.pop("kind"), "seat": action.seat, **json_value(wire)}


def action_from_json(d: dict[str, Any]) -> Action:
    if d["kind"] == "shuffle":
        return Shuffle(tuple(Card.parse(c) for c in d["order"]))
    wire = {k: v for k, v in d.items() if k != "seat"}
    return action_from_wire(wire, int(d["seat"]))


def replay(game: str, options: dict[str, Any], players: int, first_dealer: int,
           actions: Sequence[dict[str, Any]], *,
           before: Callable[[Game, Action], None] | None = None
           ) -> tuple[Any, list[Action], int]:
    """The game rebuilt from its journal: (game, actions, number of events).

    ``before(game, action)`` is called before each action is applied.
    """
    g = new_game(game, parse_options(game, dict(options)), players=players,
                 first_dealer=first_dealer)
    done: list[Action] = []
    events = 0
    for d in actions:
        action = action_from_json(d)
        if before is not None:
            before(g, action)
        events += len(g.apply(action))
        done.append(action)
    return g, done, events


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


# ------------------------------------------------------------------ the journal


class _Batch:
    def __init__(self) -> None:
        self.statements: list[Statement] = []
        self.done = trio.Event()
        self.error: BaseException | None = None


class Journal:
    """The server's journal over one :class:`Store`."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._limiter = trio.CapacityLimiter(1)  # the queries and checkpoints: one at a time
        self._writing = trio.Lock()  # one commit at a time; a tail checkpoint holds it too
        memory = store.path == MEMORY
        self._in_thread = settings.fsync and not memory  # commits that wait for the disk
        self._queries_in_thread = not memory  # an in-memory store has one connection
        self._batch = _Batch()
        self._wake = trio.Event()
        self._dirty: dict[int, Table | None] = {}  # table snapshots to write (None: removed)
        self._game_of: dict[int, int] = {}  # table id -> its current game's number
        self._seating_of: dict[int, list[dict[str, Any]]] = {}  # game number -> seats
        self._next_game = 1
        self._ratings: dict[tuple[str, str], tuple[str, Rating, int]] = {}
        self.failed: str | None = None
        self.on_failure: Callable[[], None] | None = None
        self.commits = 0  # transactions committed
        self.checkpoints = 0
        self.appended = 0  # actions journalled

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
                row["name"], Rating(row["mu"], row["sigma"]), row["games"])
        return journal

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A query or checkpoint: in a worker thread, one at a time."""
        if not self._queries_in_thread:
            return fn(*args)
        return await trio.to_thread.run_sync(fn, *args, limiter=self._limiter)

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
                pages, _ = await self._call(self.store.checkpoint)
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

    async def _commit(self) -> None:
        self._wake = trio.Event()
        batch, self._batch = self._batch, _Batch()
        batch.statements += self._table_statements()
        if self.failed is not None:
            batch.error = JournalError(self.failed)
        elif batch.statements:
            try:
                async with self._writing:
                    await self._write(batch.statements)
                self.commits += 1
            except StoreError as exc:
                self._fail(str(exc))
                batch.error = JournalError(str(exc))
        batch.done.set()

    async def _write(self, statements: list[Statement]) -> None:
        if not self._in_thread:
            try:
                self.store.write(statements)
                return
            except StoreBusy:  # another program holds the lock: wait for it in a thread
                log.info("the data file is locked by another program; waiting")
        await trio.to_thread.run_sync(self._write_waiting, statements)

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
        table.rating_of = lambda who: self.shown_rating(name, who)

    def table_changed(self, table: Table, removed: bool) -> None:
        """Seats, state or the table's removal: written with the next batch."""
        self._dirty[table.id] = None if removed else table
        self._wake.set()

    async def before_broadcast(self, table: Table, action: Action) -> None:
        """Commit ``action`` of ``table`` (with the game's record when it starts or ends)."""
        game = table.game
        assert game is not None
        out: list[Statement] = []
        n = len(table.journal) - 1
        if n == 0 or table.id not in self._game_of:
            out += self._start_statements(table)
        number = self._game_of[table.id]
        out.append(("INSERT INTO journal (game, n, action) VALUES (?, ?, ?)",
                    (number, n, _dumps(action_to_json(action)))))
        if game.is_over:
            out += self._finish_statements(table, number)
        self.appended += 1
        await self._submit(out)

    def _start_statements(self, table: Table) -> list[Statement]:
        number = self._next_game
        self._next_game += 1
        self._game_of[table.id] = number
        seating = []
        for seat in table.seats:
            p = seat.player
            if seat.house is not None:
                seating.append({"seat": seat.index, "name": f"{seat.house.name} bot",
                                "kind": "house", "player": None})
            else:
                seating.append({"seat": seat.index, "name": p.name if p else "?",
                                "kind": "bot" if p and p.kind == "bot" else "person",
                                "player": p.id if p else None})
        self._seating_of[number] = seating
        out = self._player_statements(table)
        out.append(("INSERT INTO games (id, table_id, game, options, seating, first_dealer, "
                    "seeded, state, started) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
                    (number, table.id, table.game_name,
                     _dumps(options_to_dict(table.options)), _dumps(seating),
                     table.first_dealer, int(table.seeded), time.time())))
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
        self._game_of.pop(table.id, None)
        self._dirty[table.id] = table
        if seating is None:
            return out
        names = [s["name"] for s in seating]
        if len({n.casefold() for n in names}) != len(names):
            return out  # two seats of one name (two house bots of one strategy): not rated
        before = [self._rating(table.game_name, n) for n in names]
        after = rate([r for r, _ in before], ranks_from_result(game.winners, game.scores))
        for name, (_, games), rating in zip(names, before, after, strict=True):
            key = (name.casefold(), table.game_name)
            self._ratings[key] = (name, rating, games + 1)
            out.append(("INSERT INTO ratings (key, game, name, mu, sigma, games) "
                        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key, game) DO UPDATE SET "
                        "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
                        "games = excluded.games",
                        (key[0], key[1], name, rating.mu, rating.sigma, games + 1)))
        return out

    def _rating(self, game: str, name: str) -> tuple[Rating, int]:
        found = self._ratings.get((name.casefold(), game))
        return (found[1], found[2]) if found else (Rating(), 0)

    def shown_rating(self, game: str, name: str | None) -> int | None:
        if not name:
            return None
        found = self._ratings.get((name.casefold(), game))
        return found[1].shown if found else None

    def _player_statements(self, table: Table) -> list[Statement]:
        players = {table.creator.id: table.creator}
        for seat in table.seats:
            if seat.player is not None:
                players[seat.player.id] = seat.player
        return [("INSERT INTO players (id, name, kind, token) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, "
                 "token = excluded.token", (p.id, p.name, p.kind, p.token_digest))
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
                "seeded, state, seating, current_game) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET game = excluded.game, "
                "options = excluded.options, creator = excluded.creator, "
                "turn_seconds = excluded.turn_seconds, grace_seconds = excluded.grace_seconds, "
                "seeded = excluded.seeded, state = excluded.state, seating = excluded.seating, "
                "current_game = excluded.current_game",
                (table.id, table.game_name, _dumps(options_to_dict(table.options)),
                 table.creator.id, table.turn_seconds, table.grace_seconds, int(table.seeded),
                 table.state, _dumps(seating),
                 self._game_of.get(table.id) if table.state == "playing" else None)))
        return out

    # ------------------------------------------------------------------ restart

    async def restore(self, lobby: Lobby) -> int:
        """Bring back every player and every unfinished table; the number of tables."""
        restored: Restored = await self._call(self.store.restored)
        for row in restored.players:
            if lobby.players.get(row["id"]) is None:
                player = lobby.players.restore(row["id"], row["name"], row["kind"],
                                               row["token"])
                player.gone_since = trio.current_time()  # (its token lasts from here)
        count = 0
        for row in restored.tables:
            try:
                self._restore_table(lobby, row, restored)
                count += 1
            except Exception:  # one damaged table must not keep the server down
                log.exception("table %s could not be restored; it is dropped", row["id"])
                self._dirty[row["id"]] = None
        if restored.tables:
            log.info("restored %d of %d unfinished tables", count, len(restored.tables))
        return count

    def _restore_table(self, lobby: Lobby, row: Any, restored: Restored) -> None:
        creator = lobby.players.get(row["creator"])
        if creator is None:
            raise ValueError(f"unknown creator {row['creator']}")
        seating = json.loads(row["seating"])
        options = parse_options(row["game"], json.loads(row["options"]))
        number = row["current_game"]
        game_row = restored.games.get(number) if number is not None else None
        now = trio.current_time()

        def setup(table: Table) -> None:
            for seat, s in zip(table.seats, seating, strict=True):
                player: Player | None = (lobby.players.get(s["player"])
                                         if s["player"] is not None else None)
                seat.player = player
                if s["house"]:
                    seat.house = make_strategy(s["house"], random.Random(table.rng.random()))
                if player is not None and not (s["left"] and row["state"] == "playing"):
                    player.tables.add(table.id)  # (a seat left is not a table one is at)
            if row["state"] == "playing" and game_row is not None:
                for seat, s in zip(table.seats, seating, strict=True):
                    if seat.player is not None and s["left"]:
                        seat.left = True
                        seat.stand_in = make_strategy(self.settings.stand_in,
                                                      random.Random(table.rng.random()))
                game, actions, events = replay(
                    row["game"], json.loads(game_row["options"]), len(seating),
                    game_row["first_dealer"], restored.journals[number],
                    before=house_bots_recall(table.seats))
                table.game, table.journal, table.seq = game, actions, events
                table.first_dealer = game_row["first_dealer"]
                table.state = "playing"
                table.pause_until = math.inf
                self._game_of[table.id] = number
                self._seating_of[number] = json.loads(game_row["seating"])
                for seat in table.seats:
                    if seat.player is not None and not seat.left:
                        seat.absent_since = now  # its grace period runs from the restart

        lobby.restore_table(row["id"], row["game"], options, len(seating), creator,
                            turn_seconds=row["turn_seconds"],
                            grace_seconds=row["grace_seconds"], seeded=bool(row["seeded"]),
                            setup=setup)

    # ------------------------------------------------------------------ history requests

    async def answer(self, message: Message) -> Message:
        """The reply to a history or ratings request."""
        request_id = getattr(message, "id", None)
        if isinstance(message, ListGamesPlayed):
            rows = await self._call(lambda: self.store.games(
                limit=message.limit or 20, before=message.before, name=message.name))
            return GamesPlayed(games=tuple(_played(r) for r in rows), id=request_id)
        if isinstance(message, GetRecord):
            record = await self._call(self.store.record, message.number)
            if record is None or record["state"] != "finished":
                return ErrorMessage(code="no_such_game", fatal=False, id=request_id,
                                    message=f"no finished game has number {message.number}")
            start = message.start or 0
            part = record["actions"][start:start + RECORD_PART]
            end = start + len(part)
            return GameRecord(
                summary=_played(record), options=record["options"],
                first_dealer=record["first_dealer"], seeded=record["seeded"],
                hands=tuple(HandResult(**_tuples(h)) for h in record["hands"]), start=start,
                journal=tuple(JournalEntry(seat=a.get("seat"), action=_tuples(
                    {k: v for k, v in a.items() if k != "seat"})) for a in part),
                next=end if end < len(record["actions"]) else None, id=request_id)
        if isinstance(message, ListRatings):
            infos = sorted(
                (RatingInfo(name=name, game=game, rating=rating.shown,
                            skill=round(rating.mu), games=games)
                 for (_, game), (name, rating, games) in self._ratings.items()
                 if message.game is None or game == message.game),
                key=lambda r: (r.game, -r.rating, r.name))
            return Ratings(ratings=tuple(infos[:message.limit or 100]), id=request_id)
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
