"""A table of an earlier run built again from its record (the lobby's side of a restart).

:func:`rebuild_table` gives the table its seats, house bots and stand-ins back, and a
table with a game (being played, or finished and not yet left) gets the game rebuilt by
replaying its journal through the rules engine, with the table's event number going on
from where it was (``first_seq`` plus the events the replay produced): no client ever
sees a number go back. Players sitting at it are absent: their grace period runs from
the restart (a finished table waits that long for them to come back before it goes).
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from rummyhall.bots import make_strategy
from rummyhall.rules import Card, Event, Game, parse_options

from .access import TableCode
from .alarms import Alarms
from .config import Settings
from .dealing import DealProof
from .journal import house_bots_recall, replay
from .players import PlayerRegistry
from .records import TableRecord
from .table import KEPT_EVENTS, Table


def rebuild_table(record: TableRecord, *, players: PlayerRegistry, settings: Settings,
                  on_change: Callable[[Table], None], alarms: Alarms,
                  rng: random.Random | None, now: float) -> Table:
    """The table of ``record``, ready for its task; ``ValueError`` (or a rules error)
    when the record cannot be rebuilt (an unknown player, a damaged journal)."""
    creator = players.get(record.creator)
    if creator is None:
        raise ValueError(f"unknown creator {record.creator}")
    options = parse_options(record.game, dict(record.options))
    table = Table(record.id, record.game, options, len(record.seats), creator,
                  turn_seconds=record.turn_seconds, grace_seconds=record.grace_seconds,
                  settings=settings, on_change=on_change, alarms=alarms, rng=rng)
    if record.lock is not None:  # (a damaged lock raises: the table is dropped, not opened)
        table.code = TableCode.from_record(record.lock)
    in_game = record.state in ("playing", "finished") and record.latest is not None
    for seat, s in zip(table.seats, record.seats, strict=True):
        if s.player is not None:
            seat.player = players.get(s.player)
            if seat.player is None:
                raise ValueError(f"unknown player {s.player}")
        if s.house:
            seat.house = make_strategy(s.house, random.Random(table.rng.random()))
        if seat.player is not None and not (s.left and record.state == "playing"):
            seat.player.tables.add(table.id)  # (a seat left is not a table one is at)
        if seat.player is not None and s.left and record.state == "playing":
            seat.left = True
            seat.stand_in = make_strategy(settings.stand_in, random.Random(table.rng.random()))
    if not in_game:
        return table
    latest = record.latest
    assert latest is not None
    kept: deque[Event] = deque(maxlen=KEPT_EVENTS)  # (a resync before them: a snapshot)
    game, played, produced = replay(record.game, latest.options, len(record.seats),
                                    latest.first_dealer, latest.actions,
                                    before=house_bots_recall(table.seats), events=kept)
    table.game, table.played, table.first_dealer = game, played, latest.first_dealer
    table.seq = latest.first_seq + produced
    table.events, table.game_seq = list(kept), table.seq - len(kept)
    table.state = "finished" if game.is_over else "playing"
    _restore_proofs(table, latest.actions)
    table.pause_until = math.inf
    for seat in table.seats:
        if seat.player is not None and not seat.left:
            seat.absent_since = now  # its grace period runs from the restart
    return table


def _restore_proofs(table: Table, actions: Sequence[dict[str, Any]]) -> None:
    """The proofs of the current hand's shuffles (published when it ends), from the
    journalled shuffles. (The round that was gathering the next shuffle's contributions
    is not kept: a new one opens with a new secret, and a client reveals no contribution
    twice, so its seat takes part again from the shuffle after.)"""
    game: Game | None = table.game
    proofs: list[DealProof] = []
    for entry in actions:
        if entry.get("kind") != "shuffle" or "proof" not in entry:
            continue
        proof = DealProof.from_json(entry["proof"],
                                    tuple(Card.parse(c) for c in entry["order"]))
        proofs = [*proofs, proof] if proof.kind == "rebuild" else [proof]
    between_hands = game is None or game.is_over or game.phase.value == "deal"
    table.hand_proofs = [] if between_hands else [
        p for p in proofs if game is not None and p.hand == game.hand_no]
