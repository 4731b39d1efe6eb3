"""The conformance kit (protocol/conformance.json) run against a real server.

Every frame the kit says a server must refuse is sent to a server on loopback, which must
answer with the kit's error code and fatality (and close after a fatal one); every valid
client frame of the kit is read by the server without a protocol error.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest
from players import RawClient

from rummyhall.protocol import Error, Message
from rummyhall.server import Hall

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))
TO_SERVER = [c for c in KIT["invalid"] if c["to"] == "server"]
PROTOCOL_CODES = {"bad_frame", "frame_too_large", "bad_message", "bad_card", "unknown_type",
                  "unexpected_message", "handshake_required"}


async def first_error(raw: RawClient) -> Error | None:
    """The first error the server sends (None if it closes without one)."""
    try:
        while True:
            message = await raw.receive(timeout=10)
            if isinstance(message, Error):
                return message
    except EOFError:
        return None


@pytest.mark.parametrize("case", TO_SERVER, ids=lambda c: c["name"])
async def test_the_server_refuses_each_invalid_frame_as_the_kit_says(
        hall: Hall, case: dict[str, Any]) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    if case["state"] == "READY":
        await raw.hello("kit")
    await raw.send_bytes(bytes.fromhex(case["hex"]))
    if case["name"].startswith("truncated"):
        await raw.stream.send_eof()  # the stream ends inside the frame
    error = await first_error(raw)
    assert error is not None, case["name"]
    assert (error.code, error.fatal) == (case["code"], case["fatal"]), case["name"]
    if error.fatal:
        assert await raw.receive_until_closed() == []
    else:  # the connection goes on
        await raw.send_bytes(bytes.fromhex(
            next(f["hex"] for f in KIT["valid"] if f["message"]["type"] == "ping")))
        while not isinstance(message := await raw.receive(), Message) or \
                message.type != "pong":
            pass
        await raw.aclose()


async def test_every_valid_client_frame_is_read_without_a_protocol_error(hall: Hall) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("kit")
    frames = [f for f in KIT["valid"] if f["from"] == "client"
              and f["message"]["type"] not in ("hello", "bye", "login")]  # (login: LOGIN only)
    assert len(frames) >= 15
    for frame in frames:
        await raw.send_bytes(bytes.fromhex(frame["hex"]))
        wanted = frame["message"].get("id")
        while True:  # its reply: the one that echoes its id (pushes may come between)
            message = await raw.receive()
            if getattr(message, "id", None) == wanted or (wanted is None and
                                                          isinstance(message, Error)):
                break
        if isinstance(message, Error):
            assert message.code not in PROTOCOL_CODES, (frame["message"], message)
            assert not message.fatal
    await raw.aclose()
