"""The whole server: the listener, the sessions, the lobby, the beacon, a clean shutdown.

``Hall.serve`` is the structured-concurrency root: it reports readiness with
``task_status.started()`` (the listening port), and when cancelled it stops accepting,
tells every client ``server_shutdown``, lets the tables and the journal flush, and
returns.
"""

from __future__ import annotations

import logging
import signal
from collections import Counter
from pathlib import Path

import trio

from rummyhall.protocol import Error as ErrorMessage
from rummyhall.protocol import Hello, keepalive

from .access import AttemptLimiter, HallPassword
from .admin import Admin
from .arrivals import ArrivalLimiter, RefusalSlots, address_rates
from .beacon import run_beacon
from .config import Settings
from .flusher import Flusher
from .journal import Journal
from .lobby import Lobby
from .names import name_key
from .players import OutputBudget, Player
from .session import LINGER_BYTES, LINGER_SECONDS, ServerSession, fatal
from .store import MEMORY, data_path, default_data_dir
from .tls import (
    TLS_RECORD_HANDSHAKE,
    LingeringTransport,
    ServerTLS,
    first_byte,
    load_server_tls,
    wrap_server_stream,
)

log = logging.getLogger("rummyhall.server")

IDLE_CHECK = 0.05  # the idle watchdog looks every 5% of the idle timeout
FORGET_EVERY = 600.0  # seconds between two sweeps of long-gone players


class Hall:
    """A Rummy Hall server. ``await Hall(settings).serve()`` runs it until cancelled."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lobby = Lobby(settings)
        self.flusher = Flusher()
        self.output = OutputBudget(settings.max_total_output_bytes)
        self.sessions: set[ServerSession] = set()
        self._by_player: dict[int, ServerSession] = {}
        self._per_address: Counter[str] = Counter()
        self._opening = 0  # connections admitted whose TLS handshake is under way
        #: The certificate TLS is served with (None: plain TCP), loaded by :meth:`serve`.
        self.tls: ServerTLS | None = None
        self.refused: Counter[str] = Counter()  # connections refused at once, by code
        self.closed_at_once = 0  # refused ones closed without a word (see _refuse)
        #: New connections per address (their rate), and the refusals under way.
        self.arrivals = ArrivalLimiter(settings.connect_rate, settings.connect_burst)
        self.address_rates = address_rates(settings.messages_per_second, settings.burst)
        self.refusing = RefusalSlots()
        self.closed: Counter[str] = Counter()  # sessions the server closed, by code
        self.port: int | None = None
        self.closing = False
        self._stop = trio.Event()
        self.journal: Journal | None = None
        self.admin = Admin(self)
        #: The hall's password (None: an open hall), and the wrong guesses by address.
        self.password = HallPassword.from_setting(settings.password)
        self.login_attempts = AttemptLimiter()

    # ------------------------------------------------------------------ admission

    def check_name(self, hello: Hello) -> ErrorMessage | None:
        """The fatal error for a hello whose name is taken, or None.

        A name belongs to whoever presents its holder's token. Anybody else may take it
        only while its holder holds nothing: no connection (or welcome under way), no
        seat at an unfinished table (one left included), no table of its own. A token's
        own player gets its name back (:meth:`admit` takes it from whoever had it), unless
        the one who took it meanwhile has a seat in a game being played (one it left
        included): a game is never broken off for a name (the owner may come back under
        it once that game is over).
        """
        players = self.lobby.players
        resumed = players.by_token(hello.token) if hello.token else None
        holder = players.holder(hello.name)
        if holder is None or holder is resumed:
            return None
        playing = self.lobby.plays(holder)
        if resumed is not None and resumed.owns_name and not playing \
                and name_key(resumed.name) == name_key(hello.name):
            return None  # its own name, lent to another while it was away: it wins
        if playing:
            return fatal("name_taken", f"the name {hello.name!r} is in use in a game")
        if holder.id in self._by_player or self.lobby.holds_seat_or_table(holder):
            return fatal("name_taken", f"the name {hello.name!r} is in use")
        return None

    def admit(self, hello: Hello, session: ServerSession) -> tuple[Player, str, bool]:
        """The player of a new session, its token and whether it was resumed with that
        token (else it is new, with a fresh one).

        An older session of the same player is closed with ``session_replaced``; one of
        another player that held the name meanwhile with ``name_taken``.
        """
        players = self.lobby.players
        token = hello.token
        player = players.by_token(token) if token else None
        resumed = player is not None
        if player is None or token is None:
            if len(players) >= self.settings.max_players:
                self.lobby.forget_stale(trio.current_time(), make_room=True)
            player, token = players.new(hello.name, hello.kind)
        else:
            player.kind = hello.kind  # (the kind is the connection's: what it says now)
            old = self._by_player.get(player.id)
            if old is not None and old is not session:
                old.close(fatal("session_replaced", "you connected again elsewhere"))
        holder = players.holder(hello.name)
        owner = resumed and player.owns_name and name_key(player.name) == name_key(hello.name)
        was = (player.name, player.owns_name)
        before = players.claim(player, hello.name)
        if before is None:
            if holder is None:  # (holder is player: it keeps what it had, owned or on loan)
                player.owns_name = True
        elif owner:  # the owner is back: whoever held its name on loan loses it for good
            player.owns_name, before.owns_name = True, False
            borrower = self._by_player.get(before.id)
            if borrower is not None:
                borrower.close(fatal("name_taken", f"the name {hello.name!r} is back with "
                                                   "its owner's token"))
        else:  # taken from a holder that holds nothing: on loan while its owner may return
            player.owns_name = False
        if self.journal is not None:  # (the file's rows follow: a restart keeps who owns)
            changed = [player] if (player.name, player.owns_name) != was else []
            if before is not None and before is not player:
                changed.append(before)
            self.journal.names_changed(changed)
        self._by_player[player.id] = session  # (from here the name counts as in use)
        player.gone_since = None
        player.lobby_updates = True  # a setting of the connection, not of the player
        player.missed_updates.clear()
        player.nonce, player.address = session.nonce, session.address
        player.muted_until = max(player.muted_until, self.admin.muted_until(player.name))
        log.info("%s: %s %r (%s) player %s", session.address,
                 "resumed" if resumed else "hello", hello.name, hello.kind, player.id)
        return player, token, resumed

    def session_of(self, player: Player) -> ServerSession | None:
        """The connection ``player`` is connected by now, if any."""
        return self._by_player.get(player.id)

    def release(self, player: Player, session: ServerSession) -> bool:
        """Forget ``session``; True if it was the player's current one (now disconnected)."""
        if self._by_player.get(player.id) is session:
            del self._by_player[player.id]
            player.outbox = None
            player.gone_since = trio.current_time()
            return True
        return False

    # ------------------------------------------------------------------ serving

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        """Listen and serve until :meth:`stop` (a clean shutdown) or cancellation (abrupt);
        ``task_status.started(port)`` once listening."""
        s = self.settings
        # The certificate and the data file first: either, unusable, stops the server
        # before it listens (TLSSetupError, StoreError, with the reason).
        if s.tls:
            self.tls = load_server_tls(s.tls_cert, s.tls_key, tls_directory(s))
        journal = await Journal.open(s) if s.journal else None
        try:
            self.admin.start(journal)  # (the credential: a StoreError stops the start too)
            async with trio.open_nursery() as nursery:
                await nursery.start(self.flusher.run)
                await nursery.start(self.lobby.run)
                if journal is not None:
                    await nursery.start(journal.run)
                    self._use(journal)
                    self.lobby.restore(await journal.restore())
                listeners = await trio.open_tcp_listeners(s.port, host=s.host or None)
                try:
                    self.port = listeners[0].socket.getsockname()[1]
                    nursery.start_soon(self._accept, listeners, name="listener")
                    nursery.start_soon(self._watch_idle, name="idle watchdog")
                    if s.beacon:
                        nursery.start_soon(run_beacon, self, name="beacon")
                    task_status.started(self.port)
                    await self._stop.wait()
                    await self._shutdown(listeners)
                    if journal is not None:
                        await journal.flush()
                    nursery.cancel_scope.cancel()
                finally:
                    for listener in listeners:  # also when cancelled from outside
                        listener.socket.close()
        finally:
            if journal is not None:
                journal.close()

    def _use(self, journal: Journal) -> None:
        """Journal every table; answer history requests; stop if the journal fails."""
        self.journal = journal
        self.lobby.journal = journal
        self.lobby.on_new_table = journal.attach
        self.lobby.on_table_changed = journal.table_changed
        journal.on_failure = self.stop
        journal.on_unsaved = self._drop_unsaved
        journal.on_staged = self.flusher.poke
        self.flusher.journal = journal

    def _drop_unsaved(self) -> None:
        """A commit failed: what every connection has queued may announce moves that are
        not in the journal. It is dropped unsent, and those connections are closed."""
        for session in list(self.sessions):
            session.drop_unsaved()

    def stop(self) -> None:
        """Ask for a clean shutdown: no new connections, every client told, tables stopped."""
        self._stop.set()

    async def _accept(self, listeners: list[trio.SocketListener]) -> None:
        async with trio.open_nursery() as handlers:
            for listener in listeners:
                handlers.start_soon(self._accept_on, listener, handlers)

    async def _accept_on(self, listener: trio.SocketListener, handlers: trio.Nursery) -> None:
        while True:
            try:
                stream = await listener.accept()
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return
            except OSError as exc:  # out of file descriptors, and the like: wait, go on
                log.warning("accept failed: %s", exc)
                await trio.sleep(0.1)
                continue
            handlers.start_soon(self._handle, stream)

    async def _watch_idle(self) -> None:
        """Close the sessions whose clients have sent no whole frame for ``idle_seconds``
        or left one unfinished for ``frame_seconds`` (checked every :data:`IDLE_CHECK` of
        the shorter: a session may live that much longer), and now and then forget the
        players long gone."""
        period = min(self.settings.idle_seconds, self.settings.frame_seconds) * IDLE_CHECK
        swept = trio.current_time()
        while True:
            await trio.sleep(period)
            now = trio.current_time()
            idle, _ = keepalive(self.settings.idle_seconds)
            for session in list(self.sessions):
                session.check_idle(now, idle)
            if now - swept >= min(FORGET_EVERY, self.settings.player_expiry_seconds / 10):
                # (the same watchdog keeps the registry small)
                swept = now
                self.lobby.forget_stale(now)

    def addresses(self, stream: trio.SocketStream) -> tuple[str, str]:
        """A connection's peer address and the address it reached us at (``OSError`` when
        the connection is gone already). Tests replace it to play another machine."""
        return (str(stream.socket.getpeername()[0]), str(stream.socket.getsockname()[0]))

    async def _handle(self, raw: trio.SocketStream) -> None:
        s = self.settings
        try:
            address, local_address = self.addresses(raw)
        except OSError:
            await raw.aclose()
            return
        if not self.arrivals.admit(address, trio.current_time()):
            await self._refuse(raw, address, local_address, fatal(
                "too_many_connections", f"{address} opened connections faster than "
                                        f"{s.connect_rate:g} a second"), handshake=False)
            return
        refusal = self._refusal(address)
        if refusal is not None:
            await self._refuse(raw, address, local_address, refusal)
            return
        self._per_address[address] += 1  # counted from here: a TLS handshake holds one too
        self._opening += 1
        opening = True
        try:
            stream: trio.SocketStream | trio.SSLStream[LingeringTransport] = raw
            if self.tls is not None:
                opened = await self._open_tls_safely(raw, address, s.handshake_seconds)
                if opened is None:
                    return
                stream = opened
            session = ServerSession(self, stream, address, local_address)
            if self.closing:  # it began to shut down during the handshake
                await self._send_refusal(session, fatal("server_shutdown",
                                                        "the server is shutting down"))
                return
            self.sessions.add(session)
            self._opening -= 1
            opening = False
            try:
                await session.run()
            except Exception:  # a bug in one session must not take the server down
                log.exception("%s: session failed", address)
            finally:
                self.sessions.discard(session)
        finally:
            if opening:
                self._opening -= 1
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]

    def connections_from(self, address: str) -> int:
        """The connections open from ``address`` (at least 1: the asker's)."""
        return max(1, self._per_address[address])

    async def _refuse(self, raw: trio.SocketStream, address: str, local_address: str,
                      refusal: ErrorMessage, *, handshake: bool = True) -> None:
        """Refuse a new connection: the error is written (over TLS once the handshake is
        done, within a second, unless ``handshake`` is False: the handshake is the work a
        refusal by rate saves), then the connection lingers so that the client reads it.
        Only :data:`~.arrivals.REFUSAL_SLOTS` refusals are under way at once: past them,
        and for a TLS refusal without handshake, the connection is closed at once."""
        self.refused[refusal.code] += 1
        if (self.tls is not None and not handshake) or not self.refusing.take():
            self.closed_at_once += 1
            await trio.aclose_forcefully(raw)
            return
        try:
            stream: trio.SocketStream | trio.SSLStream[LingeringTransport] = raw
            if self.tls is not None:
                opened = await self._open_tls_safely(raw, address, 1.0)
                if opened is None:
                    return
                stream = opened
            await self._send_refusal(ServerSession(self, stream, address, local_address),
                                     refusal)
        finally:
            self.refusing.give_back()

    async def _send_refusal(self, session: ServerSession, refusal: ErrorMessage) -> None:
        with trio.move_on_after(1):
            await session._send_now(refusal)
        await session.close_politely()  # (the refusal is read, not lost to a reset)

    async def _open_tls_safely(self, raw: trio.SocketStream, address: str, seconds: float
                               ) -> trio.SSLStream[LingeringTransport] | None:
        """:meth:`_open_tls`, the connection closed when it gives None or fails."""
        try:
            opened = await self._open_tls(raw, address, seconds)
        except Exception:  # a bug in one handshake must not take the server down
            log.exception("%s: opening TLS failed", address)
            opened = None
        if opened is None:
            await trio.aclose_forcefully(raw)  # (closed already: no matter)
        return opened

    def _refusal(self, address: str) -> ErrorMessage | None:
        """The error that refuses a new connection from ``address`` at once, or None."""
        s = self.settings
        held = len(self.sessions) + self._opening
        if self.closing:
            return fatal("server_shutdown", "the server is shutting down")
        banned = self.admin.refusal_at_connect(address)
        if banned is not None:
            return banned
        if held >= s.max_connections:
            return fatal("server_full", f"the server holds {held} connections")
        if self._per_address[address] >= s.max_per_address:
            return fatal("too_many_connections", f"{address} has "
                                                 f"{self._per_address[address]} connections")
        return None

    async def _open_tls(self, raw: trio.SocketStream, address: str, seconds: float
                        ) -> trio.SSLStream[LingeringTransport] | None:
        """The TLS stream of a new connection once its handshake is done, within
        ``seconds``; or None once a plain client was told ``tls_required`` (or a
        client that said nothing ``handshake_timeout``), or a handshake failed."""
        assert self.tls is not None
        first: int | None = None
        with trio.move_on_after(seconds) as waited:
            try:
                first = await first_byte(raw)
            except OSError:  # reset before it said anything
                await trio.aclose_forcefully(raw)
                return None
        if waited.cancelled_caught or (first is not None and first != TLS_RECORD_HANDSHAKE):
            # (a client that says nothing is answered as a plain server would)
            error = fatal("handshake_timeout", f"no hello within {seconds:g} s") \
                if waited.cancelled_caught else \
                fatal("tls_required", "this server speaks TLS only: connect with TLS "
                                      "(rummyhall play --tls)")
            plain = ServerSession(self, raw, address)
            with trio.move_on_after(1):
                await plain._send_now(error)
            self.refused[error.code] += 1
            await plain.close_politely()
            return None
        if first is None:  # it closed before saying anything
            await raw.aclose()
            return None
        stream = wrap_server_stream(raw, self.tls, linger=LINGER_SECONDS, most=LINGER_BYTES)
        with trio.move_on_after(seconds) as handshaking:
            try:
                await stream.do_handshake()
                return stream
            except trio.BrokenResourceError as exc:  # not TLS after all, a client that
                # refused our certificate, no version or cipher in common...
                log.info("%s: TLS handshake failed: %s", address, exc.__cause__ or exc)
        code = "tls_handshake_timeout" if handshaking.cancelled_caught else "tls_handshake"
        self.refused[code] += 1
        await trio.aclose_forcefully(raw)
        return None

    async def _shutdown(self, listeners: list[trio.SocketListener]) -> None:
        """No new connections; every client is told; the tables stop."""
        self.closing = True
        log.info("shutting down: %d connections", len(self.sessions))
        for listener in listeners:
            await listener.aclose()
        for session in list(self.sessions):
            session.close(fatal("server_shutdown", "the server is shutting down"))
        with trio.move_on_after(self.settings.send_timeout):
            while self.sessions:
                await trio.sleep(0.01)
        await self.lobby.shutdown()


def tls_directory(settings: Settings) -> Path:
    """Where the self-signed certificate lives: beside the data file (the per-user data
    directory for a server that keeps its data in memory only)."""
    path = data_path(settings.data)
    return default_data_dir() if path == MEMORY else Path(path).resolve().parent


async def serve_until_signalled(settings: Settings,
                                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
                                *, hall: Hall | None = None) -> int | None:
    """Run a :class:`Hall` (``hall``, or a new one) until SIGINT or SIGTERM, then shut it
    down cleanly.

    Returns the signal that stopped it (None: the hall stopped by itself).
    """
    hall = hall or Hall(settings)
    stopped_by: int | None = None
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(hall.serve)
            task_status.started(port)
            async for signum in signals:
                log.info("signal %s: stopping", signal.Signals(signum).name)
                stopped_by = signum
                hall.stop()
                break
    return stopped_by
