"""The bot API's knock with the knocker's own melds, and the strong bot's use of it."""

from __future__ import annotations

import random

from rummyhall.bots import StrongBot, StrongParams, is_offered, knock_with_melds
from rummyhall.rules import (
    Card,
    Game,
    Knock,
    Phase,
    SeatAction,
    Shuffle,
    new_game,
    parse_cards,
    seat_view,
)

SQUARE = "3c 4c 5c 3d 4d 5d 3h 4h 5h 2s"


def knock_position(hand: str, extra: str, defender: str) -> tuple[Game, list[SeatAction]]:
    """A Gin game where seat 0 has drawn and holds ``hand`` + ``extra`` early in the hand."""
    game = new_game("gin", players=2, first_dealer=1)
    order = list(game.shuffle_cards())
    random.Random(5).shuffle(order)
    game.apply(Shuffle(tuple(order)))
    mine, theirs = parse_cards(f"{hand} {extra}"), parse_cards(defender)
    used = set(mine) | set(theirs)
    rest = [c for c in order if c not in used]
    game.hands = [list(mine), list(theirs)]
    game.discard, game.stock = rest[:1], rest[1:]
    game.turn, game.taken, game.phase = 0, None, Phase.PLAY
    return game, game.legal_actions()


def test_knock_with_melds_is_offered_when_its_plain_knock_is() -> None:
    game, legal = knock_position(SQUARE, "Kh", "6s 7s 8s 9s Ts Js Qs Ks As 9d")
    plain = next(a for a in legal if isinstance(a, Knock) and a.card == Card.parse("Kh"))
    runs = [parse_cards("3c 4c 5c"), parse_cards("3d 4d 5d"), parse_cards("3h 4h 5h")]
    own = knock_with_melds(plain, runs)
    assert own.melds == tuple(tuple(m) for m in runs) and own.card == plain.card
    assert is_offered(own, legal) and is_offered(plain, legal)
    assert not is_offered(knock_with_melds(Knock(0, Card.parse("Qd")), runs), legal)
    assert game.can(own)


def test_the_strong_bot_lays_the_melds_that_take_fewer_layoffs() -> None:
    # Runs (the solver's first arrangement) take 2c 6c 2d 6d 2h 6h (24 points of layoffs);
    # sets take only 3s 4s 5s (12): the bot lays the sets.
    game, legal = knock_position(SQUARE, "Kh", "6s 7s 8s 9s Ts Js Qs Ks As 9d")
    view = seat_view(game, 0)
    action = StrongBot().choose(view, legal)
    assert isinstance(action, Knock) and action.card == Card.parse("Kh")
    assert action.melds is not None
    assert sorted(" ".join(map(str, m)) for m in action.melds) == [
        "3c 3d 3h", "4c 4d 4h", "5c 5d 5h"]
    assert game.can(action)
    # without the option it leaves the arrangement to the server
    plain = StrongBot(StrongParams(own_melds=False)).choose(view, legal)
    assert isinstance(plain, Knock) and plain.melds is None


def test_with_one_best_arrangement_the_strong_bot_knocks_plainly() -> None:
    game, legal = knock_position("2c 3c 4c 9h 9s 9d Js Qs Ks As", "Kh",
                                 "6s 7s 8s Ts 2d 3d 4d 5d 6d 7d")
    action = StrongBot().choose(seat_view(game, 0), legal)
    assert isinstance(action, Knock) and action.melds is None
