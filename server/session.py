"""One client connection: a small, boring adapter between a socket and the lobby.

A reader loop feeds the socket's bytes to the sans-IO :class:`~rummyhall.protocol.Connection`
and hands each message to the lobby. What the server says to the client is queued in the
connection's bounded :class:`~rummyhall.server.players.Outbox` and written by the hall's
:class:`~rummyhall.server.flusher.Flusher` without waiting (a non-blocking system call);
the session's writer task (started the first time the socket's buffer is full: an idle
connection has none) waits for the socket to drain, and closes the connection when it
stays full past the send timeout. Over TLS (:mod:`.tls`) the bytes
must be encrypted by the TLS stream, which only has an async ``send_all``: the flusher
hands each write to the writer task instead, bounded the same way. Limits are enforced here: the
handshake and idle timeouts, the rate bucket, the time one write may take.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import socket
from typing import TYPE_CHECKING, TypeVar

import trio

from rummyhall.protocol import (
    CLOSED,
    NEED_DATA,
    PAUSED,
    SERVER,
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminLogin,
    AdminMute,
    AdminNotice,
    AdminUnban,
    Bye,
    Challenge,
    Connection,
    Hello,
    Limits,
    LocalProtocolError,
    LoggedIn,
    Login,
    Message,
    Ping,
    Pong,
    RemoteProtocolError,
    Session,
    State,
    TokenBucket,
    Welcome,
    error_message,
    keepalive,
)
from rummyhall.protocol import Error as ErrorMessage
from rummyhall.protocol.limits import MINOR, REPLY_BYTES_PER_TOKEN
from rummyhall.protocol.proofs import KDF
from rummyhall.protocol.ratelimit import frame_cost

from .metering import ReadMeter
from .players import Outbox, Outgoing, Player, Prepared
from .tls import LingeringTransport

ADMIN_REQUESTS = (AdminBan, AdminBans, AdminClose, AdminKick, AdminLogin, AdminMute,
                  AdminNotice, AdminUnban)
"""The host's controls (answered by :class:`~.admin.Admin`)."""

if TYPE_CHECKING:
    from .hall import Hall

log = logging.getLogger("rummyhall.session")

_Step = TypeVar("_Step", Hello, Login)  # what the handshake reads, in turn

READ_SIZE = 65_536
REPLY_WAIT = 30.0  # seconds a session waits for a table to handle its request, at most
LINGER_SECONDS = 1.0  # a closing connection reads (and drops) what comes for this long
LINGER_BYTES = 1_048_576  # or this much
FEATURES = ("bots", "chat", "lobby_updates", "private_tables", "resume", "spectators",
            "turn_timers")
"""The optional abilities a welcome announces (docs/protocol.md, section 3); a server
with an admin credential adds ``admin``."""
NONCE_BYTES = 16  # the welcome's nonce: 128 bits from the CSPRNG, as 32 hex digits
LOGIN_MINOR = 2
"""The first minor version that can log in to a hall with a password (1.2)."""


def fatal(code: str, message: str) -> ErrorMessage:
    return ErrorMessage(code=code, message=message, fatal=True)


class ServerSession:
    """Serve one accepted connection until it ends."""

    def __init__(self, hall: Hall,
                 stream: trio.SocketStream | trio.SSLStream[LingeringTransport],
                 address: str, local_address: str = "") -> None:
        self.hall = hall
        self.stream = stream
        self._tls = isinstance(stream, trio.SSLStream)
        self._socket = (stream.transport_stream.stream if isinstance(stream, trio.SSLStream)
                        else stream).socket
        # The same socket as a standard one, for the writes that never wait (made by run,
        # which detaches it at the end: it must never close the stream's descriptor)
        self._raw: socket.socket
        self._unsent: bytes | memoryview = b""  # written when the socket drains
        # The writer task, started the first time bytes wait for the socket (an idle
        # connection never needs one): woken by this event, it says it is done by the other
        self._wake_writer: trio.Event | None = None
        self._written: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self._lost = False  # the socket failed: nothing more is written
        self._done = False  # the session is ending: the flusher writes nothing more
        self.heard_at = trio.current_time()  # when the client's last whole frame came
        self.frame_started: float | None = None  # when the frame under way began to come
        self.address = address
        self.local_address = local_address  # the address the client reached us at
        #: This connection's nonce (its welcome's): admin proofs are HMACs over it.
        self.nonce = secrets.token_hex(NONCE_BYTES)
        self.admin = False  # it has proved the admin credential (admin_login)
        self.admin_refusals = 0  # admin logins refused on this connection
        s = hall.settings
        self.conn = Connection(SERVER, max_frame=s.max_frame)
        self.player: Player | None = None
        self.bucket = TokenBucket(rate=s.messages_per_second, burst=s.burst)
        #: The bucket all connections of this address share (server/arrivals.py): so a
        #: client that reconnects, or opens many connections, gets no more between them.
        self.shared = hall.address_rates.bucket(address)
        #: What its reads cost (server/metering.py): the session's own, and TLS's under it.
        self.meter = ReadMeter(self.conn, (self.bucket, self.shared), self._charge,
                               self._bytes_came)
        if isinstance(stream, trio.SSLStream):
            stream.transport_stream.meter = self.meter
        #: When the last refusal told this connection to try again (None: no refusal
        #: since its last frame taken): a client that waited so long is not charged
        #: for being refused again.
        self._retry_at: float | None = None
        self._cancel: trio.CancelScope | None = None  # the whole session (a slow reader)
        self._greeting = trio.CancelScope()  # the wait for the hello: a polite close
        self._reading = trio.CancelScope()  # the reader only: a polite close
        self._closing: ErrorMessage | None = None
        self.close_code: str | None = None  # why the server closed it (None: the client)
        self._outbox: Outbox | None = None
        self._pending: trio.Event | None = None  # set once the last request is handled

    @property
    def features(self) -> tuple[str, ...]:
        """What this server's welcome announces (``admin`` with an admin credential)."""
        return FEATURES if self.hall.admin.credential is None else (*FEATURES, "admin")

    @property
    def limits(self) -> Limits:
        s = self.hall.settings
        idle, ping = keepalive(s.idle_seconds)
        return Limits(max_frame=s.max_frame, messages_per_second=s.messages_per_second,
                      burst=s.burst, handshake_seconds=max(1, round(s.handshake_seconds)),
                      idle_seconds=math.floor(idle), ping_seconds=ping)

    async def run(self) -> None:
        self._raw = socket.socket(fileno=self._socket.fileno())
        try:
            await self._run()
        except* (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError):
            pass  # the peer went away, or would not take our bytes: a lost connection
        finally:
            try:
                await self._finish()
            finally:
                self._raw.detach()  # leaves the descriptor to the stream (closed by now)

    async def _run(self) -> None:
        s = self.hall.settings
        hello: Hello | None = None
        with trio.move_on_after(s.handshake_seconds), self._greeting:
            hello = await self._read_handshake(Hello)
        if hello is None:
            if self._closing is not None:
                return  # closed from outside (a shutdown): _finish sends why
            if self.conn.state.value in ("START", "GREETING"):
                await self._refuse(fatal("handshake_timeout",
                                         f"no hello within {s.handshake_seconds:g} s"))
            return
        # (a ban first: a banned address guesses no password; a banned player whose seat
        # holds its name is told it is banned. Behind a hall password only the address
        # is checked before the login, so that no stranger learns who is banned)
        password = self.hall.password is not None
        refusal = self.hall.admin.refusal_at_hello(hello, self.address, address_only=password)
        if refusal is not None:
            await self._refuse(refusal)
            return
        login: Login | None = None
        if password:
            login = await self._log_in(hello)
            if login is None:
                return
            # every ban again, with no wait from here to the admission: one made while
            # the login was awaited holds too
            refusal = self.hall.admin.refusal_at_hello(hello, self.address)
            if refusal is not None:
                await self._refuse(refusal)
                return
        refusal = self.hall.check_name(hello)
        if refusal is not None:
            await self._refuse(refusal)
            return
        player, token, resumed = self.hall.admit(hello, self)
        self.player = player
        self.heard_at = trio.current_time()  # (saying hello took part of the handshake)
        self.frame_started = None  # (the handshake's frames were timed by its own wait)
        session = Session(player=player.id, token=token, resumed=resumed)
        if login is not None:
            greeting: Message = LoggedIn(session=session, id=login.id)
        else:
            greeting = Welcome(version=self.conn.version or 1, minor=MINOR, server=s.name,
                               limits=self.limits, features=self.features, nonce=self.nonce,
                               session=session)
        if not await self._send_now(greeting):
            return  # the client did not take its welcome: nothing can follow it
        async with trio.open_nursery() as nursery:
            self._cancel = nursery.cancel_scope
            self._nursery = nursery
            outbox = player.outbox = self._outbox = Outbox(
                s.max_output_bytes, self.hall.output, encode=self._encode_one,
                on_overflow=self._overflow, flush=self._flush,
                schedule=self.hall.flusher.schedule)
            await self.hall.lobby.connected(player)
            with self._reading:
                await self._reader()
            with trio.move_on_after(s.send_timeout):
                await self._replied()  # (the reply of its last request goes first)
            # Reading is over: what is queued goes out first, then the closing error if any.
            if self._closing is not None and outbox.put(self._closing):
                self._closing = None
            outbox.close()
            with trio.move_on_after(s.send_timeout):
                if self._wake_writer is None:  # no writer task: what is queued goes now
                    self._wake_writer = trio.Event()  # (so that none is started meanwhile)
                    await self._writer(outbox, trio.Event())
                else:
                    self._wake_writer.set()
                    assert self._written is not None
                    await self._written.wait()
            nursery.cancel_scope.cancel()

    async def _log_in(self, hello: Hello) -> Login | None:
        """The hall's password (section 3.1): the welcome that asks for it, then the
        client's login, checked within the attempt limiter's bounds. The login if its
        proof is right; else the connection is refused (and None)."""
        s = self.hall.settings
        password = self.hall.password
        assert password is not None
        if (hello.minor or 0) < LOGIN_MINOR:
            await self._refuse(fatal("password_required", f"this hall has a password; "
                                     f"logging in needs protocol 1.{LOGIN_MINOR} (this client "
                                     f"speaks 1.{hello.minor or 0}): upgrade it"))
            return None
        verifier = password.verifier
        welcome = Welcome(version=self.conn.version or 1, minor=MINOR, server=s.name,
                          limits=self.limits, features=self.features, nonce=self.nonce,
                          session=None, login=Challenge(kdf=KDF, salt=verifier.salt.hex(),
                                                        iterations=verifier.iterations))
        if not await self._send_now(welcome):
            return None
        login: Login | None = None
        if self._closing is not None:
            return None
        self._greeting = trio.CancelScope()  # (a scope is entered once: a fresh one)
        with trio.move_on_after(s.handshake_seconds), self._greeting:
            login = await self._read_handshake(Login)
        if login is None:
            if self._closing is None and self.conn.state is State.LOGIN:
                await self._refuse(fatal("password_required",
                                         f"no login within {s.handshake_seconds:g} s"))
            return None
        limiter, now = self.hall.login_attempts, trio.current_time()
        wait = limiter.wait(self.address, now)
        if wait > 0:
            log.info("%s: a login too soon after wrong ones (%.1f s early)", self.address, wait)
            await self._refuse(ErrorMessage(
                code="too_many_attempts", fatal=True, id=login.id,
                retry_ms=math.ceil(wait * 1000),
                message=f"too many wrong passwords from {self.address}: try again in "
                        f"{math.ceil(wait)} s"))
            return None
        if not password.check(login.proof, self.nonce):
            delay = limiter.failed(self.address, now)
            log.warning("%s: wrong hall password (name %r)", self.address, hello.name)
            await self._refuse(ErrorMessage(
                code="wrong_password", fatal=True, id=login.id,
                retry_ms=math.ceil(delay * 1000) if delay else None,
                message="wrong password" + (f": the next try from this address is "
                                            f"checked in {math.ceil(delay)} s" if delay else "")))
            return None
        limiter.succeeded(self.address)
        return login

    async def _refuse(self, message: ErrorMessage) -> None:
        """Send the error that ends the handshake."""
        if message.fatal:
            self.close_code = message.code
        await self._send_now(message)

    async def _read_handshake(self, kind: type[_Step]) -> _Step | None:
        """The client's next handshake message, a ``kind`` (its hello, then its login when
        the hall has a password), or None: it closed, said bye, or broke the protocol
        (refused). The connection pauses only after each of these, so here it either
        has the message or needs data."""
        while True:
            try:
                event = self.conn.next_event()
            except RemoteProtocolError as exc:
                await self._refuse(error_message(exc))
                return None
            if isinstance(event, kind):
                self.meter.frame_ended()
                return event
            if event is not NEED_DATA:
                return None  # closed, or a bye in LOGIN: nothing else can come now
            self.conn.receive_data(await self._receive())

    async def _reader(self) -> None:
        assert self.player is not None
        received_at = trio.current_time()
        while True:
            size = self.conn.next_frame_size()
            if size is not None and not self._affords(frame_cost(size)):
                if await self._refuse_unread(size, received_at):
                    return
                continue
            try:
                event = self.conn.next_event()
            except RemoteProtocolError as exc:
                self._frame_ended(received_at)
                await self._replied()
                if exc.fatal:
                    self._queue(error_message(exc))
                    return
                self._spend()  # a refused frame costs what it costs too
                self._queue(error_message(exc))
                if exc.message_type == "action":
                    # a fresh your_turn, at the table it named
                    await self.hall.lobby.prompt_again(self.player, exc.table)
                continue
            if event is NEED_DATA:
                if self.conn.buffered and self.frame_started is None:
                    self.frame_started = received_at  # a frame has begun: it must end
                # (no timeout here: the hall's watchdog closes a session idle too long, or
                # one whose frame does not end; the meter prices the reads themselves)
                try:
                    data = await self._receive()
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return  # the connection was reset: a lost connection
                received_at = trio.current_time()
                self.conn.receive_data(data)
                continue
            if event is CLOSED or event is PAUSED:
                return
            self._frame_ended(received_at)
            await self._replied()
            if isinstance(event, Bye):  # (honoured whatever the rate: it has no reply)
                await self.hall.lobby.leave_all(self.player)
                return
            self._spend()
            if isinstance(event, Ping):
                self._queue(Pong(id=event.id))
            elif isinstance(event, ADMIN_REQUESTS):
                await self.hall.admin.handle(self, event)
            else:
                self._pending = await self.hall.lobby.handle(self.player, event)

    async def _refuse_unread(self, size: int, received_at: float) -> bool:
        """Refuse the next frame without reading it, the bucket short of what it costs:
        reading is the work the rate bounds, so only its type and id are looked at, for
        its one reply. True when the session ends (a bye, or the last refusal)."""
        assert self.player is not None
        kind, request_id = self.conn.take_unread(size)
        self._frame_ended(received_at)
        await self._replied()  # (replies keep the order of the requests)
        if kind == "bye":  # (honoured whatever the rate: it has no reply)
            await self.hall.lobby.leave_all(self.player)
            return True
        refusal = self._over_rate(request_id)
        self._queue(refusal)
        return refusal.fatal

    async def _receive(self) -> bytes:
        """The next bytes from the client (b"": it closed its side).

        Over plain TCP the session waits for the socket to be readable, then reads it
        with one non-blocking call: the reader comes here only once every whole frame
        was handled, when the client is nearly always waiting for our reply, so trying
        the read first (as trio's ``receive_some`` does) would mostly cost a call that
        finds nothing, and trio's wrapping of it, for every frame."""
        if self._tls:  # (the TLS stream's transport meters its reads: LingeringTransport)
            return bytes(await self.stream.receive_some(READ_SIZE))
        meter = self.meter
        await meter.before()
        while True:
            await trio.lowlevel.wait_readable(self._socket)
            try:
                data = self._raw.recv(READ_SIZE)
            except BlockingIOError:
                continue  # (woken for nothing: wait again)
            except OSError as exc:  # reset: a lost connection
                raise trio.BrokenResourceError from exc
            meter.after(len(data))
            return data

    async def _replied(self) -> None:
        """Wait until the table has handled this connection's last request (its reply is
        queued), for at most :data:`REPLY_WAIT`: what answers the next frame comes after
        it. The session reads on meanwhile; its task is not woken by the table."""
        pending, self._pending = self._pending, None
        if pending is not None and not pending.is_set():
            with trio.move_on_after(REPLY_WAIT):
                await pending.wait()

    def _frame_ended(self, received_at: float) -> None:
        """A whole frame came in: the client is heard (the idle timeout counts frames,
        not bytes), and no frame is under way until more bytes come."""
        self.heard_at = received_at
        self.frame_started = None
        self.meter.frame_ended()

    def _bytes_came(self) -> None:
        """The meter read some bytes: a frame has begun, if none was under way (under
        TLS a record may be part in before the session sees any of it)."""
        if self.frame_started is None:
            self.frame_started = trio.current_time()

    def _affords(self, cost: int) -> bool:
        """Whether this connection's bucket, and its address's, hold what a frame costs."""
        now = trio.current_time()
        return self.bucket.affords(now, cost) and self.shared.affords(now, cost)

    def _spend(self) -> None:
        """Take the tokens of the frame just read. The reader made sure they were there;
        a reply charged meanwhile, or the address's other connections, may have taken
        some since: what is missing is owed."""
        self._retry_at = None
        self._charge(frame_cost(self.conn.frame_size))

    def _over_rate(self, request_id: int | str | None) -> ErrorMessage:
        """The ``rate_limited`` refusal of the frame just taken unread: its cost, one token
        and one more per whole 256 bytes of its body, is spent from the refusals' allowance
        (fatal once that is spent)."""
        now = trio.current_time()
        cost = frame_cost(self.conn.frame_size)
        own = self.bucket.wait_ms(now, cost)
        # A client that waited as the last refusal said, and whose own bucket pays, was
        # refused only because the address's other connections spent its shared bucket
        # first: that costs it nothing (docs/protocol.md, section 8, "never closed")
        if not (own == 0 and self._retry_at is not None and now >= self._retry_at):
            self.bucket.refuse(cost)
            if self.bucket.exhausted:
                return fatal("rate_limited", f"frames kept arriving too fast: refusals "
                                             f"worth {self.bucket.burst} tokens more than "
                                             "the rate brings back")
        shared = self.shared.wait_ms(now, cost)
        if shared > own:  # (the connections of the address take turns: each other one's
            # frame is paid first, at the shared rate)
            others = self.hall.connections_from(self.address) - 1
            shared += math.ceil(others * cost / self.shared.rate * 1000)
        wait = max(own, shared)
        self._retry_at = now + wait / 1000
        return ErrorMessage(code="rate_limited", fatal=False, id=request_id, retry_ms=wait,
                            message=f"too many messages: this one was ignored; wait {wait} ms")

    def _queue(self, message: Message) -> None:
        """Queue a message of the connection itself; a fatal one closes after it is sent."""
        if isinstance(message, ErrorMessage) and message.fatal:
            self._closing = message
            self.close_code = message.code
        elif self.player is not None:
            self.player.send(message)

    # ------------------------------------------------------------------ writing

    def _flush(self) -> None:
        """Write the queued messages now, as far as the socket takes them (the flusher).

        While earlier bytes wait for the socket the writer task owns the outbox: it
        flushes again once they are written.
        """
        outbox = self._outbox
        if outbox is None or self._unsent or self._lost or self._done:
            return
        data = outbox.take()
        if data:
            self._write_now(data)

    def drop_unsaved(self) -> None:
        """The journal failed to commit what the queued messages announce: they are
        dropped unsent, and the connection is closed with ``internal_error``."""
        outbox = self._outbox
        if outbox is None or not outbox.discard():
            return
        self.close(fatal("internal_error", "the server could not save the game to its data "
                         "file and stops; the moves it had not told you of are lost (a "
                         "restart resumes from the last one told)"))

    def _lose(self) -> None:
        """Nothing more can be written: the session ends (its reader is stopped)."""
        self._unsent = b""
        self._lost = True
        if self._outbox is not None:
            self._outbox.release()  # the player is no longer connected; puts are refused
        self._reading.cancel()
        if self._wake_writer is not None:
            self._wake_writer.set()

    def _write_now(self, data: bytes | memoryview) -> None:
        """One non-blocking write; what the socket does not take waits in ``_unsent``.
        (Over TLS all of it waits there, for the writer task.)"""
        if self._tls:
            self._unsent = data
            self._wake()
            return
        try:
            sent = self._raw.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:  # reset, broken pipe, closed: the connection is lost
            self._lose()
            return
        if self._outbox is not None:
            self._outbox.written(sent)
        if sent < len(data):
            self._unsent = memoryview(data)[sent:]
            self._wake()
        else:
            self._unsent = b""

    def _wake(self) -> None:
        """Bytes wait for the socket: the writer task takes over (started the first time)."""
        if self._wake_writer is not None:
            self._wake_writer.set()
        elif self._nursery is not None and self._outbox is not None:
            self._wake_writer, self._written = trio.Event(), trio.Event()
            self._nursery.start_soon(self._writer, self._outbox, self._written)

    async def _writer(self, outbox: Outbox, written: trio.Event) -> None:
        """Wait for the socket whenever it is full, until the outbox is closed and written.

        A socket that stays full for the send timeout is a client that does not read:
        the connection is closed.
        """
        timeout = self.hall.settings.send_timeout
        try:
            while not self._lost:
                if self._unsent and self._tls:
                    data = self._unsent  # (kept there meanwhile: it keeps the flusher off)
                    with trio.fail_after(timeout):
                        await self.stream.send_all(data)
                    if not self._lost:  # (lost meanwhile: the outbox is released)
                        outbox.written(len(data))
                        self._unsent = b""
                    continue
                if self._unsent:
                    with trio.fail_after(timeout):
                        await trio.lowlevel.wait_writable(self._socket)
                    self._write_now(self._unsent)
                    continue
                journal = self.hall.journal
                if journal is not None and not journal.settle_now():
                    await journal.settle()  # (nothing is written before its rows commit)
                    continue
                self._flush()  # what was queued while the socket was full
                if self._unsent:
                    continue
                if outbox.closed and not outbox.chunks:
                    return
                assert self._wake_writer is not None
                await self._wake_writer.wait()
                self._wake_writer = trio.Event()
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError):
            self._lose()
        finally:
            written.set()

    def _encode_one(self, message: Outgoing) -> bytes:
        """The bytes of ``message``, or b"" if it may not be sent now (the outbox's
        encoder: messages are encoded in the order they are queued). A reply's size is
        charged to the rate bucket: a big reply costs more than a small one."""
        state = self.conn.state
        if state is State.CLOSED:
            return b""  # the conversation is over (bye, or a fatal error went out)
        if isinstance(message, Prepared):
            if state is not State.READY:
                return b""
            if message.charged:
                tokens = len(message.data) // REPLY_BYTES_PER_TOKEN + message.work
                if tokens:
                    self._charge(tokens)
            return message.data
        if state is State.ERROR and not (isinstance(message, ErrorMessage) and message.fatal):
            return b""  # after a fatal error from the peer only our closing error goes
        try:
            data = self.conn.send(message)
        except LocalProtocolError:  # a bug: this message is not sent, the rest go on
            log.exception("refused to send a %s", message.type)
            request_id = getattr(message, "id", None)
            if request_id is None or isinstance(message, ErrorMessage):
                return b""
            # a reply that cannot go still answers its request, as the protocol promises
            return self._encode_one(ErrorMessage(
                code="internal_error", fatal=False, id=request_id,
                message=f"the server could not send its {message.type} reply"))
        if len(data) >= REPLY_BYTES_PER_TOKEN:
            # (a message for this connection alone answers something it asked for: a
            # reply, with an id or without, a snapshot after a join, watch or resync;
            # what many connections share, events and lobby updates, is Prepared)
            self._charge(len(data) // REPLY_BYTES_PER_TOKEN)
        return data

    def _charge(self, tokens: int) -> None:
        """A big reply's cost, to this connection's bucket and its address's."""
        self.bucket.charge(tokens)
        self.shared.charge(tokens)

    async def _send_now(self, message: Message) -> bool:
        """Write a message directly (before the writer runs, or a last fatal error); say
        whether all of it went out. A write that failed or timed out may have left half a
        frame on the wire: the connection is then lost, and nothing more is written."""
        data = self._encode_one(message)
        if not data or self._unsent or self._lost:
            return False  # a frame is half written: a last message would garble it
        try:
            with trio.fail_after(self.hall.settings.send_timeout):
                await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError):
            self._lost = True
            return False
        return True

    def _overflow(self) -> None:
        log.warning("%s: the client does not read; closing", self.address)
        self._closing = fatal("slow_consumer", "your client does not read fast enough")
        self.close_code = "slow_consumer"
        if self._cancel is not None:
            self._cancel.cancel()

    def check_idle(self, now: float, idle: float) -> None:
        """Close the session if its client has sent no whole frame for ``idle`` seconds
        (the idle timeout: :func:`~rummyhall.protocol.keepalive`), or has left a frame
        unfinished for ``frame_seconds`` (the hall's watchdog calls this for every
        connection, a few times a second: one timer for all, not one per read)."""
        started = self.frame_started
        if now - self.heard_at < idle and started is None:
            return  # (the usual case, first: a connection heard recently)
        if self.player is None or self._closing is not None or self._done:
            return
        s = self.hall.settings
        if started is not None and now - started >= s.frame_seconds:
            self.close(fatal("frame_timeout", f"a frame begun {now - started:.0f} "
                                              f"s ago has not ended (at most "
                                              f"{s.frame_seconds:g} s)"))
        elif now - self.heard_at >= idle:
            self.close(fatal("idle_timeout", f"no message received for {idle:g} s"))

    def close(self, message: ErrorMessage) -> None:
        """Close this session from outside (shutdown, replaced by a resumed session): the
        queued messages and ``message`` are still sent (an ``internal_error`` given first,
        after a failed commit, is not replaced by the shutdown that follows it)."""
        if self._closing is None or self._closing.code != "internal_error":
            self._closing = message
            self.close_code = message.code
        self._greeting.cancel()
        self._reading.cancel()

    async def _finish(self) -> None:
        player = self.player
        self._done = True  # from here only the last message below is written
        if self.close_code is not None:
            self.hall.closed[self.close_code] += 1
        if self._outbox is not None:
            self._outbox.release()  # only our own: a newer session may own player.outbox now
        with trio.CancelScope(shield=True):
            if self._closing is not None and self._closing.code != "slow_consumer":
                with trio.move_on_after(1):
                    await self._send_now(self._closing)
            if player is not None and self.hall.release(player, self):
                await self.hall.lobby.disconnected(player)
            await self.close_politely()

    async def close_politely(self) -> None:
        """Close so that the client can read what we sent before: our side is shut for
        writing first, then what the client still sends is read and dropped (for at most
        :data:`LINGER_SECONDS` and :data:`LINGER_BYTES`). Closing a socket with bytes
        unread makes the kernel answer with a reset, which can destroy the last error
        on its way to the client. (A TLS stream sends its close_notify first; its
        transport, a :class:`~.tls.LingeringTransport`, does the rest.)"""
        if isinstance(self.stream, trio.SSLStream):
            if not self._lost:
                with trio.move_on_after(LINGER_SECONDS + 1):
                    with contextlib.suppress(trio.BrokenResourceError,
                                             trio.ClosedResourceError, OSError):
                        await self.stream.aclose()
            await trio.aclose_forcefully(self.stream.transport_stream.stream)
            return
        with trio.move_on_after(LINGER_SECONDS):
            try:
                if not self._lost:
                    await self.stream.send_eof()
                dropped = 0
                while dropped < LINGER_BYTES:
                    data = await self.stream.receive_some(READ_SIZE)
                    if not data:
                        break  # the client closed too
                    dropped += len(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        with trio.move_on_after(1):
            await self.stream.aclose()

