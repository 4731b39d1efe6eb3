"""The strong and expert bots decide from their seat's view alone: equal views, equal decisions.

Two games are dealt so that seat 0 sees exactly the same things while the hidden parts
differ: some cards of the other hands are swapped with cards at the bottom of the stock
(never reached here). The opponents play the same visible moves in both games (draw
from the stock, discard a card they hold in both), and at every decision of seat 0 the
two views must be equal and the two bots (one per game, the expert's two with the same
seed) must choose the same. The expert samples the hidden cards at every decision: equal
choices prove its sampler draws from what the view shows, never from the game.
"""

from __future__ import annotations

import random

import pytest

from rummyhall.bots import ExpertBot, ExpertParams, Strategy, StrongBot
from rummyhall.bots.arena import deal_slices, seat_order_shuffle
from rummyhall.bots.expert_bot import PLAYOUTS
from rummyhall.rules import (
    Discard,
    DrawStock,
    Game,
    PassUpcard,
    Phase,
    SeatAction,
    new_game,
    seat_view,
)

SWAPPED = 3  # hidden cards of each opponent that differ between the twin games


def twin_games(name: str, players: int, seed: int) -> tuple[Game, Game]:
    a = new_game(name, players=players, first_dealer=players - 1)
    b = new_game(name, players=players, first_dealer=players - 1)
    slices = deal_slices(a, random.Random(seed))
    other = {k: list(v) for k, v in slices.items()}
    rest = other[-1]
    for seat in range(1, players):
        for i in range(SWAPPED):
            j = len(rest) - 1 - ((seat - 1) * SWAPPED + i)
            other[seat][i], rest[j] = rest[j], other[seat][i]
    a.apply(seat_order_shuffle(a, slices))
    b.apply(seat_order_shuffle(b, {k: tuple(v) for k, v in other.items()}))
    assert a.hands[0] == b.hands[0] and a.hands[1] != b.hands[1]
    return a, b


def opponent_move(a: Game, b: Game) -> tuple[SeatAction, SeatAction]:
    """The same visible move in both games: pass or draw from the stock, discard a shared card."""
    seat = a.to_move
    assert seat is not None and seat == b.to_move
    legal_a, legal_b = a.legal_actions(), b.legal_actions()
    for kind in (PassUpcard, DrawStock):
        draw = next((x for x in legal_a if isinstance(x, kind)), None)
        if draw is not None and draw in legal_b:
            return draw, draw
    shared = sorted(set(a.hands[seat]) & set(b.hands[seat]))
    move = next(Discard(seat, c) for c in shared if Discard(seat, c) in legal_a
                and Discard(seat, c) in legal_b)
    return move, move


def make_bot(level: str, seed: int) -> Strategy:
    if level == "strong":
        return StrongBot()
    # A fixed number of worlds and no clock: the search itself is reproducible.
    if level == "playouts":  # every Gin decision played out on the sampled worlds
        return ExpertBot(ExpertParams(budget_ms=None, max_worlds=4, playouts=PLAYOUTS),
                         random.Random(seed))
    # (basic_feed_seats: multi-seat Basic Rummy's discard searched too, as an option)
    return ExpertBot(ExpertParams(budget_ms=None, max_worlds=12, basic_feed_seats=8),
                     random.Random(seed))


@pytest.mark.parametrize("level", ["strong", "expert"])
@pytest.mark.parametrize(("name", "players", "seed"),
                         [("gin", 2, 1), ("gin", 2, 2), ("chicago", 3, 3), ("basic", 2, 4),
                          ("three_thirteen", 2, 5), ("chicago", 2, 6), ("basic", 4, 7)])
def test_equal_views_give_equal_choices(level: str, name: str, players: int, seed: int) -> None:
    a, b = twin_games(name, players, seed)
    bot_a, bot_b = make_bot(level, seed), make_bot(level, seed)
    decisions = searched = 0
    hand = a.hand_no
    while a.hand_no == hand and a.phase is not Phase.DEAL and not a.is_over:
        if len(a.stock) <= SWAPPED * players + 3:
            break  # the swapped cards are near: the stocks would differ
        if a.to_move == 0:
            view_a, view_b = seat_view(a, 0), seat_view(b, 0)
            assert view_a == view_b
            move_a = bot_a.choose(view_a, a.legal_actions())
            move_b = bot_b.choose(view_b, b.legal_actions())
            assert move_a == move_b
            decisions += 1
            searched += getattr(bot_a, "last_worlds", 0)
        else:
            move_a, move_b = opponent_move(a, b)
        a.apply(move_a)
        b.apply(move_b)
    assert decisions >= 4
    assert level == "strong" or searched > 0  # the expert's worlds were in play


@pytest.mark.parametrize("seed", [1, 2])
def test_equal_views_give_equal_choices_with_playouts(seed: int) -> None:
    test_equal_views_give_equal_choices("playouts", "gin", 2, seed)


def test_the_bot_keeps_no_state_beyond_the_hand() -> None:
    """Replaying the same views to a fresh bot gives the same choices (memory is per hand)."""
    a, _ = twin_games("gin", 2, 9)
    bot = StrongBot()
    seen = []
    while a.phase is not Phase.DEAL and len(a.stock) > 8:
        if a.to_move == 0:
            view, legal = seat_view(a, 0), a.legal_actions()
            move = bot.choose(view, legal)
            seen.append((view, legal, move))
        else:
            move = opponent_move(a, a)[0]
        a.apply(move)
    replay = StrongBot()
    assert [replay.choose(v, legal) for v, legal, _ in seen] == [m for _, _, m in seen]
