"""The transcript of docs/protocol.md section 10 (and of the conformance kit) replayed
against a real server: each connection receives exactly the kit's frames, in the kit's
order. Only what no transcript can fix is masked: the welcome's random token and nonce."""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any

import msgpack
import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient

from rummyhall.protocol import MESSAGES, json_value
from rummyhall.protocol.examples import KIT_SECRET, KIT_SECRET_2
from rummyhall.server import Hall, Settings
from rummyhall.server import table as table_module

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))


_SECRETS: list[bytes] = []


def _kit_secret(rng: random.Random) -> bytes:
    """The transcript's server secrets, in turn (ada's contributions are in its frames)."""
    return _SECRETS.pop(0) if _SECRETS else bytes(32)


class _FirstSeat(random.Random):
    """The server's draw of the first dealer gives seat 0, as in the transcript."""

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return 0


def _masked(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("type") == "welcome":
        return {**message, "session": {**message["session"], "token": "<token>"},
                "nonce": "<nonce>"}
    return message


@pytest.mark.parametrize("settings", [with_settings(messages_per_second=100, burst=200,
                                                    seed=None)])
async def test_the_transcript_replays_in_order_against_the_server(
        hall: Hall, settings: Settings, monkeypatch: pytest.MonkeyPatch,
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.02
    _SECRETS[:] = [KIT_SECRET, KIT_SECRET_2]
    monkeypatch.setattr(table_module, "new_secret", _kit_secret)
    monkeypatch.setattr(random, "SystemRandom", lambda: _FirstSeat(0))  # (table.py draws it)
    assert hall.port
    clients = {name: await RawClient.connect(hall.port) for name in ("ada", "bob")}
    for number, frame in enumerate(KIT["transcript"]):
        raw = clients[frame["connection"]]
        if frame["from"] == "client":
            message = frame["message"]
            sent = MESSAGES[message["type"]]._from_wire(message, message["type"], 1)
            data = raw.conn.send(sent)
            assert data.hex() == frame["hex"], number  # the kit's bytes exactly
            await raw.send_bytes(data)
            continue
        got = await raw.receive(timeout=30)
        wire = json_value(got.to_wire())
        expected = frame["message"]
        assert _masked(wire) == _masked(expected), (number, frame["connection"])
        if expected["type"] != "welcome":  # the bytes too, as the kit gives them
            body = msgpack.packb(got.to_wire())
            assert (len(body).to_bytes(4, "big") + body).hex() == frame["hex"], number
    for raw in clients.values():
        await raw.aclose()
