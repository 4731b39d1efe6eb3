"""The client library: a trio connection to a Rummy Hall server, kept alive and up to date.

:func:`open_session` connects, says hello and keeps the client's model of every table
it sits at or watches (:class:`TableState`) up to date from snapshots and events. If the
connection drops it reconnects by itself with its token and the server sends fresh
snapshots. Requests (``join``, ``action``...) return the server's reply or raise
:class:`RequestRefused`; everything the server pushes is also offered, in order, as
:class:`Update` values through :meth:`Session.updates`.

It is the only networking code of the console client, the bot runner and the tests.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, TypeVar

import trio

from rummyhall.protocol import (
    CLIENT,
    CLOSED,
    DEFAULT_PORT,
    NEED_DATA,
    ActionMessage,
    AddBot,
    AdminLogin,
    Bans,
    Bye,
    Chat,
    ClientKeys,
    Connection,
    Contribute,
    CreateTable,
    DealCommit,
    DealRevealed,
    Error,
    EventMessage,
    GameRecord,
    Games,
    GamesPlayed,
    GetRecord,
    Hello,
    Join,
    JournalEntry,
    Leave,
    ListGames,
    ListGamesPlayed,
    ListTables,
    LobbyUpdates,
    LocalProtocolError,
    LoggedIn,
    Login,
    Message,
    Notice,
    Ok,
    Ping,
    PlayedGame,
    Pong,
    Ratings,
    RemoteProtocolError,
    RemoveBot,
    Resync,
    Say,
    Snapshot,
    Start,
    TableInfo,
    TableRemoved,
    Tables,
    TableUpdate,
    TokenBucket,
    Turn,
    Watch,
    Welcome,
    YourTurn,
    action_to_wire,
    admin_proof,
    event_from_wire,
    legal_from_wire,
    make_proof,
    table_label,
    view_from_wire,
)
from rummyhall.protocol import Session as SessionInfo
from rummyhall.protocol.limits import HEADER_SIZE, MAX_LISTED_TABLES, MINOR
from rummyhall.protocol.proofs import DEFAULT_ITERATIONS, LOGIN_LABEL, ProofError
from rummyhall.protocol.ratelimit import frame_cost
from rummyhall.rules import SeatAction, SeatView

from .credentials import HallCredential, new_lock, table_keys
from .errors import ClientError as ClientError  # noqa: PLC0414 (its old home re-exports it)
from .fairness import DealTracker
from .model import apply_event, apply_turn
from .trust import ServerTrust, TLSError

log = logging.getLogger("rummyhall.client")
# the installed distribution's version (the client layer does not import the commands' package)
CLIENT_VERSION = version("rummyhall")

UPDATE_QUEUE = 4096
REQUEST_TIMEOUT = 30.0
LOBBY_UPDATES = "lobby_updates"  # the welcome feature of servers that take LobbyUpdates
#: Fatal errors after which reconnecting is pointless (any other drop is retried with the
#: token: an idle timeout, a restart of the server...).
FINAL_CODES = frozenset({"session_replaced", "name_taken", "bad_name", "unsupported_version",
                         "unsupported_protocol", "tls_required", "kicked", "banned",
                         "password_required", "wrong_password", "too_many_attempts"})
ADMIN = "admin"  # the welcome feature of servers with the host's controls (1.2)
_Reply = TypeVar("_Reply", Welcome, LoggedIn)


#: the longest journal a record may have here (a long game of Basic Rummy has a few
#: thousand entries); the parts of a longer one are not asked for
MAX_RECORD_ENTRIES = 100_000
START_TOKENS = 10  # the rate tokens a new connection's pacing starts with
RATE_RETRIES = 3  # a request refused as too fast is sent again this many times


class RequestRefused(ClientError):
    """The server refused a request: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str, *, fatal: bool = False,
                 retry_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.fatal = fatal
        self.retry_ms = retry_ms  # rate_limited: how long the server asked us to wait


class ConnectionLost(ClientError):
    """The connection dropped before the reply came (the request may or may not have run)."""


class ServerClosed(ClientError):
    """The server closed the session for good (a fatal error, or reconnecting gave up)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class TableState:
    """What this client knows of one table."""

    table: int
    seq: int = 0
    info: TableInfo | None = None
    view: SeatView | None = None
    #: The legal actions and the move of the pending your_turn (empty when not our turn).
    legal: tuple[SeatAction, ...] = ()
    move: int | None = None
    deadline: float | None = None  # trio time by which to act, when there is a timer

    @property
    def seat(self) -> int | None:
        return self.view.seat if self.view is not None else None

    @property
    def my_turn(self) -> bool:
        return self.move is not None


@dataclass(frozen=True)
class Update:
    """Something the server pushed, in order. ``kind`` is one of: snapshot, event, turn,
    your_turn, chat, notice, table_update, table_removed, deal_check (``payload`` a
    :class:`~.fairness.DealVerdict`: a revealed shuffle checked), connection (``payload``
    "lost", "resumed" or "closed")."""

    kind: str
    table: int | None = None
    payload: Any = None


@dataclass
class _Pending:
    done: trio.Event = field(default_factory=trio.Event)
    reply: Message | None = None
    error: ClientError | None = None


class Session:
    """A connection to a server as one player. Use :func:`open_session`."""

    def __init__(self, host: str, port: int, name: str, *, kind: str = "person",
                 token: str | None = None, reconnect_seconds: float = 60.0,
                 tls: ServerTrust | None = None,
                 password: str | HallCredential | None = None,
                 contribute: bool = True) -> None:
        self.host, self.port, self.name, self.kind = host, port, name, kind
        self.token = token
        #: How the server is checked over TLS (None: plain TCP).
        self.tls = tls
        #: The SHA-256 fingerprint of the server's certificate, once connected over TLS.
        self.tls_fingerprint: str | None = None
        #: The hall's password (or keys derived from it), for a hall that asks for it.
        self.credential = password if isinstance(password, HallCredential) \
            else HallCredential(password)
        self.reconnect_seconds = reconnect_seconds
        self.player_id: int | None = None
        self.server_name: str | None = None
        self.welcome: Welcome | None = None
        self.tables: dict[int, TableState] = {}
        self.lobby: dict[int, TableInfo] = {}
        #: False: only our own tables' updates are asked for (see set_lobby_updates).
        self.lobby_updates = True
        self.connected = False
        #: After a drop, while reconnecting: when the session gives up (trio's clock).
        self.reconnect_until: float | None = None
        #: While reconnecting: until when the server holds our seats at least (trio's
        #: clock): the last moment it is known to have held the connection (the last
        #: bytes it sent) plus the grace period it announced; None: it holds none.
        self.seat_held_until: float | None = None
        #: When the server was last heard from (trio's clock): its last bytes received.
        self.last_heard: float | None = None
        self.closed_reason: ServerClosed | None = None
        self._stream: trio.SocketStream | None = None  # the TCP connection
        self._io: trio.abc.Stream | None = None  # what is read and written: it, or TLS over it
        self._conn: Connection | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._resyncing: set[int] = set()  # tables with a resync on its way
        self._write_lock = trio.Lock()
        self._updates_send, self._updates = trio.open_memory_channel[Update](UPDATE_QUEUE)
        self._nursery: trio.Nursery | None = None
        self._connected_event = trio.Event()
        #: The invite codes of the invite-only tables we created, by table.
        self.invites: dict[int, str] = {}
        self._table_keys: dict[int, tuple[tuple[str, int, str], ClientKeys]] = {}
        #: Updates not queued because nobody read them (the table models stay exact).
        self.dropped_updates = 0
        self._bucket: TokenBucket | None = None
        #: The host's admin credential, once :meth:`admin_login` succeeded: each new
        #: connection (a reconnection) logs in again with it.
        self._admin_credential: str | None = None
        #: Verifiable deals: we contribute to the shuffles of the tables where we sit
        #: (``contribute``) and check every revealed one (docs/protocol.md, section 7).
        self.contribute = contribute
        self.deals: dict[int, DealTracker] = {}

    # ------------------------------------------------------------------ connecting

    async def _connect(self) -> None:
        raw = await trio.open_tcp_stream(self.host, self.port)
        stream: trio.abc.Stream = raw
        conn = Connection(CLIENT)
        hello = Hello(versions=(1,), name=self.name, kind=self.kind, token=self.token,
                      client=f"rummyhall {CLIENT_VERSION}", minor=MINOR)
        try:
            if self.tls is not None:
                stream, self.tls_fingerprint = await self.tls.open(raw, self.host, self.port)
            await stream.send_all(conn.send(hello))
            with trio.fail_after(REQUEST_TIMEOUT):
                welcome = await self._read_handshake(stream, conn, Welcome)
                session = welcome.session
                if welcome.login is not None:
                    session = await self._log_in(stream, conn, welcome)
                if session is None:
                    raise ServerClosed("the server's welcome holds no session")
        except BaseException:
            await trio.aclose_forcefully(raw)
            raise
        resumed = session.resumed
        if not self.lobby_updates and LOBBY_UPDATES in welcome.features:
            # each connection starts with them on (the ok has no id: nobody waits for it)
            await stream.send_all(conn.send(LobbyUpdates(on=False)))
        if self._admin_credential is not None and welcome.nonce is not None:
            # (a reconnection: logged in again; the ok has no id, as above)
            await stream.send_all(conn.send(AdminLogin(
                proof=admin_proof(self._admin_credential, welcome.nonce))))
        self._stream, self._io, self._conn, self.welcome = raw, stream, conn, welcome
        self.player_id, self.token = session.player, session.token
        self.server_name = welcome.server
        self.connected = True
        self.last_heard = trio.current_time()
        if not resumed:  # a new player: tables from a previous session are not ours
            self.tables.clear()
        self._connected_event.set()

    async def _log_in(self, stream: trio.abc.Stream, conn: Connection,
                      welcome: Welcome) -> SessionInfo:
        """Prove the hall's password (docs/protocol.md, 3.1): the session it opens.

        Raises :class:`ServerClosed`: ``password_required`` when we know no password (we
        close at once: nothing is guessed), else the server's refusal.
        """
        challenge = welcome.login
        assert challenge is not None
        if welcome.nonce is None:
            raise ServerClosed("the hall asks for its password without a nonce",
                               "password_required")
        try:
            keys = await self.credential.keys_for(challenge)
        except ProofError as exc:
            raise ServerClosed(f"the hall's password challenge cannot be used: {exc}",
                               "password_required") from None
        if keys is None:
            raise ServerClosed(f"{welcome.server} has a password: give it to log in",
                               "password_required")
        await stream.send_all(conn.send(Login(proof=make_proof(keys, LOGIN_LABEL,
                                                               welcome.nonce), id=0)))
        reply = await self._read_handshake(stream, conn, LoggedIn)
        return reply.session

    async def _read_handshake(self, stream: trio.abc.Stream, conn: Connection,
                              kind: type[_Reply]) -> _Reply:
        """The server's next handshake message (welcome, logged_in); its fatal error is
        raised as :class:`ServerClosed`."""
        while True:
            event = conn.next_event()
            if isinstance(event, kind):
                return event
            if isinstance(event, Error):
                raise ServerClosed(event.message, event.code)
            if event is NEED_DATA:
                data = await stream.receive_some(65_536)
                conn.receive_data(bytes(data))
                continue
            raise ServerClosed("the server closed the connection during the handshake")

    # The session's own tasks (this reader, a resync, a shuffle contribution) are
    # protected from KeyboardInterrupt: trio then hands a Ctrl-C to the program's main task
    # at its next checkpoint, never into the middle of the session's bookkeeping (a
    # message half handled, a cancel scope half entered).
    @trio.lowlevel.enable_ki_protection
    async def _run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                   ) -> None:
        """Read from the server; reconnect with the token after a drop."""
        task_status.started()
        while True:
            try:
                await self._read_loop()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError,
                    RemoteProtocolError) as exc:
                log.info("connection lost: %s", exc)
            self._lost()
            if self.closed_reason is not None or not await self._reconnect():
                self.closed_reason = self.closed_reason or ServerClosed("connection lost")
                await self._push(Update("connection", payload="closed"))
                return
            await self._push(Update("connection", payload="resumed"))

    def _lost(self) -> None:
        self.connected = False
        self._connected_event = trio.Event()
        stream, self._stream, self._io = self._stream, None, None
        if stream is not None:
            stream.socket.close()
        for pending in self._pending.values():
            pending.error = ConnectionLost("the connection dropped")
            pending.done.set()
        self._pending.clear()
        for state in self.tables.values():
            state.legal, state.move = (), None

    def seat_held_seconds(self) -> int:
        """How long the server holds our seats after a drop: the longest grace period of
        the tables where we sit in a game not finished (0: we sit nowhere)."""
        return max((state.info.grace_seconds for state in self.tables.values()
                    if state.seat is not None and state.info is not None
                    and state.info.state != "finished"), default=0)

    async def _reconnect(self) -> bool:
        """Try again and again, as long as the server holds our seats and at least
        ``reconnect_seconds``; True once connected again.

        The server holds a seat for the table's grace period from the moment it sees the
        connection drop, which is no earlier than the last bytes it sent: so the window
        runs from :attr:`last_heard` (a drop noticed late, after a ping that got no
        answer, does not stretch it past the seat)."""
        now = trio.current_time()
        heard = min(now, self.last_heard if self.last_heard is not None else now)
        held = self.seat_held_seconds()
        self.seat_held_until = heard + held if held else None
        give_up = max(now + self.reconnect_seconds, heard + held)
        self.reconnect_until = give_up
        await self._push(Update("connection", payload="lost"))
        try:
            return await self._reconnect_until(give_up)
        finally:
            self.reconnect_until = self.seat_held_until = None

    def drop_connection(self, why: str) -> None:
        """Give up on the connection (a ping got no answer: the server or the network is
        gone without a word); the session then reconnects as after any drop."""
        stream = self._stream
        if stream is not None and self.connected:
            log.info("dropping the connection: %s", why)
            stream.socket.close()  # (the reader sees it closed, and reconnects)

    async def _reconnect_until(self, give_up: float) -> bool:
        delay = 0.05
        while trio.current_time() < give_up:
            await trio.sleep(delay)
            delay = min(delay * 2, 2.0)
            try:
                await self._connect()
                return True
            except ServerClosed as exc:
                if exc.code in ("name_taken", "bad_name", "unsupported_version",
                                "tls_required", "banned", "password_required",
                                "wrong_password"):
                    self.closed_reason = exc
                    return False
            except TLSError as exc:  # not trusted, or no TLS there now: never retried
                log.info("reconnecting over TLS failed: %s", exc)  # (closed_reason says it)
                self.closed_reason = ServerClosed(exc.summary, "tls")  # (one line: a banner)
                return False
            except (OSError, trio.TooSlowError, trio.BrokenResourceError,
                    RemoteProtocolError) as exc:
                log.debug("reconnect failed: %s", exc)
        return False

    async def _read_loop(self) -> None:
        stream, conn = self._io, self._conn
        assert stream is not None and conn is not None
        while True:
            event = conn.next_event()
            if event is NEED_DATA:
                data = await stream.receive_some(65_536)
                if data:
                    self.last_heard = trio.current_time()
                conn.receive_data(bytes(data))
                continue
            if event is CLOSED or not isinstance(event, Message):
                return
            await self._dispatch(event)

    # ------------------------------------------------------------------ incoming

    async def _dispatch(self, msg: Message) -> None:
        request_id = getattr(msg, "id", None)
        if isinstance(msg, Error):
            if msg.fatal and msg.code in FINAL_CODES:
                self.closed_reason = ServerClosed(msg.message, msg.code)
            self._resolve(request_id, error=RequestRefused(msg.code, msg.message,
                                                           fatal=msg.fatal,
                                                           retry_ms=msg.retry_ms))
            return
        if isinstance(msg, (Ok, Pong, Tables, Games, Bans, GamesPlayed, GameRecord,
                            Ratings)):
            if isinstance(msg, Tables):
                self.lobby.update((t.table, t) for t in msg.tables)
            self._resolve(request_id, reply=msg)
            return
        handler = _PUSHES.get(type(msg))
        if handler is not None:
            await handler(self, msg)

    def _resolve(self, request_id: object, *, reply: Message | None = None,
                 error: ClientError | None = None) -> None:
        pending = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if pending is not None:
            pending.reply, pending.error = reply, error
            pending.done.set()

    async def _snapshot(self, msg: Snapshot) -> None:
        state = self.tables.setdefault(msg.table, TableState(msg.table))
        state.seq, state.info = msg.seq, msg.info
        state.view = view_from_wire(msg.view) if msg.view is not None else None
        state.legal, state.move, state.deadline = (), None, None
        self.lobby[msg.table] = msg.info
        self._contribute_soon(self._tracker(msg.table).sat(msg.table, state.seat))
        await self._push(Update("snapshot", msg.table, state))

    async def _event(self, msg: EventMessage) -> None:
        state = self.tables.get(msg.table)
        if state is None or msg.seq <= state.seq:
            return  # already in the snapshot
        if msg.seq != state.seq + 1:
            log.info("table %s: event %s after %s: resync", msg.table, msg.seq, state.seq)
            if msg.table not in self._resyncing:  # (one at a time: the later pushes of
                self._resyncing.add(msg.table)  # the gap would each ask again)
                self._nursery_soon(self._resync_quietly, msg.table, state.seq)
            return
        state.seq = msg.seq
        event = event_from_wire(msg.event)
        if event is None:
            return
        if state.view is not None:
            state.view = apply_event(state.view, event)
        state.legal, state.move = (), None
        options = state.view.options if state.view is not None else {}
        self._tracker(msg.table).event(
            event, rebuild_shuffles=options.get("stock_rebuild") != "turn_over")
        await self._push(Update("event", msg.table, event))

    async def _turn(self, msg: Turn) -> None:
        state = self.tables.get(msg.table)
        if state is not None and state.view is not None:
            state.view = apply_turn(state.view, msg.seat, msg.move)
        await self._push(Update("turn", msg.table, msg))

    async def _your_turn(self, msg: YourTurn) -> None:
        state = self.tables.get(msg.table)
        if state is None or state.seat is None:
            return
        legal = (legal_from_wire(w, state.seat) for w in msg.legal)
        state.legal = tuple(a for a in legal if a is not None)
        state.move = msg.move
        state.deadline = (trio.current_time() + msg.time_left_ms / 1000
                          if msg.time_left_ms is not None else None)
        if state.view is not None:
            state.view = dataclasses.replace(state.view, to_move=state.seat,
                                             move_number=msg.move)
        await self._push(Update("your_turn", msg.table, state))

    def _tracker(self, table: int) -> DealTracker:
        tracker = self.deals.get(table)
        if tracker is None:
            tracker = self.deals[table] = DealTracker(contribute=self.contribute)
        return tracker

    async def _deal_commit(self, msg: DealCommit) -> None:
        if msg.table in self.tables:
            self._contribute_soon(self._tracker(msg.table).answer(msg))

    async def _deal_revealed(self, msg: DealRevealed) -> None:
        if msg.table in self.tables:
            verdict = self._tracker(msg.table).revealed(msg)
            if not verdict.ok:
                log.warning("table %s: %s", msg.table, verdict.words())
            await self._push(Update("deal_check", msg.table, verdict))

    def _contribute_soon(self, msg: Contribute | None) -> None:
        if msg is not None:  # (sent from a task of its own: the reader never waits)
            self._nursery_soon(self._send_contribution, msg)

    @trio.lowlevel.enable_ki_protection
    async def _send_contribution(self, msg: Contribute) -> None:
        for _ in range(2):  # a refused one is answered once more, at most
            try:
                await self.request(msg)
                return
            except RequestRefused as exc:
                log.info("table %s: contribution refused: %s", msg.table, exc)
                again = self._tracker(msg.table).refused(exc.code, msg.table)
                if again is None:
                    return
                msg = again
            except (ClientError, LocalProtocolError, trio.TooSlowError,
                    trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                log.info("table %s: contribution not sent: %s", msg.table, exc)
                return  # (the connection is closing: nothing to contribute to)

    async def _chat(self, msg: Chat) -> None:
        await self._push(Update("chat", msg.table, msg))

    async def _notice(self, msg: Notice) -> None:
        await self._push(Update("notice", msg.table, msg))

    async def _table_update(self, msg: TableUpdate) -> None:
        self.lobby[msg.info.table] = msg.info
        state = self.tables.get(msg.info.table)
        if state is not None:
            state.info = msg.info
        await self._push(Update("table_update", msg.info.table, msg.info))

    async def _table_removed(self, msg: TableRemoved) -> None:
        self.lobby.pop(msg.table, None)
        self.tables.pop(msg.table, None)
        self.deals.pop(msg.table, None)
        await self._push(Update("table_removed", msg.table))

    async def _push(self, update: Update) -> None:
        """Offer an update; never blocks the reader (a full queue drops it, counted)."""
        try:
            self._updates_send.send_nowait(update)
        except trio.WouldBlock:
            self.dropped_updates += 1

    def _nursery_soon(self, fn: Any, *args: Any) -> None:
        if self._nursery is not None:
            self._nursery.start_soon(fn, *args)

    @trio.lowlevel.enable_ki_protection
    async def _resync_quietly(self, table: int, since: int) -> None:
        try:
            await self.resync(table, since)
        except (ClientError, trio.TooSlowError) as exc:
            log.info("resync of table %s failed: %s", table, exc)
        finally:
            self._resyncing.discard(table)

    # ------------------------------------------------------------------ outgoing

    async def send(self, msg: Message) -> None:
        """Send a message (no reply awaited); waits while reconnecting.

        Sends are paced to the server's announced rate (``messages_per_second`` and
        ``burst`` of its welcome, a frame costing one token and one more per whole 256 bytes of
        its body, as the server counts), so a fast bot is slowed down, not refused (unless
        other connections of its machine spend the bucket they share with it).
        """
        await self.wait_connected()
        async with self._write_lock:
            conn = self._conn
            if self._io is None or conn is None:
                raise ConnectionLost("not connected")
            frame = conn.send(msg)  # (encoded once: its size is what the pacing counts)
            await self._pace(len(frame) - HEADER_SIZE)
            stream = self._io
            if stream is None or self._conn is None:
                raise ConnectionLost("not connected")
            if self._conn is not conn:  # reconnected while paced: the new connection's
                frame = self._conn.send(msg)
            await stream.send_all(frame)

    async def _pace(self, body_size: int) -> None:
        limits = self.welcome.limits if self.welcome is not None else None
        if limits is None:
            return
        if self._bucket is None:
            # a little under the server's rate: its clock and ours do not tick together;
            # and the connections of one address share a bucket too (docs/protocol.md,
            # section 8): the first sends are paced from a small one
            self._bucket = TokenBucket(rate=limits.messages_per_second * 0.9,
                                       burst=max(1, limits.burst // 2),
                                       tokens=min(limits.burst // 2, START_TOKENS))
        cost = frame_cost(body_size)  # as the server counts

        while not self._bucket.take(trio.current_time(), cost):
            await trio.sleep(max(1, self._bucket.wait_ms(trio.current_time(), cost)) / 1000)

    async def wait_connected(self, timeout: float | None = None) -> None:
        """Wait until connected (raises :class:`ServerClosed` if the session has ended)."""
        if self.closed_reason is not None:
            raise self.closed_reason
        if timeout is None:
            timeout = max(self.reconnect_seconds, self.seat_held_seconds()) + 5
        with trio.fail_after(timeout):
            await self._connected_event.wait()

    async def request(self, msg: Message, timeout: float = REQUEST_TIMEOUT) -> Message:
        """Send a request with a fresh id; return its reply or raise :class:`ClientError`.

        A request the server refused as too fast (``rate_limited``: big replies cost more
        than our pacing counts) is sent again after the wait the server named, a few times.
        """
        for _ in range(RATE_RETRIES):
            try:
                return await self._request_once(msg, timeout)
            except RequestRefused as exc:
                if exc.code != "rate_limited" or exc.fatal or exc.retry_ms is None:
                    raise
                await trio.sleep(exc.retry_ms / 1000)
        return await self._request_once(msg, timeout)

    async def _request_once(self, msg: Message, timeout: float) -> Message:
        request_id = next(self._ids)
        msg = dataclasses.replace(msg, id=request_id)  # type: ignore[type-var]
        pending = self._pending[request_id] = _Pending()
        try:
            await self.send(msg)
            with trio.fail_after(timeout):
                await pending.done.wait()
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise ConnectionLost(str(exc)) from None
        finally:
            self._pending.pop(request_id, None)
        if pending.error is not None:
            raise pending.error
        assert pending.reply is not None
        return pending.reply

    async def list_tables(self) -> tuple[TableInfo, ...]:
        """Every table of the server, asked for a page at a time (:attr:`lobby` then holds
        them all)."""
        tables: list[TableInfo] = []
        after: int | None = None
        for _ in range(MAX_LISTED_TABLES):  # (a page lists at least one table)
            reply = await self.request(ListTables(after=after))
            assert isinstance(reply, Tables)
            tables += reply.tables
            if not reply.more or not reply.tables:
                break
            after = reply.tables[-1].table
        # (each page updated the lobby as it arrived, so a later table_update wins; what
        # no page listed is gone, but for tables made since, told by their own updates)
        listed = {t.table for t in tables}
        last = max(listed, default=0)
        for number in [n for n in self.lobby if n not in listed and n <= last]:
            del self.lobby[number]
        return tuple(tables)

    async def set_lobby_updates(self, on: bool) -> None:
        """Ask for the updates of every table (True, the default) or only of the tables
        where we sit or watch (False: :attr:`lobby` then goes stale; call
        :meth:`list_tables` after turning them back on). Kept across reconnections; a
        no-op with a server that does not offer the feature."""
        self.lobby_updates = on
        if self.welcome is not None and LOBBY_UPDATES in self.welcome.features:
            await self.request(LobbyUpdates(on=on))

    async def list_games(self) -> Games:
        reply = await self.request(ListGames())
        assert isinstance(reply, Games)
        return reply

    async def create_table(self, game: str, players: int,
                           options: Mapping[str, bool | int | str] | None = None, *,
                           turn_seconds: int | None = None,
                           grace_seconds: int | None = None,
                           password: str | None = None, invite: bool = False,
                           watch_code: bool | None = None,
                           iterations: int = DEFAULT_ITERATIONS) -> int:
        """Create a table; returns its number (raises RequestRefused with bad_option...).

        A private table: ``password`` (only its verifier is sent, made with
        ``iterations`` rounds of PBKDF2) or ``invite`` (the server makes a code:
        :attr:`invites` holds it); ``watch_code`` False lets anybody watch it.
        """
        lock = await new_lock(password, iterations) if password is not None else None
        reply = await self.request(CreateTable(game=game, players=players,
                                               options=dict(options or {}),
                                               turn_seconds=turn_seconds,
                                               grace_seconds=grace_seconds, lock=lock,
                                               invite=invite or None,
                                               watch_code=watch_code))
        assert isinstance(reply, Ok) and reply.table is not None
        if reply.invite is not None:
            self.invites[reply.table] = reply.invite
        return reply.table

    async def _proof(self, table: int, code: str | None) -> str | None:
        """The proof of ``code`` for ``table`` on this connection (None without a code).

        The table's lock comes from :attr:`lobby` (asked for when not there); the keys are
        kept per table, so that the proof of a later connection costs no PBKDF2 again.
        """
        if code is None:
            return None
        info = self.lobby.get(table)
        if info is None:
            await self.list_tables()
            info = self.lobby.get(table)
        if info is None or info.lock is None:
            return None  # (an open table, or none: the server says which)
        lock = info.lock
        cached = self._table_keys.get(table)
        if cached is None or cached[0] != (lock.salt, lock.iterations, code):
            cached = (lock.salt, lock.iterations, code), await table_keys(code, lock)
            self._table_keys[table] = cached
        welcome = self.welcome
        if welcome is None or welcome.nonce is None:
            raise ConnectionLost("no nonce to key the table's code over")
        return make_proof(cached[1], table_label(table), welcome.nonce)

    async def join(self, table: int, seat: int | None = None, *,
                   code: str | None = None) -> int:
        """Sit at a table; returns the seat. ``code``: a private table's password or
        invite code (raises RequestRefused: code_required, wrong_code...)."""
        reply = await self.request(Join(table=table, seat=seat,
                                        proof=await self._proof(table, code)))
        assert isinstance(reply, Ok) and reply.seat is not None
        first = self._tracker(table).sat(table, reply.seat)
        if first is not None:  # before join returns: so a start sent next follows it
            await self._send_contribution(first)
        return reply.seat

    async def leave(self, table: int) -> None:
        await self.request(Leave(table=table))
        self.tables.pop(table, None)
        self.deals.pop(table, None)

    async def watch(self, table: int, *, code: str | None = None) -> None:
        """Watch a table; ``code`` as for :meth:`join` (a table whose lock has
        watch_code)."""
        await self.request(Watch(table=table, proof=await self._proof(table, code)))

    async def add_bot(self, table: int, seat: int, strategy: str | None = None) -> None:
        await self.request(AddBot(table=table, seat=seat, strategy=strategy))

    async def remove_bot(self, table: int, seat: int) -> None:
        await self.request(RemoveBot(table=table, seat=seat))

    async def start(self, table: int) -> None:
        await self.request(Start(table=table))

    async def say(self, text: str, table: int | None = None) -> None:
        await self.request(Say(text=text, table=table))

    async def resync(self, table: int, since: int | None = None) -> None:
        """Ask for the events after ``since`` (the last seq held), or a fresh snapshot
        (``since`` None, or a seq from before the table's current game)."""
        await self.request(Resync(table=table, since=since))

    async def ping(self) -> None:
        await self.request(Ping())

    async def list_games_played(self, *, name: str | None = None, limit: int | None = None,
                                before: int | None = None) -> tuple[PlayedGame, ...]:
        """Finished games of the server's history, newest first: where ``name`` sat (any
        case), at most ``limit`` (the server's default 20, at most 100), numbered below
        ``before`` (the next page)."""
        reply = await self.request(ListGamesPlayed(limit=limit, before=before, name=name))
        assert isinstance(reply, GamesPlayed)
        return reply.games

    async def get_record(self, number: int) -> tuple[GameRecord, tuple[JournalEntry, ...]]:
        """A finished game's record and its whole journal, its parts asked in turn (at
        most :data:`MAX_RECORD_ENTRIES` entries). Raises :class:`RequestRefused`
        (``no_such_game``) and :class:`ClientError` for a record past that bound or a part
        that does not follow the one before."""
        journal: list[JournalEntry] = []
        first: GameRecord | None = None
        start = 0
        while True:
            reply = await self.request(GetRecord(number=number, start=start or None))
            assert isinstance(reply, GameRecord)
            if reply.start != start:
                raise ClientError(f"the record's part starts at {reply.start}, not {start}")
            first = first or reply
            journal += reply.journal
            if reply.next is None:
                return first, tuple(journal)
            if reply.next <= start or reply.next != start + len(reply.journal) \
                    or reply.next > MAX_RECORD_ENTRIES:
                raise ClientError(f"game {number}'s record is too long or out of order "
                                  f"(a part ends at {reply.next})")
            start = reply.next

    async def act(self, table: int, action: SeatAction) -> None:
        """Play ``action`` for our seat at the move of the pending your_turn.

        Raises :class:`RequestRefused` (``stale_action``, or the rules' code and reason).
        """
        state = self.tables.get(table)
        move = state.move if state is not None and state.move is not None else (
            state.view.move_number if state is not None and state.view is not None else 0)
        await self.request(ActionMessage(table=table, move=move,
                                         action=action_to_wire(action)))

    # ------------------------------------------------------------------ updates

    async def admin_login(self, credential: str) -> None:
        """Prove the host's admin credential on this connection (and on every later one
        after a drop); raises :class:`RequestRefused` (``admin_denied``,
        ``admin_not_local``...) or :class:`ClientError` when the server has no controls."""
        welcome = self.welcome
        if welcome is None or welcome.nonce is None or ADMIN not in welcome.features:
            raise ClientError("this server offers no host's controls")
        await self.request(AdminLogin(proof=admin_proof(credential, welcome.nonce)))
        self._admin_credential = credential

    async def next_update(self, timeout: float = math.inf) -> Update:
        """The next pushed update (raises trio.TooSlowError after ``timeout`` seconds)."""
        with trio.fail_after(timeout):
            return await self._updates.receive()

    def updates(self) -> trio.MemoryReceiveChannel[Update]:
        """The channel of pushed updates, for ``async for``."""
        return self._updates

    async def close(self) -> None:
        """Leave politely: ``bye``, then close."""
        self.closed_reason = self.closed_reason or ServerClosed("closed by the client")
        stream, conn = self._io, self._conn
        if stream is None or conn is None:
            return
        with trio.move_on_after(1):
            try:
                async with self._write_lock:
                    await stream.send_all(conn.send(Bye()))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError,
                    LocalProtocolError):
                pass
        await trio.aclose_forcefully(stream)


@asynccontextmanager
async def open_session(host: str = "127.0.0.1", port: int = DEFAULT_PORT, *, name: str,
                       kind: str = "person", token: str | None = None,
                       reconnect_seconds: float = 60.0,
                       tls: ServerTrust | None = None,
                       password: str | HallCredential | None = None,
                       contribute: bool = True) -> AsyncIterator[Session]:
    """Connect (over TLS, checked as ``tls`` says, when it is given) and say hello (and
    log in with ``password`` to a hall that has one); yield the :class:`Session`; say bye
    and close on exit. ``contribute`` (the default): take part in the verifiable shuffles
    of the tables where we sit.

    After a dropped connection the session reconnects with its token for as long as the
    server holds its seats (the grace period of the tables where it sits, see
    :meth:`Session.seat_held_seconds`), and at least ``reconnect_seconds``.

    Raises :class:`ServerClosed` if the server refuses the hello (``name_taken``,
    ``tls_required``, ``password_required``, ``wrong_password``...), a
    :class:`~rummyhall.client.trust.TLSError` if TLS fails or the server is not trusted,
    or ``OSError`` if it cannot be reached.
    """
    session = Session(host, port, name, kind=kind, token=token,
                      reconnect_seconds=reconnect_seconds, tls=tls, password=password,
                      contribute=contribute)
    await session._connect()
    async with trio.open_nursery() as nursery:
        session._nursery = nursery
        await nursery.start(session._run)
        try:
            yield session
        finally:
            await session.close()
            nursery.cancel_scope.cancel()


_PUSHES: dict[type[Message], Any] = {
    Snapshot: Session._snapshot, EventMessage: Session._event, Turn: Session._turn,
    YourTurn: Session._your_turn, Chat: Session._chat, TableUpdate: Session._table_update,
    TableRemoved: Session._table_removed, Notice: Session._notice,
    DealCommit: Session._deal_commit, DealRevealed: Session._deal_revealed,
}
