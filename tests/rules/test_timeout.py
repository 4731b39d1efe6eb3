"""The timeout policy (rules/timeout.py): what is played for a seat whose time ran out."""

from __future__ import annotations

import random

from game_strategies import Setup, game_setups, short_game
from hypothesis import HealthCheck, given, settings

from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    Discard,
    DrawDiscard,
    DrawStock,
    PassUpcard,
    Phase,
    Shuffle,
    best_discard,
    new_game,
    parse_cards,
)
from rummyhall.rules.timeout import timeout_action


def test_gin_upcard_is_passed_then_the_stock_is_drawn() -> None:
    game = new_game("gin", {}, players=2, first_dealer=0)
    game.apply(shuffle_for(game, random.Random(1)))
    assert game.phase == "upcard"  # (a string: the phase changes below, mypy would narrow)
    seat = game.to_move
    assert seat is not None
    assert timeout_action(game, seat) == PassUpcard(seat)
    game.apply(PassUpcard(seat))
    other = game.to_move
    assert other is not None
    assert timeout_action(game, other) == PassUpcard(other)
    game.apply(PassUpcard(other))  # both passed: the stock only
    seat = game.to_move
    assert seat is not None and game.phase is Phase.DRAW
    assert timeout_action(game, seat) == DrawStock(seat)


def test_an_empty_stock_draws_the_discard() -> None:
    game = new_game("basic", {}, players=2, first_dealer=0)
    game.apply(shuffle_for(game, random.Random(2)))
    seat = game.to_move
    assert seat is not None and game.phase is Phase.DRAW
    game.discard.extend(game.stock)  # (the stock's cards moved aside: it is empty)
    game.stock.clear()
    assert timeout_action(game, seat) == DrawDiscard(seat)


def test_the_discard_leaves_the_least_deadwood_and_never_the_card_taken() -> None:
    game = new_game("gin", {}, players=2, first_dealer=0)
    game.apply(Shuffle(game.shuffle_cards()))
    seat = game.to_move
    assert seat is not None
    game.apply(DrawDiscard(seat))  # the upcard: the play phase, a card taken
    hand = game.hands[seat]
    hand[:] = parse_cards("2c 3c 4c 5h 6h 7h 9s 9d 9c 2d Kd")
    game.taken = parse_cards("Kd")[0]
    # the king would leave 2 points of deadwood; it was just taken: the 2d goes (10 left)
    assert best_discard(hand, game.meld_rules)[0] == game.taken
    assert timeout_action(game, seat) == Discard(seat, parse_cards("2d")[0])
    game.taken = parse_cards("9s")[0]
    assert timeout_action(game, seat) == Discard(seat, parse_cards("Kd")[0])
    hand[:] = parse_cards("Kd 2d")  # two cards (Basic Rummy, after melding): still not it
    game.taken = hand[0]
    assert timeout_action(game, seat) == Discard(seat, hand[1])
    hand[:] = parse_cards("Kd")
    game.taken = hand[0]  # the only card left: it goes
    assert timeout_action(game, seat) == Discard(seat, hand[0])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups())
def test_the_timeout_action_is_always_legal_and_never_ends_the_hand_by_choice(
        setup: Setup) -> None:
    """Whole games played by timeouts alone, under random options: each timeout action
    is legal, and it is a pass, a draw or a discard."""
    game = short_game(setup)
    rng = random.Random(setup[3])
    for _ in range(3000):
        if game.is_over or game.hand_no > 1:
            return
        seat = game.to_move
        if seat is None:
            game.apply(shuffle_for(game, rng))
            continue
        action = timeout_action(game, seat)
        assert action in game.legal_actions() or game.can(action), action
        assert action.kind in ("pass", "draw_stock", "draw_discard", "discard"), action
        game.apply(action)
