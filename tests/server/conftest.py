"""Fixtures: a real server on 127.0.0.1 (an ephemeral port) inside the test's trio run."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
from fast_settings import FAST

from rummyhall.server import Hall, Settings


@pytest.fixture
def settings() -> Settings:
    return FAST


@pytest.fixture
async def hall(settings: Settings) -> AsyncIterator[Hall]:
    server = Hall(settings)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        yield server
        nursery.cancel_scope.cancel()
