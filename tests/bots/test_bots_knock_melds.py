"""The bot API's knock with the knocker's own melds, and the strong bot's use of it."""

from __future__ import annotations

import dataclasses
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


def test_the_strong_bot_lays_more_deadwood_when_that_closes_a_known_layoff() -> None:
    # Ac-4c 777 / 2d 3h (5 points): the defender took the 5c from the pile, so laying the
    # four-card run lets him lay it off (D - 5 <= 5: an undercut from D <= 10); laying
    # Ac 2c 3c and keeping the 4c (9 points) closes it (an undercut only from D <= 9).
    game, legal = knock_position("Ac 2c 3c 4c 7h 7d 7s 2d 3h", "Kh",
                                 "5c 8s 9s Ts Jd Qd Kd 6h 9h Qh")
    view = seat_view(game, 0)
    eager = StrongParams(knock_risk=0.9)  # (early in the hand the bot would not knock 5)
    bot = StrongBot(eager)
    bot.tracker.observe(view).known_cards(1).add(Card.parse("5c"))
    action = bot.choose(view, legal)
    assert isinstance(action, Knock) and action.card == Card.parse("Kh")
    assert action.melds is not None
    assert sorted(" ".join(map(str, m)) for m in action.melds) == ["7d 7h 7s", "Ac 2c 3c"]
    assert game.can(action)
    # without the known card the four-card run's 5c is only a chance: the plain knock
    plain = StrongBot(eager).choose(view, legal)
    assert isinstance(plain, Knock) and plain.melds is None
    # and without the option the bot leaves the arrangement to the server
    off = StrongBot(dataclasses.replace(eager, own_melds=False))
    off.tracker.observe(view).known_cards(1).add(Card.parse("5c"))
    action = off.choose(view, legal)
    assert isinstance(action, Knock) and action.melds is None


def test_equal_deadwood_arrangements_are_left_to_the_server() -> None:
    # Runs or sets of the square leave the same 2 points: the server, which sees the
    # defender's hand, lays the one taking the fewest layoffs; the bot knocks plainly.
    game, legal = knock_position(SQUARE, "Kh", "6s 7s 8s 9s Ts Js Qs Ks As 9d")
    action = StrongBot(StrongParams(knock_risk=0.9)).choose(seat_view(game, 0), legal)
    assert isinstance(action, Knock) and action.card == Card.parse("Kh")
    assert action.melds is None


def test_with_one_best_arrangement_the_strong_bot_knocks_plainly() -> None:
    game, legal = knock_position("2c 3c 4c 9h 9s 9d Js Qs Ks As", "Kh",
                                 "6s 7s 8s Ts 2d 3d 4d 5d 6d 7d")
    action = StrongBot().choose(seat_view(game, 0), legal)
    assert isinstance(action, Knock) and action.melds is None
