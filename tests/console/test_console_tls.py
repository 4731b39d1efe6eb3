"""The console over TLS: the same keystrokes, a server started with ``tls``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from console_driver import Person
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_console_play import LIMIT, new_table

from rummyhall.client import KnownServers, ServerTrust
from rummyhall.client.console import ConsoleHandle, ConsoleOptions, run_console
from rummyhall.client.trust import server_key


@pytest.mark.parametrize("server_port", [{"tls": True}], indirect=True)
def test_a_hand_of_gin_over_tls(server_port: int, tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known_servers.json")
    options = ConsoleOptions("127.0.0.1", server_port, "ada", reconnect_seconds=10,
                             tls=ServerTrust(known=known))
    seen: list[str | None] = []

    with create_pipe_input() as pipe:
        async def drive(handle: ConsoleHandle) -> None:
            p = Person(handle, pipe)
            seen.append(handle.session.tls_fingerprint)
            await new_table(p, "gin", target_score=10)
            await p.play_hand()
            assert p.model.view is not None and p.model.view.hand_ended

        asyncio.run(asyncio.wait_for(run_console(options, input=pipe, output=DummyOutput(),
                                                 driver=drive), LIMIT))
    remembered = known.get(server_key("127.0.0.1", server_port))
    assert seen == [remembered] and remembered is not None
