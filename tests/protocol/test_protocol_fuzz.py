"""Fuzzing both roles with random and mutated frames: only documented errors come out."""

from __future__ import annotations

import json
from importlib import resources

from hypothesis import given, settings
from hypothesis import strategies as st

from rummyhall.protocol import (
    CLIENT,
    ERROR_CODES,
    NEED_DATA,
    SERVER,
    Connection,
    Message,
    RemoteProtocolError,
)
from rummyhall.protocol.examples import ready_pair

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))
FRAMES = [bytes.fromhex(f["hex"]) for f in KIT["valid"] + KIT["transcript"]]
FUZZ = settings(max_examples=300, deadline=None)


def drain(conn: Connection, data: bytes, eof: bool) -> None:
    """Feed ``data`` and read until the connection has nothing more or breaks."""
    conn.receive_data(data)
    if eof:
        conn.receive_data(b"")
    for _ in range(10_000):
        try:
            got = conn.next_event()
        except RemoteProtocolError as exc:
            assert exc.code in ERROR_CODES, exc
            if exc.fatal:
                return
            continue
        if not isinstance(got, Message):
            assert got is NEED_DATA or eof or got.name in ("PAUSED", "CLOSED")
            return
    raise AssertionError("the connection never stopped producing events")


def connections() -> list[Connection]:
    client, server = ready_pair()
    return [client, server, Connection(SERVER), Connection(CLIENT)]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    frame = bytearray(draw(st.sampled_from(FRAMES)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "prefix"]))
        if not frame:
            break
        i = draw(st.integers(0, len(frame) - 1))
        if op == "flip":
            frame[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del frame[i:i + draw(st.integers(1, 8))]
        elif op == "insert":
            frame[i:i] = draw(st.binary(min_size=1, max_size=8))
        else:  # keep the length prefix consistent with a mutated body
            frame[:4] = max(len(frame) - 4, 0).to_bytes(4, "big")
    return bytes(frame)


@FUZZ
@given(st.binary(max_size=300), st.booleans())
def test_random_bytes(data: bytes, eof: bool) -> None:
    for conn in connections():
        drain(conn, data, eof)


@FUZZ
@given(mutated(), st.booleans())
def test_mutated_frames(data: bytes, eof: bool) -> None:
    for conn in connections():
        drain(conn, data, eof)


@FUZZ
@given(st.lists(st.sampled_from(FRAMES), max_size=5), st.integers(1, 50))
def test_valid_frames_in_any_order_and_chunking(frames: list[bytes], chunk: int) -> None:
    data = b"".join(frames)
    for conn in connections():
        for i in range(0, len(data), chunk):
            drain(conn, data[i:i + chunk], False)
