"""Bad input and limits: a misbehaving connection harms nobody else."""

from __future__ import annotations

import socket
import struct
from collections.abc import Sequence

import msgpack
import pytest
import trio
import trio.testing
from fast_settings import with_settings
from hang_guard import HANG_GUARD
from players import RawClient, play_seat, wait_for
from sessions import session_of

from rummyhall.bots import SimpleBot
from rummyhall.client import ServerClosed, open_session
from rummyhall.protocol import (
    ActionMessage,
    CreateTable,
    Error,
    Games,
    Hello,
    Join,
    ListGames,
    ListTables,
    Ok,
    Ping,
    Pong,
    Tables,
    TableUpdate,
    Watch,
    Welcome,
)
from rummyhall.server import Hall, Settings
from rummyhall.server import table as table_module
from rummyhall.server.players import Player


def fatal_codes(messages: Sequence[object]) -> list[str]:
    return [m.code for m in messages if isinstance(m, Error) and m.fatal]


@pytest.mark.parametrize(("data", "code"), [
    (struct.pack(">I", 2**32 - 1), "frame_too_large"),  # a 4 GiB length prefix
    (struct.pack(">I", 3) + b"\xc1\xc1\xc1", "bad_frame"),  # not msgpack
    (struct.pack(">I", 2) + b"\x91\x01", "bad_message"),  # msgpack, not a map: not fatal
])
async def test_bad_frames_close_only_their_connection(hall: Hall, data: bytes,
                                                      code: str) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", kind="bot") as ada:
        table = await ada.create_table("gin", 2, {"target_score": 25})
        await ada.add_bot(table, 1)
        await ada.join(table, 0)
        await ada.start(table)
        bad = await RawClient.connect(hall.port)
        assert isinstance(await bad.hello("mallory"), Welcome)
        await bad.send_bytes(data)
        if code == "bad_message":
            reply = await bad.receive()
            assert isinstance(reply, Error) and reply.code == code and not reply.fatal
            await bad.send(Ping(id=1))  # the connection goes on
            assert isinstance(await bad.receive(), Pong)
        else:
            got = await bad.receive_until_closed()
            assert fatal_codes(got) == [code]
        await bad.aclose()
        await play_seat(ada, table, SimpleBot())  # the table played on
        assert ada.tables[table].view is not None


async def test_hostile_first_frames(hall: Hall) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    body = msgpack.packb({"type": "ping"})
    await raw.send_bytes(struct.pack(">I", len(body)) + body)
    assert fatal_codes(await raw.receive_until_closed()) == ["handshake_required"]
    raw = await RawClient.connect(hall.port)
    body = msgpack.packb({"type": "hello", "protocol": "rummyhall", "versions": [9],
                          "name": "x", "kind": "person"})
    await raw.send_bytes(struct.pack(">I", len(body)) + body)
    assert fatal_codes(await raw.receive_until_closed()) == ["unsupported_version"]
    raw = await RawClient.connect(hall.port)
    await raw.send_bytes(struct.pack(">I", 10) + b"\x81")  # then the connection ends
    await raw.stream.send_eof()
    assert fatal_codes(await raw.receive_until_closed()) == ["bad_frame"]


async def test_unknown_types_and_bad_fields_are_not_fatal_once_connected(hall: Hall) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    for wire in ({"type": "teleport", "id": 5}, {"type": "join", "table": "one", "id": 6},
                 {"type": "action", "table": 1, "move": 0, "action": {"kind": "discard",
                                                                       "card": "Zz"}, "id": 7}):
        body = msgpack.packb(wire)
        await raw.send_bytes(struct.pack(">I", len(body)) + body)
        reply = await raw.receive()
        assert isinstance(reply, Error) and not reply.fatal and reply.id == wire["id"]
    await raw.send(Ping(id=8))
    pong = await raw.receive()
    assert isinstance(pong, Pong) and pong.id == 8
    await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(messages_per_second=5, burst=10)])
async def test_a_flood_is_refused_then_closed(hall: Hall, settings: Settings) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("flood")
    data = b"".join(raw.conn.send(Ping(id=i)) for i in range(200))
    await raw.send_bytes(data)
    got = await raw.receive_until_closed()
    pongs = [m for m in got if isinstance(m, Pong)]
    limited = [m for m in got if isinstance(m, Error) and m.code == "rate_limited"]
    assert 10 <= len(pongs) < 50
    assert limited and limited[-1].fatal
    async with open_session("127.0.0.1", hall.port, name="calm") as calm:
        await calm.ping()  # the server is fine


@pytest.mark.parametrize("settings", [with_settings(messages_per_second=10, burst=20)])
async def test_frames_refused_unread_count_against_the_rate_too(hall: Hall) -> None:
    """A frame the server refuses without reading it (an unknown type) costs a token as
    every frame does: a flood of them is refused, then closed, like a flood of pings."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("noise")
    body = msgpack.packb({"type": "nonsense", "id": 1})
    frame = struct.pack(">I", len(body)) + body
    await raw.send_bytes(frame * 200)
    got = await raw.receive_until_closed()
    unknown = [m for m in got if isinstance(m, Error) and m.code == "unknown_type"]
    limited = [m for m in got if isinstance(m, Error) and m.code == "rate_limited"]
    assert 10 <= len(unknown) < 50
    assert limited and limited[-1].fatal


@pytest.mark.parametrize("settings", [with_settings(max_output_bytes=262_144)])
async def test_a_client_that_does_not_read_is_dropped(hall: Hall, settings: Settings) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("sloth")
    # ask for much more than a socket buffer and 8 queued messages hold, never read
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table = await ada.create_table("gin", 2)
        try:
            for _ in range(20_000):
                await raw.send(Ping())
        except trio.BrokenResourceError:
            pass  # the server dropped us: what the test is about
        finally:
            await raw.aclose()
        await wait_for(lambda: not any(p.name == "sloth" for p in hall.lobby.players.connected()),
                       timeout=20)
        assert table in hall.lobby.tables  # others carry on
        await ada.ping()


async def test_a_client_that_reads_late_gets_every_reply_whole_and_in_order(
        hall: Hall) -> None:
    """Replies that do not fit in the socket wait for it (the writer's partial writes)."""
    assert hall.port
    sock = trio.socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await sock.connect(("127.0.0.1", hall.port))
    raw = RawClient(trio.SocketStream(sock))
    await raw.hello("late")
    (session,) = hall.sessions  # small buffers at both ends: full after a few replies
    session.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    async with open_session("127.0.0.1", hall.port, name="maker") as maker:
        for _ in range(40):  # (the tables stay while their creator is here)
            await maker.create_table("gin", 2, {"target_score": 50})
        requests = 60  # each reply lists 40 tables: about 400 KiB in all (within the bound)
        await raw.send_bytes(b"".join(raw.conn.send(ListTables(id=n))
                                      for n in range(requests)))
        # not reading: the server's socket buffer fills, the rest waits for the socket
        await wait_for(lambda: session._unsent)
        ids: list[int | str | None] = []
        while len(ids) < requests:
            message = await raw.receive()
            if isinstance(message, Tables):
                assert len(message.tables) == 40
                ids.append(message.id)
        assert ids == list(range(requests))
        await raw.send(Ping(id=1))  # the connection is fine
        while not isinstance(await raw.receive(), Pong):
            pass  # lobby updates
        assert not session._unsent
        await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(max_connections=3, max_per_address=2)])
async def test_connection_limits(hall: Hall, settings: Settings) -> None:
    assert hall.port
    first = await RawClient.connect(hall.port)
    second = await RawClient.connect(hall.port)
    await first.hello("a")
    await second.hello("b")
    third = await RawClient.connect(hall.port)
    assert fatal_codes(await third.receive_until_closed()) == ["too_many_connections"]
    await first.aclose()
    await second.aclose()


async def test_names_are_unique_and_a_token_replaces_the_old_session(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        with pytest.raises(ServerClosed) as info:
            async with open_session("127.0.0.1", hall.port, name="ADA"):
                pass
        assert info.value.code == "name_taken"
        raw = await RawClient.connect(hall.port)
        await raw.send(Hello(versions=(1,), name="ada", kind="person", token=ada.token))
        welcome = await raw.receive()
        assert isinstance(welcome, Welcome) and session_of(welcome).resumed
        assert session_of(welcome).player == ada.player_id
        await wait_for(lambda: ada.closed_reason is not None)
        assert ada.closed_reason is not None and ada.closed_reason.code == "session_replaced"
        # the new connection is the player's now, and it works
        await raw.send(Ping(id=1))
        assert isinstance(await raw.receive(), Pong)
        assert any(p.id == ada.player_id for p in hall.lobby.players.connected())
        await raw.aclose()


async def test_the_games_answer_carries_the_id_it_was_asked_with(hall: Hall) -> None:
    """list_games with an id is answered with that id; without one, with none (the
    same catalogue either way)."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    await raw.send(ListGames(id=7))
    await raw.send(ListGames())
    numbered, plain = await raw.receive(), await raw.receive()
    assert isinstance(numbered, Games) and isinstance(plain, Games)
    assert (numbered.id, plain.id) == (7, None)
    assert numbered.games == plain.games and numbered.bots == plain.bots
    await raw.aclose()


async def test_replies_come_in_the_order_of_the_requests(hall: Hall) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    table = await raw.create_table()
    # a table request and a lobby request sent together: the replies keep their order
    await raw.send_bytes(raw.conn.send(Watch(table=table, id=2)) + raw.conn.send(Ping(id=3)))
    replies: list[object] = []
    while len(replies) < 2:
        message = await raw.receive()
        if isinstance(message, (Ok, Pong)):
            replies.append(message.id)
    assert replies == [2, 3]
    await raw.aclose()


async def test_a_session_reads_on_while_its_table_works_and_replies_keep_their_order(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session hands a table request over and goes back to reading its socket (its
    task is not woken by the table's reply): a ping that comes while the table holds a
    watch is read at once (the client is heard), but answered only after the watch's ok,
    and the frames behind it in their order."""
    held, release = trio.Event(), trio.Event()
    watch = table_module.Table._watch

    async def slow_watch(self: table_module.Table, player: Player, msg: Watch) -> None:
        held.set()
        await release.wait()
        await watch(self, player, msg)

    monkeypatch.setitem(table_module.Table._handlers, Watch, slow_watch)
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    table = await raw.create_table()
    (session,) = hall.sessions
    await raw.send(Watch(table=table, id=2))
    with trio.fail_after(HANG_GUARD):
        await held.wait()
    heard = session.heard_at
    await trio.sleep(0.01)
    await raw.send_bytes(raw.conn.send(Ping(id=3)) + raw.conn.send(ListTables(id=4)))
    await wait_for(lambda: session.heard_at > heard)  # read while the table still works
    release.set()
    replies: list[object] = []
    while len(replies) < 3:
        message = await raw.receive()
        if isinstance(message, (Ok, Pong, Tables)):
            replies.append(message.id)
    assert replies == [2, 3, 4]
    await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(handshake_seconds=3, idle_seconds=20)])
async def test_handshake_and_idle_timeouts(hall: Hall, settings: Settings,
                                           mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    silent = await RawClient.connect(hall.port)
    assert fatal_codes(await silent.receive_until_closed(timeout=60)) == ["handshake_timeout"]
    idle = await RawClient.connect(hall.port)
    await idle.hello("idle")
    started = trio.current_time()
    assert fatal_codes(await idle.receive_until_closed(timeout=60)) == ["idle_timeout"]
    assert trio.current_time() - started >= 20


@pytest.mark.parametrize("settings", [with_settings(handshake_seconds=0.3, idle_seconds=20)])
async def test_the_welcome_announces_the_limits_in_whole_seconds(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """A handshake time under a second is announced as 1 (the schema's least: never 0,
    which would tell a client it has no time at all). (On a clock that never jumps: the
    0.3 s handshake does not run out however slow the machine.)"""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    welcome = await raw.hello("ada")
    assert isinstance(welcome, Welcome)
    assert welcome.limits.handshake_seconds == 1
    assert welcome.limits.max_frame == settings.max_frame
    assert welcome.limits.burst == settings.burst
    await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(handshake_seconds=3600)])
async def test_graceful_shutdown_tells_every_client(settings: Settings) -> None:
    """Every client hears server_shutdown at once, even one that has not said hello yet
    (the server does not wait for its handshake to time out: that would take an hour,
    and the hang guard ends the test long before)."""
    server = Hall(settings)
    with trio.fail_after(HANG_GUARD):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)
            raw = await RawClient.connect(port)
            await raw.hello("ada")
            mute = await RawClient.connect(port)
            await wait_for(lambda: len(server.sessions) == 2)
            server.stop()
    assert fatal_codes(await raw.receive_until_closed()) == ["server_shutdown"]
    assert fatal_codes(await mute.receive_until_closed()) == ["server_shutdown"]
    with pytest.raises(OSError):
        await trio.open_tcp_stream("127.0.0.1", port)


async def test_a_player_with_nothing_to_come_back_to_is_forgotten(hall: Hall) -> None:
    """The registry does not grow forever: a player gone for longer than
    player_expiry_seconds (an hour) with nothing left here is forgotten, and its token
    starts afresh; one whose seat is held is kept, and resumes."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="passer") as passer:
        token = passer.token  # (a clean close says bye: the player leaves everything)
    assert token is not None
    sitter = await RawClient.connect(hall.port)
    welcome = await sitter.hello("sitter")
    assert isinstance(welcome, Welcome)
    kept = session_of(welcome).token
    await sitter.send(CreateTable(game="gin", players=2, id=1))
    created = await sitter.receive()
    assert isinstance(created, Ok) and created.table is not None
    await sitter.send(Join(table=created.table, seat=0, id=2))
    while not isinstance(await sitter.receive(), Ok):
        pass
    await sitter.aclose()  # the connection drops: the seat is held
    await wait_for(lambda: not any(p.connected for p in hall.lobby.players.connected()))
    await trio.testing.wait_all_tasks_blocked()  # (the server runs here: the lobby knows)
    assert hall.lobby.forget_stale(trio.current_time() + 3500) == 0  # an hour, not less
    assert hall.lobby.forget_stale(trio.current_time() + 3601) == 1
    assert hall.lobby.players.by_token(token) is None
    assert hall.lobby.players.by_token(kept) is not None
    for name, key, resumed in (("passer", token, False), ("sitter", kept, True)):
        raw = await RawClient.connect(hall.port)
        await raw.send(Hello(versions=(1,), name=name, kind="person", token=key))
        welcome = await raw.receive()
        assert isinstance(welcome, Welcome) and session_of(welcome).resumed is resumed
        await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(max_output_bytes=262_144, update_interval=0.3)])
async def test_a_lobby_round_takes_one_place_in_a_queue(hall: Hall, settings: Settings
                                                        ) -> None:
    """The lobby's updates of one round go out as one entry of each client's queue: a
    round with more changed tables than the queue holds does not drop anybody."""
    assert hall.port
    watcher = await RawClient.connect(hall.port)
    await watcher.hello("watcher")
    async with open_session("127.0.0.1", hall.port, name="maker") as maker:
        for _ in range(20):  # all within one update interval
            await maker.create_table("gin", 2)
        seen: set[int] = set()
        while len(seen) < 20:
            message = await watcher.receive()
            if isinstance(message, TableUpdate):
                seen.add(message.info.table)
        await watcher.send(Ping(id=1))
        while not isinstance(await watcher.receive(), Pong):
            pass
    await watcher.aclose()


async def test_one_name_one_player_even_when_hellos_race(hall: Hall) -> None:
    """Hellos of one name arriving together: one welcome, every other one name_taken."""
    assert hall.port
    port = hall.port
    results: list[str] = []
    clients: list[RawClient] = []

    async def hello() -> None:
        raw = await RawClient.connect(port)
        clients.append(raw)
        reply = await raw.hello("twin")
        results.append(reply.code if isinstance(reply, Error) else reply.type)

    async with trio.open_nursery() as nursery:
        for _ in range(12):
            nursery.start_soon(hello)
    for raw in clients:
        await raw.aclose()
    assert sorted(results) == ["name_taken"] * 11 + ["welcome"], results


@pytest.mark.parametrize("settings", [with_settings(send_timeout=0.2)])
async def test_a_welcome_that_does_not_go_out_ends_the_session(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """A welcome whose write times out may be half written: nothing may follow it, so the
    session ends there (the player is not left connected, nothing else is written)."""
    assert hall.port
    send_all = trio.SocketStream.send_all
    stalled: list[bytes] = []

    async def stall_welcomes(self: trio.SocketStream, data: bytes | bytearray | memoryview
                             ) -> None:
        if b"welcome" in bytes(data):
            stalled.append(bytes(data))
            await trio.sleep_forever()  # a peer that never takes it: send_timeout ends this
        await send_all(self, data)

    monkeypatch.setattr(trio.SocketStream, "send_all", stall_welcomes)
    raw = await RawClient.connect(hall.port)
    await raw.send(Hello(versions=(1,), name="mute", kind="person"))
    with pytest.raises(EOFError):
        await raw.receive(timeout=5)  # the server closes without a byte
    await raw.aclose()
    assert len(stalled) == 1
    await wait_for(lambda: not hall.sessions)
    assert not any(p.name == "mute" for p in hall.lobby.players.connected())


async def test_a_resumed_connection_is_of_the_kind_its_hello_says(hall: Hall) -> None:
    """The kind belongs to the connection: a person's token resumed by a spectator tool
    is a spectator (it may not create tables or sit)."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        token = ada.token
    raw = await RawClient.connect(hall.port)
    await raw.send(Hello(versions=(1,), name="ada", kind="spectator", token=token))
    welcome = await raw.receive()
    assert isinstance(welcome, Welcome) and session_of(welcome).resumed
    await raw.send(CreateTable(game="gin", players=2, id=1))
    reply = await raw.receive()
    assert isinstance(reply, Error) and reply.code == "spectator_only"
    await raw.aclose()
    # and a seat of the person's is not played from a spectator connection
    async with open_session("127.0.0.1", hall.port, name="bob") as bob:
        table = await bob.create_table("gin", 2)
        await bob.add_bot(table, 1, "simple")
        await bob.join(table, 0)
        await bob.start(table)
        await wait_for(lambda: bob.tables[table].my_turn, session=bob)
        move, token = bob.tables[table].move, bob.token
        tool = await RawClient.connect(hall.port)
        await tool.send(Hello(versions=(1,), name="bob", kind="spectator", token=token))
        assert isinstance(await tool.receive(), Welcome)
        await tool.send(ActionMessage(table=table, move=move or 0, action={"kind": "pass"},
                                      id=2))
        while not isinstance(reply := await tool.receive(), Error):
            pass
        assert reply.code == "spectator_only" and reply.id == 2
        await tool.aclose()


@pytest.mark.parametrize("settings", [with_settings(idle_seconds=idle)
                                      for idle in (1, 2.5, 4, 20, 91, 86_400)],
                         ids=lambda s: f"idle{s.idle_seconds:g}")
async def test_the_ping_interval_is_at_most_a_third_of_the_idle_timeout(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    raw = await RawClient.connect(hall.port)
    welcome = await raw.hello("ada")
    assert isinstance(welcome, Welcome)
    limits = welcome.limits
    assert limits.ping_seconds >= 1 and 3 * limits.ping_seconds <= limits.idle_seconds
    assert limits.ping_seconds == min(30, max(3, int(settings.idle_seconds)) // 3)
    # A client pinging at the announced interval is never closed for idleness.
    for n in range(2 if limits.ping_seconds > 10 else 4):
        await trio.sleep(limits.ping_seconds)
        await raw.send(Ping(id=n))
        assert isinstance(await raw.receive(timeout=5), Pong)
    if limits.idle_seconds > 20:  # (the lobby's 0.1 s ticks make long waits slow to mock)
        await raw.aclose()
        return
    # and a silent one is closed no sooner than the announced idle timeout
    started = trio.current_time()
    assert fatal_codes(await raw.receive_until_closed(timeout=90_000)) == ["idle_timeout"]
    assert trio.current_time() - started >= limits.idle_seconds
