"""The console at a hall with a password and at private tables."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from console_driver import Person, Scenario
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from rummyhall.client import HallCredential, ServerClosed
from rummyhall.client.console import ConsoleHandle, ConsoleOptions, Profile, run_console
from rummyhall.client.console.layout import lobby_text
from rummyhall.protocol import Verifier, derive

PASSWORD = "four random words here"
SALT = bytes.fromhex("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
LOCKED = {"password": Verifier.of(PASSWORD, SALT, 1000).text()}
LIMIT = 40.0


def run(port: int, scenario: Scenario, credential: HallCredential | None) -> None:
    options = ConsoleOptions("127.0.0.1", port, "ada", reconnect_seconds=10,
                             password=credential)
    with create_pipe_input() as pipe:
        async def drive(handle: ConsoleHandle) -> None:
            await scenario(Person(handle, pipe))

        asyncio.run(asyncio.wait_for(run_console(options, input=pipe, output=DummyOutput(),
                                                 driver=drive), LIMIT))


async def nothing(p: Person) -> None:
    await p.wait(lambda: p.model.games, what="the games")


@pytest.mark.parametrize("server_port", [LOCKED], indirect=True)
def test_the_console_logs_in_with_the_password_or_says_why_not(server_port: int) -> None:
    run(server_port, nothing, HallCredential(PASSWORD))
    saved = HallCredential(saved={(SALT.hex(), 1000): derive(PASSWORD, SALT, 1000)})
    run(server_port, nothing, saved)  # a key kept in the profile: no password needed
    for credential, code in ((None, "password_required"),
                             (HallCredential("wrong"), "wrong_password")):
        with pytest.raises(ServerClosed) as info:
            run(server_port, nothing, credential)
        assert info.value.code == code


def test_the_form_makes_an_invite_only_table_and_the_lobby_shows_a_lock(
        server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.games, what="the games")
        await p.press("n")
        await p.wait(lambda: p.model.screen == "form")
        await p.type_command("set privacy=invite")
        await p.type_command("set watch_code=no")
        await p.press("\r")
        await p.wait(lambda: p.model.screen == "table" and p.h.session.invites,
                     what="the new table")
        table, code = next(iter(p.h.session.invites.items()))
        await p.wait(lambda: code in p.screen(), what="the code shown")
        # the form's Enter creates the table, then sits: wait for the seat (which shows
        # the table again) before going back to the lobby
        await p.wait(lambda: "you sit in seat 0" in p.screen(), what="the seat")
        await p.wait(lambda: table in p.h.session.lobby, what="the table's summary")
        info = p.h.session.lobby[table]
        assert info.lock is not None and info.lock.invite and not info.lock.watch_code
        await p.press("L")
        await p.wait(lambda: p.model.screen == "lobby")
        assert "🔒" in fragment_list_to_text(lobby_text(p.model))

    run(server_port, scenario, None)


def test_the_form_makes_a_password_table_and_never_shows_the_password(
        server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.games, what="the games")
        await p.press("n")
        await p.wait(lambda: p.model.screen == "form")
        await p.type_command('set code="tuesday club"')
        assert p.model.form is not None and p.model.form.privacy == "password"
        assert "tuesday club" not in p.screen() and "************" in p.screen()
        await p.press("\r")
        await p.wait(lambda: p.model.screen == "table" and p.model.info is not None
                     and p.model.info.lock is not None, what="the private table")
        assert "tuesday club" not in p.screen()

    run(server_port, scenario, None)


def test_the_profile_keeps_a_derived_key_never_the_password(tmp_path: Path) -> None:
    path = tmp_path / "console.json"
    profile = Profile(path)
    keys = derive(PASSWORD, SALT, 1000)
    profile.remember_hall_keys("hall:7654", {(SALT.hex(), 1000): keys})
    text = path.read_text(encoding="utf-8")
    assert PASSWORD not in text and keys.client_key.hex() in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = Profile.load(path)
    assert again.hall_keys_for("hall:7654") == {(SALT.hex(), 1000): keys}
    assert again.hall_keys_for("other:7654") == {}
    again.remember_hall_keys("hall:7654", None)  # a key that stopped working goes
    assert "hall_keys" not in json.loads(path.read_text(encoding="utf-8"))
    path.write_text('{"hall_keys": {"hall:7654": {"salt": 3}}}', encoding="utf-8")
    assert Profile.load(path).hall_keys_for("hall:7654") == {}  # damaged: no key
