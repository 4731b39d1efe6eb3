"""The connection state machine: handshake, transitions, local and remote errors."""

# mypy narrows conn.state after one assert and cannot see send()/next_event() change it:
# mypy: disable-error-code="comparison-overlap, unreachable"

from __future__ import annotations

import msgpack
import pytest

from rummyhall.protocol import (
    CLIENT,
    CLOSED,
    MESSAGES,
    NEED_DATA,
    PAUSED,
    SERVER,
    TRANSITIONS,
    Bye,
    Connection,
    CreateTable,
    Error,
    Hello,
    Join,
    Limits,
    LocalProtocolError,
    LoggedIn,
    Login,
    Ok,
    Ping,
    Pong,
    RemoteProtocolError,
    Session,
    State,
    Welcome,
    error_message,
)
from rummyhall.protocol.examples import locked_pair, ready_pair
from rummyhall.protocol.limits import (
    MAX_DEPTH,
    MAX_FRAME,
    MAX_FRAME_LIMIT,
    MAX_SERVER_FRAME,
    MIN_FRAME_LIMIT,
    PROTOCOL,
)

SESSION = Session(player=1, token="ab" * 16, resumed=False)


def welcome(version: int = 1, limits: Limits | None = None) -> Welcome:
    return Welcome(version=version, server="s", limits=limits or Limits(), features=(),
                   session=SESSION)


def test_handshake() -> None:
    client, server = Connection(CLIENT), Connection(SERVER, versions=(1, 2))
    assert client.state is server.state is State.START
    assert server.next_event() is NEED_DATA
    server.receive_data(client.send(Hello(versions=(1, 3), name="ada", kind="bot")))
    assert client.state is State.GREETING
    hello = server.next_event()
    assert isinstance(hello, Hello) and server.version == 1 and server.hello == hello
    assert server.state is State.GREETING and server.next_event() is PAUSED
    with pytest.raises(LocalProtocolError):  # the wrong version
        server.send(welcome(version=2))
    client.receive_data(server.send(welcome()))
    assert server.state is State.READY
    assert client.next_event() == welcome()
    assert client.state is State.READY and client.version == 1
    assert client.limits == Limits()


def test_frames_sent_early_wait_for_the_welcome() -> None:
    client, server = Connection(CLIENT), Connection(SERVER)
    early_ping = ready_pair()[0].send(Ping(id=1))
    server.receive_data(client.send(Hello(versions=(1,), name="ada", kind="bot")) + early_ping)
    assert isinstance(server.next_event(), Hello)
    assert server.next_event() is PAUSED
    server.send(welcome())
    assert server.next_event() == Ping(id=1)
    assert server.next_event() is NEED_DATA


def test_a_client_may_not_send_before_the_welcome() -> None:
    client = Connection(CLIENT)
    with pytest.raises(LocalProtocolError):
        client.send(Ping())
    client.send(Hello(versions=(1,), name="ada", kind="bot"))
    with pytest.raises(LocalProtocolError) as info:
        client.send(Ping())
    assert info.value.code == "unexpected_message"
    assert client.state is State.GREETING


def test_each_side_sends_only_its_own_messages() -> None:
    client, server = ready_pair()
    with pytest.raises(LocalProtocolError):
        client.send(Pong())
    with pytest.raises(LocalProtocolError):
        server.send(Ping())
    with pytest.raises(LocalProtocolError):
        client.send(Hello(versions=(1,), name="x", kind="bot"))


def test_request_reply_and_non_fatal_error() -> None:
    client, server = ready_pair()
    server.receive_data(client.send(Join(table=3, id="j")))
    assert server.next_event() == Join(table=3, id="j")
    client.receive_data(server.send(Error(code="seat_taken", message="no", fatal=False, id="j"))
                        + server.send(Ok(id="j")))
    assert isinstance(client.next_event(), Error) and client.next_event() == Ok(id="j")
    assert client.state is server.state is State.READY


def test_fatal_error_closes_both_ends() -> None:
    client, server = ready_pair()
    client.receive_data(server.send(Error(code="server_shutdown", message="bye", fatal=True)))
    assert server.state is State.CLOSED
    assert isinstance(client.next_event(), Error)
    assert client.state is State.CLOSED and client.next_event() is CLOSED
    with pytest.raises(LocalProtocolError):
        client.send(Ping())
    with pytest.raises(LocalProtocolError):
        server.send(Pong())


def test_server_may_refuse_before_the_hello() -> None:
    client, server = Connection(CLIENT), Connection(SERVER)
    client.receive_data(server.send(Error(code="server_full", message="full", fatal=True)))
    assert isinstance(client.next_event(), Error) and client.state is State.CLOSED


def test_bye_closes() -> None:
    client, server = ready_pair()
    server.receive_data(client.send(Bye()))
    assert server.next_event() == Bye() and server.state is State.CLOSED
    server.receive_data(b"ignored")
    assert server.next_event() is CLOSED
    assert server.buffered == 0  # (late bytes are dropped, never kept)


def test_end_of_stream() -> None:
    client, server = ready_pair()
    server.receive_data(client.send(Ping(id=1)))
    server.receive_data(b"")
    assert server.next_event() == Ping(id=1)
    assert server.next_event() is CLOSED and server.state is State.CLOSED


def test_a_fatal_remote_error_sticks_and_allows_the_fatal_reply() -> None:
    client, server = ready_pair()
    server.receive_data(b"\xff\xff\xff\xff")
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert server.state is State.ERROR
    with pytest.raises(RemoteProtocolError):
        server.next_event()
    with pytest.raises(LocalProtocolError):
        server.send(Pong())
    reply = error_message(info.value)
    assert reply.fatal and reply.code == "frame_too_large"
    client.receive_data(server.send(reply))
    assert server.state is State.CLOSED
    assert client.next_event() == reply


def test_non_fatal_remote_error_echoes_the_id_and_goes_on() -> None:
    client, server = ready_pair()
    body = msgpack.packb({"type": "nope", "id": 5})
    server.receive_data(len(body).to_bytes(4, "big") + body + client.send(Ping()))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert (info.value.code, info.value.fatal, info.value.request_id) == ("unknown_type", False, 5)
    assert server.next_event() == Ping()


def test_welcome_limits_govern_both_directions() -> None:
    client, server = Connection(CLIENT), Connection(SERVER, max_frame=4096)
    server.receive_data(client.send(Hello(versions=(1,), name="ada", kind="bot")))
    server.next_event()
    with pytest.raises(LocalProtocolError):  # must announce its own limit
        server.send(welcome())
    client.receive_data(server.send(welcome(limits=Limits(max_frame=4096,
                                                          max_server_frame=8192))))
    client.next_event()
    big = CreateTable(game="gin", players=2, options={f"o{i}": "x" * 1000 for i in range(5)})
    with pytest.raises(LocalProtocolError) as info:
        client.send(big)
    assert info.value.code == "frame_too_large" and client.state is State.READY
    server.send(Error(code="x", message="m" * 1000, fatal=False))  # within 8192


def test_the_transition_table_covers_every_message() -> None:
    sent = {t for (_, _, t) in TRANSITIONS} - {"error!", "welcome+login"}
    assert sent == set(MESSAGES)
    for (state, sender, kind), nxt in TRANSITIONS.items():
        if kind not in ("error!", "welcome+login"):
            assert MESSAGES[kind].sender is sender, (state, kind)
        assert nxt in State


def test_welcome_with_a_version_not_offered() -> None:
    client = Connection(CLIENT)
    client.send(Hello(versions=(1,), name="ada", kind="bot"))
    rogue = Connection(SERVER, versions=(1, 2))
    rogue.receive_data(Connection(CLIENT, versions=(2,)).send(
        Hello(versions=(2,), name="ada", kind="bot")))
    rogue.next_event()
    client.receive_data(rogue.send(welcome(version=2)))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_event()
    assert (info.value.code, info.value.fatal) == ("unsupported_version", True)


STREAM = (Ping(id=1), Join(table=3, seat=1, id="j"), Ping(id=2**31),
          CreateTable(game="gin", players=2, options={"target_score": 250}, id=4), Bye())


def drain(conn: Connection) -> list[object]:
    """Every message ``conn`` can return now, up to NEED_DATA or CLOSED."""
    out: list[object] = []
    while (event := conn.next_event()) is not NEED_DATA and event is not CLOSED:
        out.append(event)
    return out


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7, 13, 64])
def test_a_stream_cut_anywhere_reads_as_the_same_messages(size: int) -> None:
    """Bytes arrive as the network cuts them: a frame's header or body split across
    reads, several frames in one read. Each piece is fed as it comes."""
    client, server = ready_pair()
    stream = b"".join(client.send(m) for m in STREAM)
    received: list[object] = []
    for start in range(0, len(stream), size):
        server.receive_data(stream[start:start + size])
        received += drain(server)
    assert received == list(STREAM) and server.buffered == 0


def test_a_buffer_the_caller_reuses_does_not_change_what_was_fed() -> None:
    """The connection keeps its own copy of a mutable buffer it is fed: a reader that
    reuses its bytearray for the next read does not rewrite the pending frame."""
    client, server = ready_pair()
    whole = client.send(Ping(id=7))
    reused = bytearray(whole[:3])
    server.receive_data(reused)
    assert server.next_event() is NEED_DATA
    reused[:] = b"\xff" * len(reused)
    server.receive_data(whole[3:])
    assert server.next_event() == Ping(id=7)


def padded(size: int) -> bytes:
    """A frame whose body, a map of an unknown type, is exactly ``size`` bytes."""
    pad = size - len(msgpack.packb({"type": "nope", "pad": ""}))
    body = msgpack.packb({"type": "nope", "pad": "x" * pad})
    body = msgpack.packb({"type": "nope", "pad": "x" * (pad - (len(body) - size))})
    assert isinstance(body, bytes) and len(body) == size
    return len(body).to_bytes(4, "big") + body


@pytest.mark.parametrize("cut", [False, True])
def test_the_frame_limit_holds_to_the_byte_however_the_frame_arrives(cut: bool) -> None:
    """A body of exactly the limit is read (its unknown type is refused, not its size);
    one byte more is refused as too large: whole in one read, or from its header alone
    when the frame comes in pieces."""
    for size, code, fatal in ((MAX_FRAME, "unknown_type", False),
                              (MAX_FRAME + 1, "frame_too_large", True)):
        _, server = ready_pair()
        data = padded(size)
        if cut:
            server.receive_data(data[:10])
            if not fatal:
                assert server.next_event() is NEED_DATA
                server.receive_data(data[10:])
        else:
            server.receive_data(data)
        with pytest.raises(RemoteProtocolError) as info:
            server.next_event()
        assert (info.value.code, info.value.fatal) == (code, fatal), size


def test_before_the_welcome_each_end_takes_the_other_roles_largest_frame() -> None:
    """Until the welcome announces limits, a server reads client frames up to MAX_FRAME
    and a client reads server frames up to MAX_SERVER_FRAME."""
    server = Connection(SERVER)
    server.receive_data(padded(MAX_FRAME + 1))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "frame_too_large"
    client = Connection(CLIENT)
    client.send(Hello(versions=(1,), name="ada", kind="bot"))
    client.receive_data(padded(MAX_SERVER_FRAME))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_event()
    assert info.value.code != "frame_too_large"
    client = Connection(CLIENT)
    client.send(Hello(versions=(1,), name="ada", kind="bot"))
    client.receive_data(padded(MAX_SERVER_FRAME + 1))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_event()
    assert info.value.code == "frame_too_large"


def test_the_frame_limit_a_server_connection_takes_is_bounded_both_ways() -> None:
    for limit in (MIN_FRAME_LIMIT, MAX_FRAME, MAX_FRAME_LIMIT):
        Connection(SERVER, max_frame=limit)
    for limit in (MIN_FRAME_LIMIT - 1, MAX_FRAME_LIMIT + 1):
        with pytest.raises(ValueError):
            Connection(SERVER, max_frame=limit)


@pytest.mark.parametrize("protocol", ["a", PROTOCOL[:-1], PROTOCOL + "2", "zz"])
def test_a_hello_of_another_protocol_is_refused_whatever_its_name(protocol: str) -> None:
    """Names that sort before and after ours alike."""
    server = Connection(SERVER)
    hello = msgpack.packb({"type": "hello", "protocol": protocol, "versions": [1],
                           "name": "ada", "kind": "bot"})
    server.receive_data(len(hello).to_bytes(4, "big") + hello)
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert (info.value.code, info.value.fatal) == ("unsupported_protocol", True)


def test_a_hello_offering_no_version_this_end_speaks_is_not_sent() -> None:
    client = Connection(CLIENT, versions=(1,))
    with pytest.raises(LocalProtocolError):
        client.send(Hello(versions=(2,), name="ada", kind="bot"))
    assert client.state is State.START
    client.send(Hello(versions=(1,), name="ada", kind="bot"))
    assert client.state is State.GREETING


def test_before_ready_every_refusal_is_fatal() -> None:
    """A frame of an unknown type is refused and the connection goes on once it is
    READY; before (as the first frame, or in LOGIN) it ends the connection."""
    unknown = msgpack.packb({"type": "nope", "id": 1})
    framed = len(unknown).to_bytes(4, "big") + unknown
    _, locked = locked_pair()
    for server in (Connection(SERVER), locked):
        server.receive_data(framed)
        with pytest.raises(RemoteProtocolError) as info:
            server.next_event()
        assert (info.value.code, info.value.fatal) == ("unknown_type", True), server.state
        assert server.state is State.ERROR
    _, ready = ready_pair()
    ready.receive_data(framed)
    with pytest.raises(RemoteProtocolError) as info:
        ready.next_event()
    assert not info.value.fatal and ready.state is State.READY


def test_while_the_password_is_checked_early_frames_wait_whole() -> None:
    """Between a login and its answer the server reads nothing (PAUSED), and what the
    client sent meanwhile, even cut in pieces, is read whole after logged_in."""
    client, server = locked_pair()
    early = client.send(Login(proof="0" * 64))
    server.receive_data(early)
    assert isinstance(server.next_event(), Login) and server.state is State.CHECK
    ping = msgpack.packb({"type": "ping", "id": 9})  # (the client's own end is in CHECK too)
    framed = len(ping).to_bytes(4, "big") + ping
    for piece in (framed[:3], framed[3:7], framed[7:]):
        server.receive_data(piece)
        assert server.next_event() is PAUSED
    server.send(LoggedIn(session=SESSION))
    assert server.next_event() == Ping(id=9)
    assert server.next_event() is NEED_DATA


def nested(levels: int) -> object:
    value: object = 0
    for _ in range(levels):
        value = [value]
    return value


def test_an_unknown_field_nested_to_the_depth_limit_is_read() -> None:
    """Unknown fields are ignored but keep to the frame rules: a value nested to exactly
    MAX_DEPTH containers (the message's map counts as the first) is read; one more is a
    bad frame."""
    for levels, refused in ((MAX_DEPTH - 1, False), (MAX_DEPTH, True)):
        _, server = ready_pair()
        body = msgpack.packb({"type": "ping", "id": 1, "extra": nested(levels)})
        server.receive_data(len(body).to_bytes(4, "big") + body)
        if refused:
            with pytest.raises(RemoteProtocolError) as info:
                server.next_event()
            assert info.value.code == "bad_frame"
        else:
            assert server.next_event() == Ping(id=1)


def test_the_frame_limit_holds_for_a_frame_that_follows_another_in_one_read() -> None:
    client, server = ready_pair()
    server.receive_data(client.send(Ping(id=1)) * 3 + padded(MAX_FRAME + 1))
    assert [server.next_event() for _ in range(3)] == [Ping(id=1)] * 3
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "frame_too_large"


def test_a_refusal_names_the_known_type_it_refused() -> None:
    """A known message that breaks its schema is refused naming its type (the server
    prompts a seat again after a refused action); an unknown type names none."""
    _, server = ready_pair()
    for wire, kind in (({"type": "action", "table": "one"}, "action"),
                       ({"type": "nope"}, None)):
        body = msgpack.packb(wire)
        server.receive_data(len(body).to_bytes(4, "big") + body)
        with pytest.raises(RemoteProtocolError) as info:
            server.next_event()
        assert not info.value.fatal and info.value.message_type == kind, wire
