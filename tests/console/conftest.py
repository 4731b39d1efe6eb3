"""Fixtures: a real server on 127.0.0.1 in a thread of its own, for the console's tests.

The console under test runs asyncio with trio as its guest in the test's thread; the
server runs in its own ``trio.run`` in another thread, so neither waits on the other.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from rummyhall.server import Hall, Settings

FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                messages_per_second=10_000, burst=10_000, update_interval=0.02,
                seed=4242, log_level="warning")


@pytest.fixture
def server_port(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[int]:
    """The port of a fresh server running in a thread; stopped after the test.

    Parametrize it indirectly with a dict to change settings (``house_delay``...).
    """
    changes = getattr(request, "param", {})
    started = threading.Event()
    box: dict[str, object] = {}

    async def main() -> None:
        hall = Hall(dataclasses.replace(FAST, data=str(tmp_path / "hall.db"), **changes))
        async with trio.open_nursery() as nursery:
            box["port"] = await nursery.start(hall.serve)
            box["token"] = trio.lowlevel.current_trio_token()
            box["cancel"] = nursery.cancel_scope.cancel
            started.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert started.wait(10), "the server did not start"
    try:
        port = box["port"]
        assert isinstance(port, int)
        yield port
    finally:
        token = box["token"]
        assert isinstance(token, trio.lowlevel.TrioToken)
        cancel = box["cancel"]
        assert callable(cancel)
        trio.from_thread.run_sync(cancel, trio_token=token)
        thread.join(10)
