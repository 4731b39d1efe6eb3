"""The host's commands in the console (``rummyhall play --admin``), against a real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from console_driver import Person, Scenario
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from rummyhall.client.console import ConsoleHandle, ConsoleOptions, run_console
from rummyhall.server.credential import read_credential

LIMIT = 40.0


def run(port: int, scenario: Scenario, credential: str | None) -> None:
    options = ConsoleOptions("127.0.0.1", port, "ada", reconnect_seconds=10,
                             admin_credential=credential)
    with create_pipe_input() as pipe:
        async def drive(handle: ConsoleHandle) -> None:
            await scenario(Person(handle, pipe))

        asyncio.run(asyncio.wait_for(run_console(options, input=pipe, output=DummyOutput(),
                                                 driver=drive), LIMIT))


def logged(p: Person, text: str) -> bool:
    return any(text in entry.text for entry in p.model.log)


def test_the_host_console_has_the_controls(server_port: int, tmp_path: Path) -> None:
    credential = read_credential(str(tmp_path / "hall.db.admin-key"))

    async def scenario(p: Person) -> None:
        await p.wait(lambda: logged(p, "logged in as the host"), what="the admin login")
        await p.type_command("notice the bar closes at ten")
        await p.wait(lambda: logged(p, "[host] the bar closes at ten"), what="the notice")
        await p.type_command("kick ghost")
        await p.wait(lambda: p.model.status_error and "ghost" in p.model.status,
                     what="no such player")
        await p.type_command("mute ada 5")
        await p.wait(lambda: logged(p, "muted ada for 5 min"), what="the mute")
        await p.type_command("say hello?")
        await p.wait(lambda: p.model.status_error and "muted" in p.model.status,
                     what="the muted chat refused")
        await p.type_command("mute ada 0")
        await p.wait(lambda: logged(p, "ada may chat again"), what="the mute lifted")
        await p.type_command("bans")
        await p.wait(lambda: logged(p, "no bans in force"), what="the bans")

    run(server_port, scenario, credential)


def test_a_players_console_has_no_host_commands(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.games, what="the lobby")
        await p.type_command("kick bob")
        await p.wait(lambda: p.model.status_error and "unknown command" in p.model.status,
                     what="kick is unknown")

    run(server_port, scenario, None)


def test_a_wrong_credential_is_refused_and_gives_no_commands(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.status_error and "proof" in p.model.status,
                     what="the login refused")
        await p.type_command("notice hi")
        await p.wait(lambda: "unknown command" in p.model.status, what="notice is unknown")

    run(server_port, scenario, "0" * 64)
