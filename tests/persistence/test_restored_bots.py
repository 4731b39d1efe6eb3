"""A restored table's house bots play on with the memory of their hand."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD

from rummyhall.bots import SimpleBot, Strategy, StrongBot, make_strategy
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client import open_session
from rummyhall.protocol import action_from_entry, action_to_entry
from rummyhall.rules import Action, SeatAction, Shuffle, new_game, seat_view
from rummyhall.server import Hall, Settings
from rummyhall.server.journal import (
    house_bots_recall,
    replay,
)
from rummyhall.server.store import Store
from rummyhall.server.table import Seat


def test_the_strong_bot_relearns_its_hand_from_the_journal() -> None:
    rng = random.Random(7)
    game = new_game("gin", players=2, first_dealer=0)
    strong = StrongBot()
    bots: list[Strategy] = [SimpleBot(), strong]
    journal: list[Action] = []
    while len(journal) < 40 or game.to_move is None:  # stop in the middle of a hand
        seat = game.to_move
        action: Action
        if seat is None:
            action = shuffle_for(game, rng)
        else:
            legal: list[SeatAction] = game.legal_actions()
            action = bots[seat].choose(seat_view(game, seat), legal)
        game.apply(action)
        journal.append(action)
    assert not game.is_over and game.hand_no >= 1
    before = strong.tracker.memory
    assert before is not None and before.turns > 0

    seats = [Seat(0), Seat(1)]
    fresh = StrongBot()
    seats[1].house = fresh
    rebuilt, _, _ = replay("gin", {}, 2, 0, [action_to_entry(a) for a in journal],
                           before=house_bots_recall(seats))
    after = fresh.tracker.memory
    assert after is not None and rebuilt.move_number == game.move_number
    for name in ("hand_no", "known", "shunned", "pile", "move", "melded", "turns"):
        assert getattr(after, name) == getattr(before, name), name
    # and the two bots now decide alike
    seat = rebuilt.to_move
    assert seat is not None
    if seat == 1:
        legal = rebuilt.legal_actions()
        assert fresh.choose(seat_view(rebuilt, 1), legal) == \
            strong.choose(seat_view(game, 1), game.legal_actions())


TABLES = 4
# (The seed fixes the deals. With some seeds, 15 and 17 among them, a restored strong bot
# once decided differently right after the restart: its cache of potentials outlived the
# unseen cards they were computed for. The in-process test below checks every decision
# of whole games for that; with seed 15 this test's first phase no longer reaches move 12
# at every table, which is why it keeps seed 14.)
FAST = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.005, hand_pause=0.0,
                messages_per_second=10_000, burst=10_000, log_level="warning", seed=14)


async def _serve_until(data: Path, stop: Callable[[Hall], bool], token: str) -> None:
    """Run a server on ``data`` until ``stop(hall)`` holds (checked as the tables play),
    its tables watched again by the player of ``token`` (house bots play for someone to
    see, and a restart watches nothing)."""
    hall = Hall(dataclasses.replace(FAST, data=str(data)))
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        assert hall.port is not None
        async with open_session(port=hall.port, name="host", token=token) as host:
            for table in sorted(hall.lobby.tables):
                await host.watch(table)
            with trio.fail_after(HANG_GUARD):
                while not stop(hall):
                    await trio.sleep(0.005)
        hall.stop()


def _decisions_of_bots_that_never_stopped(record: dict[str, Any], strategies: list[str]
                                          ) -> list[tuple[int, int, str]]:
    """Replay the record with a bot per seat that sat there all along: each journalled
    action that such a bot would not have chosen, as (seat, move, action)."""
    game = new_game(record["game"], record["options"], players=len(record["seats"]),
                    first_dealer=record["first_dealer"])
    bots = [make_strategy(s) for s in strategies]
    differ = []
    for entry in record["actions"]:
        action = action_from_entry(entry)
        if not isinstance(action, Shuffle):
            seat = entry["seat"]
            mine = bots[seat].choose(seat_view(game, seat), game.legal_actions())
            if mine != action:
                differ.append((seat, game.move_number, str(entry)))
        game.apply(action)
    assert game.is_over
    return differ


async def test_restored_house_bots_decide_as_bots_that_never_stopped(tmp_path: Path) -> None:
    """Strong house bots play seeded Gin games at four tables; the server stops in the
    middle of a hand and a new one restores the tables from the data file. Every decision
    of every game, before and after the restart, is the one a bot that sat there all
    along would have made: its tracking was rebuilt from the seat's own view. (Without
    it, the bots of about half such cuts decide differently in the rest of the hand.)"""
    data = tmp_path / "hall.sqlite3"
    strategies = ["strong", "strong"]
    hall = Hall(dataclasses.replace(FAST, data=str(data)))
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.serve)
        assert hall.port is not None
        async with open_session(port=hall.port, name="host") as host:
            tables = []
            for _ in range(TABLES):
                table = await host.create_table("gin", 2, options={"target_score": 40})
                for seat, strategy in enumerate(strategies):
                    await host.add_bot(table, seat, strategy)
                await host.watch(table)  # (the table stays while the bots play)
                await host.start(table)
                tables.append(hall.lobby.tables[table])
            with trio.fail_after(HANG_GUARD):
                while any(t.game is None or t.game.move_number < 12 for t in tables):
                    await trio.sleep(0.005)
            cut = {t.id: t.game.hand_no for t in tables if t.game is not None}
            token = host.token
            hall.stop()  # mid-hand: the bots have their hand's memory
    assert all(t.game is not None and t.game.phase.value in ("upcard", "draw", "play")
               for t in tables)  # (each cut in the middle of a hand)

    def over(h: Hall) -> bool:
        return all(h.lobby.tables.get(t.id) is None or h.lobby.tables[t.id].state ==
                   "finished" for t in tables)

    assert token is not None
    await _serve_until(data, over, token)
    store = Store.open_for_reading(str(data))
    try:
        played = store.games(limit=10)
        records = [store.record(g["id"]) for g in played]
    finally:
        store.close()
    assert len(records) == TABLES
    for record in records:
        assert record is not None and record["state"] == "finished"
        assert record["hands_scored"] >= cut[record["table"]]
        assert _decisions_of_bots_that_never_stopped(record, strategies) == []


@pytest.mark.parametrize("game_name", ["gin", "basic"])
def test_a_recalled_strong_bot_decides_as_one_that_sat_there_all_along(game_name: str) -> None:
    """At every decision of two whole games, a fresh strong bot that recalls its seat's
    earlier decisions (as a restored table's does) picks what the bot that played them
    picks. (Its cache of hand potentials once outlived the unseen cards it was computed
    for: a recalled bot, which has no cache, then chose another discard in one decision
    of sixty.)"""
    for seed in (0, 1):
        rng = random.Random(seed)
        game = new_game(game_name, players=2, first_dealer=0)
        bots = [StrongBot(), StrongBot()]
        journal: list[Action] = []
        while not game.is_over and len(journal) < 160:
            seat = game.to_move
            action: Action
            if seat is None:
                action = shuffle_for(game, rng)
            else:
                legal = game.legal_actions()
                fresh = StrongBot()
                replayed = new_game(game_name, players=2, first_dealer=0)
                for past in journal:
                    if getattr(past, "seat", None) == seat:
                        fresh.recall(seat_view(replayed, seat), past)  # type: ignore[arg-type]
                    replayed.apply(past)
                view = seat_view(game, seat)
                action = bots[seat].choose(view, legal)
                assert fresh.choose(view, legal) == action, (seed, game.move_number)
            game.apply(action)
            journal.append(action)
