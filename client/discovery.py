"""Finding servers on the LAN: listen for their beacons (docs/protocol.md, section 12).

Anybody on the LAN can send beacons, as many as it likes: :class:`Heard` keeps at most
:data:`MAX_SERVERS` servers, each for :data:`KEEP_SECONDS` after its last beacon, and
the names it shows are made printable by :func:`~rummyhall.protocol.beacon.decode_beacon`.
"""

from __future__ import annotations

import socket as stdlib_socket
from dataclasses import dataclass

import trio

from rummyhall.protocol import DEFAULT_PORT
from rummyhall.protocol.beacon import MAX_BEACON, Beacon, decode_beacon

MAX_SERVERS = 64  # servers kept at once; a new one replaces the one heard longest ago
KEEP_SECONDS = 30.0  # a server not heard for this long is dropped


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server heard on the LAN."""

    name: str
    host: str
    port: int
    tables: int
    players: int
    version: int
    #: The SHA-256 of its TLS certificate when it serves TLS (None: plain TCP). A hint for
    #: the list, not a proof: anybody can send a beacon, so the connection checks again.
    fingerprint: str | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def tls(self) -> bool:
        return self.fingerprint is not None


class Heard:
    """The servers heard lately, bounded in number and in time (no I/O: time comes in)."""

    def __init__(self, *, most: int = MAX_SERVERS, keep: float = KEEP_SECONDS) -> None:
        self.most = most
        self.keep = keep
        self._servers: dict[tuple[str, int], tuple[FoundServer, float]] = {}

    def heard(self, beacon: Beacon, source: str, now: float) -> None:
        """A beacon arrived from ``source`` at ``now``."""
        host = beacon.host or source
        key = (host, beacon.port)
        self._servers.pop(key, None)  # (re-inserted: the dict stays oldest-heard first)
        self._servers[key] = (FoundServer(beacon.name, host, beacon.port, beacon.tables,
                                          beacon.players, beacon.version,
                                          beacon.fingerprint), now)
        while len(self._servers) > self.most:
            del self._servers[next(iter(self._servers))]

    def servers(self, now: float) -> list[FoundServer]:
        """The servers heard within ``keep`` seconds of ``now``, by name and address."""
        for key in [k for k, (_, at) in self._servers.items() if now - at > self.keep]:
            del self._servers[key]
        return sorted((f for f, _ in self._servers.values()),
                      key=lambda f: (f.name, f.host, f.port))


async def discover(seconds: float = 2.5, *, port: int = DEFAULT_PORT,
                   bind: str = "0.0.0.0") -> list[FoundServer]:
    """Listen ``seconds`` for beacons on UDP ``port``; the servers heard, by address."""
    found = Heard()
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEADDR, 1)
        if hasattr(stdlib_socket, "SO_REUSEPORT"):  # several listeners on one machine
            sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_REUSEPORT, 1)
        await sock.bind((bind, port))
        with trio.move_on_after(seconds):
            while True:
                data, (source, _) = await sock.recvfrom(MAX_BEACON + 1)
                beacon = decode_beacon(data)
                if beacon is not None:
                    found.heard(beacon, source, trio.current_time())
    return found.servers(trio.current_time())
