"""A restored table's strong house bot plays on with the memory of its hand."""

from __future__ import annotations

import random

from rummyhall.bots import SimpleBot, Strategy, StrongBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import Action, SeatAction, new_game, seat_view
from rummyhall.server.journal import action_to_json, house_bots_recall, replay
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
    rebuilt, _, _ = replay("gin", {}, 2, 0, [action_to_json(a) for a in journal],
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
