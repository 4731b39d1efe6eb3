"""Optional TLS over real sockets: whole games, the three ways a client checks a server,
and the two wrong pairings (a plain client on a TLS server, a TLS client on a plain one).

The certificates are made in each test's temporary directory; the known-servers file of
trust on first use lives there too.
"""

from __future__ import annotations

import os
import ssl
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing
from fast_settings import FAST, with_settings
from players import RawClient, play_seat, wait_for

from rummyhall.bots import SimpleBot
from rummyhall.client import (
    KnownServers,
    NotTLS,
    ServerClosed,
    ServerTrust,
    StrategyBot,
    UntrustedServer,
    open_session,
    run_bot,
)
from rummyhall.client.trust import KnownServersError, server_key
from rummyhall.protocol import SERVER, Connection, Error, TokenBucket
from rummyhall.protocol.beacon import Beacon, decode_beacon, encode_beacon
from rummyhall.server import Hall, Settings
from rummyhall.server.arrivals import ArrivalLimiter
from rummyhall.server.metering import FREE_READS, ReadMeter
from rummyhall.server.tls import (
    CERT_FILE,
    KEY_FILE,
    LingeringTransport,
    TLSSetupError,
    certificate_fingerprint,
    load_server_tls,
    make_self_signed,
)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    # (the self-signed pair goes to the data directory: the test's own)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return with_settings(tls=True)


@pytest.fixture
def known(tmp_path: Path) -> KnownServers:
    return KnownServers(tmp_path / "known_servers.json")


@pytest.fixture
async def plain_hall() -> AsyncIterator[Hall]:
    server = Hall(FAST)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        yield server
        nursery.cancel_scope.cancel()


def fingerprint(hall: Hall) -> str:
    assert hall.tls is not None
    return hall.tls.fingerprint


async def test_a_whole_game_over_tls_with_two_client_sessions(hall: Hall,
                                                              known: KnownServers) -> None:
    assert hall.port and hall.tls is not None and hall.tls.self_signed
    trust = ServerTrust(known=known)
    async with open_session("127.0.0.1", hall.port, name="ada", tls=trust) as ada, \
            open_session("127.0.0.1", hall.port, name="bob", tls=trust) as bob:
        assert ada.tls_fingerprint == bob.tls_fingerprint == fingerprint(hall)
        table = await ada.create_table("gin", 2, {"target_score": 30})
        await ada.join(table, 0)
        await bob.join(table, 1)
        await ada.start(table)
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play_seat, ada, table, SimpleBot())
                nursery.start_soon(play_seat, bob, table, SimpleBot())
        for session in (ada, bob):
            view = session.tables[table].view
            assert view is not None and view.phase == "game_over" and view.winners
        assert ada.tables[table].view.scores == bob.tables[table].view.scores  # type: ignore[union-attr]
    # trust on first use remembered the one fingerprint seen
    assert known.get(server_key("127.0.0.1", hall.port)) == fingerprint(hall)


async def test_a_whole_game_over_tls_with_the_bot_library(hall: Hall,
                                                          known: KnownServers) -> None:
    assert hall.port
    trust = ServerTrust(fingerprint=fingerprint(hall), known=known)
    with trio.fail_after(120):
        results = await run_bot(StrategyBot(SimpleBot()), "127.0.0.1", hall.port, game="gin",
                                options={"target_score": 30}, games=2, tls=trust)
    assert len(results) == 2 and all(r.winners for r in results)


async def test_trust_on_first_use_remembers_then_refuses_a_changed_certificate(
        hall: Hall, known: KnownServers) -> None:
    assert hall.port
    key = server_key("127.0.0.1", hall.port)
    other = "ab" * 32
    known.remember(key, other)  # as if another certificate had been seen here first
    before = known.path.read_bytes()
    with pytest.raises(UntrustedServer) as info:
        async with open_session("127.0.0.1", hall.port, name="ada",
                                tls=ServerTrust(known=known)):
            pass
    warning = str(info.value)
    assert "HAS CHANGED" in warning and "--fingerprint" in warning
    assert "AB:AB:AB" in warning  # the remembered one
    assert fingerprint(hall)[:8].upper() in warning.replace(":", "")  # the presented one
    assert info.value.presented == fingerprint(hall) and info.value.expected == other
    assert known.path.read_bytes() == before  # nothing changed on our side...
    assert hall.lobby.players.holder("ada") is None  # ...nor on the server's
    # Accepting it after checking: one connection with the pin replaces the remembered
    # one, and trust on first use takes it from then on.
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(fingerprint=fingerprint(hall), known=known)):
        pass
    assert known.get(key) == fingerprint(hall)
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(known=known)) as ada:
        await ada.ping()


async def test_first_use_is_remembered_and_a_second_use_is_accepted(
        hall: Hall, known: KnownServers) -> None:
    assert hall.port
    key = server_key("127.0.0.1", hall.port)
    assert known.get(key) is None
    for name in ("ada", "bob"):
        async with open_session("127.0.0.1", hall.port, name=name,
                                tls=ServerTrust(known=known)) as session:
            await session.ping()
    assert known.get(key) == fingerprint(hall)
    assert len(known._load()) == 1


async def test_a_pinned_fingerprint_that_does_not_match_is_refused(
        hall: Hall, known: KnownServers) -> None:
    assert hall.port
    with pytest.raises(UntrustedServer) as info:
        async with open_session("127.0.0.1", hall.port, name="ada",
                                tls=ServerTrust(fingerprint="00" * 32, known=known)):
            pass
    assert "not the pinned one" in str(info.value)
    assert not known.path.exists()  # a refused pin remembers nothing
    assert hall.lobby.players.holder("ada") is None


async def test_a_known_ca_file_verifies_the_chain_and_the_name(
        hall: Hall, known: KnownServers, tmp_path: Path) -> None:
    assert hall.port and hall.tls is not None
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(cafile=str(hall.tls.cert))) as ada:
        await ada.ping()
    stranger = tmp_path / "stranger"
    make_self_signed(stranger / "cert.pem", stranger / "key.pem")
    with pytest.raises(UntrustedServer, match="not trusted by"):
        async with open_session("127.0.0.1", hall.port, name="bob",
                                tls=ServerTrust(cafile=str(stranger / "cert.pem"))):
            pass
    assert not known.path.exists()


async def test_a_plain_client_on_a_tls_server_gets_a_plain_framed_error(hall: Hall) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.send_bytes(b"\x00\x00\x00\x20")  # the start of a plain hello's frame
    (error,) = await raw.receive_until_closed()
    assert isinstance(error, Error) and error.fatal and error.code == "tls_required"
    assert "TLS" in error.message
    # the client library says so once, and does not retry
    with pytest.raises(ServerClosed) as info:
        async with open_session("127.0.0.1", hall.port, name="ada"):
            pass
    assert info.value.code == "tls_required"
    assert hall.refused["tls_required"] == 2
    assert not hall.sessions and hall.lobby.players.holder("ada") is None


async def test_a_tls_client_on_a_plain_server_is_told_it_does_not_speak_tls(
        plain_hall: Hall, known: KnownServers) -> None:
    assert plain_hall.port
    with pytest.raises(NotTLS, match="does not speak TLS"):
        async with open_session("127.0.0.1", plain_hall.port, name="ada",
                                tls=ServerTrust(known=known)):
            pass
    assert not known.path.exists()
    # it cost that connection only: the same server serves a plain client at once
    async with open_session("127.0.0.1", plain_hall.port, name="ada") as ada:
        await ada.ping()
    assert plain_hall.closed["frame_too_large"] == 1


async def test_a_broken_handshake_costs_its_connection_only(hall: Hall,
                                                            known: KnownServers) -> None:
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.send_bytes(b"\x16\x03\x01\x00\x05hello" + b"\x00" * 64)  # a record, not TLS
    answer = b""
    with trio.fail_after(10):
        try:
            while data := await raw.stream.receive_some(1024):
                answer += data
        except trio.BrokenResourceError:
            pass
    await raw.aclose()
    assert not answer.startswith(b"\x00")  # no plain frame: at most a TLS alert
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(known=known)) as ada:
        await ada.ping()
    assert hall.refused["tls_handshake"] == 1


async def test_a_reconnect_loop_past_the_rate_costs_no_handshake(
        hall: Hall, known: KnownServers, mock_clock: trio.testing.MockClock) -> None:
    """Over TLS a connection past ``connect_rate`` is closed before its handshake (the
    work the limit saves), without a word; the client inside the rate was served."""
    assert hall.port
    hall.arrivals = ArrivalLimiter(rate=1, burst=1)  # (the clock stands still: 1 in all)
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(known=known)) as ada:
        await ada.ping()
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        looping = trio.SSLStream(await trio.open_tcp_stream("127.0.0.1", hall.port), context)
        with pytest.raises(trio.BrokenResourceError):
            await looping.do_handshake()
        await trio.aclose_forcefully(looping)
        assert (hall.refused["too_many_connections"], hall.closed_at_once) == (1, 1)
        await ada.ping()  # its connection is untouched


async def test_a_silent_client_on_a_tls_port_times_out_like_on_a_plain_one(
        hall: Hall, mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    silent = await RawClient.connect(hall.port)
    codes = [m.code for m in await silent.receive_until_closed(timeout=60)
             if isinstance(m, Error)]
    assert codes == ["handshake_timeout"]


async def test_a_server_full_refusal_is_read_over_tls(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      known: KnownServers) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = Hall(with_settings(tls=True, max_connections=1))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve)
        async with open_session("127.0.0.1", port, name="ada",
                                tls=ServerTrust(known=known)):
            with pytest.raises(ServerClosed) as info:
                async with open_session("127.0.0.1", port, name="bob",
                                        tls=ServerTrust(known=known)):
                    pass
            assert info.value.code == "server_full"
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------- certificates


def test_the_self_signed_certificate_is_made_once_with_a_private_key(tmp_path: Path) -> None:
    first = load_server_tls("", "", tmp_path)
    assert first.self_signed and first.cert == tmp_path / CERT_FILE
    assert stat.S_IMODE(os.stat(tmp_path / KEY_FILE).st_mode) == 0o600
    again = load_server_tls("", "", tmp_path)
    assert again.fingerprint == first.fingerprint  # kept, not made anew
    assert certificate_fingerprint(tmp_path / CERT_FILE) == first.fingerprint
    assert first.shown.startswith("SHA-256 ") and first.shown.count(":") == 31
    assert first.context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_the_operators_certificate_and_key(tmp_path: Path) -> None:
    make_self_signed(tmp_path / "mine.pem", tmp_path / "mine.key", hostname="hall.example")
    tls = load_server_tls(str(tmp_path / "mine.pem"), str(tmp_path / "mine.key"),
                          tmp_path / "unused")
    assert not tls.self_signed and not (tmp_path / "unused").exists()
    with pytest.raises(TLSSetupError, match="go together"):
        load_server_tls(str(tmp_path / "mine.pem"), "", tmp_path)
    with pytest.raises(TLSSetupError, match="no such file"):
        load_server_tls(str(tmp_path / "missing.pem"), str(tmp_path / "mine.key"), tmp_path)
    make_self_signed(tmp_path / "other.pem", tmp_path / "other.key")
    with pytest.raises(TLSSetupError, match="cannot use the certificate"):
        load_server_tls(str(tmp_path / "mine.pem"), str(tmp_path / "other.key"), tmp_path)


def test_without_cryptography_a_clear_message_says_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cryptography", None)  # (an import now fails)
    with pytest.raises(TLSSetupError, match=r"rummyhall\[tls\]"):
        load_server_tls("", "", tmp_path)
    assert not (tmp_path / KEY_FILE).exists()


async def test_a_tls_server_that_cannot_load_its_certificate_does_not_listen(
        tmp_path: Path) -> None:
    server = Hall(with_settings(tls=True, tls_cert=str(tmp_path / "no.pem"),
                                tls_key=str(tmp_path / "no.key")))
    with pytest.raises(TLSSetupError):
        await server.serve()
    assert server.port is None


# ---------------------------------------------------------------- beacon and store


def test_the_beacon_carries_the_fingerprint_and_drops_a_bad_one() -> None:
    beacon = Beacon(name="Hall", port=7654, tables=1, players=2, fingerprint="0f" * 32)
    heard = decode_beacon(encode_beacon(beacon))
    assert heard is not None and heard.tls and heard.fingerprint == "0f" * 32
    plain = decode_beacon(encode_beacon(Beacon(name="Hall", port=1, tables=0, players=0)))
    assert plain is not None and not plain.tls
    bad = encode_beacon(Beacon(name="Hall", port=1, tables=0, players=0,
                               fingerprint="0F" * 32))  # not the wire form
    assert decode_beacon(bad) is None


def test_a_damaged_known_servers_file_is_refused_not_emptied(tmp_path: Path) -> None:
    path = tmp_path / "known.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(KnownServersError, match="damaged"):
        KnownServers(path).get("127.0.0.1:1")
    path.write_text('{"servers": {"a:1": {"sha256": "zz"}}}', encoding="utf-8")
    with pytest.raises(KnownServersError):
        KnownServers(path).get("a:1")
    assert server_key("::1", 7654) == "[::1]:7654"
    assert server_key("Hall.LAN", 7654) == "hall.lan:7654"


# ---------------------------------------------------------------- the commands


async def test_rummyhall_bot_over_tls_pinned_and_refused(hall: Hall, tmp_path: Path) -> None:
    """``rummyhall bot --fingerprint`` plays over TLS; a wrong pin is one line, status 1."""
    assert hall.port
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "client")}
    base = [sys.executable, "-m", "rummyhall", "bot", "--server", f"127.0.0.1:{hall.port}",
            "--game", "gin", "-o", "target_score=10"]
    good = await trio.run_process([*base, "--fingerprint", hall.tls.shown if hall.tls else ""],
                                  capture_stdout=True, capture_stderr=True, check=False,
                                  env=env)
    assert good.returncode == 0, good.stderr.decode()
    assert "of 1 games won" in good.stdout.decode()
    wrong = await trio.run_process([*base, "--name", "bob", "--fingerprint", "11" * 32],
                                   capture_stdout=True, capture_stderr=True, check=False,
                                   env=env)
    err = wrong.stderr.decode()
    assert wrong.returncode == 1 and "not the pinned one" in err and "Traceback" not in err
    bad = await trio.run_process([*base, "--fingerprint", "12:34"], capture_stderr=True,
                                 check=False, env=env)
    assert bad.returncode == 2 and b"not a SHA-256 fingerprint" in bad.stderr


def test_the_list_of_servers_found_shows_a_lock_for_tls(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from rummyhall import play  # noqa: PLC0415 (the command's module, for its list)
    from rummyhall.client.console import Profile  # noqa: PLC0415
    from rummyhall.client.discovery import Heard  # noqa: PLC0415

    heard = Heard()
    heard.heard(Beacon(name="Locked", port=7000, tables=1, players=1, fingerprint="ab" * 32),
                "10.0.0.2", 0.0)
    heard.heard(Beacon(name="Open", port=7001, tables=0, players=0), "10.0.0.3", 0.0)
    found = heard.servers(0.0)
    assert [f.tls for f in found] == [True, False]

    async def fake_discover(seconds: float) -> list[object]:
        return list(found)

    monkeypatch.setattr(play, "discover", fake_discover)
    answers = iter(["1", "2"])
    monkeypatch.setattr(play, "ask", lambda prompt: next(answers))
    profile = Profile(tmp_path / "console.json")
    assert play.choose_server(profile, 0.1) == ("10.0.0.2:7000", True)
    assert play.choose_server(profile, 0.1) == ("10.0.0.3:7001", False)
    out = capsys.readouterr().out
    locked = next(line for line in out.splitlines() if "Locked" in line)
    opened = next(line for line in out.splitlines() if "Open" in line)
    assert play.LOCK in locked and "TLS" in locked and play.LOCK not in opened
    assert "AB:AB:AB" in out


def test_a_key_readable_by_others_is_warned_about(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    make_self_signed(tmp_path / "c.pem", tmp_path / "k.pem")
    load_server_tls(str(tmp_path / "c.pem"), str(tmp_path / "k.pem"), tmp_path)
    assert "chmod 600" not in caplog.text
    os.chmod(tmp_path / "k.pem", 0o644)
    load_server_tls(str(tmp_path / "c.pem"), str(tmp_path / "k.pem"), tmp_path)
    assert "chmod 600" in caplog.text


async def test_the_beacon_of_a_tls_server_carries_its_fingerprint(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    listener = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with listener:
        await listener.bind(("127.0.0.1", 0))
        udp = listener.getsockname()[1]
        hall = Hall(with_settings(tls=True, beacon=True, beacon_address="127.0.0.1",
                                  beacon_port=udp, beacon_seconds=0.05))
        async with trio.open_nursery() as nursery:
            port = await nursery.start(hall.serve)
            with trio.fail_after(10):
                data, _ = await listener.recvfrom(2048)
            nursery.cancel_scope.cancel()
    beacon = decode_beacon(data)
    assert beacon is not None and beacon.port == port and beacon.tls
    assert beacon.fingerprint == fingerprint(hall)


async def test_rummyhall_serve_tls_prints_the_fingerprint(tmp_path: Path,
                                                          known: KnownServers) -> None:
    command = [sys.executable, "-m", "rummyhall", "serve", "--tls", "--host", "127.0.0.1",
               "--port", "0", "--no-beacon", "--log-level", "warning",
               "--data", str(tmp_path / "hall.db")]
    process = await trio.lowlevel.open_process(command, stdout=-1)
    try:
        assert process.stdout is not None
        out = b""
        with trio.fail_after(30):
            while b"Data file" not in out:
                out += await process.stdout.receive_some(4096)
        text = out.decode()
        port = int(text.split("listening on 127.0.0.1:")[1].split()[0])
        assert "(TLS)" in text and "play --tls" in text
        shown_line = next(line for line in text.splitlines() if "fingerprint:" in line)
        pinned = shown_line.split("SHA-256 ")[1].replace(":", "").lower()
        assert pinned == certificate_fingerprint(tmp_path / CERT_FILE)
        assert stat.S_IMODE(os.stat(tmp_path / KEY_FILE).st_mode) == 0o600
        async with open_session("127.0.0.1", port, name="ada",
                                tls=ServerTrust(fingerprint=pinned, known=known)) as ada:
            assert ada.tls_fingerprint == pinned
    finally:
        process.kill()
        await process.wait()
        if process.stdout is not None:
            await process.stdout.aclose()


async def test_a_dropped_tls_session_resumes_and_a_changed_certificate_ends_it(
        hall: Hall, known: KnownServers) -> None:
    assert hall.port
    key = server_key("127.0.0.1", hall.port)
    async with open_session("127.0.0.1", hall.port, name="ada", reconnect_seconds=30,
                            tls=ServerTrust(known=known)) as ada:
        player = ada.player_id
        assert ada._stream is not None
        ada._stream.socket.close()  # the connection drops under the session's feet
        with trio.fail_after(30):
            while (await ada.next_update()).payload != "resumed":
                pass
        assert ada.player_id == player and ada.connected  # the token, over TLS again
        await ada.ping()
        known.remember(key, "cd" * 32)  # as if the server had shown another before
        ada._stream.socket.close()
        with trio.fail_after(30):
            while (await ada.next_update()).payload != "closed":
                pass
        assert ada.closed_reason is not None and ada.closed_reason.code == "tls"
        assert "HAS CHANGED" in str(ada.closed_reason)
    assert known.get(key) == "cd" * 32


async def test_a_connection_reset_before_its_first_byte_costs_nothing(
        hall: Hall, known: KnownServers) -> None:
    assert hall.port
    for _ in range(3):
        sock = trio.socket.socket()
        await sock.connect(("127.0.0.1", hall.port))
        await wait_for(lambda: hall._opening == 1)  # the server waits for its first byte
        sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_LINGER,
                        b"\x01\x00\x00\x00\x00\x00\x00\x00")  # close with a reset
        sock.close()
        await wait_for(lambda: hall._opening == 0 and not hall._per_address)
    async with open_session("127.0.0.1", hall.port, name="ada",
                            tls=ServerTrust(known=known)) as ada:
        await ada.ping()


async def test_the_tls_transport_meters_each_read_of_the_socket(
        mock_clock: trio.testing.MockClock) -> None:
    """Under TLS one decrypted chunk may take many reads of the socket, which the
    session never sees: the transport under the TLS stream reports each to the
    connection's meter. Forty reads of a byte each, past a frame's free reads (4), cost
    a token each, and past the burst (20) they come at the rate (10 a second): the
    last fifteen take a second and a half. (Before, any number of them cost nothing.)"""
    mock_clock.autojump_threshold = 0
    ours, theirs = trio.socket.socketpair()
    client, server = trio.SocketStream(ours), trio.SocketStream(theirs)
    bucket = TokenBucket(rate=10, burst=20)
    charged: list[int] = []

    def charge(tokens: int) -> None:
        charged.append(tokens)
        bucket.charge(tokens)

    transport = LingeringTransport(server, 1.0, 1_000)
    transport.meter = ReadMeter(Connection(SERVER), (bucket,), charge, lambda: None)
    began = trio.current_time()
    for _ in range(40):
        await client.send_all(b"x")
        assert await transport.receive_some(65_536) == b"x"
    assert len(charged) == 40 - FREE_READS
    assert trio.current_time() - began >= (40 - FREE_READS - 20 - 1) / 10
    await client.aclose()
    await server.aclose()
