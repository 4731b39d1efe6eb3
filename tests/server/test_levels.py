"""Every bot level is offered by the server and shown in the lobby, the expert included."""

from __future__ import annotations

from players import wait_for

from rummyhall.bots import STRATEGIES
from rummyhall.client import open_session
from rummyhall.server import Hall


async def test_the_server_offers_every_level_and_the_lobby_shows_each_seats(hall: Hall) -> None:
    assert hall.port is not None
    async with open_session("127.0.0.1", hall.port, name="ada", kind="bot") as ada:
        games = await ada.list_games()
        assert set(games.bots) == set(STRATEGIES)
        assert "expert" in games.bots
        table = await ada.create_table("chicago", 4, {})
        for seat, level in enumerate(("random", "simple", "strong", "expert")):
            await ada.add_bot(table, seat, level)

        async def levels() -> list[str | None]:
            info = next(t for t in await ada.list_tables() if t.table == table)
            return [s.bot for s in info.seats]

        assert await levels() == ["random", "simple", "strong", "expert"]
        await ada.watch(table)
        state = ada.tables[table]
        await wait_for(lambda: state.info is not None)
        assert state.info is not None
        assert [(s.kind, s.bot) for s in state.info.seats] == [
            ("house", "random"), ("house", "simple"), ("house", "strong"), ("house", "expert")]
