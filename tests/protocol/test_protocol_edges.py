"""Numbers and keys: every range and length docs/protocol.md states is what a receiver
accepts, no more and no less. Each bounded field of each client message is tried at both
edges and one step past each."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from rummyhall.protocol import (
    MESSAGES,
    SERVER,
    Connection,
    Message,
    RemoteProtocolError,
    Snapshot,
    Turn,
    json_value,
)
from rummyhall.protocol.examples import message_examples, ready_pair
from rummyhall.protocol.limits import INT_MAX, INT_MIN, MAX_ID, MAX_ID_LEN, MAX_KEY_LEN
from rummyhall.protocol.schema import IdT, IntT, OptT, Spec, StrT, field_info


def frame(wire: dict[str, Any]) -> bytes:
    body: bytes = msgpack.packb(wire)
    return len(body).to_bytes(4, "big") + body


def server_takes(wire: dict[str, Any]) -> Message | RemoteProtocolError:
    """What a server connection in READY makes of one frame holding ``wire``."""
    if wire["type"] == "hello":
        server = Connection(SERVER)
    else:
        _, server = ready_pair()
    server.receive_data(frame(wire))
    try:
        got = server.next_event()
    except RemoteProtocolError as exc:
        return exc
    assert isinstance(got, Message), got
    return got


def _inner(spec: Spec) -> Spec:
    return spec.inner if isinstance(spec, OptT) else spec


def _base(kind: str) -> dict[str, Any]:
    return dict(message_examples()[kind][0].to_wire())


def int_edges() -> list[tuple[str, str, int, int]]:
    """(message type, field, lowest, highest) of every bounded integer a client sends."""
    out = []
    for kind, cls in MESSAGES.items():
        if cls.sender != "client":
            continue
        for name, info, _ in field_info(cls):
            spec = _inner(info.spec)
            if isinstance(spec, IntT):
                out.append((kind, name, spec.lo, spec.hi))
    return out


def str_edges() -> list[tuple[str, str, int, int]]:
    out = []
    for kind, cls in MESSAGES.items():
        if cls.sender != "client":
            continue
        for name, info, _ in field_info(cls):
            spec = _inner(info.spec)
            if (kind, name) == ("hello", "protocol"):  # one value only: "rummyhall"
                continue
            if isinstance(spec, StrT) and (spec.rule is None or name in ("name", "text")):
                out.append((kind, name, spec.lo, spec.hi))
    return out


@pytest.mark.parametrize(("kind", "field", "lo", "hi"), int_edges(),
                         ids=lambda v: str(v) if isinstance(v, str) else "")
def test_integer_fields_take_exactly_their_documented_range(kind: str, field: str, lo: int,
                                                            hi: int) -> None:
    for value in (lo, hi):
        got = server_takes({**_base(kind), field: value})
        assert isinstance(got, Message), (field, value, got)
        assert getattr(got, field) == value
    for value in (lo - 1, hi + 1):
        if not -(2**63) <= value < 2**64:
            continue  # (msgpack has no form for it: nothing a peer can send)
        got = server_takes({**_base(kind), field: value})
        assert isinstance(got, RemoteProtocolError), (field, value)
        assert got.code == ("bad_frame" if value > INT_MAX else "bad_message")


@pytest.mark.parametrize(("kind", "field", "lo", "hi"), str_edges(),
                         ids=lambda v: str(v) if isinstance(v, str) else "")
def test_string_fields_take_exactly_their_documented_lengths(kind: str, field: str, lo: int,
                                                             hi: int) -> None:
    letter = "a"
    for size in {max(lo, 1), hi}:
        got = server_takes({**_base(kind), field: letter * size})
        assert isinstance(got, Message), (field, size, got)
    for size in (lo - 1, hi + 1):
        if size < 0:
            continue
        got = server_takes({**_base(kind), field: letter * size})
        assert isinstance(got, RemoteProtocolError), (field, size)


def test_request_ids_at_both_edges() -> None:
    assert IdT().describe() == "id"
    for good in (0, MAX_ID, "x", "x" * MAX_ID_LEN):
        got = server_takes({"type": "ping", "id": good})
        assert isinstance(got, Message) and got.id == good  # type: ignore[attr-defined]
    for bad in (-1, MAX_ID + 1, "", "x" * (MAX_ID_LEN + 1)):
        got = server_takes({"type": "ping", "id": bad})
        assert isinstance(got, RemoteProtocolError) and got.code == "bad_message", bad


@pytest.mark.parametrize("where", ["message", "payload", "nested"])
def test_map_keys_of_64_characters_pass_and_of_65_are_refused(where: str) -> None:
    def with_key(key: str) -> dict[str, Any]:
        if where == "message":
            return {"type": "ping", "id": 1, key: 0}
        action: dict[str, Any] = {"kind": "pass", key: 0} if where == "payload" else \
            {"kind": "pass", "x": {key: 0}}
        return {"type": "action", "table": 1, "move": 1, "action": action}

    assert isinstance(server_takes(with_key("k" * MAX_KEY_LEN)), Message)
    got = server_takes(with_key("k" * (MAX_KEY_LEN + 1)))
    assert isinstance(got, RemoteProtocolError)
    assert (got.code, got.fatal) == ("bad_frame", True)


def test_integers_are_signed_64_bit_in_known_and_unknown_fields() -> None:
    for value in (INT_MIN, INT_MAX):
        assert isinstance(server_takes({"type": "ping", "x": value}), Message)
    got = server_takes({"type": "ping", "x": INT_MAX + 1})
    assert isinstance(got, RemoteProtocolError) and got.code == "bad_frame"
    base = {"type": "action", "table": 1, "action": {"kind": "pass"}}
    assert isinstance(server_takes({**base, "move": INT_MAX}), Message)
    got = server_takes({**base, "move": INT_MAX + 1})
    assert isinstance(got, RemoteProtocolError) and (got.code, got.fatal) == ("bad_frame", True)


def test_a_server_message_may_leave_out_any_field_that_may_be_nil() -> None:
    """Absent means nil in what a client reads too (turn.time_left_ms, snapshot.view...)."""
    client, _ = ready_pair()
    turn = {"type": "turn", "table": 1, "seat": 0, "move": 3}
    client.receive_data(frame(turn))
    got = client.next_event()
    assert isinstance(got, Turn) and got.time_left_ms is None
    snapshot = json_value(message_examples()["snapshot"][0].to_wire())
    del snapshot["view"]
    client.receive_data(frame(snapshot))
    got = client.next_event()
    assert isinstance(got, Snapshot) and got.view is None
