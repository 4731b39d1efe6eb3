"""Whole games of each of the four games between several clients over real sockets."""

from __future__ import annotations

import pytest
import trio
from players import play_seat, wait_for

from rummyhall.bots import SimpleBot
from rummyhall.client import open_session
from rummyhall.server import Hall

GAMES = [
    ("gin", 2, {"target_score": 40}),
    ("basic", 3, {"max_hands": 2}),
    ("chicago", 4, {"elimination_score": 40}),
    ("three_thirteen", 3, {}),
]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
async def test_whole_game_between_clients(hall: Hall, game: str, players: int,
                                          options: dict[str, object]) -> None:
    assert hall.port is not None
    port = hall.port
    async with open_session("127.0.0.1", port, name="p0", kind="bot") as creator:
        table = await creator.create_table(game, players, options)  # type: ignore[arg-type]
        await creator.add_bot(table, players - 1, "simple")  # the last seat: a house bot
        await creator.join(table, 0)

        async def seat(index: int, ready: trio.Event) -> None:
            async with open_session("127.0.0.1", port, name=f"p{index}", kind="bot") as s:
                assert await s.join(table, index) == index
                ready.set()
                await play_seat(s, table, SimpleBot())
                view = s.tables[table].view
                assert view is not None and view.phase == "game_over"

        async with trio.open_nursery() as nursery:
            for index in range(1, players - 1):
                ready = trio.Event()
                nursery.start_soon(seat, index, ready)
                await ready.wait()
            await creator.start(table)
            await play_seat(creator, table, SimpleBot())
        view = creator.tables[table].view
        assert view is not None and view.winners
        state = creator.tables[table]
        await wait_for(lambda: state.info is not None and state.info.state == "finished")
        # the model the client built from events equals a fresh snapshot of its seat
        built = view
        await creator.resync(table)
        fresh = creator.tables[table].view
        assert fresh is not None
        assert built.scores == fresh.scores and built.results == fresh.results
        assert built.winners == fresh.winners and built.hand == fresh.hand
