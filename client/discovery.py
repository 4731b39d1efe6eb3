"""Finding servers on the LAN: listen for their beacons (docs/protocol.md, section 12)."""

from __future__ import annotations

import socket as stdlib_socket
from dataclasses import dataclass

import trio

from rummyhall.protocol import DEFAULT_PORT
from rummyhall.protocol.beacon import MAX_BEACON, decode_beacon


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server heard on the LAN."""

    name: str
    host: str
    port: int
    tables: int
    players: int
    version: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


async def discover(seconds: float = 2.5, *, port: int = DEFAULT_PORT,
                   bind: str = "0.0.0.0") -> list[FoundServer]:
    """Listen ``seconds`` for beacons on UDP ``port``; the servers heard, by address."""
    found: dict[tuple[str, int], FoundServer] = {}
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
                if beacon is None:
                    continue
                host = beacon.host or source
                found[host, beacon.port] = FoundServer(beacon.name, host, beacon.port,
                                                       beacon.tables, beacon.players,
                                                       beacon.version)
    return sorted(found.values(), key=lambda f: (f.name, f.host, f.port))
