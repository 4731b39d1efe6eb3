"""The host's controls, from a hostile client's point of view.

A real server on 127.0.0.1 with an admin credential in a temporary file. Another machine
is played by replacing the hall's ``addresses`` seam (the tests never leave loopback).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import ClassVar

import pytest
import trio
import trio.testing
from fast_settings import FAST
from players import RawClient, wait_for
from sessions import session_of

from rummyhall.protocol import (
    MESSAGES,
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminLogin,
    AdminMute,
    AdminNotice,
    AdminUnban,
    Bans,
    CreateTable,
    Error,
    Hello,
    Join,
    Message,
    Notice,
    Ok,
    Say,
    Snapshot,
    Start,
    TableRemoved,
    Welcome,
    admin_proof,
    json_value,
)
from rummyhall.protocol.examples import ADMIN_CREDENTIAL
from rummyhall.server import Hall, Settings
from rummyhall.server.credential import read_credential
from rummyhall.server.store import Store

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))


def _settings(tmp_path: Path) -> Settings:
    return dataclasses.replace(FAST, admin_key=str(tmp_path / "admin.key"))


@asynccontextmanager
async def serving(settings: Settings,
                  addresses: Callable[[trio.SocketStream], tuple[str, str]] | None = None
                  ) -> AsyncIterator[Hall]:
    hall = Hall(settings)
    if addresses is not None:
        hall.addresses = addresses  # type: ignore[method-assign, assignment]
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        try:
            yield hall
        finally:
            for client in Client.opened:
                await client.aclose()
            Client.opened.clear()
            hall.stop()


def from_machine(address: str, local: str = "127.0.0.1"
                 ) -> Callable[[trio.SocketStream], tuple[str, str]]:
    """The seam: every connection seems to come from ``address``."""
    return lambda stream: (address, local)


class Client(RawClient):
    """A raw client that remembers its welcome."""

    welcome: Welcome
    opened: ClassVar[list[Client]] = []  # closed when the server of the test stops

    @classmethod
    async def connect(cls, port: int) -> Client:
        client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        cls.opened.append(client)
        return client

    @classmethod
    async def join(cls, hall: Hall, name: str, *, kind: str = "person",
                   token: str | None = None) -> Client:
        assert hall.port
        client = await cls.connect(hall.port)
        await client.send(Hello(versions=(1,), name=name, kind=kind, token=token))
        welcome = await client.receive()
        assert isinstance(welcome, Welcome), welcome
        client.welcome = welcome
        return client

    async def ask(self, message: Message) -> Message:
        """Send a request; its reply (pushes before it are skipped)."""
        await self.send(message)
        while True:
            got = await self.receive()
            if getattr(got, "id", None) == getattr(message, "id", None) and isinstance(
                    got, (Ok, Error, Bans)):
                return got

    async def login(self, credential: str) -> Message:
        assert self.welcome.nonce is not None
        return await self.ask(AdminLogin(proof=admin_proof(credential, self.welcome.nonce),
                                         id=99))

    async def until(self, kind: type[Message]) -> Message:
        while True:
            got = await self.receive()
            if isinstance(got, kind):
                return got


async def admin_of(hall: Hall, settings: Settings, name: str = "host") -> Client:
    client = await Client.join(hall, name, kind="spectator")
    assert await client.login(read_credential(settings.admin_key)) == Ok(id=99)
    return client


def refused(reply: Message, code: str) -> bool:
    return isinstance(reply, Error) and reply.code == code and not reply.fatal


async def test_the_credential_is_made_once_private_and_never_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        key = Path(settings.admin_key)
        assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
        credential = read_credential(str(key))
        assert len(credential) == 64 and int(credential, 16) >= 0
        admin = await admin_of(hall, settings)
        assert "admin" in admin.welcome.features
        assert admin.welcome.nonce is not None and len(admin.welcome.nonce) == 32
        await admin.aclose()
    async with serving(settings):  # a restart keeps it
        assert read_credential(str(key)) == credential
    assert credential not in caplog.text
    assert str(key) in caplog.text  # (its path is logged, once, when it is made)


async def test_a_credential_file_others_can_read_is_made_private_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = _settings(tmp_path)
    key = Path(settings.admin_key)
    key.write_text("ab" * 32 + "\n")
    key.chmod(0o644)
    async with serving(settings):
        assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert "could be read by others" in caplog.text


async def test_a_players_connection_gets_not_admin_and_nothing_changes(
        tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        bob = await Client.join(hall, "bob")
        mallory = await Client.join(hall, "mallory")
        for number, request in enumerate([
                AdminKick(name="bob"), AdminBan(name="bob"), AdminUnban(name="bob"),
                AdminClose(table=1), AdminMute(name="bob", seconds=60),
                AdminNotice(text="free chips!"), AdminBans()]):
            reply = await mallory.ask(dataclasses.replace(request, id=number))  # type: ignore[type-var]
            assert refused(reply, "not_admin"), reply
        assert hall.admin.bans.in_force() == []
        assert await bob.ask(Say(text="still here", id=5)) == Ok(id=5)


async def test_a_wrong_credential_and_a_replayed_proof_are_denied(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        good = await Client.join(hall, "host")
        assert good.welcome.nonce is not None
        proof = admin_proof(read_credential(settings.admin_key), good.welcome.nonce)
        assert await good.ask(AdminLogin(proof=proof, id=1)) == Ok(id=1)
        # the proof seen on the wire, replayed on another connection: another nonce
        thief = await Client.join(hall, "thief")
        assert thief.welcome.nonce != good.welcome.nonce
        assert refused(await thief.ask(AdminLogin(proof=proof, id=2)), "admin_denied")
        assert refused(await thief.login("0" * 64), "admin_denied")  # a wrong credential
        for attempt in range(20):  # a flood of guesses: one log line, never a proof
            assert refused(await thief.login(f"{attempt:064x}"), "admin_denied")
        refusals = [r for r in caplog.records if "admin login refused" in r.getMessage()]
        assert len(refusals) == 1 and proof not in caplog.text
        assert refused(await thief.ask(AdminKick(name="host", id=3)), "not_admin")
        assert session_of(good.welcome).player in {p.id for p in hall.lobby.players.connected()}


async def test_another_machine_is_refused_unless_the_host_allows_the_lan(
        tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    credential_holder = _settings(tmp_path).admin_key
    async with serving(settings, from_machine("192.168.1.50")) as hall:
        lan = await Client.join(hall, "lan")
        credential = read_credential(credential_holder)
        assert refused(await lan.login(credential), "admin_not_local")
        assert refused(await lan.ask(AdminNotice(text="hi", id=1)), "not_admin")
    # the machine's own LAN address (peer and local end the same) is this machine
    async with serving(settings, from_machine("192.168.1.5", "192.168.1.5")) as hall:
        same = await Client.join(hall, "same")
        assert await same.login(credential) == Ok(id=99)
    async with serving(dataclasses.replace(settings, admin_from_lan=True),
                       from_machine("192.168.1.50")) as hall:
        lan = await Client.join(hall, "lan")
        assert await lan.login(credential) == Ok(id=99)


async def test_a_server_without_a_data_directory_has_no_controls() -> None:
    async with serving(FAST) as hall:
        client = await Client.join(hall, "host")
        assert "admin" not in client.welcome.features
        assert refused(await client.login("0" * 64), "admin_unavailable")


async def _seated_game(hall: Hall, *names: str) -> tuple[int, list[Client]]:
    """A game of Gin under way between ``names`` (the first created the table)."""
    clients = [await Client.join(hall, name) for name in names]
    created = await clients[0].ask(CreateTable(game="gin", players=2, id=1))
    assert isinstance(created, Ok) and created.table is not None
    for seat, client in enumerate(clients):
        assert isinstance(await client.ask(Join(table=created.table, seat=seat, id=2)), Ok)
    assert isinstance(await clients[0].ask(Start(table=created.table, id=3)), Ok)
    return created.table, clients


async def test_a_kicked_player_is_told_and_comes_back_with_its_token(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        table, (ada, bob) = await _seated_game(hall, "ada", "bob")
        admin = await admin_of(hall, settings)
        assert await admin.ask(AdminKick(name="BOB", reason="rude", id=1)) == Ok(id=1)
        closing = (await bob.receive_until_closed())[-1]
        assert isinstance(closing, Error) and closing.fatal and closing.code == "kicked"
        assert "rude" in closing.message
        seat = hall.lobby.tables[table].seats[1]
        assert seat.player is not None and seat.stand_in is None  # it waits (grace)
        back = await Client.join(hall, "bob", token=session_of(bob.welcome).token)
        assert session_of(back.welcome).resumed
        assert (await back.until(Snapshot)).table == table  # type: ignore[attr-defined]
        assert hall.lobby.tables[table].seats[1].present
        # seat "bot": a house bot plays at once; bob resumes, then joins to take it back
        assert await admin.ask(AdminKick(name="bob", seat="bot", id=2)) == Ok(id=2)
        await back.receive_until_closed()
        await wait_for(lambda: hall.lobby.tables[table].seats[1].stand_in is not None)
        again = await Client.join(hall, "bob", token=session_of(bob.welcome).token)
        assert session_of(again.welcome).resumed
        assert isinstance(await again.ask(Join(table=table, id=4)), Ok)
        assert hall.lobby.tables[table].seats[1].stand_in is None
        del ada


async def test_a_kick_with_seat_bot_frees_a_seat_at_a_table_not_started(tmp_path: Path
                                                                       ) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        ada, bob = await Client.join(hall, "ada"), await Client.join(hall, "bob")
        created = await ada.ask(CreateTable(game="gin", players=2, id=1))
        assert isinstance(created, Ok) and created.table is not None
        assert isinstance(await bob.ask(Join(table=created.table, seat=1, id=2)), Ok)
        admin = await admin_of(hall, settings)
        assert await admin.ask(AdminKick(name="bob", seat="bot", id=3)) == Ok(id=3)
        await bob.receive_until_closed()
        table = hall.lobby.tables[created.table]
        await wait_for(lambda: table.seats[1].player is None)
        assert created.table not in hall.lobby.players.holder("bob").tables  # type: ignore[union-attr]


async def test_kicking_or_banning_a_name_nobody_has_changes_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        admin = await admin_of(hall, settings)
        assert refused(await admin.ask(AdminKick(name="ghost", id=1)), "no_such_player")
        assert refused(await admin.ask(AdminBan(name="ghost", seconds=60, id=2)),
                       "no_such_player")
        assert refused(await admin.ask(AdminMute(name="ghost", seconds=60, id=3)),
                       "no_such_player")
        assert refused(await admin.ask(AdminBan(id=4)), "bad_ban")
        assert refused(await admin.ask(AdminBan(address="not-an-ip", id=5)), "bad_ban")
        assert refused(await admin.ask(AdminBan(address="127.0.0.1", id=6)), "bad_ban")
        assert refused(await admin.ask(AdminUnban(name="ghost", id=7)), "no_such_ban")
        assert refused(await admin.ask(AdminClose(table=9, id=8)), "no_such_table")
        gone = await Client.join(hall, "gone")
        await gone.aclose()
        await wait_for(lambda: not hall.lobby.players.holder("gone").connected)  # type: ignore[union-attr]
        assert refused(await admin.ask(AdminKick(name="gone", id=9)), "not_connected")
        reply = await admin.ask(AdminBans(id=10))
        assert reply == Bans(bans=(), id=10)
    assert hall.admin.bans.in_force() == []


async def test_a_banned_player_is_refused_with_its_token_until_the_ban_ends(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        bob = await Client.join(hall, "bob")
        token = session_of(bob.welcome).token
        admin = await admin_of(hall, settings)
        assert await admin.ask(AdminBan(name="bob", seconds=60, reason="cheating",
                                        id=1)) == Ok(id=1)
        closing = (await bob.receive_until_closed())[-1]
        assert isinstance(closing, Error) and closing.code == "banned" and closing.fatal
        for name, with_token in (("bob", token), ("Bob", None), ("robert", token)):
            retry = await Client.connect(hall.port or 0)
            await retry.send(Hello(versions=(1,), name=name, kind="person", token=with_token))
            got = await retry.receive_until_closed()
            assert [(m.code, m.fatal) for m in got if isinstance(m, Error)] == \
                [("banned", True)], (name, got)
            assert "cheating" in got[-1].message  # type: ignore[attr-defined]
        other = await Client.join(hall, "robert")  # another player may still come
        await other.aclose()
        listed = await admin.ask(AdminBans(id=2))
        assert isinstance(listed, Bans) and [b.name for b in listed.bans] == ["bob"]
        mock_clock.jump(61)  # the ban ends
        back = await Client.join(hall, "bob", token=token)
        assert session_of(back.welcome).resumed
        assert await admin.ask(AdminBans(id=3)) == Bans(bans=(), id=3)
        mock_clock.autojump_threshold = 0.01  # (the shutdown's waits)


async def test_a_banned_name_held_by_its_seat_is_told_banned_not_taken(tmp_path: Path
                                                                     ) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        table, (ada, bob) = await _seated_game(hall, "ada", "bob")
        admin = await admin_of(hall, settings)
        assert await admin.ask(AdminBan(name="bob", seat="wait", id=1)) == Ok(id=1)
        await bob.receive_until_closed()
        assert hall.lobby.tables[table].seats[1].stand_in is None  # the seat waits
        impostor = await Client.connect(hall.port or 0)
        await impostor.send(Hello(versions=(1,), name="BOB", kind="person"))
        assert [m.code for m in await impostor.receive_until_closed()
                if isinstance(m, Error)] == ["banned"]
        del ada


async def test_an_address_ban_refuses_at_connect_and_is_lifted(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    seen = {"address": "127.0.0.1"}
    async with serving(settings, lambda stream: (seen["address"], "127.0.0.1")) as hall:
        admin = await admin_of(hall, settings)
        seen["address"] = "10.0.0.7"
        visitor = await Client.join(hall, "visitor")
        assert await admin.ask(AdminBan(address="10.0.0.7", id=1)) == Ok(id=1)
        assert (await visitor.receive_until_closed())[-1].code == "banned"  # type: ignore[attr-defined]
        again = await Client.connect(hall.port or 0)  # refused before its hello
        got = await again.receive_until_closed()
        assert [m.code for m in got if isinstance(m, Error)] == ["banned"]
        assert await admin.ask(AdminUnban(address="10.0.0.7", id=2)) == Ok(id=2)
        assert session_of((await Client.join(hall, "visitor")).welcome).resumed is False


async def test_closing_a_table_tells_its_players(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        table, (ada, bob) = await _seated_game(hall, "ada", "bob")
        admin = await admin_of(hall, settings)
        assert await admin.ask(AdminClose(table=table, reason="closing time",
                                          id=1)) == Ok(id=1, table=table)
        for client in (ada, bob):
            notice = await client.until(Notice)
            assert notice == Notice(text=f"the host closed table {table}: closing time",
                                    table=table)
            assert await client.until(TableRemoved) == TableRemoved(table=table)
        assert table not in hall.lobby.tables


async def test_a_muted_player_cannot_chat_until_the_mute_ends_and_notices_reach_all(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """A mute holds to its last moment, and holds the name as well as the player: one
    that comes back under that name without its token (a new player to the server) is
    muted still, until the mute ends or the host lifts it."""
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        bob = await Client.join(hall, "bob")
        ada = await Client.join(hall, "ada")
        admin = await admin_of(hall, settings)

        async def bob_again(name: str) -> Client:
            """Bob closes, and says hello under ``name`` without its token."""
            await bob.aclose()
            await trio.testing.wait_all_tasks_blocked()  # (the server saw it close)
            holder = hall.lobby.players.holder("bob")
            assert holder is not None and not holder.connected
            again = await Client.join(hall, name)
            assert not session_of(again.welcome).resumed
            return again

        assert await admin.ask(AdminMute(name="bob", seconds=60, id=1)) == Ok(id=1)
        reply = await bob.ask(Say(text="spam", id=2))
        assert refused(reply, "muted") and "60 more" in reply.message  # type: ignore[attr-defined]
        bob = await bob_again("Bob")
        mock_clock.jump(59.5)  # (the idle timeout is longer)
        reply = await bob.ask(Say(text="again", id=3))
        assert refused(reply, "muted") and "1 more" in reply.message  # type: ignore[attr-defined]
        mock_clock.jump(1)
        assert await bob.ask(Say(text="sorry", id=4)) == Ok(id=4)
        assert await admin.ask(AdminMute(name="bob", seconds=600, id=5)) == Ok(id=5)
        assert await admin.ask(AdminMute(name="bob", seconds=0, id=6)) == Ok(id=6)
        bob = await bob_again("bob")
        assert await bob.ask(Say(text="lifted", id=7)) == Ok(id=7)
        assert await admin.ask(AdminNotice(text="last round", id=8)) == Ok(id=8)
        for client in (ada, bob):
            assert await client.until(Notice) == Notice(text="last round")
        mock_clock.autojump_threshold = 0.01  # (the shutdown's waits)


async def test_lifting_a_mute_lifts_it_for_every_player_it_reached(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """A mute lifted (0 seconds) under the name's borrower lifts the owner's too, and one
    lifted under the player's new name lifts the name it was muted under: no player keeps
    a mute the host was told is lifted."""
    settings = _settings(tmp_path)
    async with serving(settings) as hall:
        admin = await admin_of(hall, settings)

        async def hello(name: str, token: str | None = None,
                        leaving: Client | None = None) -> Client:
            if leaving is not None:
                await leaving.aclose()
                await trio.testing.wait_all_tasks_blocked()  # (the server saw it close)
            return await Client.join(hall, name, token=token)

        async def says(client: Client, n: int) -> bool:
            reply = await client.ask(Say(text=f"line {n}", id=n))
            assert reply == Ok(id=n) or refused(reply, "muted"), reply
            return reply == Ok(id=n)

        bob = await hello("bob")
        token = session_of(bob.welcome).token
        assert await admin.ask(AdminMute(name="bob", seconds=600, id=1)) == Ok(id=1)
        borrower = await hello("bob", leaving=bob)  # the name without the token: muted
        assert not await says(borrower, 2)
        assert await admin.ask(AdminMute(name="bob", seconds=0, id=3)) == Ok(id=3)
        assert await says(borrower, 4)
        owner = await hello("bob", token)  # (the borrower loses the name to its owner)
        assert await says(owner, 5)
        assert await admin.ask(AdminMute(name="bob", seconds=600, id=6)) == Ok(id=6)
        renamed = await hello("robert", token, leaving=owner)  # the player: muted
        assert not await says(renamed, 7)
        assert await admin.ask(AdminMute(name="robert", seconds=0, id=8)) == Ok(id=8)
        assert await says(renamed, 9)
        newcomer = await hello("bob")  # the name it was muted under: lifted with it
        assert await says(newcomer, 10)
        mock_clock.autojump_threshold = 0.01  # (the shutdown's waits)


async def test_bans_and_the_admin_log_survive_a_restart(tmp_path: Path) -> None:
    settings = dataclasses.replace(FAST, data=str(tmp_path / "hall.sqlite3"))
    async with serving(settings) as hall:
        key = tmp_path / "hall.sqlite3.admin-key"
        assert stat.S_IMODE(os.stat(key).st_mode) == 0o600  # beside the data file
        table, (ada, bob) = await _seated_game(hall, "ada", "bob")
        admin = await admin_of(hall, dataclasses.replace(settings, admin_key=str(key)))
        assert await admin.ask(AdminBan(name="bob", seconds=3600, id=1)) == Ok(id=1)
        assert await admin.ask(AdminNotice(text="hello all", id=2)) == Ok(id=2)
        token = session_of(bob.welcome).token
        del ada, table
    async with serving(settings) as hall:
        retry = await Client.connect(hall.port or 0)
        await retry.send(Hello(versions=(1,), name="bob", kind="person", token=token))
        assert [m.code for m in await retry.receive_until_closed()
                if isinstance(m, Error)] == ["banned"]
        admin = await admin_of(hall, dataclasses.replace(settings, admin_key=str(key)))
        listed = await admin.ask(AdminBans(id=3))
        assert isinstance(listed, Bans) and [b.name for b in listed.bans] == ["bob"]
        assert listed.bans[0].until is not None
        assert await admin.ask(AdminUnban(name="bob", id=4)) == Ok(id=4)
    store = Store.open_for_reading(settings.data)
    try:
        log = store.admin_log()
        assert store.bans() == []
    finally:
        store.close()
    assert [e["action"] for e in log] == ["unban", "login", "notice", "ban", "login"]
    assert log[3]["target"] == "bob" and log[3]["details"]["seconds"] == 3600
    assert all(e["who"] == "host at 127.0.0.1" for e in log)


def _masked(wire: dict[str, object]) -> dict[str, object]:
    if wire.get("type") == "welcome":
        session = wire["session"]
        assert isinstance(session, dict)
        return {**wire, "session": {**session, "token": "<token>"}, "nonce": "<nonce>"}
    return wire


async def test_the_kits_admin_transcript_replays_against_the_server(tmp_path: Path) -> None:
    """Every frame of the kit's admin login and kick, on each connection in order (the
    proof made from the nonce this server sent; token and nonce masked)."""
    settings = dataclasses.replace(_settings(tmp_path), messages_per_second=100, burst=200)
    Path(settings.admin_key).write_text(ADMIN_CREDENTIAL + "\n")
    Path(settings.admin_key).chmod(0o600)
    async with serving(settings) as hall:
        clients: dict[str, Client] = {}
        nonces: dict[str, str] = {}
        for frame in KIT["admin_transcript"]:
            name, wire = frame["connection"], frame["message"]
            if frame["from"] == "client":
                if name not in clients:
                    clients[name] = await Client.connect(hall.port or 0)
                message = MESSAGES[wire["type"]].from_wire(wire)
                if isinstance(message, AdminLogin):
                    message = dataclasses.replace(
                        message, proof=admin_proof(ADMIN_CREDENTIAL, nonces[name]))
                await clients[name].send(message)
            else:
                got = await clients[name].receive()
                if isinstance(got, Welcome) and got.nonce is not None:
                    nonces[name] = got.nonce
                assert _masked(json_value(got.to_wire())) == _masked(wire), frame
