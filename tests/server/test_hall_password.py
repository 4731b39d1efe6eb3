"""A hall with a password, from a hostile client's side: nothing is served before the
login, a wrong password or a replayed proof gets nowhere, guessing is slow per address,
and the limiter's memory stays bounded (docs/protocol.md, 3.1)."""

from __future__ import annotations

import logging
import random
import struct
from collections.abc import Sequence

import msgpack
import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient, wait_for

from rummyhall.bots import make_strategy
from rummyhall.client import ServerClosed, StrategyBot, open_session, run_bot
from rummyhall.protocol import (
    LOGIN_LABEL,
    Error,
    Hello,
    ListTables,
    LoggedIn,
    Login,
    Ping,
    Pong,
    State,
    Tables,
    Verifier,
    Welcome,
    derive,
    make_proof,
)
from rummyhall.protocol.limits import HELLO_FRAME, MINOR
from rummyhall.server import Hall, Settings
from rummyhall.server.access import CAPACITY, FIRST_DELAY, FREE_FAILURES, MAX_DELAY
from rummyhall.server.bans import Ban


def fatal_codes(messages: Sequence[object]) -> list[str]:
    """The codes of the fatal errors among ``messages``."""
    return [m.code for m in messages if isinstance(m, Error) and m.fatal]


PASSWORD = "four random words here"
SALT = bytes.fromhex("a1b2c3d4e5f60718293a4b5c6d7e8f90")
ROUNDS = 1000  # (the examples' cost: PBKDF2 stays cheap in tests)
LOCKED = with_settings(password=Verifier.of(PASSWORD, SALT, ROUNDS).text(),
                       handshake_seconds=5)
pytestmark = pytest.mark.parametrize("settings", [LOCKED])


async def locked_welcome(port: int, name: str = "ada", token: str | None = None,
                         ) -> tuple[RawClient, Welcome]:
    raw = await RawClient.connect(port)
    await raw.send(Hello(versions=(1,), name=name, kind="person", token=token, minor=MINOR))
    welcome = await raw.receive()
    assert isinstance(welcome, Welcome), welcome
    return raw, welcome


def proof_for(welcome: Welcome, password: str = PASSWORD) -> str:
    assert welcome.login is not None and welcome.nonce is not None
    keys = derive(password, bytes.fromhex(welcome.login.salt), welcome.login.iterations)
    return make_proof(keys, LOGIN_LABEL, welcome.nonce)


async def log_in(port: int, password: str = PASSWORD, name: str = "ada"
                 ) -> tuple[RawClient, Error | LoggedIn]:
    raw, welcome = await locked_welcome(port, name)
    await raw.send(Login(proof=proof_for(welcome, password), id=1))
    reply = await raw.receive()
    assert isinstance(reply, Error | LoggedIn), reply
    return raw, reply


async def test_the_welcome_asks_for_the_password_and_gives_no_session(hall: Hall) -> None:
    assert hall.port
    raw, welcome = await locked_welcome(hall.port)
    assert welcome.session is None and welcome.minor == MINOR
    assert welcome.login is not None
    assert welcome.login.salt == SALT.hex() and welcome.login.iterations == ROUNDS
    assert welcome.nonce is not None and len(welcome.nonce) == 32
    assert not list(hall.lobby.players.connected()) and len(hall.lobby.players) == 0
    await raw.send(Login(proof=proof_for(welcome), id=1))
    reply = await raw.receive()
    assert isinstance(reply, LoggedIn) and reply.id == 1 and not reply.session.resumed
    await raw.send(ListTables(id=2))
    assert isinstance(await raw.receive(), Tables)
    await raw.aclose()


async def test_each_connection_has_its_own_nonce(hall: Hall) -> None:
    assert hall.port
    nonces = set()
    for _ in range(5):
        raw, welcome = await locked_welcome(hall.port)
        nonces.add(welcome.nonce)
        await raw.aclose()
    assert len(nonces) == 5


async def test_the_client_library_and_the_bot_library_log_in(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", password=PASSWORD) as ada:
        assert ada.player_id is not None and ada.token
        table = await ada.create_table("gin", 2)
        assert table in {t.table for t in await ada.list_tables()}
    with pytest.raises(ServerClosed) as info:
        async with open_session("127.0.0.1", hall.port, name="bob"):
            pass
    assert info.value.code == "password_required"  # no password given: nothing guessed
    with pytest.raises(ServerClosed) as info:
        async with open_session("127.0.0.1", hall.port, name="bob", password="guess"):
            pass
    assert info.value.code == "wrong_password"


async def test_a_wrong_password_is_refused_and_changes_nothing(
        hall: Hall, caplog: pytest.LogCaptureFixture) -> None:
    assert hall.port
    caplog.set_level(logging.INFO, logger="rummyhall")
    raw, reply = await log_in(hall.port, "four random words her")
    assert isinstance(reply, Error) and reply.code == "wrong_password" and reply.fatal
    assert reply.id == 1
    assert fatal_codes(await raw.receive_until_closed()) == []  # closed after it
    assert len(hall.lobby.players) == 0
    assert "wrong hall password" in caplog.text
    assert PASSWORD not in caplog.text and "four random words her" not in caplog.text


async def test_a_replayed_proof_does_not_log_in(hall: Hall) -> None:
    """A sniffer captures ada's login; the proof, sent on its own connection (whose nonce
    differs), is wrong."""
    assert hall.port
    ada, welcome = await locked_welcome(hall.port, "ada")
    captured = Login(proof=proof_for(welcome), id=1)
    await ada.send(captured)
    assert isinstance(await ada.receive(), LoggedIn)
    eve, _ = await locked_welcome(hall.port, "eve")
    await eve.send(captured)
    reply = await eve.receive()
    assert isinstance(reply, Error) and reply.code == "wrong_password"
    assert {p.name for p in hall.lobby.players.connected()} == {"ada"}
    await ada.aclose()
    await eve.aclose()


async def test_the_login_frame_is_held_to_the_hellos_size(hall: Hall) -> None:
    """Until the login is accepted a frame may be 4096 bytes, as the hello: a client
    that sends a login of 64 KiB (junk a server would spend milliseconds reading, on a
    connection it can open 20 times a second) is refused from its length prefix; the
    announced limit holds from the logged_in."""
    assert hall.port
    raw, _ = await locked_welcome(hall.port)
    await raw.send_bytes(struct.pack(">I", HELLO_FRAME + 1))
    got = await raw.receive_until_closed()
    assert fatal_codes(got) == ["frame_too_large"]
    raw, reply = await log_in(hall.port)
    assert isinstance(reply, LoggedIn)
    body = msgpack.packb({"type": "ping", "id": 1, "pad": "x" * (2 * HELLO_FRAME)})
    await raw.send_bytes(struct.pack(">I", len(body)) + body)
    assert isinstance(await raw.receive(), Pong)
    await raw.aclose()


@pytest.mark.parametrize("request_", [ListTables(id=5), Ping(id=5)])
async def test_no_request_is_served_before_the_login(hall: Hall, request_: ListTables | Ping
                                                    ) -> None:
    assert hall.port
    raw, _ = await locked_welcome(hall.port)
    raw.conn._set_state(State.READY)  # a client that skips the login
    await raw.send(request_)
    got = await raw.receive_until_closed()
    assert fatal_codes(got) == ["password_required"]
    assert not any(isinstance(m, Tables) for m in got)
    assert len(hall.lobby.players) == 0


async def test_a_1_1_client_gets_a_clear_error_at_once(hall: Hall,
                                                      mock_clock: trio.testing.MockClock
                                                      ) -> None:
    """A client that does not know the login step (no minor, or minor 1) is told why at
    once: no welcome it could not use, no wait for a timeout."""
    assert hall.port
    for minor in (None, 1):
        raw = await RawClient.connect(hall.port)
        started = trio.current_time()
        await raw.send(Hello(versions=(1,), name="old", kind="person", minor=minor))
        got = await raw.receive_until_closed()
        assert fatal_codes(got) == ["password_required"], got
        assert not any(isinstance(m, Welcome) for m in got)
        assert "1.2" in got[0].message  # type: ignore[attr-defined]
        assert trio.current_time() == started  # (the mock clock did not move)


async def test_no_login_in_time_is_refused(hall: Hall, settings: Settings,
                                           autojump_clock: trio.testing.MockClock) -> None:
    assert hall.port
    raw, _ = await locked_welcome(hall.port)
    started = trio.current_time()
    assert fatal_codes(await raw.receive_until_closed(timeout=60)) == ["password_required"]
    assert trio.current_time() - started >= settings.handshake_seconds


async def test_a_name_in_use_is_not_told_before_the_login(hall: Hall) -> None:
    """An outsider learns nothing of who is here: a taken name gets the same welcome."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", password=PASSWORD):
        raw, welcome = await locked_welcome(hall.port, "ada")
        assert welcome.login is not None
        await raw.send(Login(proof=proof_for(welcome), id=1))
        assert fatal_codes(await raw.receive_until_closed()) == ["name_taken"]


async def test_a_stolen_token_without_the_password_takes_nothing(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", password=PASSWORD) as ada:
        raw, welcome = await locked_welcome(hall.port, "ada", token=ada.token)
        await raw.send(Login(proof=proof_for(welcome, "not it"), id=1))
        assert fatal_codes(await raw.receive_until_closed()) == ["wrong_password"]
        await ada.ping()
        assert ada.connected and ada.closed_reason is None  # not replaced


async def test_a_reconnecting_client_logs_in_again_and_keeps_its_player(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", password=PASSWORD) as ada:
        player, nonce = ada.player_id, ada.welcome.nonce if ada.welcome else None
        table = await ada.create_table("gin", 2)
        await ada.join(table, 0)
        stream = ada._stream
        assert stream is not None
        stream.socket.close()  # the connection drops
        await wait_for(lambda: ada.connected and ada.welcome is not None
                       and ada.welcome.nonce != nonce)
        assert ada.player_id == player
        await ada.ping()


# ------------------------------------------------------------------ guessing


async def _try(port: int, password: str) -> Error | LoggedIn:
    raw, reply = await log_in(port, password)
    await raw.aclose()
    return reply


async def test_brute_force_is_slow_and_the_delay_holds(
        hall: Hall, mock_clock: trio.testing.MockClock) -> None:
    """The first wrong guesses cost nothing; then each must wait, twice as long after
    each wrong one, up to the cap; a guess that comes too soon is not even checked (the
    right password is refused then too); waiting as told is enough."""
    assert hall.port
    for n in range(FREE_FAILURES):
        reply = await _try(hall.port, f"guess {n}")
        assert isinstance(reply, Error) and reply.code == "wrong_password"
        assert reply.retry_ms is None
    expected = FIRST_DELAY
    for n in range(8):
        reply = await _try(hall.port, f"again {n}")
        assert isinstance(reply, Error) and reply.code == "wrong_password"
        assert reply.retry_ms == expected * 1000
        early = await _try(hall.port, PASSWORD)  # too soon: not checked
        assert isinstance(early, Error) and early.code == "too_many_attempts" and early.fatal
        assert early.retry_ms == expected * 1000
        mock_clock.jump(expected - 0.01)
        still = await _try(hall.port, f"again {n} early")
        assert isinstance(still, Error) and still.code == "too_many_attempts"
        assert still.retry_ms is not None and 0 < still.retry_ms <= 20
        mock_clock.jump(0.01)
        expected = min(MAX_DELAY, expected * 2)
    assert expected == MAX_DELAY
    right = await _try(hall.port, PASSWORD)  # waited as told: checked, and right
    assert isinstance(right, LoggedIn)
    again = await _try(hall.port, "a typo")  # a right one cleared the record
    assert isinstance(again, Error) and again.code == "wrong_password" and again.retry_ms is None


async def test_the_delay_is_per_address(hall: Hall, mock_clock: trio.testing.MockClock
                                        ) -> None:
    """Another address guessing (injected through the limiter, the seam a test has for
    addresses it cannot have on loopback) delays only itself."""
    now = trio.current_time()
    for _ in range(20):
        hall.login_attempts.failed("192.0.2.66", now)
    assert hall.login_attempts.wait("192.0.2.66", now) == MAX_DELAY
    assert hall.port
    assert isinstance(await _try(hall.port, PASSWORD), LoggedIn)  # 127.0.0.1: not delayed


async def test_the_limiters_memory_is_bounded_under_a_flood_of_addresses(
        hall: Hall, mock_clock: trio.testing.MockClock) -> None:
    assert hall.port
    for _ in range(FREE_FAILURES + 1):
        await _try(hall.port, "wrong")
    assert hall.login_attempts.wait("127.0.0.1", trio.current_time()) > 0
    now = trio.current_time()
    for n in range(3 * CAPACITY):  # addresses nobody could have on one machine
        hall.login_attempts.failed(f"fd00::{n:x}", now)
        assert len(hall.login_attempts) <= CAPACITY
    assert len(hall.login_attempts) == CAPACITY
    # (the flood pushed out the least recently seen, our own record among them)
    assert isinstance(await _try(hall.port, PASSWORD), LoggedIn)


async def test_a_bot_plays_a_whole_game_in_a_hall_with_a_password(hall: Hall) -> None:
    assert hall.port
    bot = StrategyBot(make_strategy("simple", random.Random(3)))
    results = await run_bot(bot, "127.0.0.1", hall.port, name="robo", password=PASSWORD)
    assert len(results) == 1 and results[0].scores


def ban_name(hall: Hall, name: str) -> None:
    """A ban of ``name`` until lifted, as admin_ban makes it (no player holds it)."""
    bans = hall.admin.bans
    bans.add(Ban(number=bans.next_number, name=name, player=None, address=None,
                 until=None, until_unix=None, reason="cheating", since_unix=0.0))


async def test_a_banned_name_is_not_told_before_the_login(hall: Hall) -> None:
    """Behind the password, a stranger cannot learn who is banned (or why): a banned
    name gets the same challenge as any other, and `banned` only once logged in."""
    assert hall.port
    ban_name(hall, "mallory")
    raw, welcome = await locked_welcome(hall.port, "Mallory")
    assert welcome.login is not None and welcome.session is None
    await raw.send(Login(proof=proof_for(welcome), id=1))
    got = await raw.receive_until_closed()
    assert fatal_codes(got) == ["banned"] and "cheating" in got[-1].message  # type: ignore[attr-defined]
    assert not [p for p in hall.lobby.players.connected() if p.name == "Mallory"]
    raw, welcome = await locked_welcome(hall.port, "Mallory")  # a wrong password: wrong
    await raw.send(Login(proof=proof_for(welcome, "guess"), id=1))
    assert fatal_codes(await raw.receive_until_closed()) == ["wrong_password"]


async def test_a_ban_made_while_a_connection_logs_in_holds_for_it(hall: Hall) -> None:
    """A connection that said hello before the ban and logs in after it is refused: the
    bans are checked again, with no wait before the admission."""
    assert hall.port
    raw, welcome = await locked_welcome(hall.port, "mallory")
    ban_name(hall, "MALLORY")
    await raw.send(Login(proof=proof_for(welcome), id=1))
    assert fatal_codes(await raw.receive_until_closed()) == ["banned"]
    assert len(hall.lobby.players) == 0  # nobody was admitted
