"""Fixtures: a real server on 127.0.0.1 in a thread of its own, for the console's tests
(the console under test runs asyncio, with trio as its guest, in the test's thread)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from rummyhall.server import Settings
from rummyhall.server.in_thread import serving_in_a_thread

FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                messages_per_second=10_000, burst=10_000, update_interval=0.02,
                seed=4242, log_level="warning")


@pytest.fixture
def server_port(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[int]:
    """The port of a fresh server running in a thread; stopped after the test.

    Parametrize it indirectly with a dict to change settings (``house_delay``...).
    """
    changes = getattr(request, "param", {})
    with serving_in_a_thread(dataclasses.replace(FAST, data=str(tmp_path / "hall.db"),
                                                 **changes)) as port:
        yield port
