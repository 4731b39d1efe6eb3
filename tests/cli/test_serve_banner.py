"""What ``rummyhall serve`` says once it listens."""

from __future__ import annotations

import dataclasses

from rummyhall import __version__
from rummyhall.serve import banner, reachable_addresses
from rummyhall.server import Settings

BASE = Settings(host="127.0.0.1", port=0, data=":memory:")


def test_the_banner_names_the_server_only_when_it_is_not_rummy_hall() -> None:
    lines = banner(BASE, 7654)
    assert lines[0] == f"Rummy Hall {__version__} listening on 127.0.0.1:7654"
    assert lines[1] == "Players connect with: rummyhall play --server 127.0.0.1:7654"
    assert "Data file: in memory only (nothing is kept)" in lines
    club = banner(dataclasses.replace(BASE, name="Chess Club"), 7654)
    assert club[0] == f"Rummy Hall {__version__} 'Chess Club' listening on 127.0.0.1:7654"


def test_a_server_on_every_interface_gives_an_address_players_can_use() -> None:
    addresses = reachable_addresses("0.0.0.0")
    assert addresses and all(a != "0.0.0.0" and not a.startswith("127.") for a in addresses)
    line = banner(dataclasses.replace(BASE, host="0.0.0.0"), 7654)[1]
    assert "--server 0.0.0.0" not in line and ":7654" in line
