"""The LAN beacon: a server's announcement in one UDP datagram (docs/protocol.md, 12).

A beacon is one msgpack map, not framed (a datagram has its own length)::

    >>> data = encode_beacon(Beacon(name="Hall", port=7654, tables=2, players=5))
    >>> decode_beacon(data)
    Beacon(name='Hall', port=7654, tables=2, players=5, version=1, host=None, fingerprint=None)
    >>> decode_beacon(b"not msgpack") is None
    True

A listener takes the server's address from the datagram's source unless ``host`` is
given. A server that serves TLS adds its certificate's ``fingerprint`` (1.2): a hint for
the list of servers (a lock), never a proof, since anybody can send a beacon. Anything
that is not a valid beacon is ignored (``decode_beacon`` returns None).
Anybody on the LAN can send a beacon, so a decoded name is made safe to print: control,
escape and other invisible characters become U+FFFD, so that no beacon can move a
terminal's cursor or hide itself behind another server's name::

    >>> decode_beacon(encode_beacon(Beacon(name="\x1b[2JEvil\u202e", port=1, tables=0,
    ...                                    players=0))).name
    '\ufffd[2JEvil\ufffd'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import msgpack

from .fingerprints import is_fingerprint
from .invisible import INVISIBLE
from .limits import PROTOCOL, VERSION

MAX_BEACON = 1024
MAX_BEACON_NAME = 64
MAX_COUNT = 1_000_000  # tables and players beyond this are not a real server's
_HOST = re.compile(r"[A-Za-z0-9.:-]{1,253}")  # an IPv4/IPv6 literal or a host name


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on or not show (controls,
    escapes, format characters such as bidirectional overrides, unassigned and private
    code points, line and paragraph separators, and what :data:`~.invisible.INVISIBLE`
    holds: fillers, joiners, variation selectors) replaced by U+FFFD.

    >>> printable("Club\u3164night\u2800") == "Club\ufffdnight\ufffd"
    True
    """
    return "".join("\ufffd" if (unicodedata.category(c)[0] in "CZ" and c != " ")
                   or ord(c) in INVISIBLE else c for c in text)


@dataclass(frozen=True, slots=True)
class Beacon:
    """What a server announces: its name, TCP port, tables and players, protocol version,
    and, when it serves TLS, its certificate's SHA-256 fingerprint (64 hex digits)."""

    name: str
    port: int
    tables: int
    players: int
    version: int = VERSION
    host: str | None = None
    fingerprint: str | None = None

    @property
    def tls(self) -> bool:
        return self.fingerprint is not None


def encode_beacon(beacon: Beacon) -> bytes:
    """The datagram announcing ``beacon``."""
    body = {"type": "beacon", "protocol": PROTOCOL, "version": beacon.version,
            "name": beacon.name, "port": beacon.port, "tables": beacon.tables,
            "players": beacon.players}
    if beacon.host is not None:
        body["host"] = beacon.host
    if beacon.fingerprint is not None:
        body["fingerprint"] = beacon.fingerprint
    data: bytes = msgpack.packb(body)
    return data


def decode_beacon(data: bytes) -> Beacon | None:
    """The beacon in a datagram, or None if it is not one."""
    if len(data) > MAX_BEACON:
        return None
    try:
        body = msgpack.unpackb(data, raw=False, strict_map_key=True, max_array_len=16,
                               max_map_len=32, max_str_len=256, max_bin_len=0)
    except (ValueError, msgpack.UnpackException):
        return None
    if not isinstance(body, dict) or body.get("type") != "beacon" \
            or body.get("protocol") != PROTOCOL:
        return None
    name, port = body.get("name"), body.get("port")
    tables, players = body.get("tables", 0), body.get("players", 0)
    version, host = body.get("version"), body.get("host")
    fingerprint = body.get("fingerprint")
    if not isinstance(name, str) or type(port) is not int or type(version) is not int \
            or type(tables) is not int or type(players) is not int:
        return None
    if not 0 < port < 65_536 or not 0 <= tables <= MAX_COUNT or not 0 <= players <= MAX_COUNT:
        return None
    if host is not None and not (isinstance(host, str) and _HOST.fullmatch(host)):
        return None
    if fingerprint is not None and not (isinstance(fingerprint, str)
                                        and is_fingerprint(fingerprint)):
        return None
    return Beacon(name=printable(name[:MAX_BEACON_NAME]), port=port, tables=tables,
                  players=players, version=version, host=host,
                  fingerprint=fingerprint)
