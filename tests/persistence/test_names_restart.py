"""Who owns a name survives a restart: a player who took a name on loan (while its owner
held nothing) comes back from a restart as a borrower, not as the owner, so it cannot
throw the owner off the name (docs/protocol.md, section 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import serving

from rummyhall.client import ServerClosed, open_session
from rummyhall.server import Hall


async def until_holds_nothing(hall: Hall, name: str) -> None:
    """Wait until no connected player has ``name`` and its tables are gone."""
    with trio.fail_after(HANG_GUARD):
        while any(p.name == name for p in hall.lobby.players.connected()) or any(
                t.creator.name == name for t in hall.lobby.tables.values()):
            await trio.sleep(0.01)


async def after_a_restart_the_name_stays(data: Path, name: str, *, holder: str | None,
                                         asker: str | None) -> None:
    """Restart on ``data``: the player of token ``holder`` connects as ``name``, then the
    player of token ``asker`` asks for it too and is refused; the holder stays."""
    async with serving(data) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name=name, token=holder) as kept:
            with pytest.raises(ServerClosed) as refused:
                async with open_session(port=hall.port, name=name, token=asker):
                    pass
            assert refused.value.code == "name_taken"
            assert kept.connected and await kept.list_tables() is not None


async def test_a_borrower_comes_back_from_a_restart_as_a_borrower(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None
        # (each makes a table, so that the file keeps the player; vic is the older one,
        # and a restart gives a name shared by two players' rows to the newer)
        async with open_session(port=hall.port, name="vic") as vic:
            await vic.create_table("gin", 2)
            vic_token = vic.token
        await until_holds_nothing(hall, "vic")
        async with open_session(port=hall.port, name="ada") as ada:
            await ada.create_table("gin", 2)
            ada_token = ada.token
        await until_holds_nothing(hall, "ada")
        async with open_session(port=hall.port, name="Ada", token=vic_token) as vic:
            assert vic.token == vic_token  # vic takes "Ada" on loan (ada holds nothing)
            await vic.create_table("gin", 2)
        await until_holds_nothing(hall, "Ada")
        async with open_session(port=hall.port, name="ada", token=ada_token):
            pass  # the owner takes it back
        await until_holds_nothing(hall, "ada")
        rows = dict(hall.journal.store.reader.execute(  # type: ignore[union-attr]
            "SELECT id, owns_name FROM players").fetchall())
        assert sorted(rows.values()) == [0, 1]  # vic's loan, ada's name
    # the borrower, back with its token, asks for the name its owner is using
    await after_a_restart_the_name_stays(data, "ada", holder=ada_token, asker=vic_token)


async def test_a_name_given_up_stays_given_up_after_a_restart(tmp_path: Path) -> None:
    """A player who took another name, with no table saved since, is not the owner of its
    old one after a restart: the file follows the change of name at once. Otherwise the
    player who took the old name fresh would be thrown off it."""
    data = tmp_path / "hall.sqlite3"
    async with serving(data) as hall:
        assert hall.port is not None
        async with open_session(port=hall.port, name="vic") as vic:
            await vic.create_table("gin", 2)  # (the file keeps vic, as the owner of "vic")
            vic_token = vic.token
        await until_holds_nothing(hall, "vic")
        async with open_session(port=hall.port, name="abe", token=vic_token):
            pass  # vic is "abe" now (a name that sorts before its old one), "vic" is free
        async with open_session(port=hall.port, name="vic") as carl:
            await carl.create_table("gin", 2)  # (the file keeps carl, owner of "vic")
            carl_token = carl.token
        await until_holds_nothing(hall, "vic")
    await after_a_restart_the_name_stays(data, "vic", holder=carl_token, asker=vic_token)
