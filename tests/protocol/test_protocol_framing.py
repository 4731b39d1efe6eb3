"""Framing: an incremental decoder that refuses oversized frames before buffering them."""

from __future__ import annotations

import msgpack
import pytest

from rummyhall.protocol import (
    FrameDecoder,
    LocalProtocolError,
    RemoteProtocolError,
    encode_frame,
    encode_message,
)
from rummyhall.protocol.framing import NO_FRAME, check_value, unpack_body


def frame(obj: object) -> bytes:
    return encode_frame(msgpack.packb(obj), 1 << 20)


def test_frames_arrive_byte_by_byte() -> None:
    data = frame({"type": "ping"}) + frame({"type": "ping", "id": 2})
    decoder = FrameDecoder(65_536)
    bodies = []
    for i in range(len(data)):
        decoder.feed(data[i:i + 1])
        while (body := decoder.next_frame()) is not None:
            bodies.append(msgpack.unpackb(body))
    assert bodies == [{"type": "ping"}, {"type": "ping", "id": 2}]
    assert decoder.buffered == 0


def test_many_frames_in_one_chunk_and_a_partial_tail() -> None:
    data = b"".join(frame({"n": i}) for i in range(50))
    decoder = FrameDecoder(65_536)
    decoder.feed(data + data[:3])
    values = []
    while (value := decoder.next_value()) is not NO_FRAME:
        values.append(value)
    assert values == [{"n": i} for i in range(50)]
    assert decoder.buffered == 3
    decoder.feed(data[3:len(frame({"n": 0}))])
    assert decoder.next_value() == {"n": 0}


def test_a_4_gib_prefix_is_refused_from_its_four_bytes() -> None:
    decoder = FrameDecoder(65_536)
    decoder.feed(b"\xff\xff\xff")
    assert decoder.next_frame() is None
    decoder.feed(b"\xff")
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert (info.value.code, info.value.fatal) == ("frame_too_large", True)
    assert decoder.buffered == 4  # nothing of the body was waited for or kept


def test_the_limit_itself_is_allowed() -> None:
    decoder = FrameDecoder(4096)
    decoder.feed((4096).to_bytes(4, "big") + b"\x00" * 4096)
    assert decoder.next_frame() == b"\x00" * 4096
    decoder.feed((4097).to_bytes(4, "big"))
    with pytest.raises(RemoteProtocolError, match="exceeds max_frame"):
        decoder.next_value()


def test_the_decoders_limit_can_be_changed_between_frames() -> None:
    decoder = FrameDecoder(4096)
    assert decoder.max_frame == 4096 and not decoder.eof
    decoder.max_frame = 8192
    decoder.feed((8192).to_bytes(4, "big") + b"\x00" * 8192)
    assert decoder.next_frame() == b"\x00" * 8192
    decoder.feed(b"")
    assert decoder.eof


def test_buffered_counts_the_bytes_of_the_frame_under_way() -> None:
    """Nothing before the first bytes; after a whole frame is taken from a read that
    also began the next, the bytes of that next frame only."""
    decoder = FrameDecoder(4096)
    assert decoder.buffered == 0
    second = frame({"type": "ping", "id": 2})
    decoder.feed(frame({"type": "ping", "id": 1}) + second[:5])
    assert decoder.next_frame() is not None
    assert decoder.next_frame() is None and decoder.buffered == 5
    decoder.feed(second[5:])
    assert decoder.next_frame() is not None and decoder.buffered == 0


def test_encode_message_takes_a_body_of_exactly_the_limit() -> None:
    wire = {"type": "say", "text": "x" * 100}
    size = len(msgpack.packb(wire))
    assert len(encode_message(wire, size)) == 4 + size
    with pytest.raises(LocalProtocolError) as info:
        encode_message(wire, size - 1)
    assert info.value.code == "frame_too_large"


def test_end_of_stream_inside_a_frame() -> None:
    decoder = FrameDecoder(65_536)
    decoder.feed(frame({"type": "ping"})[:-1])
    assert decoder.next_frame() is None
    decoder.feed(b"")
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "bad_frame"
    with pytest.raises(LocalProtocolError):
        decoder.feed(b"more")


def test_encode_frame_refuses_past_the_limit() -> None:
    assert encode_frame(b"x" * 10, 10) == (10).to_bytes(4, "big") + b"x" * 10
    with pytest.raises(LocalProtocolError) as info:
        encode_frame(b"x" * 10, 9)
    assert info.value.code == "frame_too_large"


@pytest.mark.parametrize(("body", "words"), [
    (b"", "not one msgpack value"),
    (b"\xc1", "not one msgpack value"),
    (msgpack.packb(1) + b"\x01", "trailing bytes"),
    (b"\xa2\xff\xfe", "UTF-8"),
    (b"\x81\x01\x01", "keys must be strings"),
    (msgpack.packb(b"x"), "bin"),
    (msgpack.packb(msgpack.ExtType(3, b"abc")), "ext"),
    (msgpack.packb([0] * 5000), "too long"),
    (b"\x91" * 2000 + b"\xc0", "nesting"),
])
def test_unpack_body_names_the_fault(body: bytes, words: str) -> None:
    with pytest.raises(RemoteProtocolError, match=words) as info:
        unpack_body(body)
    assert (info.value.code, info.value.fatal) == ("bad_frame", True)


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = (value,)
    return value


@pytest.mark.parametrize("value", [1.5, b"x", msgpack.ExtType(1, b""), {1: 2}, 2**64,
                                   {"k" * 65: 1}, _nested(16)])
def test_check_value_applies_the_frame_rules(value: object) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        check_value({"x": value})  # the map is depth 1: 16 more containers is too deep
    assert info.value.code == "bad_frame"


def test_depth_16_is_allowed() -> None:
    check_value({"x": _nested(15)})


def test_check_value_accepts_the_allowed_types() -> None:
    check_value({"a": (None, True, -(2**63), 2**63 - 1, "é", {"b": ()})})


def _nested_maps(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def test_the_depth_counts_maps_inside_maps_as_it_counts_arrays() -> None:
    check_value(_nested_maps(16))  # the message map and 15 more: the limit itself
    with pytest.raises(RemoteProtocolError) as info:
        check_value(_nested_maps(17))
    assert info.value.code == "bad_frame" and "nesting" in str(info.value)


@pytest.mark.parametrize(("value", "words"), [(1.5, "floats"), (b"x", "bin"),
                                              (msgpack.ExtType(1, b""), "ExtType")])
def test_a_refused_type_is_named(value: object, words: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        check_value({"x": value})
    assert words in str(info.value)


def test_a_long_stream_is_decoded_whole_and_its_buffer_stays_small() -> None:
    """Past 64 KiB consumed the decoder drops what it has read (it compacts its buffer):
    several megabytes of frames, fed in chunks that cut frames anywhere, all come out
    whole and in order, and the buffer never holds much more than a chunk and a frame."""
    frames = [frame({"n": i, "pad": "x" * (i % 700)}) for i in range(6_000)]
    data = b"".join(frames)
    decoder = FrameDecoder(65_536)
    got: list[object] = []
    largest = 0
    for start in range(0, len(data), 4_093):
        decoder.feed(data[start:start + 4_093])
        while (body := decoder.next_frame()) is not None:
            got.append(msgpack.unpackb(body)["n"])
        largest = max(largest, len(decoder._data))
    assert got == list(range(6_000))
    assert decoder.buffered == 0
    assert largest < 65_536 + 2 * 4_093 + 1_024, largest
    # the same stream in one piece (kept as it came, not copied) but for a partial tail
    decoder.feed(data[:-3])
    got = []
    while (body := decoder.next_frame()) is not None:
        got.append(msgpack.unpackb(body)["n"])
    decoder.feed(data[-3:])
    while (body := decoder.next_frame()) is not None:
        got.append(msgpack.unpackb(body)["n"])
    assert got == list(range(6_000)) and decoder.buffered == 0
