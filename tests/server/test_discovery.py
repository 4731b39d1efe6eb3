"""LAN discovery: the server's beacon is heard by a client, here on loopback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import trio
from fast_settings import with_settings
from hang_guard import HANG_GUARD

from rummyhall.client.discovery import FoundServer, Heard, discover
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
        found: list[FoundServer] = []
        with trio.fail_after(HANG_GUARD):  # (a loaded machine may miss a short listen)
            while not found:
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


@pytest.mark.parametrize(("name", "shown"), [
    ("\x1b[31mRed\x1b[0m", "\ufffd[31mRed\ufffd[0m"),  # terminal escapes
    ("Hall\r\nFake line", "Hall\ufffd\ufffdFake line"),
    ("\u202eevil", "\ufffdevil"),  # a bidirectional override
    ("Zero\u200bwidth\u2028", "Zero\ufffdwidth\ufffd"),
    ("Café Ünïcode 🃏", "Café Ünïcode 🃏"),  # what is printable stays
    # drawn as nothing though Unicode calls them printable: a filler, blanks, joiners
    ("\u3164", "\ufffd"), ("Club\u2800night\ufe0f", "Club\ufffdnight\ufffd"),
    ("Club\u034fnight\u115f\uffa0", "Club\ufffdnight\ufffd\ufffd"),
])
def test_a_beacon_name_is_shown_with_control_and_escape_characters_replaced(
        name: str, shown: str) -> None:
    beacon = decode_beacon(encode_beacon(Beacon(name, 7654, 1, 2)))
    assert beacon is not None and beacon.name == shown


@pytest.mark.parametrize("beacon", [
    Beacon("x", 7654, -1, 0), Beacon("x", 7654, 0, 10**9), Beacon("x", 7654, 0, 0,
                                                                  host="evil host\n"),
])
def test_a_beacon_with_impossible_fields_is_ignored(beacon: Beacon) -> None:
    assert decode_beacon(encode_beacon(beacon)) is None


def test_discovery_keeps_a_bounded_number_of_servers_for_a_bounded_time() -> None:
    heard = Heard(most=64, keep=30)
    for n in range(1000):  # a flood of forged beacons, each a different "server"
        heard.heard(Beacon(f"fake{n}", 1000 + n, 0, 0), "10.0.0.9", now=n / 100)
    servers = heard.servers(now=10)
    assert len(servers) == 64
    assert {s.name for s in servers} == {f"fake{n}" for n in range(936, 1000)}
    heard.heard(Beacon("real", 7654, 3, 5), "10.0.0.2", now=25)
    assert [s.name for s in heard.servers(now=45)] == ["real"]  # the rest are stale
    assert heard.servers(now=56) == []


def test_a_server_known_only_from_its_beacon_is_never_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anybody on the LAN can send a beacon, with a name that sorts first: pressing Enter
    at `rummyhall play`'s list connects to a server played before (the last one first),
    else to this machine, never to one only a beacon names."""
    from rummyhall import play  # noqa: PLC0415 (the command's module, for its list)
    from rummyhall.client.console import Profile  # noqa: PLC0415
    heard = Heard()
    heard.heard(Beacon(name=" Club night", port=7654, tables=9, players=9, host="203.0.113.66"),
                "10.0.0.66", 0.0)
    heard.heard(Beacon(name="Club night", port=7654, tables=3, players=7), "10.0.0.2", 0.0)
    found = heard.servers(0.0)

    async def fake_discover(seconds: float) -> list[object]:
        return list(found)

    monkeypatch.setattr(play, "discover", fake_discover)
    monkeypatch.setattr(play, "ask", lambda prompt: "")  # Enter: the default
    profile = Profile(tmp_path / "console.json")
    assert play.choose_server(profile, 0.1) == ("127.0.0.1:7654", False)
    profile.servers["10.0.0.2:7654"] = {"name": "ada"}  # played there before
    assert play.choose_server(profile, 0.1) == ("10.0.0.2:7654", False)
