"""A restored table keeps the last events of its game, not all of them: a long game
(up to the rules' cap of moves) costs a restart no more memory than a table that played
it without a restart, and a ``resync`` from before them gets a snapshot."""

from __future__ import annotations

import random
from typing import Any

from rummyhall.bots.selfplay import shuffle_for
from rummyhall.protocol import action_to_entry
from rummyhall.rules import Event, new_game
from rummyhall.server.alarms import Alarms
from rummyhall.server.config import Settings
from rummyhall.server.players import PlayerRegistry
from rummyhall.server.records import LatestGame, SeatRecord, TableRecord
from rummyhall.server.restoring import rebuild_table
from rummyhall.server.table import KEPT_EVENTS


def test_a_restored_table_keeps_only_the_last_events_of_its_game() -> None:
    rng = random.Random(4)
    game = new_game("gin", players=2)
    entries: list[dict[str, Any]] = []
    produced: list[Event] = []
    while len(produced) < 3 * KEPT_EVENTS and not game.is_over:
        action = shuffle_for(game, rng) if game.to_move is None else \
            rng.choice(game.legal_actions())
        entries.append(action_to_entry(action))
        produced += game.apply(action)
    assert not game.is_over
    registry = PlayerRegistry()
    registry.restore(1, "ada", "person", "a" * 64)
    record = TableRecord(
        id=1, game="gin", options={}, creator=1, turn_seconds=60, grace_seconds=60,
        seeded=True, state="playing",
        seats=(SeatRecord(1, None, False), SeatRecord(None, "random", False)),
        latest=LatestGame(number=1, options={}, first_dealer=0, first_seq=40, seating=[],
                          actions=entries))
    table = rebuild_table(record, players=registry, settings=Settings(),
                          on_change=lambda _: None, alarms=Alarms(),
                          rng=random.Random(5), now=0.0)
    assert table.played == len(entries) and table.seq == 40 + len(produced)
    kept: list[Event] = table.events
    assert kept == produced[-KEPT_EVENTS:]
    # event number game_seq + 1 is the first kept: a resync from before it gets a snapshot
    assert table.game_seq == table.seq - KEPT_EVENTS
    assert table.game is not None and table.game.move_number == len(entries)
