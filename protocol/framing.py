"""Framing and the frame rules: bytes in, frame bodies out; a body in, one checked value out.

A frame is a 4-byte big-endian unsigned length, then that many bytes of body holding
exactly one msgpack value. :class:`FrameDecoder` is incremental: it reads the length as
soon as its four bytes arrive and refuses an oversized frame *before* buffering its body,
so a 4 GiB prefix costs nothing. :func:`unpack_body` decodes a body under the frame rules
of docs/protocol.md (only nil, bool, int, str, array and map with string keys; valid
UTF-8; bounded lengths and nesting) and reports a violation as ``bad_frame``.

Every error here is a :class:`RemoteProtocolError`, fatal: a peer whose framing is broken
cannot be resynchronised.
"""

from __future__ import annotations

import struct
from typing import Any, Final

import msgpack

from .errors import LocalProtocolError, RemoteProtocolError
from .limits import (
    HEADER_SIZE,
    INT_MAX,
    INT_MIN,
    MAX_ARRAY_LEN,
    MAX_DEPTH,
    MAX_KEY_LEN,
    MAX_MAP_LEN,
)

_HEADER: Final = struct.Struct(">I")
unpack_header: Final = _HEADER.unpack_from
"""``unpack_header(data, offset) -> (length,)``: a frame's length prefix."""
_unpackb: Final = msgpack.unpackb
pack_header: Final = _HEADER.pack
pack_body: Final = msgpack.Packer().pack
"""``pack_body(value) -> bytes``: a frame body, msgpack's default options. One packer for
the process: a packer keeps a buffer of its own (a page of memory once used), which a
packer per connection would cost each idle connection. Its ``pack`` holds the GIL from
start to end (no callback: values are plain maps, lists, strings and numbers), so
threads may share it."""
_COMPACT_AT: Final = 65_536  # drop consumed bytes once this many have piled up


class _NoFrame:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_FRAME"


NO_FRAME: Final = _NoFrame()
"""What :meth:`FrameDecoder.next_value` returns until a whole frame is buffered."""


def bad_frame(message: str) -> RemoteProtocolError:
    """A fatal ``bad_frame`` error."""
    return RemoteProtocolError(message, code="bad_frame", fatal=True)


def encode_message(wire: object, max_frame: int) -> bytes:
    """The whole frame of ``wire`` (a message's wire map); raises
    :class:`LocalProtocolError` past ``max_frame``."""
    body: bytes = pack_body(wire)
    size = len(body)
    if size > max_frame:
        raise LocalProtocolError(f"frame of {size} bytes exceeds the peer's limit of "
                                 f"{max_frame}", code="frame_too_large")
    return _HEADER.pack(size) + body


def encode_frame(body: bytes, max_frame: int) -> bytes:
    """Prefix ``body`` with its length; raises :class:`LocalProtocolError` past ``max_frame``."""
    size = len(body)
    if size > max_frame:
        raise LocalProtocolError(f"frame of {size} bytes exceeds the peer's limit of "
                                 f"{max_frame}", code="frame_too_large")
    return _HEADER.pack(size) + body


class FrameBuffer:
    """The bytes received and not yet consumed, cut into frames: the core that
    :class:`FrameDecoder` and :class:`~.connection.Connection` build on.

    The pending bytes are ``self._data[self._pos:]``. When a ``bytes`` chunk arrives with
    nothing pending (the usual case) it is kept as it is, without a copy; otherwise the
    pending bytes live in a ``bytearray`` that grows. ``_limit`` is the largest frame body
    accepted. A subclass's hot path may read ``_data`` and ``_pos`` itself and cut the
    common case (a whole frame is here) without a call; everything else goes through
    :meth:`_next_frame`.
    """

    __slots__ = ("_data", "_eof", "_limit", "_pos")

    def __init__(self, max_frame: int) -> None:
        self._limit = max_frame
        self._data: bytes | bytearray = b""
        self._pos = 0
        self._eof = False

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as frames: once every whole frame was
        taken, the part of a frame that has begun to arrive (0: none has)."""
        return len(self._data) - self._pos

    def _feed(self, data: bytes | bytearray) -> None:
        """Add received bytes; ``b""`` marks the end of the stream."""
        if not data:
            self._eof = True
            return
        if self._eof:
            raise LocalProtocolError("data received after the end of the stream")
        if self._pos == len(self._data) and type(data) is bytes:
            self._data, self._pos = data, 0
            return
        pending = self._data
        if type(pending) is not bytearray:
            pending = bytearray(memoryview(pending)[self._pos:])
            self._pos = 0
        pending += data
        self._data = pending

    def _take(self, end: int) -> None:
        """Consume the pending bytes up to ``end``."""
        data = self._data
        if end == len(data):
            self._data, self._pos = b"", 0
        elif end >= _COMPACT_AT and type(data) is bytearray:
            del data[:end]
            self._pos = 0
        else:
            self._pos = end

    def _next_frame(self) -> bytes | None:
        """The next whole frame body, or None until more bytes arrive.

        Raises :class:`RemoteProtocolError`: ``frame_too_large`` as soon as a length
        prefix exceeds the limit, ``bad_frame`` when the stream ends inside a frame.
        """
        data, pos = self._data, self._pos
        available = len(data) - pos
        if available >= HEADER_SIZE:
            (size,) = unpack_header(data, pos)
            if size > self._limit:
                raise RemoteProtocolError(
                    f"frame length {size} exceeds max_frame {self._limit}",
                    code="frame_too_large", fatal=True)
            end = pos + HEADER_SIZE + size
            if len(data) >= end:
                body = bytes(data[pos + HEADER_SIZE:end])
                self._take(end)
                return body
        if self._eof and available:
            raise bad_frame(f"the stream ended inside a frame ({available} bytes of it "
                            "received)")
        return None


class FrameDecoder(FrameBuffer):
    """Cut a byte stream into frame bodies, refusing oversized ones before buffering them."""

    __slots__ = ()

    @property
    def max_frame(self) -> int:
        """The largest frame body accepted."""
        return self._limit

    @max_frame.setter
    def max_frame(self, value: int) -> None:
        self._limit = value

    @property
    def eof(self) -> bool:
        return self._eof

    def feed(self, data: bytes) -> None:
        """Add received bytes; ``b""`` marks the end of the stream."""
        self._feed(data)

    def next_frame(self) -> bytes | None:
        """The next whole frame body, or None until more bytes arrive.

        Raises :class:`RemoteProtocolError`: ``frame_too_large`` as soon as a length
        prefix exceeds ``max_frame``, ``bad_frame`` when the stream ends inside a frame.
        """
        return self._next_frame()

    def next_value(self) -> object:
        """The checked msgpack value of the next whole frame, or :data:`NO_FRAME` until one
        is here: :func:`unpack_body` of :meth:`next_frame`; raises what they raise."""
        frame = self._next_frame()
        return NO_FRAME if frame is None else unpack_body(frame)


def unpack_body(body: bytes | bytearray) -> object:
    """Decode one frame body under the frame rules (all but depth and key/int checks).

    msgpack itself refuses invalid UTF-8 and non-string keys and bounds the lengths;
    floats, bin and ext values pass here and are caught by :func:`check_value` or by the
    message schema. Raises a fatal ``bad_frame`` :class:`RemoteProtocolError`.
    """
    try:
        # raw=False and strict_map_key=True are msgpack's defaults; the string limit is
        # the body's own length (unpackb's default), which the frame size bounds.
        return _unpackb(body, use_list=False, max_bin_len=0, max_ext_len=0,
                        max_array_len=MAX_ARRAY_LEN, max_map_len=MAX_MAP_LEN)
    except msgpack.ExtraData:
        raise bad_frame("trailing bytes after the msgpack value") from None
    except UnicodeDecodeError:
        raise bad_frame("a string is not valid UTF-8") from None
    except msgpack.StackError:
        raise bad_frame(f"nesting deeper than {MAX_DEPTH}") from None
    except ValueError as exc:
        text = str(exc)
        if "max_bin_len" in text:
            raise bad_frame("bin values are not allowed") from None
        if "max_ext_len" in text:
            raise bad_frame("ext values are not allowed") from None
        if "exceeds max_" in text:
            raise bad_frame(f"too long: {text}") from None
        if "map key" in text:
            raise bad_frame("map keys must be strings") from None
        raise bad_frame("the frame body is not one msgpack value"
                        + (f" ({text})" if text else "")) from None
    except Exception as exc:  # msgpack may raise others on hostile input; all mean the same
        raise bad_frame(f"the frame body is not msgpack ({type(exc).__name__})") from None


def peek_body(body: bytes | bytearray) -> tuple[object, object]:
    """The ``type`` and ``id`` of a frame body holding a map, the rest skipped unread (in
    msgpack's C code, building nothing): what a frame refused unread is answered with.
    ``(None, None)`` when the body is not a map or not msgpack; either may be None when
    absent. No frame rule is checked beyond what skipping needs.

    >>> peek_body(pack_body({"type": "ping", "junk": [[{}] * 15] * 100, "id": 7}))
    ('ping', 7)
    >>> peek_body(bytes([0xc1])), peek_body(pack_body([1, 2]))
    ((None, None), (None, None))
    """
    unpacker = msgpack.Unpacker(use_list=False, max_bin_len=0, max_ext_len=0,
                                max_array_len=MAX_ARRAY_LEN, max_map_len=MAX_MAP_LEN,
                                max_buffer_size=max(len(body), 1))
    unpacker.feed(body)
    kind: object = None
    request_id: object = None
    try:
        for _ in range(unpacker.read_map_header()):
            key = unpacker.unpack()
            if key == "type":
                kind = unpacker.unpack()
            elif key == "id":
                request_id = unpacker.unpack()
            else:
                unpacker.skip()
    except Exception:  # not msgpack, not a map, cut short: nothing more is known
        return (kind, request_id) if kind is not None else (None, None)
    return kind, request_id


def check_value(value: object, depth: int = 1) -> None:
    """Check a decoded value (at nesting ``depth``) against the frame rules, recursively.

    Used on the parts of a frame no schema reads (unknown fields, unknown message types)
    and to tell a frame-rule violation from a schema error. Raises ``bad_frame``.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return
    if kind is int:
        if not INT_MIN <= value <= INT_MAX:  # type: ignore[operator]
            raise bad_frame(f"integer {value} is outside the signed 64-bit range")
        return
    if kind is tuple or kind is dict:
        if depth > MAX_DEPTH:
            raise bad_frame(f"nesting deeper than {MAX_DEPTH}")
        if kind is dict:
            for key, item in value.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    raise bad_frame("map keys must be strings")
                if len(key) > MAX_KEY_LEN:
                    raise bad_frame(f"a map key is longer than {MAX_KEY_LEN} characters")
                check_value(item, depth + 1)
        else:
            for item in value:  # type: ignore[attr-defined]
                check_value(item, depth + 1)
        return
    if kind is float:
        raise bad_frame("floats are not allowed")
    if kind is bytes:
        raise bad_frame("bin values are not allowed")
    raise bad_frame(f"{kind.__name__} values are not allowed")


def json_value(value: Any) -> Any:
    """A decoded wire value as JSON holds it: arrays (tuples here) become lists."""
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value
