"""One renderer of game events into words: the console's log and ``rummyhall replay``."""

from __future__ import annotations

import random
import typing
from typing import Any

import pytest

from rummyhall.bots import SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client.console.model import event_line
from rummyhall.client.wording import _TELLERS, event_words
from rummyhall.replay import replay_record
from rummyhall.rules import Discarded, Event, Knocked, Shuffle, new_game, parse_cards, seat_view
from rummyhall.server.journal import action_to_json


def test_every_kind_of_event_has_its_words() -> None:
    assert set(typing.get_args(Event)) == set(_TELLERS)


def played_record(game_name: str, seed: int) -> tuple[dict[str, Any], list[Event]]:
    """A finished game as the data file's record holds it, and every event it caused."""
    names = ["ada", "bob"]
    game = new_game(game_name, {"target_score": 30} if game_name == "gin" else {},
                    players=2, first_dealer=0)
    rng, bot = random.Random(seed), SimpleBot()
    actions, events = [], []
    for _ in range(5000):
        if game.is_over:
            break
        seat = game.to_move
        action = (shuffle_for(game, rng) if seat is None
                  else bot.choose(seat_view(game, seat), game.legal_actions()))
        events += game.apply(action)
        actions.append(action_to_json(action))
    assert game.is_over
    record = {"id": 1, "game": game_name, "table": 3, "started": "then", "finished": "now",
              "seeded": True, "seats": [{"name": n} for n in names], "options": {},
              "first_dealer": 0, "actions": actions}
    if game_name == "gin":
        record["options"] = {"target_score": 30}
    return record, events


@pytest.mark.parametrize("game_name", ["gin", "three_thirteen"])
def test_the_replay_tells_every_move_in_the_logs_words(
        game_name: str, capsys: pytest.CaptureFixture[str]) -> None:
    record, events = played_record(game_name, seed=5)
    assert replay_record(record, None) == 0
    out = capsys.readouterr().out.splitlines()
    names = ["ada", "bob"]
    told = [f"  {event_words(e, names.__getitem__)}" for e in events
            if e.kind not in ("deal", "game_over")]
    lines = iter(out)
    for sentence in told:  # in order, each one once
        assert any(line == sentence for line in lines), sentence
    assert any(line.startswith("Hand 1") for line in out)
    assert any(line.startswith("Game over: ") for line in out)
    assert not any(isinstance(e, Shuffle) for e in events)


def test_the_console_and_the_replay_say_the_same_with_their_own_names_and_cards() -> None:
    ten = parse_cards("Td")[0]
    assert event_line(Discarded(1, ten), None, me=0) == "seat 1 discarded T♦"
    assert event_line(Discarded(0, ten), None, me=0) == "you discarded T♦"
    assert event_words(Discarded(1, ten), ["ada", "bob"].__getitem__) == "bob discarded Td"
    assert event_words(Knocked(0, "big_gin", None), ["ada", "bob"].__getitem__) == \
        "ada went big gin"
