"""The sans-IO connection: bytes in, messages out; messages in, bytes out. Both roles.

Theory of operation
-------------------
A :class:`Connection` does no I/O and reads no clock (the h11 style). Its owner feeds it
the bytes it reads with :meth:`~Connection.receive_data` (``b""`` at end of stream) and
calls :meth:`~Connection.next_event` until it returns :data:`NEED_DATA`; it turns each
message it wants to send into bytes with :meth:`~Connection.send` and writes them.

Both ends follow one conversation, whose states and moves are the table
:data:`TRANSITIONS` below: ``(state, sender, message type) -> next state``. A
connection looks the table up with its own role when it sends and with the peer's role
when it receives. ``error!`` stands for an ``error`` whose ``fatal`` is true::

    START    --client: hello-->          GREETING   (the server checks protocol, versions)
    START    --server: error!-->         CLOSED     (server_full... before any hello)
    GREETING --server: welcome-->        READY
    GREETING --server: welcome+login-->  LOGIN      (the hall has a password, 1.2)
    GREETING --server: error!-->         CLOSED
    LOGIN    --client: login-->          CHECK      (the server checks the proof)
    LOGIN    --client: bye-->            CLOSED
    LOGIN    --server: error!-->         CLOSED     (password_required: too slow)
    CHECK    --server: logged_in-->      READY
    CHECK    --server: error!-->         CLOSED     (wrong_password, too_many_attempts)
    READY    --client: any request-->    READY
    READY    --client: bye-->            CLOSED
    READY    --server: any push, error-->READY
    READY    --server: error!-->         CLOSED
    ERROR    --server: error!-->         CLOSED     (after a fatal RemoteProtocolError)
    any state: end of stream at a frame boundary --> CLOSED

A message the table does not allow is refused: by :meth:`send` with a
:class:`LocalProtocolError` (nothing is sent, the state does not change), by
:meth:`next_event` with a :class:`RemoteProtocolError`: ``handshake_required`` for a
server whose first frame is not a hello, ``password_required`` for one that sends
anything but a login (or bye) in LOGIN, ``unexpected_message`` otherwise. Everything a
peer gets wrong before READY is fatal. A fatal error puts the receiving end in ERROR,
where a server may still send its fatal ``error`` and both ends must close.

While GREETING (CHECK), the server's :meth:`next_event` returns :data:`PAUSED` until it
has sent its welcome (logged_in) or error: frames a client sends early wait in the
buffer. ``welcome+login`` is a welcome whose ``login`` is set: the hall wants the password.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum, StrEnum
from typing import Any, Final, Literal

from .errors import ERROR_CODES, LocalProtocolError, RemoteProtocolError
from .framing import (
    FrameBuffer,
    check_value,
    pack_body,
    pack_header,
    peek_body,
    unpack_body,
    unpack_header,
)
from .limits import (
    HELLO_FRAME,
    MAX_FRAME,
    MAX_FRAME_LIMIT,
    MAX_ID,
    MAX_ID_LEN,
    MAX_SERVER_FRAME,
    MAX_TEXT,
    MIN_FRAME_LIMIT,
    PROTOCOL,
    VERSIONS,
)
from .messages import (
    CLIENT,
    CLIENT_MESSAGES,
    MESSAGES,
    SERVER,
    SERVER_MESSAGES,
    Error,
    Hello,
    Limits,
    LoggedIn,
    Message,
    Role,
    Welcome,
)
from .schema import SchemaError


class State(StrEnum):
    """Where a connection's conversation stands (the same names at both ends)."""

    START = "START"
    GREETING = "GREETING"
    LOGIN = "LOGIN"
    CHECK = "CHECK"
    READY = "READY"
    ERROR = "ERROR"
    CLOSED = "CLOSED"


class Sentinel(Enum):
    """What :meth:`Connection.next_event` returns when it has no message."""

    NEED_DATA = "NEED_DATA"
    PAUSED = "PAUSED"
    CLOSED = "CLOSED"

    def __repr__(self) -> str:
        return self.value


NEED_DATA: Final = Sentinel.NEED_DATA
"""No whole frame is buffered: read more bytes and call :meth:`Connection.receive_data`."""
PAUSED: Final = Sentinel.PAUSED
"""The server must answer the hello before reading further."""
CLOSED: Final = Sentinel.CLOSED
"""The conversation is over (end of stream, bye, or a fatal error): close the socket."""

FATAL_ERROR: Final = "error!"
"""The pseudo message type of an ``error`` with ``fatal: true`` in :data:`TRANSITIONS`."""
LOCKED_WELCOME: Final = "welcome+login"
"""The pseudo message type of a ``welcome`` with a ``login`` in :data:`TRANSITIONS`."""

# Module constants: reading an enum member off its class is slow on the hot path.
START, GREETING, READY, ERROR = State.START, State.GREETING, State.READY, State.ERROR
LOGIN, CHECK = State.LOGIN, State.CHECK
_CLOSED = State.CLOSED
_HANDSHAKE = frozenset({"hello", "welcome", "bye", "login", "logged_in"})

TRANSITIONS: Final[Mapping[tuple[State, Role, str], State]] = {
    (START, CLIENT, "hello"): GREETING,
    (START, SERVER, FATAL_ERROR): State.CLOSED,
    (GREETING, SERVER, "welcome"): READY,
    (GREETING, SERVER, LOCKED_WELCOME): LOGIN,
    (GREETING, SERVER, FATAL_ERROR): State.CLOSED,
    (LOGIN, CLIENT, "login"): CHECK,
    (LOGIN, CLIENT, "bye"): State.CLOSED,
    (LOGIN, SERVER, FATAL_ERROR): State.CLOSED,
    (CHECK, SERVER, "logged_in"): READY,
    (CHECK, SERVER, FATAL_ERROR): State.CLOSED,
    **{(READY, CLIENT, t): READY for t in sorted(CLIENT_MESSAGES - _HANDSHAKE)},
    (READY, CLIENT, "bye"): State.CLOSED,
    **{(READY, SERVER, t): READY for t in sorted(SERVER_MESSAGES - _HANDSHAKE)},
    (READY, SERVER, FATAL_ERROR): State.CLOSED,
    (ERROR, SERVER, FATAL_ERROR): State.CLOSED,
}
"""The conversation: ``(state, sender role, message type) -> next state``."""


def _moves(state: State, sender: Role) -> dict[str, State]:
    return {t: nxt for (s, who, t), nxt in TRANSITIONS.items() if s is state and who is sender}


_MOVES: Final = {(state, role): _moves(state, role) for state in State for role in Role}

# What a state reads, by message type: the reader of each message it accepts. PLAIN holds
# the messages that change nothing (the requests and pushes of READY), read on the fast
# path; CLOSER the others, which take a closer look (an error's fatal flag picks its move;
# the handshake's messages have their effects).
_Reader = Callable[[dict[str, Any], str, int], Message]


def _readers(state: State, sender: Role, plain: bool) -> dict[str, _Reader]:
    moves = _MOVES[state, sender]
    readers: dict[str, _Reader] = {
        t: MESSAGES[t]._from_wire for t, nxt in moves.items()
        if t not in (FATAL_ERROR, LOCKED_WELCOME) and (t != "error" and nxt is state) is plain}
    if not plain and FATAL_ERROR in moves:
        readers["error"] = Error._from_wire
    if not plain and LOCKED_WELCOME in moves:
        readers["welcome"] = Welcome._from_wire
    return readers


_PLAIN: Final = {(s, r): _readers(s, r, True) for s in State for r in Role}
_CLOSER: Final = {(s, r): _readers(s, r, False) for s in State for r in Role}
# What a state sends with no check beyond the peer's frame limit (the same messages).
_SEND_PLAIN: Final = {key: frozenset(readers) for key, readers in _PLAIN.items()}


def _move_type(message: Message) -> str:
    """The type that names ``message``'s move in :data:`TRANSITIONS` (an ``error``'s
    fatal flag, a ``welcome``'s login pick theirs)."""
    if isinstance(message, Error) and message.fatal:
        return FATAL_ERROR
    if isinstance(message, Welcome) and message.login is not None:
        return LOCKED_WELCOME
    return message.type


def _request_id(obj: Mapping[str, object]) -> int | str | None:
    """The id of a received map when it is a valid request id (to echo in the error)."""
    value = obj.get("id")
    if type(value) is int and 0 <= value <= MAX_ID:
        return value
    if type(value) is str and 1 <= len(value) <= MAX_ID_LEN:
        return value
    return None


def error_message(exc: RemoteProtocolError) -> Error:
    """The ``error`` message that answers ``exc`` (its code, fatality and request id)."""
    text = exc.message if len(exc.message) <= MAX_TEXT else exc.message[:MAX_TEXT - 3] + "..."
    return Error(code=exc.code, message=text, fatal=exc.fatal, id=exc.request_id)


class Connection(FrameBuffer):
    """One end of a Rummy Hall connection, as a pure state machine.

    ``role`` is :data:`CLIENT` or :data:`SERVER`; ``versions`` the protocol versions this
    end speaks; ``max_frame`` (server only) the largest frame body it accepts, which its
    welcome must announce.

    It is a :class:`~.framing.FrameBuffer`: the bytes it has received are its own, so that
    the common case (one whole frame is buffered) is cut, decoded, checked and built in
    :meth:`next_event` itself, with no call but msgpack's and the message reader's.
    """

    def __init__(self, role: Role, *, versions: tuple[int, ...] = VERSIONS,
                 max_frame: int = MAX_FRAME) -> None:
        if not MIN_FRAME_LIMIT <= max_frame <= MAX_FRAME_LIMIT:
            raise ValueError(f"max_frame must be {MIN_FRAME_LIMIT}..{MAX_FRAME_LIMIT}")
        self.role = role
        self.peer_role = SERVER if role is CLIENT else CLIENT
        self.versions = tuple(versions)
        self.version: int | None = None
        """The version agreed in the handshake (None before)."""
        self.hello: Hello | None = None
        """The client's hello (sent or received)."""
        self.limits: Limits | None = None
        """The server's limits from its welcome (sent or received)."""
        self._state = START
        self._error: RemoteProtocolError | None = None
        self._max_frame = max_frame
        # Before the welcome, a client may send HELLO_FRAME and a server MAX_SERVER_FRAME.
        super().__init__(HELLO_FRAME if role is SERVER else MAX_SERVER_FRAME)
        self._send_limit = MAX_SERVER_FRAME if role is SERVER else HELLO_FRAME
        self.frame_size = 0
        """The body size of the last frame :meth:`next_event` took (bytes), read or
        refused: what the rate limit charges for it."""
        self._set_state(START)

    def __repr__(self) -> str:
        return f"<Connection {self.role} {self._state}>"

    @property
    def state(self) -> State:
        return self._state

    def _set_state(self, state: State) -> None:
        self._state = state
        self._send_moves = _MOVES[state, self.role]
        self._recv_moves = _MOVES[state, self.peer_role]
        self._recv = _PLAIN[state, self.peer_role]
        self._recv_closer = _CLOSER[state, self.peer_role]
        self._send_plain = _SEND_PLAIN[state, self.role]
        # next_event's one test: an error, the end, or a server waiting to answer a hello.
        self._blocked = state is ERROR or state is _CLOSED or (
            (state is GREETING or state is CHECK) and self.role is SERVER)

    # ------------------------------------------------------------------ receiving

    def receive_data(self, data: bytes | bytearray) -> None:
        """Feed bytes read from the peer; ``b""`` means the peer closed its side. A
        bytearray is copied: the caller may reuse its buffer for the next read."""
        if self._pos == len(self._data) and type(data) is bytes and data \
                and self._state is not _CLOSED and not self._eof:
            self._data = data  # the usual case: nothing pending, keep the chunk as it is
            self._pos = 0
        elif self._state is not _CLOSED or not data:  # once over, late bytes are dropped
            self._feed(data)

    def next_frame_size(self) -> int | None:
        """The body size of the next frame when all of it is buffered and within the limit
        (what it will cost to read), else None."""
        size = self.announced_size()
        if size is None or size > self._limit:
            return None
        return size if len(self._data) - self._pos - 4 >= size else None

    def announced_size(self) -> int | None:
        """The body size the next frame announces, once its 4-byte length has come
        (None before; whether all of its body has come or not)."""
        data, pos = self._data, self._pos
        if len(data) - pos < 4:
            return None
        size: int = unpack_header(data, pos)[0]
        return size

    def take_unread(self, size: int) -> tuple[str | None, int | str | None]:
        """Consume the next frame, whose body of ``size`` bytes is all buffered (what
        :meth:`next_frame_size` said), without reading it: its ``type`` and valid request
        ``id`` only (None for each it has not), for a frame refused unread, so that its
        reply names its request. It costs a fraction of reading it: nothing is built but
        those two values."""
        start = self._pos + 4
        body = self._data[start:start + size]
        self._take(start + size)
        self.frame_size = size
        kind, request_id = peek_body(body)
        rid = _request_id({"id": request_id})
        return (kind if type(kind) is str and len(kind) <= MAX_TEXT else None), rid

    def next_event(self) -> Message | Literal[Sentinel.NEED_DATA, Sentinel.PAUSED,
                                              Sentinel.CLOSED]:
        """The next message from the peer, or a :class:`Sentinel`.

        Raises :class:`RemoteProtocolError` when the peer broke the protocol. After a
        non-fatal one the connection goes on (call again for the next frame); after a
        fatal one every call raises it again.
        """
        if self._blocked:
            if self._error is not None:
                raise self._error
            return CLOSED if self._state is _CLOSED else PAUSED
        # The fast path, inline (FrameBuffer._next_frame is the general one): a whole
        # frame within the limit is buffered.
        data = self._data
        pos = self._pos
        have = len(data)
        obj: object
        if have - pos >= 4 and (end := pos + 4 + unpack_header(data, pos)[0]) <= have \
                and end - pos - 4 <= self._limit:
            body = data[pos + 4:end]  # msgpack reads a bytearray as well
            self.frame_size = end - pos - 4
            if end == have:
                self._data = b""
                self._pos = 0
            else:
                self._take(end)
            try:
                obj = unpack_body(body)
            except RemoteProtocolError as exc:
                raise self._fail(exc) from None
        else:
            try:
                frame = self._next_frame()
                if frame is None:
                    if self._eof:
                        self._set_state(_CLOSED)
                        return CLOSED
                    return NEED_DATA
                self.frame_size = len(frame)
                obj = unpack_body(frame)
            except RemoteProtocolError as exc:
                raise self._fail(exc) from None
        # A map of a type this state reads and that changes nothing: checked and built.
        if type(obj) is dict:
            try:
                kind: Any = obj["type"]
                read = self._recv.get(kind)
            except (KeyError, TypeError):  # no type, or an unhashable one: the slow path
                read = None  # says what is wrong
            if read is not None:
                try:
                    return read(obj, kind, 1)
                except (SchemaError, RemoteProtocolError) as exc:
                    raise self._unread(exc, obj) from None
        return self._next_slow(obj)

    def _next_slow(self, obj: object) -> Message:
        """A frame the fast path did not take: a message that may change the state (an
        error or the handshake's), or a refusal."""
        if type(obj) is dict:
            kind = obj.get("type")
            if type(kind) is str and (read := self._recv_closer.get(kind)) is not None:
                try:
                    msg = read(obj, kind, 1)
                except (SchemaError, RemoteProtocolError) as exc:
                    raise self._unread(exc, obj) from None
                self._received(msg, obj)
                return msg
        raise self._refused(obj)

    def _unread(self, exc: SchemaError | RemoteProtocolError,
                obj: dict[str, Any]) -> RemoteProtocolError:
        """The error for a frame a message reader refused (frame rules first)."""
        if isinstance(exc, RemoteProtocolError):  # an unknown field broke the frame rules
            return self._fail(exc)
        self._check_frame(obj)
        return self._refuse(exc.code, str(exc), obj)

    def _refused(self, obj: object) -> RemoteProtocolError:
        """The error for a frame the fast path did not accept (frame rules first)."""
        self._check_frame(obj)
        if type(obj) is not dict:
            return self._refuse("bad_message", f"a frame must hold a map, not "
                                               f"{type(obj).__name__}", None)
        kind = obj.get("type")
        if type(kind) is not str:
            return self._refuse("bad_message", "the map has no string 'type'", obj)
        if kind not in MESSAGES:
            return self._refuse("unknown_type", f"unknown message type {kind!r}", obj)
        if self._state is START and self.role is SERVER:
            return self._refuse("handshake_required",
                                f"the first message must be a hello, not {kind}", obj)
        if self._state is LOGIN and self.role is SERVER:
            return self._refuse("password_required", f"this hall has a password: send "
                                f"login before {kind}", obj)
        return self._refuse("unexpected_message", f"{kind} may not be sent by the "
                            f"{self.peer_role} in state {self._state}", obj)

    def _received(self, msg: Message, obj: Mapping[str, object]) -> None:
        """A received message that may change the state: error, or a handshake move."""
        kind = _move_type(msg)
        nxt = self._recv_moves.get(kind)
        if nxt is None:
            raise self._refuse("unexpected_message", f"a non-fatal error may not be sent "
                               f"in state {self._state}", obj)
        if nxt is not self._state:
            self._enter(msg, nxt)

    def _enter(self, msg: Message, nxt: State) -> None:
        """Apply the handshake's effects of a received message, then change state."""
        if isinstance(msg, Hello):
            if msg.protocol != PROTOCOL:
                raise self._refuse("unsupported_protocol",
                                   f"this server speaks {PROTOCOL!r}, not {msg.protocol!r}",
                                   None)
            common = set(msg.versions) & set(self.versions)
            if not common:
                raise self._refuse("unsupported_version",
                                   f"no common version: the client speaks "
                                   f"{list(msg.versions)}, the server {list(self.versions)}",
                                   None)
            self.version = max(common)
            self.hello = msg
        elif isinstance(msg, Welcome):
            if self.hello is None or msg.version not in self.hello.versions:
                raise self._refuse("unsupported_version",
                                   f"the server chose version {msg.version}, which this "
                                   "client did not offer", None)
            self.version = msg.version
            self.limits = msg.limits
            # (with a hall password the login is still the hello's size: the announced
            # limit holds from the logged_in)
            self._send_limit = msg.limits.max_frame if msg.login is None else HELLO_FRAME
            self._limit = msg.limits.max_server_frame
        elif isinstance(msg, LoggedIn) and self.limits is not None:
            self._send_limit = self.limits.max_frame
        self._set_state(nxt)

    def _check_frame(self, obj: object) -> None:
        """Raise a fatal bad_frame if ``obj`` breaks the frame rules (they come first)."""
        try:
            check_value(obj)
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None

    def _refuse(self, code: str, message: str,
                obj: Mapping[str, object] | None) -> RemoteProtocolError:
        fatal = self._state is not READY or ERROR_CODES[code].fatal
        rid = _request_id(obj) if obj is not None else None
        kind = obj.get("type") if obj is not None else None
        table = obj.get("table") if obj is not None else None
        return self._fail(RemoteProtocolError(
            message, code=code, fatal=fatal, request_id=rid,
            message_type=kind if kind in MESSAGES else None,
            table=table if type(table) is int else None))

    def _fail(self, exc: RemoteProtocolError) -> RemoteProtocolError:
        if exc.fatal:
            self._error = exc
            self._set_state(ERROR)
        return exc

    # ------------------------------------------------------------------ sending

    def send(self, message: Message) -> bytes:
        """The bytes of ``message``, to write to the peer.

        Raises :class:`LocalProtocolError` (nothing sent, no change of state) when this
        end may not send it now, or when its frame exceeds the peer's limit.
        """
        if message.type in self._send_plain:  # the usual case: a message in READY
            body: bytes = pack_body(message.to_wire())
            size = len(body)
            if size <= self._send_limit:
                return pack_header(size) + body
        kind = _move_type(message)
        nxt = self._send_moves.get(kind)
        if nxt is None:
            raise LocalProtocolError(f"the {self.role} may not send {message.type} in state "
                                     f"{self._state}", code="unexpected_message")
        if nxt is not self._state:
            self._check_send(message)
        body = pack_body(message.to_wire())
        if len(body) > self._send_limit:
            raise LocalProtocolError(f"a {message.type} frame of {len(body)} bytes exceeds "
                                     f"the peer's limit of {self._send_limit}",
                                     code="frame_too_large")
        if nxt is not self._state:
            self._sent(message)
            self._set_state(nxt)
        return pack_header(len(body)) + body

    def _check_send(self, message: Message) -> None:
        if isinstance(message, Welcome):
            if message.version != self.version:
                raise LocalProtocolError(f"the welcome must choose version {self.version}, "
                                         "the highest both ends speak")
            if message.limits.max_frame != self._max_frame:
                raise LocalProtocolError(f"the welcome must announce max_frame "
                                         f"{self._max_frame}, this connection's limit")
        elif isinstance(message, Hello) and not set(message.versions) & set(self.versions):
            raise LocalProtocolError("the hello offers no version this connection speaks")

    def _sent(self, message: Message) -> None:
        if isinstance(message, Hello):
            self.hello = message
        elif isinstance(message, Welcome):
            self.limits = message.limits
            self._limit = self._max_frame if message.login is None else HELLO_FRAME
            self._send_limit = message.limits.max_server_frame
        elif isinstance(message, LoggedIn):
            self._limit = self._max_frame
