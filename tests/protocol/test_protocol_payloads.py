"""Rules objects <-> wire maps: events, views and actions of random games of all four rules."""

from __future__ import annotations

import random

import pytest

from rummyhall.protocol import (
    EventMessage,
    RemoteProtocolError,
    Snapshot,
    YourTurn,
    action_from_wire,
    action_to_wire,
    event_from_wire,
    event_to_wire,
    games_catalogue,
    legal_from_wire,
    view_from_wire,
    view_to_wire,
)
from rummyhall.protocol.examples import _info
from rummyhall.protocol.messages import GameInfo, OptionInfo
from rummyhall.rules import (
    GAMES,
    Card,
    Discard,
    Knock,
    Shuffle,
    event_for,
    new_game,
    parse_cards,
    seat_view,
)

PLAYERS = {"basic": 3, "gin": 2, "chicago": 3, "three_thirteen": 3}


def play(game_name: str, seed: int, moves: int = 400) -> None:
    """Random legal play; every view, event and legal action goes to the wire and back."""
    rng = random.Random(seed)
    game = new_game(game_name, players=PLAYERS[game_name])
    seq = 0
    info = _info(None, ["ada", None], "playing")
    for _ in range(moves):
        if game.is_over:
            break
        cards = game.shuffle_cards()
        if cards:
            order = list(cards)
            rng.shuffle(order)
            action: object = Shuffle(tuple(order))
        else:
            legal = game.legal_actions()
            wire = tuple(action_to_wire(a) for a in legal)
            seat = game.to_move
            assert seat is not None
            YourTurn(table=1, move=game.move_number, legal=wire, time_left_ms=None)
            assert [legal_from_wire(w, seat) for w in wire] == legal
            action = rng.choice(legal)
        events = game.apply(action)  # type: ignore[arg-type]
        for event in events:
            seq += 1
            for seat in (None, *range(game.players)):
                seen = event_for(event, seat)
                message = EventMessage(table=1, seq=seq, event=event_to_wire(seen))
                assert event_from_wire(EventMessage.from_wire(message.to_wire()).event) == seen
        for seat in (None, 0):
            view = seat_view(game, seat)
            snap = Snapshot(table=1, seq=seq, info=info, view=view_to_wire(view))
            assert view_from_wire(Snapshot.from_wire(snap.to_wire()).view) == view


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_random_games_round_trip(game_name: str) -> None:
    for seed in range(2):
        play(game_name, seed)


def test_action_from_wire_takes_the_seat_from_the_connection() -> None:
    action = action_from_wire({"kind": "discard", "card": "9c#1"}, seat=1)
    assert action == Discard(1, Card.parse("9c#1"))
    assert action_from_wire({"kind": "discard", "card": "9c#1", "seat": 1}, seat=1) == action
    # naming another seat is refused, never played quietly for one's own
    with pytest.raises(RemoteProtocolError) as err:
        action_from_wire({"kind": "discard", "card": "9c#1", "seat": 3}, seat=1)
    assert (err.value.code, err.value.fatal) == ("not_your_seat", False)


@pytest.mark.parametrize(("wire", "code"), [
    ({"kind": "discard", "card": "10c"}, "bad_card"),
    ({"kind": "discard"}, "bad_message"),
    ({"kind": "shuffle", "order": []}, "bad_message"),
    ({"kind": "meld", "cards": "7h 8h 9h"}, "bad_message"),
    ("discard", "bad_message"),
])
def test_bad_actions(wire: object, code: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        action_from_wire(wire, seat=0)
    assert (info.value.code, info.value.fatal) == (code, False)


def test_unknown_kinds_are_skipped_by_clients() -> None:
    assert event_from_wire({"kind": "teleport", "seat": 1}) is None
    assert legal_from_wire({"kind": "teleport"}, seat=0) is None


def test_the_games_catalogue_fits_its_records() -> None:
    for game in games_catalogue():
        info = GameInfo(**{**game, "options": tuple(OptionInfo(**o) for o in game["options"])})
        assert GameInfo.from_wire(info.to_wire()) == info


def test_a_knock_carries_the_knockers_melds_and_leaves_them_out_when_none() -> None:
    melds = (parse_cards("3c 4c 5c"), parse_cards("9h 9s 9d"))
    knock = Knock(0, Card.parse("Kh"), melds)
    wire = action_to_wire(knock)
    assert wire == {"kind": "knock", "card": "Kh",
                    "melds": (("3c", "4c", "5c"), ("9h", "9s", "9d"))}
    assert action_from_wire(wire, seat=0) == knock
    assert action_to_wire(Knock(0, Card.parse("Kh"))) == {"kind": "knock", "card": "Kh"}
    for plain in ({"kind": "knock", "card": "Kh"}, {"kind": "knock", "card": "Kh", "melds": None}):
        assert action_from_wire(plain, seat=1) == Knock(1, Card.parse("Kh"))


def test_a_field_that_may_be_nil_may_be_absent() -> None:
    assert action_from_wire({"kind": "knock"}, seat=0) == Knock(0, None)
    assert action_from_wire({"kind": "knock", "card": None}, seat=0) == Knock(0, None)
    with pytest.raises(RemoteProtocolError) as err:
        action_from_wire({"kind": "discard"}, seat=0)  # card (not nil-able) is required
    assert err.value.code == "bad_message"
    with pytest.raises(RemoteProtocolError) as err:
        action_from_wire({"kind": "knock", "card": "Kh", "melds": [["3c", "3x"]]}, seat=0)
    assert err.value.code == "bad_card"
