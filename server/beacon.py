"""The server's LAN beacon: a UDP datagram every few seconds, so clients find it."""

from __future__ import annotations

import logging
import socket as stdlib_socket
from typing import TYPE_CHECKING

import trio

from rummyhall.protocol.beacon import Beacon, encode_beacon

if TYPE_CHECKING:
    from .hall import Hall

log = logging.getLogger("rummyhall.beacon")


async def run_beacon(hall: Hall) -> None:
    """Send the beacon to ``beacon_address:beacon_port`` until cancelled."""
    s = hall.settings
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(stdlib_socket.SOL_SOCKET, stdlib_socket.SO_BROADCAST, 1)
        host = None if s.host in ("", "0.0.0.0") else s.host
        warned = False
        while True:
            assert hall.port is not None
            beacon = Beacon(name=s.name, port=hall.port, tables=len(hall.lobby.tables),
                            players=sum(1 for _ in hall.lobby.players.connected()), host=host,
                            fingerprint=hall.tls.fingerprint if hall.tls is not None else None)
            try:
                await sock.sendto(encode_beacon(beacon), (s.beacon_address, s.beacon_port))
            except OSError as exc:  # no network yet, no broadcast route: try again later
                if not warned:
                    log.warning("beacon to %s:%s failed: %s", s.beacon_address,
                                s.beacon_port, exc)
                    warned = True
            await trio.sleep(s.beacon_seconds)
