"""History from SQL: filters, order and limits on indexes; ratings by player identity."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import serving
from sessions import session_of

from rummyhall.bots import make_strategy
from rummyhall.client import open_session
from rummyhall.client.session import Session
from rummyhall.protocol import ListRatings, Ratings
from rummyhall.server.ratings import Rating, ranks_from_result, rate
from rummyhall.server.store import APPLICATION_ID, MIGRATIONS, Store
from rummyhall.server.tokens import digest

NAMES = ["ada", "Bob", "cy", "dee", "simple bot"]


def _seating(n: int) -> list[dict[str, Any]]:
    """Game n's seats: two of the names (player ids 1..4), or two house bots of one name."""
    if n % 7 == 0:
        return [{"seat": s, "name": "simple bot", "kind": "house", "player": None}
                for s in range(2)]
    a, b = n % 4, (n // 4) % 4
    if a == b:
        b = (b + 1) % 4
    return [{"seat": 0, "name": NAMES[a], "kind": "person", "player": a + 1},
            {"seat": 1, "name": NAMES[b], "kind": "person", "player": b + 1}]


def version_2_file(path: Path, games: int) -> Path:
    """A data file of schema version 2 with ``games`` games (every 10th still playing),
    ratings by name, as the older servers wrote them."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for step in (1, 2):
            script = MIGRATIONS[step]
            assert isinstance(script, str)
            conn.executescript(script)
        for n in range(1, 5):
            conn.execute("INSERT INTO players VALUES (?, ?, 'person', ?)",
                         (n, NAMES[n - 1], f"{n:032x}"))
        for n in range(1, games + 1):
            finished = n % 10 != 0
            conn.execute(
                "INSERT INTO games (id, table_id, game, options, seating, first_dealer, "
                "seeded, state, started, finished, hands, winners, totals) VALUES "
                "(?, 1, 'gin', '{}', ?, 0, 0, ?, ?, ?, ?, ?, ?)",
                (n, json.dumps(_seating(n)), "finished" if finished else "playing", n,
                 n + 0.5 if finished else None, "[]" if finished else None,
                 json.dumps([n % 2]) if finished else None,
                 json.dumps([100, 20] if n % 2 == 0 else [20, 100]) if finished else None))
        conn.execute("INSERT INTO ratings VALUES ('ada', 'gin', 'ada', 40.0, 2.0, 99)")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA user_version = 2")
        conn.commit()
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = version_2_file(tmp_path_factory.mktemp("q") / "hall.sqlite3", 700)
    Store.open(str(path)).close()  # migrated
    s = Store.open_for_reading(str(path))
    yield s
    s.close()


def _all(store: Store) -> list[dict[str, Any]]:
    return store.games(limit=10_000, finished_only=False)


@pytest.mark.parametrize("name", ["ada", "ADA", "simple BOT", "nobody"])
@pytest.mark.parametrize("before", [None, 500, 3])
@pytest.mark.parametrize("finished_only", [True, False])
def test_games_filter_order_and_limit_like_the_plain_reading(
        store: Store, name: str, before: int | None, finished_only: bool) -> None:
    every = _all(store)
    assert [g["id"] for g in every] == list(range(700, 0, -1))
    expected = [g for g in every
                if any(s["name"].casefold() == name.casefold() for s in g["seats"])
                and (before is None or g["id"] < before)
                and (g["state"] == "finished" or not finished_only)][:25]
    got = store.games(limit=25, before=before, name=name, finished_only=finished_only)
    assert got == expected  # one summary per game, even where two seats share the name


def test_no_history_query_scans_or_sorts(store: Store) -> None:
    """Every query the commands and the protocol make reads an index in its order: no
    scan of a table, no sort (the times stay flat however many games there are)."""
    statements: list[str] = []
    store.reader.set_trace_callback(statements.append)
    try:
        store.games(limit=100, name="ada")
        store.games(limit=100, name="nobody", before=50)
        store.games(limit=100)
        store.games(limit=100, before=300, finished_only=False)
        store.record(123)
        store.ratings("gin", limit=100)
        store.ratings()
        store.admin_log()
        store.admin_log(limit=10, before=40)
        store.games(limit=100, viewer=1)  # (two queries each: the open, the private)
        store.games(limit=100, name="ada", viewer=1, before=300)
    finally:
        store.reader.set_trace_callback(None)
    queries = [q for q in statements if q.lstrip().upper().startswith("SELECT")]
    assert len(queries) == 14
    for query in queries:
        plan = " | ".join(row[3] for row in store.reader.execute(
            "EXPLAIN QUERY PLAN " + query))
        assert "TEMP B-TREE" not in plan, (query, plan)
        for step in plan.split(" | "):
            assert not step.startswith("SCAN") or "USING" in step, (query, plan)


def test_a_record_page_is_its_games_actions_from_start_and_counts_them_all(
        tmp_path: Path) -> None:
    """``record_part``: at most ``count`` of a finished game's actions from ``start``, and
    the number of its actions in all (``actions_total``: whether another page follows),
    for an odd number of actions, an even one and none, and every page that fits them;
    nothing of a game still played."""
    path = version_2_file(tmp_path / "hall.sqlite3", 10)  # (game 10 is still played)
    Store.open(str(path)).close()  # migrated
    actions = {1: 3, 2: 4, 3: 0, 10: 2}
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for game, count in actions.items():
            conn.executemany("INSERT INTO journal (game, n, action) VALUES (?, ?, ?)",
                             [(game, n, json.dumps({"kind": "draw_stock", "seat": n % 2,
                                                    "n": n})) for n in range(count)])
        conn.commit()
    s = Store.open_for_reading(str(path))
    try:
        for game in (1, 2, 3):
            whole = s.journal(game)
            assert [a["n"] for a in whole] == list(range(actions[game]))
            for start in range(actions[game] + 1):
                for count in range(1, actions[game] + 2):
                    page = s.record_part(game, start, count)
                    assert page is not None and page["id"] == game
                    assert page["actions"] == whole[start:start + count]
                    assert page["actions_total"] == actions[game]
        assert s.record_part(10, 0, 5) is None
    finally:
        s.close()


def version_6_file(path: Path, games: int) -> Path:
    """:func:`version_2_file` migrated to schema 6, every third game of a private table."""
    version_2_file(path, games)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for step in range(3, 7):
            migration = MIGRATIONS[step]
            if callable(migration):
                migration(conn)
            else:
                conn.executescript(migration)
        conn.execute("UPDATE games SET private = 1 WHERE id % 3 = 0")
        conn.execute("PRAGMA user_version = 6")
        conn.commit()
    return path


@pytest.mark.parametrize("name", [None, "ada", "simple BOT"])
@pytest.mark.parametrize("before", [None, 200, 4])
def test_a_player_sees_the_open_games_and_the_private_ones_where_it_sat(
        tmp_path: Path, name: str | None, before: int | None) -> None:
    """The history a player may see (schema 7 reads it on indexes: the private games'
    players, and whether a name's game was private, filled by the migration from the
    games' rows): the same games, in the same order, as the plain filter of every
    finished game, for each player and for one who sat nowhere."""
    path = version_6_file(tmp_path / "hall.sqlite3", 300)
    Store.open(str(path)).close()  # migrated to 7
    s = Store.open_for_reading(str(path))
    try:
        private = {r[0] for r in s.reader.execute("SELECT id FROM games WHERE private = 1")}
        every = s.games(limit=10_000, name=name, before=before)
        assert private & {g["id"] for g in every} or before == 4  # (3 games below 4)
        for viewer in (1, 2, 3, 4, 99):
            expected = [g for g in every if g["id"] not in private
                        or any(seat["player"] == viewer for seat in g["seats"])][:25]
            got = s.games(limit=25, name=name, before=before, viewer=viewer)
            assert got == expected, viewer
    finally:
        s.close()


def test_the_migration_rates_every_finished_game_again_by_player(store: Store) -> None:
    expected: dict[str, tuple[Rating, int]] = {}
    for n in range(1, 701):
        seating = _seating(n)
        if n % 10 == 0 or seating[0]["player"] is None:
            continue  # still playing; two house bots of one name are not rated
        keys = [f"player:{s['player']}" for s in seating]
        totals = [100, 20] if n % 2 == 0 else [20, 100]
        before = [expected.get(k, (Rating(), 0)) for k in keys]
        after = rate([r for r, _ in before], ranks_from_result([n % 2], totals))
        for k, r, (_, games) in zip(keys, after, before, strict=True):
            expected[k] = (r, games + 1)
    rows = store.ratings("gin")
    got = {r["key"]: (Rating(r["mu"], r["sigma"]), r["games"]) for r in rows}
    assert got == expected  # the name-keyed row of version 2 is gone
    assert {r["name"] for r in rows} == {"ada", "Bob", "cy", "dee"}
    assert all(r["player"] == int(r["key"].split(":")[1]) for r in rows)
    shown = [r["mu"] - 3 * r["sigma"] for r in rows]
    assert shown == sorted(shown, reverse=True)


async def _play_against_a_house_bot(session: Session) -> None:
    """Create a Gin table, sit with a house bot and play the seat to the game's end."""
    table = await session.create_table("gin", 2, options={"target_score": 10})
    await session.join(table, 0)
    await session.add_bot(table, 1, "simple")
    await session.start(table)
    bot = make_strategy("simple")
    with trio.fail_after(HANG_GUARD):
        while True:
            state = session.tables[table]
            if state.view is not None and state.view.phase == "game_over":
                return
            if state.my_turn and state.view is not None:
                await session.act(table, bot.choose(state.view, state.legal))
            else:
                await session.next_update()


async def test_a_name_taken_by_someone_new_starts_a_rating_of_its_own(tmp_path: Path
                                                                      ) -> None:
    """Ratings follow the identity that holds the token: after a player's record expired
    and somebody new took its name, the newcomer is rated from the start and the first
    player keeps its rating (listed under its name, with its id)."""
    async with serving(tmp_path / "hall.sqlite3") as hall:
        assert hall.port is not None and hall.journal is not None
        async with open_session(port=hall.port, name="ada", kind="bot") as first:
            await _play_against_a_house_bot(first)
            first_id = first.player_id
        await hall.journal.flush()
        gone = hall.lobby.players.get(first_id or 0)
        assert gone is not None
        hall.lobby.players.forget(gone)  # its record expired: the name is free
        before = await hall.journal.answer(ListRatings(game="gin", id=1))
        async with open_session(port=hall.port, name="ada", kind="bot") as second:
            assert second.player_id != first_id
            await _play_against_a_house_bot(second)
            second_id = second.player_id
            await hall.journal.flush()
            # the lobby shows the newcomer's own rating, not the first ada's
            table = await second.create_table("gin", 2)
            await second.join(table, 0)
            seat = next(t for t in await second.list_tables() if t.table == table).seats[0]
        after = await hall.journal.answer(ListRatings(game="gin", id=2))
    assert isinstance(before, Ratings) and isinstance(after, Ratings)
    old = {r.player: r for r in before.ratings}
    new = {r.player: r for r in after.ratings}
    assert new[first_id] == old[first_id]  # untouched by the newcomer's game
    assert new[second_id].name == "ada" and new[second_id].games == 1
    assert seat.rating == new[second_id].rating
    assert None in new  # the house bot's, under its seat name


async def test_after_a_restart_the_newer_of_two_players_of_one_name_holds_it(
        tmp_path: Path) -> None:
    """The file keeps both players of a name (the first one's record had expired and
    someone new took the name): after a restart the newer holds it, and the first one's
    token still brings the first one back under it."""
    data = tmp_path / "hall.sqlite3"
    store = Store.open(str(data))
    store.write([("INSERT INTO players (id, name, kind, token_digest) VALUES (?, ?, ?, ?)",
                  (n, "ada", "person", digest(f"{n:032x}"))) for n in (1, 2)])
    store.close()
    async with serving(data) as hall:
        holder = hall.lobby.players.holder("ADA")
        assert holder is not None and holder.id == 2
        assert hall.port is not None
        async with open_session(port=hall.port, name="ada", token=f"{1:032x}") as first:
            assert first.welcome is not None and session_of(first.welcome).resumed
            assert first.player_id == 1
