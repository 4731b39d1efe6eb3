"""Fixtures: a real server on 127.0.0.1 (an ephemeral port) inside the test's trio run."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest
import trio

from rummyhall.server import Hall, Settings

FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                messages_per_second=10_000, burst=10_000,
                seed=12345, log_level="warning", data=":memory:")


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


def with_settings(**changes: object) -> Settings:
    return dataclasses.replace(FAST, **changes)  # type: ignore[arg-type]
