"""Server settings for tests: fast house bots, no pauses, no beacon, an in-memory journal."""

from __future__ import annotations

import dataclasses

from rummyhall.server import Settings

FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0, hand_pause=0.0,
                table_update_seconds=0.0,
                messages_per_second=10_000, burst=10_000,
                # (tests connect one client after another from 127.0.0.1; test_arrivals.py
                # tests the connection rate itself)
                connect_rate=10_000.0, connect_burst=10_000, max_tables_per_address=500,
                seed=12345, log_level="warning", data=":memory:")


def with_settings(**changes: object) -> Settings:
    return dataclasses.replace(FAST, **changes)  # type: ignore[arg-type]
