"""LAN discovery: the server's beacon is heard by a client, here on loopback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import trio
from fast_settings import with_settings

from rummyhall.client.discovery import discover
from rummyhall.protocol.beacon import Beacon, decode_beacon, encode_beacon
from rummyhall.server import Hall


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_a_client_hears_the_server_beacon() -> None:
    udp = free_udp_port()
    settings = with_settings(beacon=True, beacon_address="127.0.0.1", beacon_port=udp,
                             beacon_seconds=0.05, name="Test Hall")
    hall = Hall(settings)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(hall.serve)
        found = await discover(0.5, port=udp, bind="127.0.0.1")
        nursery.cancel_scope.cancel()
    assert [(f.name, f.host, f.port, f.tables) for f in found] == [
        ("Test Hall", "127.0.0.1", port, 0)]
    assert found[0].address == f"127.0.0.1:{port}"


@pytest.mark.parametrize("data", [b"", b"\x81\xa4type\xa6beacon", b"\xff" * 2000,
                                  encode_beacon(Beacon("x", 1, 0, 0))[:-3]])
def test_junk_is_not_a_beacon(data: bytes) -> None:
    assert decode_beacon(data) is None


def test_the_documented_beacon_example_decodes() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    section = doc.split("## 12. The LAN beacon")[1]
    hex_text = section.split("```\n")[1].strip()
    beacon = decode_beacon(bytes.fromhex(hex_text))
    assert beacon == Beacon(name="Club night", port=7654, tables=3, players=7)
