"""The host's controls: the admin login, kick, ban, unban, close, mute, notice, bans.

Theory of operation
-------------------
One authenticated path. A connection becomes an admin connection by ``admin_login``: the
HMAC-SHA256 of its welcome's ``nonce`` keyed by the credential file's secret
(:mod:`.credential`). The nonce is fresh per connection, so a proof captured on one
connection is refused on every other (``admin_denied``). By default only a connection
from the server's own machine may log in (its peer is a loopback address, or the very
address it reached the server on); ``admin_from_lan`` lifts that. A request of the
controls on any other connection gets ``not_admin`` and changes nothing.

Every action is committed to the journal's admin log (who, what, when) before it takes
effect, as the game's actions are; a ban is kept in the same transaction, so bans
survive a restart. A server without a data file keeps them in memory only.

Bans are checked at the two doors: the connection (its address, before anything is
read) and the hello (the name, case-blind, and the player its token resumes).
"""

from __future__ import annotations

import ipaddress
import logging
import time
from typing import TYPE_CHECKING, Any

import trio

from rummyhall.protocol import (
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminLogin,
    AdminMute,
    AdminNotice,
    AdminUnban,
    Bans,
    Hello,
    Message,
    Ok,
    admin_proof,
    proof_matches,
)
from rummyhall.protocol import Error as ErrorMessage

from .bans import Ban, BanError, BanList, normal_address, peer_form
from .credential import credential_path, load_or_create
from .journal import JournalError
from .names import name_key
from .players import Player
from .session import fatal

if TYPE_CHECKING:
    from .hall import Hall
    from .journal import Journal
    from .session import ServerSession

log = logging.getLogger("rummyhall.admin")

class AdminError(Exception):
    """A control refused: ``code`` is the protocol's error code; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def is_local(address: str, local_address: str) -> bool:
    """A connection whose peer is ``address``, reaching us at ``local_address``, comes
    from this machine: a loopback peer, or one whose address is our own end's."""
    try:
        peer = ipaddress.ip_address(peer_form(address))
    except ValueError:
        return False
    return peer.is_loopback or peer_form(address) == peer_form(local_address)


def _when(unix: float | None) -> str:
    if unix is None:
        return "until the host lifts it"
    return "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(unix))


def _because(reason: str | None) -> str:
    return f": {reason}" if reason else ""


class Admin:
    """The host's controls of one hall."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.bans = BanList()
        #: The names muted (case-blind key -> until, the server's clock, and the player
        #: muted): a muted player that comes back under its name without its token, a new
        #: player to the server, is muted all the same (a mute is the player's and its
        #: name's, as a ban is).
        self.mutes: dict[str, tuple[float, int]] = {}
        self.credential: str | None = None
        self.credential_file: str | None = None
        self.journal: Journal | None = None

    # ------------------------------------------------------------------ start

    def start(self, journal: Journal | None) -> None:
        """Make or read the credential, and bring back the bans the journal kept (the hall
        calls this before it listens; :class:`StoreError` stops the server)."""
        path = credential_path(self.hall.settings)
        if path is not None:
            self.credential = load_or_create(path)
            self.credential_file = path
        self.journal = journal
        if journal is None:
            return
        now, unix = trio.current_time(), time.time()
        ended: list[Ban] = []
        for row in journal.bans_at_start:
            until_unix = row["until"]
            ban = Ban(number=row["id"], name=row["name"], player=row["player"],
                      address=row["address"],
                      until=None if until_unix is None else now + (until_unix - unix),
                      until_unix=until_unix, reason=row["reason"], since_unix=row["since"])
            if ban.active(now):
                self.bans.add(ban)
            else:
                ended.append(ban)
            self.bans.next_number = max(self.bans.next_number, ban.number + 1)
        journal.forget_bans(ended)
        if len(self.bans):
            log.info("%d bans in force", len(self.bans))

    # ------------------------------------------------------------------ the doors

    def _banned(self, ban: Ban) -> ErrorMessage:
        return fatal("banned", f"you are banned from this server {_when(ban.until_unix)}"
                               f"{_because(ban.reason)}")

    def _sweep(self) -> None:
        now = trio.current_time()
        ended = self.bans.expired(now)
        if ended and self.journal is not None:
            self.journal.forget_bans(ended)

    def refusal_at_connect(self, address: str) -> ErrorMessage | None:
        """``banned`` for a connection from a banned address, else None."""
        if not len(self.bans):
            return None
        self._sweep()
        ban = self.bans.matching(trio.current_time(), address=peer_form(address))
        return self._banned(ban) if ban is not None else None

    def refusal_at_hello(self, hello: Hello, address: str, *,
                         address_only: bool = False) -> ErrorMessage | None:
        """``banned`` for a hello of a banned name, of a banned player's token or from a
        banned address (with ``address_only``, only the last), else None."""
        if not len(self.bans):
            return None
        self._sweep()
        resumed = self.hall.lobby.players.by_token(hello.token) \
            if hello.token and not address_only else None
        ban = self.bans.matching(trio.current_time(),
                                 name=None if address_only else hello.name,
                                 player=resumed.id if resumed is not None else None,
                                 address=peer_form(address))
        return self._banned(ban) if ban is not None else None

    # ------------------------------------------------------------------ requests

    async def handle(self, session: ServerSession, message: Message) -> None:
        """Answer an admin request of ``session`` (its player gets the one reply)."""
        player = session.player
        assert player is not None
        asker = player.outbox  # (the reply goes to this connection, not a newer one)
        request_id = getattr(message, "id", None)
        try:
            if isinstance(message, AdminLogin):
                reply: Message = await self._login(session, message)
            elif not session.admin:
                raise AdminError("not_admin", f"{message.type} is one of the host's "
                                              "controls: log in with admin_login first")
            else:
                reply = await self._control(session, message)
        except AdminError as exc:
            reply = ErrorMessage(code=exc.code, message=exc.message, fatal=False,
                                 id=request_id)
        except BanError as exc:
            reply = ErrorMessage(code=exc.code, message=exc.message, fatal=False,
                                 id=request_id)
        except JournalError as exc:
            reply = ErrorMessage(code="internal_error", fatal=False, id=request_id,
                                 message=f"the admin log cannot be written ({exc}): nothing "
                                         "was done")
        if player.outbox is asker:
            player.send(reply)

    async def _login(self, session: ServerSession, msg: AdminLogin) -> Ok:
        if self.credential is None:
            raise AdminError("admin_unavailable", "this server keeps no data directory, so "
                                                  "it has no admin credential")
        if not self.hall.settings.admin_from_lan and not is_local(session.address,
                                                                  session.local_address):
            self._refused(session, "not from this machine")
            raise AdminError("admin_not_local", "the host's controls are taken only from "
                                                "the server's own machine")
        if not proof_matches(admin_proof(self.credential, session.nonce), msg.proof):
            self._refused(session, "wrong proof")
            raise AdminError("admin_denied", "the proof does not match this connection's "
                                             "nonce under the server's admin credential")
        if not session.admin:
            await self._record(session, "login", "", {})
            session.admin = True
        return Ok(id=msg.id)

    @staticmethod
    def _refused(session: ServerSession, why: str) -> None:
        """Log a refused login: the first of each connection (a flood of them is one
        line), with the address, never the proof."""
        session.admin_refusals += 1
        if session.admin_refusals == 1:
            log.warning("%s: admin login refused: %s", session.address, why)

    async def _control(self, session: ServerSession, msg: Message) -> Message:
        if isinstance(msg, AdminKick):
            return await self._kick(session, msg)
        if isinstance(msg, AdminBan):
            return await self._ban(session, msg)
        if isinstance(msg, AdminUnban):
            return await self._unban(session, msg)
        if isinstance(msg, AdminClose):
            return await self._close(session, msg)
        if isinstance(msg, AdminMute):
            return await self._mute(session, msg)
        if isinstance(msg, AdminNotice):
            await self._record(session, "notice", "", {"text": msg.text})
            self.hall.lobby.notice(msg.text)
            return Ok(id=msg.id)
        assert isinstance(msg, AdminBans)
        self._sweep()
        return Bans(bans=tuple(b.info() for b in self.bans.in_force()), id=msg.id)

    def _named(self, name: str) -> Player:
        player = self.hall.lobby.players.holder(name)
        if player is None:
            raise AdminError("no_such_player", f"no player named {name!r} is known here")
        return player

    async def _kick(self, session: ServerSession, msg: AdminKick) -> Ok:
        player = self._named(msg.name)
        target = self.hall.session_of(player) if player.connected else None
        if target is None:  # (or its connection is closing already)
            raise AdminError("not_connected", f"{player.name!r} is not connected (a ban "
                                              "keeps a player out)")
        seat = msg.seat or "wait"
        await self._record(session, "kick", player.name,
                           {"seat": seat, "reason": msg.reason or ""})
        target.close(fatal("kicked", f"the host closed your connection{_because(msg.reason)}"))
        if seat == "bot":
            await self.hall.lobby.evict(player)
        return Ok(id=msg.id)

    async def _ban(self, session: ServerSession, msg: AdminBan) -> Ok:
        if msg.name is None and msg.address is None:
            raise AdminError("bad_ban", "a ban needs a name, an address or both")
        address = normal_address(msg.address) if msg.address is not None else None
        player = self._named(msg.name) if msg.name is not None else None
        now, unix = trio.current_time(), time.time()
        ban = Ban(number=self.bans.next_number, name=player.name if player else None,
                  player=player.id if player else None, address=address,
                  until=None if msg.seconds is None else now + msg.seconds,
                  until_unix=None if msg.seconds is None else unix + msg.seconds,
                  reason=msg.reason or "", since_unix=unix)
        self._sweep()
        self.bans.add(ban)  # (bad_ban when the list is full: nothing recorded)
        seat = msg.seat or "bot"
        target = ", ".join(t for t in (ban.name, address) if t)
        try:
            await self._record(session, "ban", target,
                               {"seconds": msg.seconds, "seat": seat,
                                "reason": ban.reason}, ban=ban)
        except JournalError:
            self.bans.lift(name=ban.name, address=address)
            raise
        closing = self._banned(ban)
        for other in list(self.hall.sessions):
            banned_here = (player is not None and other.player is player) or (
                address is not None and peer_form(other.address) == address)
            if banned_here and other is not session:
                other.close(closing)
        if player is not None and seat == "bot":
            await self.hall.lobby.evict(player)
        return Ok(id=msg.id)

    async def _unban(self, session: ServerSession, msg: AdminUnban) -> Ok:
        if msg.name is None and msg.address is None:
            raise AdminError("bad_ban", "unban needs a name, an address or both")
        address = normal_address(msg.address) if msg.address is not None else None
        self._sweep()
        lifted = self.bans.lift(name=msg.name, address=address)
        if not lifted:
            raise AdminError("no_such_ban", "no ban in force matches "
                             + " or ".join(repr(t) for t in (msg.name, address) if t))
        target = ", ".join(t for t in (msg.name, address) if t)
        try:
            await self._record(session, "unban", target, {"bans": len(lifted)},
                               lifted=lifted)
        except JournalError:
            for ban in lifted:
                self.bans.add(ban)
            raise
        return Ok(id=msg.id)

    async def _close(self, session: ServerSession, msg: AdminClose) -> Ok:
        if msg.table not in self.hall.lobby.tables:
            raise AdminError("no_such_table", f"there is no table {msg.table}")
        await self._record(session, "close", f"table {msg.table}",
                           {"reason": msg.reason or ""})
        self.hall.lobby.close_table(msg.table, f"the host closed table {msg.table}"
                                               f"{_because(msg.reason)}")
        return Ok(id=msg.id, table=msg.table)

    async def _mute(self, session: ServerSession, msg: AdminMute) -> Ok:
        player = self._named(msg.name)
        await self._record(session, "mute", player.name, {"seconds": msg.seconds})
        now = trio.current_time()
        for key in [k for k, (until, _) in self.mutes.items() if until <= now]:
            del self.mutes[key]  # (ended: the list holds the mutes in force alone)
        key = name_key(player.name)
        if msg.seconds:
            player.muted_until = now + msg.seconds
            self.mutes[key] = (player.muted_until, player.id)
            return Ok(id=msg.id)
        # Lifted: the player's mute, its name's, and those of the players the mutes of
        # either reached (its name's owner, muted before a borrower took the name; the
        # name it had when muted, under which others came since)
        muted = {player.id} | {who for k, (_, who) in self.mutes.items() if k == key}
        names = {k for k, (_, who) in self.mutes.items() if k == key or who in muted} | {key}
        for k in names:
            self.mutes.pop(k, None)
        for other in self.hall.lobby.players:
            if other.id in muted or name_key(other.name) in names:
                other.muted_until = 0.0
        return Ok(id=msg.id)

    def muted_until(self, name: str) -> float:
        """Until when the name ``name`` is muted (the server's clock; 0: it is not)."""
        return self.mutes.get(name_key(name), (0.0, 0))[0]

    async def _record(self, session: ServerSession, action: str, target: str,
                      details: dict[str, Any], **changes: Any) -> None:
        """Journal an admin action (before it takes effect) and log it."""
        assert session.player is not None
        who = f"{session.player.name} at {session.address}"
        log.info("admin %s: %s %s", who, action, target)
        if self.journal is not None:
            await self.journal.record_admin(time.time(), who, action, target, details,
                                            **changes)
