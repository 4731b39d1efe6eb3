"""The bans in force: by name (and the player who held it), by address, for a time.

A ban matches a hello by its name (case-blind), by the player its token resumes (so a
banned player cannot come back under another name), or by the connection's address.
Times are the server's clock (``trio.current_time()``: a test's MockClock) for the
checks, and Unix time for the journal and for people; a ban read back after a restart
gets the time it still has left. :class:`BanList` is plain data: the admin module
journals every change.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from rummyhall.protocol import BanInfo
from rummyhall.protocol.limits import MAX_BANS

from .names import name_key


class BanError(ValueError):
    """A ban that cannot be made: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Ban:
    """One ban. ``until`` is the server's clock (None: until lifted), ``until_unix`` the
    same moment as Unix time."""

    number: int
    name: str | None
    player: int | None
    address: str | None
    until: float | None
    until_unix: float | None
    reason: str
    since_unix: float

    @property
    def name_key(self) -> str | None:
        return name_key(self.name) if self.name is not None else None

    def active(self, now: float) -> bool:
        return self.until is None or now < self.until

    def info(self) -> BanInfo:
        return BanInfo(name=self.name, player=self.player, address=self.address,
                       until=None if self.until_unix is None else int(self.until_unix),
                       reason=self.reason, since=int(self.since_unix))


def normal_address(text: str) -> str:
    """An address in its one printed form (``::FFFF:10.0.0.1`` -> ``10.0.0.1``);
    :class:`BanError` ``bad_ban`` when it is not an IPv4 or IPv6 address, or is this
    machine's own (loopback: it would lock the host out of its own controls)."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise BanError("bad_ban", f"{text!r} is not an IPv4 or IPv6 address") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        raise BanError("bad_ban", f"{address} is this machine (loopback): banning it would "
                                  "lock the host out of its own controls")
    return str(address)


def peer_form(text: str) -> str:
    """A connection's peer address as bans compare it (IPv4-mapped IPv6 as IPv4)."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


class BanList:
    """The bans in force, at most :data:`MAX_BANS`."""

    def __init__(self) -> None:
        self._bans: dict[int, Ban] = {}
        self.next_number = 1

    def __len__(self) -> int:
        return len(self._bans)

    def add(self, ban: Ban) -> None:
        if len(self._bans) >= MAX_BANS:
            raise BanError("bad_ban", f"the server holds {MAX_BANS} bans already: lift some")
        self._bans[ban.number] = ban
        self.next_number = max(self.next_number, ban.number + 1)

    def expired(self, now: float) -> list[Ban]:
        """Take out the bans that have ended, and return them (to forget in the journal)."""
        ended = [b for b in self._bans.values() if not b.active(now)]
        for ban in ended:
            del self._bans[ban.number]
        return ended

    def in_force(self) -> list[Ban]:
        """The bans (call :meth:`expired` first), oldest first."""
        return sorted(self._bans.values(), key=lambda b: b.number)

    def matching(self, now: float, *, name: str | None = None, player: int | None = None,
                 address: str | None = None) -> Ban | None:
        """The ban in force, if any, on this name (any case), player or address."""
        key = name_key(name) if name is not None else None
        for ban in self._bans.values():
            if not ban.active(now):
                continue
            if (key is not None and ban.name_key == key) \
                    or (player is not None and ban.player == player) \
                    or (address is not None and ban.address == address):
                return ban
        return None

    def lift(self, *, name: str | None = None, address: str | None = None) -> list[Ban]:
        """Take out the bans of ``name`` (any case) or of ``address``; those taken."""
        key = name_key(name) if name is not None else None
        lifted = [b for b in self._bans.values()
                  if (key is not None and b.name_key == key)
                  or (address is not None and b.address == address)]
        for ban in lifted:
            del self._bans[ban.number]
        return lifted
