"""A whole game of Gin between a person's client and a house bot over real TCP."""

from __future__ import annotations

from players import play_seat

from rummyhall.bots import SimpleBot
from rummyhall.client import open_session
from rummyhall.server import Hall


async def test_gin_against_a_house_bot(hall: Hall) -> None:
    assert hall.port is not None
    async with open_session("127.0.0.1", hall.port, name="ada", kind="bot") as ada:
        table = await ada.create_table("gin", 2, {"target_score": 30})
        await ada.add_bot(table, 1, "simple")
        seat = await ada.join(table)
        assert seat == 0
        await ada.start(table)
        await play_seat(ada, table, SimpleBot())
        view = ada.tables[table].view
        assert view is not None and view.phase == "game_over" and view.winners
        assert view.results and max(view.scores) >= 30
