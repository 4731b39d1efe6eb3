"""The lobby: players, tables, and the requests that are not about one table's game.

The lobby creates tables (options validated by the rules engine), lists them, routes
table requests into each table's inbox, relays chat, and tells every connected client
when a table changes. Tables run as tasks in the lobby's nursery.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgpack
import trio

from rummyhall.bots import STRATEGIES
from rummyhall.protocol import (
    MAX_SERVER_FRAME,
    Chat,
    CreateTable,
    GameRecord,
    Games,
    GetRecord,
    Join,
    Leave,
    ListGames,
    ListGamesPlayed,
    ListRatings,
    ListTables,
    LobbyUpdates,
    Message,
    Notice,
    Ok,
    ProofError,
    Say,
    TableInfo,
    TableRemoved,
    TableUpdate,
    TokenBucket,
    Watch,
    encode_frame,
    games_catalogue,
)
from rummyhall.protocol import Error as ErrorMessage
from rummyhall.protocol.limits import TABLES_PER_PAGE
from rummyhall.protocol.messages import GameInfo
from rummyhall.rules import GAMES, OptionError, new_game, parse_options

from .access import CODES_PER_ADDRESS, AttemptLimiter, TableCode, invite_code, table_code
from .alarms import Alarms
from .arrivals import AddressBuckets, address_rates
from .config import Settings
from .players import Player, PlayerRegistry, Prepared
from .records import RestoredHall
from .restoring import rebuild_table
from .table import Command, Table, TableError

if TYPE_CHECKING:
    from .journal import Journal

log = logging.getLogger("rummyhall.lobby")

UPDATE_CHUNK = 32  # clients told of lobby changes between two turns of the tables
HOUSE_THINKERS = 1
"""House bots that search (expert) thinking at once, over all tables: sixteen expert
tables thinking together held a bystander's ping at 14 ms (p50) and 103 ms (p99)."""
VISITS_PER_SECOND = 10_000
"""Connections the lobby's rounds visit per second, at most: a round visits every
connection, so with more than ``VISITS_PER_SECOND * update_interval`` of them (1,000 by
default) the rounds come further apart than ``update_interval``, in proportion. Their
cost (an offer and a write per connection) is then bounded per second, whatever the
number of connections, instead of growing as connections times rounds."""
#: A get_record page costs a rate token per this many journal entries it carries, on
#: top of its size: reading and decoding them costs the server about 0.1 ms per 20, what
#: a small frame costs it per token (docs/protocol.md, section 8).
RECORD_ENTRIES_PER_TOKEN = 20
#: A create_table with an invite costs its asker this many rate tokens more: the code's
#: verifier is PBKDF2 of INVITE_ITERATIONS rounds (about 2.3 ms on this machine, 25
#: small frames' work). Before, a client making and dropping invite tables in a loop
#: held 76% of a core and a bystander's ping at 282 ms (p99), a token a table.
INVITE_TOKENS = 25
#: Seconds between two updates of a table that tell only a new count of spectators.
SPECTATOR_GAP = 10.0


class Lobby:
    """Every player and table of the server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.players = PlayerRegistry()
        #: The chat rate the players of one address share, on top of each one's own
        #: (many connections of one machine say no more than four players could).
        self.chat_rates = address_rates(settings.chat_per_second, settings.chat_burst)
        #: Tables made per address (each new table is told to every lobby, and again
        #: when it goes: tables made and dropped in a loop, reconnecting for fresh
        #: places, cost every lobby 60 KiB a second of one address).
        self.table_rates = AddressBuckets(settings.tables_per_second,
                                          settings.max_tables_per_address)
        self.tables: dict[int, Table] = {}
        self._next_table = 1
        self._nursery: trio.Nursery | None = None
        #: The tables' timers (one task for all: see .alarms).
        self.alarms = Alarms()
        #: The house bots that search think one at a time, in a worker thread: however
        #: many tables have one, the server's own thread shares the interpreter with one
        #: thinker at most (each holds it while it computes), so its latency stays bounded.
        self.thinking = trio.CapacityLimiter(HOUSE_THINKERS)
        self._seed = random.Random(settings.seed) if settings.seed is not None else None
        self._catalogue = Games(games=tuple(GameInfo.from_wire(g) for g in games_catalogue()),
                                bots=(settings.stand_in, *(s for s in STRATEGIES
                                                           if s != settings.stand_in)))
        self._dirty: dict[int, Table | None] = {}  # tables to announce (None: removed)
        #: When each table's last update went out, and what it said.
        self._announced: dict[int, tuple[float, TableInfo]] = {}
        #: Changed tables whose update waits (see :meth:`_due`): when it may go.
        self._held: dict[int, tuple[float, Table]] = {}
        self._info_bytes: dict[int, bytes] = {}  # each table's TableInfo, encoded
        self._dirty_event = trio.Event()
        #: Called with each new table (the journal hooks itself in here, issue 5).
        self.on_new_table: Callable[[Table], None] | None = None
        #: Called when a table changes or is removed (True): the journal's table rows.
        self.on_table_changed: Callable[[Table, bool], None] | None = None
        #: The journal, for the history and ratings requests (None: no data file).
        self.journal: Journal | None = None
        #: Wrong table codes, by address and table (a right one clears its record).
        self.code_attempts = AttemptLimiter(per_group=CODES_PER_ADDRESS)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Host the tables' tasks and send the lobby's updates until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self.alarms.run, name="alarm clock")
            task_status.started()
            await self._send_updates()

    async def _send_updates(self) -> None:
        """Tell every client of the tables that changed, at most every update_interval
        (further apart with thousands of connections: :meth:`round_wait`).

        A burst of changes (many tables filling at once) costs each client one write of
        the latest state of each table, not one write per change.
        """
        wait = self.settings.update_interval
        while True:
            with trio.move_on_at(min((due for due, _ in self._held.values()),
                                     default=math.inf)):
                await self._dirty_event.wait()
            await trio.sleep(wait)
            self._dirty_event = trio.Event()
            dirty, self._dirty = self._dirty, {}
            now = trio.current_time()
            for table_id, (due, table) in list(self._held.items()):
                if due <= now:
                    dirty.setdefault(table_id, table)
            messages = self._due(dirty)
            # encoded once for the whole round, however many tables changed
            updates = Prepared(*messages.values()) if messages else None
            behind = False
            connected = list(self.players.connected())
            wait = self.round_wait(len(connected))
            for n, player in enumerate(connected):
                behind |= self._tell(player, messages, updates)
                if n % UPDATE_CHUNK == UPDATE_CHUNK - 1:
                    # let the tables run between chunks (the flusher paces the writes
                    # themselves; this keeps a thousand queue entries from one stretch)
                    await trio.sleep(0)
            if behind:
                self._dirty_event.set()  # another round, for those who missed updates

    def _due(self, dirty: dict[int, Table | None]) -> dict[int, TableUpdate | TableRemoved]:
        """Of the tables changed, the updates that may go now: one announced less than
        ``table_update_seconds`` ago waits for a later round (then tells its latest
        state), so that a client toggling a seat again and again costs every lobby one
        update a second of that table, not ten; one whose only change is its count of
        spectators waits :data:`SPECTATOR_GAP` (anybody may watch any table: a client
        watching and leaving tables in a loop would cost every lobby an update of each
        every second); a removal goes at once."""
        gap = self.settings.table_update_seconds
        now = trio.current_time()
        due: dict[int, TableUpdate | TableRemoved] = {}
        for table_id, table in dirty.items():
            self._held.pop(table_id, None)
            if table is None:
                self._announced.pop(table_id, None)
                due[table_id] = TableRemoved(table=table_id)
                continue
            info = table.info()
            last = self._announced.get(table_id)
            if last is not None:
                told_at, told = last
                at = told_at + (SPECTATOR_GAP if dataclasses.replace(
                    info, spectators=told.spectators) == told else gap)
                if now < at:
                    self._held[table_id] = (at, table)  # (later: the loop wakes then)
                    continue
            self._announced[table_id] = (now, info)
            due[table_id] = TableUpdate(info=info)
        return due

    def round_wait(self, connections: int) -> float:
        """Seconds between two lobby rounds with ``connections`` connected: the
        ``update_interval``, or longer with so many connections that the rounds would
        visit more than :data:`VISITS_PER_SECOND`."""
        return max(self.settings.update_interval, connections / VISITS_PER_SECOND)

    def _update_of(self, table_id: int) -> TableUpdate | TableRemoved:
        """The push that tells a table's state now."""
        table = self.tables.get(table_id)
        return TableRemoved(table=table_id) if table is None else TableUpdate(info=table.info())

    def _tell(self, player: Player, messages: dict[int, TableUpdate | TableRemoved],
              updates: Prepared | None) -> bool:
        """Offer ``player`` this round's updates it asked for; True if some are still
        owed to it. Updates are what a lagging reader may lose (docs/protocol.md, 8): a
        connection that lags misses them, and once it catches up gets the latest state of
        every table it missed, in one entry."""
        wanted = messages if player.lobby_updates else {
            t: m for t, m in messages.items() if t in player.tables}
        missed = player.missed_updates
        if missed:
            if player.outbox is None or player.outbox.lagging:
                missed.update(wanted)
                return True
            missed.update(wanted)
            if player.offer(Prepared(*(self._update_of(t) for t in sorted(missed)))):
                missed.clear()
        elif wanted and not player.offer(updates if wanted is messages and updates is not None
                                         else Prepared(*wanted.values())):
            missed.update(wanted)
        return bool(missed)

    # ------------------------------------------------------------------ requests

    async def handle(self, player: Player, message: Message) -> trio.Event | None:
        """Handle a request of ``player``: lobby requests here, table requests in the table.

        A table request is queued in the table's inbox and handled by its task: the event
        returned is set once it is (its reply queued). The session waits for it before it
        handles its next request, so that replies come in the order of the requests, but
        not before it reads on: the table's reply does not wake the session's task. None:
        the reply is queued already.
        """
        table_id = getattr(message, "table", None)
        if isinstance(message, ListTables):
            if player.connected:  # (a connection being closed is sent nothing more)
                player.send(self._tables_page(message))
            await trio.lowlevel.checkpoint()  # a burst of these lets the tables run
        elif isinstance(message, ListGames):
            player.send(self._catalogue if message.id is None
                        else Games(games=self._catalogue.games, bots=self._catalogue.bots,
                                   id=message.id))
        elif isinstance(message, CreateTable):
            made = self._create(player, message)
            if isinstance(made, Ok) and made.invite is not None:
                player.send(Prepared.answer(made, work=INVITE_TOKENS))
            else:
                self._reply(player, message.id, made)
        elif isinstance(message, (ListGamesPlayed, GetRecord, ListRatings)):
            if self.journal is None:
                self._reply(player, message.id, TableError(
                    "no_history", "this server runs without its data file: no history"))
            else:
                asker = player.outbox
                reply = await self.journal.answer(message, player.id)
                if player.outbox is asker:  # (not to a newer connection, which did not ask)
                    # (a record's page costs what reading its journal took, besides its
                    # bytes: RECORD_ENTRIES_PER_TOKEN entries a token)
                    player.send(Prepared.answer(reply, work=len(reply.journal)
                                                // RECORD_ENTRIES_PER_TOKEN)
                                if isinstance(reply, GameRecord) else reply)
        elif isinstance(message, Say):
            self._reply(player, message.id, self._say(player, message))
        elif isinstance(message, LobbyUpdates):
            player.lobby_updates = message.on
            player.missed_updates.clear()  # (a client turning them on lists the tables)
            player.send(Ok(id=message.id))
        elif isinstance(table_id, int):
            table = self.tables.get(table_id)
            if table is None:
                self._reply(player, getattr(message, "id", None),
                            TableError("no_such_table", f"there is no table {table_id}"))
            elif isinstance(message, (Join, Watch)) and not self._let_in(player, table, message):
                return None
            else:
                # the session waits for the table, so replies come in the order of requests
                command = Command(player, message, trio.Event(), player.outbox)
                if not await self._to_table(table, command):
                    self._reply(player, getattr(message, "id", None),
                                TableError("no_such_table", f"table {table_id} was removed"))
                    return None
                return command.done
        else:
            log.warning("no handler for %r", message)
        return None

    def _let_in(self, player: Player, table: Table, message: Join | Watch) -> bool:
        """The door of a private table: True if ``player`` may go on to the table with
        this join or watch (no code needed, or its proof is right; the player is then
        admitted for good). Else the refusal is sent: ``code_required``,
        ``too_many_attempts`` (wrong codes of this address at this table came too fast:
        this one is not checked) or ``wrong_code``."""
        watching = isinstance(message, Watch)
        code = table.code
        if code is None or not table.needs_code(player, watching):
            return True
        what = "watch" if watching else "join"
        if message.proof is None:
            self._reply(player, message.id, TableError(
                "code_required", f"table {table.id} is private: {what} with the proof of "
                                 f"its {'invite code' if code.invite else 'password'}"))
            return False
        address = player.address
        key, now = f"{address} {table.id}", trio.current_time()
        wait = self.code_attempts.wait(key, now, group=address)
        if wait > 0:
            player.send(ErrorMessage(code="too_many_attempts", fatal=False, id=message.id,
                                     retry_ms=math.ceil(wait * 1000),
                                     message=f"too many wrong codes for table {table.id}, "
                                             f"or for {CODES_PER_ADDRESS} tables, from your "
                                             f"address: try again in {math.ceil(wait)} s"))
            return False
        if not code.check(table.id, message.proof, player.nonce):
            self.code_attempts.failed(key, now, group=address)
            if self.code_attempts.failures(key) == self.code_attempts.free + 1:
                # (once, at the wrong code that makes this address wait at this table: a
                # log line each would let a client fill the host's disk at its frame rate)
                log.warning("%s: wrong codes for table %s (player %s): it now waits",
                            address, table.id, player.id)
            self._reply(player, message.id, TableError(
                "wrong_code", f"that is not the code of table {table.id}"))
            return False
        self.code_attempts.succeeded(key)
        table.admitted.add(player.id)
        return True

    def _tables_page(self, message: ListTables) -> Prepared:
        """The ``tables`` reply: the tables numbered above ``after``, in order, at most a
        page of them (its size is bounded whatever the server holds; its bytes are charged
        to the asker's rate by its session). Each table's entry is encoded once per change
        of the table, so that a client asking again and again costs little."""
        after = message.after or 0
        numbers = sorted(n for n in self.tables if n > after)
        page = numbers[:TABLES_PER_PAGE]
        more = len(numbers) > len(page)
        pack = msgpack.Packer()
        parts = [pack.pack_map_header(2 + (message.id is not None) + more),
                 pack.pack("type"), pack.pack("tables"),
                 pack.pack("tables"), pack.pack_array_header(len(page))]
        parts += [self._encoded_info(self.tables[n]) for n in page]
        if message.id is not None:
            parts += [pack.pack("id"), pack.pack(message.id)]
        if more:
            parts += [pack.pack("more"), pack.pack(True)]
        return Prepared.reply(encode_frame(b"".join(parts), MAX_SERVER_FRAME))

    def _encoded_info(self, table: Table) -> bytes:
        """The msgpack of a table's ``TableInfo``, kept until the table changes."""
        data = self._info_bytes.get(table.id)
        if data is None:
            data = self._info_bytes[table.id] = msgpack.packb(table.info().to_wire())
        return data

    async def _to_table(self, table: Table, command: Command) -> bool:
        """Queue a command for a table; False if the table is closed.

        Without waiting while its inbox has room (the usual case): a send that yields
        would cost the session a trip through the scheduler for every request."""
        try:
            try:
                table.inbox.send_nowait(command)
            except trio.WouldBlock:  # the inbox is full: wait for room (bounded queue)
                await table.inbox.send(command)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    def _reply(self, player: Player, request_id: int | str | None,
               result: Message | TableError) -> None:
        if isinstance(result, TableError):
            player.send(ErrorMessage(code=result.code, message=result.message, fatal=False,
                                     id=request_id, retry_ms=result.retry_ms))
        else:
            player.send(result)

    def _create(self, player: Player, msg: CreateTable) -> Ok | TableError:
        if player.kind == "spectator":
            return TableError("spectator_only", "a spectator connection may not create tables")
        if len(self.tables) >= self.settings.max_tables:
            return TableError("too_many_tables", f"the server has {len(self.tables)} tables")
        mine = sum(1 for t in self.tables.values() if t.creator.address == player.address)
        if mine >= self.settings.max_tables_per_address:
            return TableError("too_many_tables", f"{mine} tables created from your address "
                                                 f"({player.address}) are open, the most "
                                                 "this server allows: one must end first")
        pace = self.table_rates.bucket(player.address)
        now = trio.current_time()
        if not pace.affords(now):
            s = self.settings
            return TableError("rate_limited", f"tables are made too fast from your address "
                                              f"({player.address}): {s.max_tables_per_address}"
                                              f" at once, then {s.tables_per_second:g} a "
                                              "second", retry_ms=pace.wait_ms(now))
        cls = GAMES.get(msg.game)
        if cls is None:
            return TableError("unknown_game", f"no game {msg.game!r}; games: "
                                              f"{', '.join(GAMES)}")
        try:
            options = parse_options(msg.game, dict(msg.options or {}))
            new_game(msg.game, options, players=msg.players)  # checks the seat count
        except OptionError as exc:
            return TableError(exc.code, str(exc))
        code = self._code_of(msg)
        if isinstance(code, TableError):
            return code
        pace.take(now)
        invite: str | None = None
        if isinstance(code, tuple):
            invite, code = code
        table_id = self._next_table
        self._next_table += 1
        rng = random.Random(self._seed.random()) if self._seed is not None else None
        table = Table(table_id, msg.game, options, msg.players, player,
                      turn_seconds=self.settings.turn_seconds if msg.turn_seconds is None
                      else msg.turn_seconds,
                      grace_seconds=self.settings.grace_seconds if msg.grace_seconds is None
                      else msg.grace_seconds,
                      settings=self.settings, on_change=self._table_changed,
                      alarms=self.alarms, rng=rng)
        table.code = code
        table.thinking = self.thinking
        self.tables[table_id] = table
        if self.on_new_table is not None:
            self.on_new_table(table)
        assert self._nursery is not None
        self._nursery.start_soon(table.run, name=f"table {table_id}")
        self._table_changed(table)
        log.info("table %s: %s for %s players created by %s%s", table_id, msg.game,
                 msg.players, player.name, "" if code is None else
                 " (private: invite code)" if code.invite else " (private: password)")
        return Ok(id=msg.id, table=table_id, invite=invite)

    @staticmethod
    def _code_of(msg: CreateTable) -> TableCode | tuple[str, TableCode] | TableError | None:
        """The lock a create_table asks for: None (an open table), a password's, or an
        invite code's (with the code, for the reply); or why it cannot be."""
        if msg.lock is not None and msg.invite:
            return TableError("bad_lock", "a table has a password (lock) or an invite code "
                                          "(invite), not both")
        watch_code = True if msg.watch_code is None else msg.watch_code
        if msg.lock is not None:
            lock = msg.lock
            try:
                return table_code(lock.salt, lock.iterations, lock.stored_key, watch_code)
            except ProofError as exc:
                return TableError("bad_lock", f"the lock cannot be used: {exc}")
        if msg.invite:
            return invite_code(watch_code)
        if msg.watch_code is not None:
            return TableError("bad_lock", "watch_code needs a lock or an invite")
        return None

    def _say(self, player: Player, msg: Say) -> Ok | TableError:
        now = trio.current_time()
        left = player.muted_until - now
        if left > 0:
            return TableError("muted", f"the host muted your chat for {math.ceil(left)} more "
                                       "seconds")
        bucket = player.chat_bucket
        if bucket is None:
            s = self.settings
            bucket = player.chat_bucket = TokenBucket(s.chat_per_second, s.chat_burst)
        shared = self.chat_rates.bucket(player.address)
        if not (bucket.affords(now) and shared.affords(now)):
            return TableError("rate_limited", "too many chat lines: this one was not said",
                              retry_ms=max(bucket.wait_ms(now), shared.wait_ms(now)))
        bucket.take(now)
        shared.take(now)
        chat = Prepared(Chat(player=player.id, name=player.name, text=msg.text,
                             table=msg.table))
        # (chat is what a lagging reader may lose: it never costs a bystander its place)
        if msg.table is None:
            for other in self.players.connected():
                other.offer(chat)
            return Ok(id=msg.id)
        table = self.tables.get(msg.table)
        if table is None:
            return TableError("no_such_table", f"there is no table {msg.table}")
        if table.sits(player) is None and player not in table.spectators:
            return TableError("not_watching", "sit or watch at a table to chat there")
        for other, _ in table.audience():
            other.offer(chat)
        return Ok(id=msg.id, table=msg.table)

    # ------------------------------------------------------------------ the host's controls

    def notice(self, text: str) -> None:
        """The host's notice, to every connected client."""
        notice = Prepared(Notice(text=text))
        for player in self.players.connected():
            player.send(notice)

    def close_table(self, table_id: int, text: str) -> bool:
        """Close a table for the host: its players and spectators get ``text`` as a notice,
        then every client the table's removal. False if there is no such table."""
        table = self.tables.get(table_id)
        if table is None:
            return False
        notice = Prepared(Notice(text=text, table=table_id))
        for player, _ in table.audience():
            player.send(notice)
        log.info("table %s closed by the host", table_id)
        table.close()
        self._table_changed(table)
        return True

    async def evict(self, player: Player) -> None:
        """The host took ``player``'s seats from it: a house bot plays each seat of a game
        under way at once; a seat at a table not started is freed; it watches nothing."""
        for table_id in sorted(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await self._to_table(table, Command(player, "evict"))

    # ------------------------------------------------------------------ presence

    async def connected(self, player: Player) -> None:
        """``player`` has a live connection again: its tables send it their snapshots."""
        player.tables &= self.tables.keys()  # (those removed meanwhile are gone)
        for table_id in sorted(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await self._to_table(table, Command(player, "connected"))

    async def disconnected(self, player: Player) -> None:
        """``player`` lost its connection: its seats are held for the grace period."""
        for table_id in sorted(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await self._to_table(table, Command(player, "disconnected"))
        for table in list(self.tables.values()):
            if table.creator is player:
                self._table_changed(table)  # a waiting table of an absent creator may go

    def plays(self, player: Player) -> bool:
        """True if ``player`` has a seat (one it left included) in a game being played."""
        return any(t.state == "playing" and t.seat_of(player) is not None
                   for t in self.tables.values())

    def holds_seat_or_table(self, player: Player) -> bool:
        """True if ``player`` has a seat at an unfinished table (one it left included),
        a table it created, or a table it watches now: what keeps its record and name."""
        return any(t.creator is player or player in t.spectators
                   or (t.state != "finished" and t.seat_of(player))
                   for t in self.tables.values())

    def forget_stale(self, now: float, *, make_room: bool = False) -> int:
        """Forget the players who hold nothing here (not connected, no seat, no table of
        their own, nothing they watch) and left more than ``player_expiry_seconds`` ago;
        with ``make_room``, also the longest gone of them until the registry is a tenth
        under ``max_players``. The number forgotten."""
        s = self.settings
        kept = {id(t.creator) for t in self.tables.values()}
        for table in self.tables.values():
            kept.update(id(seat.player) for seat in table.seats if seat.player is not None)
            kept.update(id(p) for p in table.spectators)
        # (a spectator that dropped holds nothing: it keeps its table only to be shown it
        # again if it comes back within the expiry)
        idle = [p for p in self.players.gone() if id(p) not in kept]
        over = len(self.players) - s.max_players * 9 // 10 if make_room else 0
        stale = [p for n, p in enumerate(idle)
                 if n < over or (p.gone_since or 0.0) <= now - s.player_expiry_seconds]
        for player in stale:
            self.players.forget(player)
        if stale:
            log.info("forgot %d players who hold nothing here", len(stale))
        return len(stale)

    async def prompt_again(self, player: Player, table_id: int | None) -> None:
        """An action of ``player`` for table ``table_id`` was refused before the table read
        it (a bad card, a bad field): that table sends it a fresh your_turn if it is to
        move there. (That table only, and none when the frame named none: a client that
        sends broken actions in a loop must cost one table a command each, not every
        table where house bots wait on it.)"""
        table = self.tables.get(table_id) if table_id is not None else None
        if table is None:
            return
        seat, game = table.sits(player), table.game
        if seat is not None and game is not None and game.to_move == seat.index:
            await self._to_table(table, Command(player, "prompt"))

    async def leave_all(self, player: Player) -> None:
        """``bye``: the player stands up from every table (seats in play go to house bots)."""
        for table_id in sorted(player.tables):
            table = self.tables.get(table_id)
            if table is not None:
                await self._to_table(table, Command(player, Leave(table=table_id)))

    def _table_changed(self, table: Table) -> None:
        self._info_bytes.pop(table.id, None)
        removed = self._removable(table)
        if removed:
            self.tables.pop(table.id, None)
            table.close()
            self._dirty[table.id] = None
        else:
            self._dirty[table.id] = table
        self._dirty_event.set()
        if self.on_table_changed is not None:
            # a table that failed stays in the journal: a restart brings it back
            self.on_table_changed(table, removed and not table.failed)

    def restore(self, hall: RestoredHall) -> int:
        """Bring back the players and tables of an earlier run (the journal's records):
        the number of tables rebuilt. A table that cannot be rebuilt is logged and
        dropped; the others play on."""
        now = trio.current_time()
        # newest first: of two players of one name (the name of one whose record had
        # expired, taken by someone new), the newer holds it; the other takes it back
        # with its token
        for p in sorted(hall.players, key=lambda p: -p.id):
            if self.players.get(p.id) is None:
                player = self.players.restore(p.id, p.name, p.kind, p.token_digest,
                                              p.owns_name)
                player.gone_since = now  # (its token lasts from here)
        count = 0
        for record in hall.tables:
            rng = random.Random(self._seed.random() if self._seed is not None else None) \
                if record.seeded else None
            try:
                table = rebuild_table(record, players=self.players, settings=self.settings,
                                      on_change=self._table_changed, alarms=self.alarms,
                                      rng=rng, now=now)
            except Exception:  # one damaged table must not keep the server down
                log.exception("table %s could not be restored; it is dropped", record.id)
                for s in record.seats:
                    sitter = self.players.get(s.player) if s.player is not None else None
                    if sitter is not None:
                        sitter.tables.discard(record.id)
                if self.journal is not None:
                    self.journal.table_dropped(record.id)
                continue
            table.thinking = self.thinking
            self.tables[table.id] = table
            self._next_table = max(self._next_table, table.id + 1)
            if self.on_new_table is not None:
                self.on_new_table(table)
            assert self._nursery is not None
            self._nursery.start_soon(table.run, name=f"table {table.id}")
            self._table_changed(table)
            count += 1
        if hall.tables:
            log.info("restored %d of %d tables", count, len(hall.tables))
        return count

    def _removable(self, table: Table) -> bool:
        """A closed table; a finished one that no player is at any more, nor its creator
        watching; a waiting one nobody sits at whose creator is gone. Other spectators
        keep none of them (one who watched others' tables would keep them, and their
        creators' places, for ever)."""
        if table.closed:
            return True
        if table.state == "finished":  # (a restored one waits out its players' grace)
            return table.creator not in table.spectators and not any(
                s.present or s.absent_since is not None for s in table.seats)
        return table.state == "waiting" and not table.creator.connected and not any(
            s.player is not None for s in table.seats)

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            table.close()
