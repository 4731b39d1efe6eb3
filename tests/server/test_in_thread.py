"""A server in a thread of its own (server/in_thread.py), as the console's tests and
tools/screenshot.py run one beside an asyncio program."""

from __future__ import annotations

import socket

import pytest
import trio
from fast_settings import with_settings
from players import RawClient

from rummyhall.protocol import Welcome
from rummyhall.server.in_thread import serving_in_a_thread


def test_it_serves_from_its_thread_and_stops_at_the_end_of_the_block() -> None:
    with serving_in_a_thread(with_settings()) as port:
        async def hello() -> object:
            raw = await RawClient.connect(port)
            welcome = await raw.hello("ada")
            await raw.aclose()
            return welcome

        assert isinstance(trio.run(hello), Welcome)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # stopped: nobody listens there any more


def test_a_server_that_cannot_start_says_why() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=r"did not start.*in use") as info, \
                serving_in_a_thread(with_settings(port=port)):
            pass
        assert isinstance(info.value.__cause__, OSError)
