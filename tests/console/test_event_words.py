"""One renderer of game events into words: the console's log and ``rummyhall replay``."""

from __future__ import annotations

import dataclasses
import random
import typing
from typing import Any

import pytest
from screens import table_info

from rummyhall.bots import SimpleBot, make_strategy
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client.console.model import event_line
from rummyhall.client.records import RecordedGame, replay_text
from rummyhall.client.wording import _TELLERS, event_words
from rummyhall.protocol import action_to_entry
from rummyhall.protocol.payloads import event_from_wire, event_to_wire
from rummyhall.replay import replay_record
from rummyhall.rules import (
    Discarded,
    Event,
    Knocked,
    Shuffle,
    StockRebuilt,
    new_game,
    option_specs,
    parse_cards,
    seat_view,
)
from rummyhall.rules.game import MAX_STOCK_EXHAUSTIONS
from rummyhall.rules.views import event_for


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
        actions.append(action_to_entry(action))
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


def chicago_to_a_rebuilt_stock(how: str) -> tuple[list[dict[str, Any]], StockRebuilt]:
    """A Chicago hand between two random bots played until its stock runs out (move 570
    with this seed): the journal so far, and the rebuild."""
    game = new_game("chicago", {"stock_rebuild": how}, players=2, first_dealer=0)
    rng = random.Random(0)
    bots = [make_strategy("random", random.Random(0)), make_strategy("random", random.Random(1))]
    actions = []
    for _ in range(3000):
        seat = game.to_move
        action = (shuffle_for(game, rng) if seat is None
                  else bots[seat].choose(seat_view(game, seat), game.legal_actions()))
        actions.append(action_to_entry(action))
        rebuilt = [e for e in game.apply(action) if isinstance(e, StockRebuilt)]
        if rebuilt:
            return actions, rebuilt[0]
    raise AssertionError("the stock never ran out")


@pytest.mark.parametrize(("how", "words"), [("shuffle", "shuffled"),
                                            ("turn_over", "turned over")])
def test_chicago_tells_every_seat_that_the_stock_ran_out_and_how(how: str, words: str) -> None:
    """Chicago has no last turn: what ends its stock is the rebuild (docs/rules.md, "When
    the stock runs out"), told to both seats and the spectators, and in the replay."""
    actions, event = chicago_to_a_rebuilt_stock(how)
    options = {s.name: s.default for s in option_specs("chicago")} | {"stock_rebuild": how}
    info = dataclasses.replace(table_info(5, "chicago", 2), options=options)
    for seat in (0, 1, None):  # each seat and a spectator: the event as the server sends it
        seen = event_from_wire(event_to_wire(event_for(event, seat)))
        assert seen == event
        line = event_line(seen, info, me=seat)
        assert line.startswith("the stock ran out: the pile but its top card is the new "
                               f"stock ({event.stock_count} cards), {words}"), line
        assert "last time" not in line  # (the first rebuild of ten)
    record = {"id": 1, "game": "chicago", "table": 5, "started": "then", "finished": None,
              "seats": [{"name": "ada"}, {"name": "bob"}], "options": {"stock_rebuild": how},
              "first_dealer": 0, "actions": actions}
    told = replay_text(RecordedGame.of_export(record)).lines
    assert f"  the stock ran out: the pile but its top card is the new stock " \
           f"({event.stock_count} cards), {words}" in told


def test_the_last_rebuild_a_hand_allows_says_what_the_next_run_out_does() -> None:
    chicago = {s.name: s.default for s in option_specs("chicago")}
    top = parse_cards("Td")[0]
    last = StockRebuilt(40, top, MAX_STOCK_EXHAUSTIONS)
    assert event_words(last, str, options=chicago).endswith(
        ", shuffled; the last time: if it runs out again, the hand is void (nobody scores)")
    assert "last time" not in event_words(StockRebuilt(40, top, 9), str, options=chicago)
    basic = {s.name: s.default for s in option_specs("basic")} | {"stock_exhaustion_limit": 3}
    assert event_words(StockRebuilt(40, top, 2), str, options=basic).endswith(
        "; the last time: if it runs out again, the hand ends and is scored")
    assert "last time" not in event_words(StockRebuilt(40, top, 1), str, options=basic)
