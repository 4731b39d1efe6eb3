"""Test helpers: clients that play their seat with a built-in strategy over the network."""

from __future__ import annotations

from collections.abc import Callable

import trio

from rummyhall.bots import Strategy
from rummyhall.client import RequestRefused, Session


async def play_seat(session: Session, table: int, strategy: Strategy, *,
                    max_updates: int = 200_000) -> None:
    """Answer every your_turn of ``table`` with ``strategy`` until the game is over.

    Decisions are taken from the table's current state (updates only wake the loop), so
    a prompt overtaken by later events is never answered.
    """
    answered: int | None = None
    for _ in range(max_updates):
        state = session.tables.get(table)
        if state is not None and state.view is not None:
            if state.view.phase == "game_over":
                return
            if state.my_turn and state.legal and state.move != answered:
                answered = state.move
                action = strategy.choose(state.view if strategy.needs_view else None,
                                         list(state.legal))
                try:
                    await session.act(table, action)
                except RequestRefused as exc:
                    if exc.code != "stale_action":  # overtaken by a timeout: go on
                        raise
                continue
        await session.next_update(timeout=30)
    raise AssertionError("the game did not end")


async def wait_for(predicate: Callable[[], object], timeout: float = 10.0, *,
                   session: Session | None = None) -> None:
    """Wait until ``predicate()`` holds: after each update of ``session`` when given
    (no polling: right under a mock clock), else polling every 5 ms."""
    with trio.fail_after(timeout):
        while not predicate():
            if session is not None:
                await session.next_update()
            else:
                await trio.sleep(0.005)
