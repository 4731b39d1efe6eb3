"""Gin playouts: the playout policy and its scores agree with the rules engine."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from rummyhall.bots import StrongBot, knock_with_melds
from rummyhall.bots.arena import deal_slices, seat_order_shuffle
from rummyhall.bots.playouts import GinPlayout, knock_thresholds, related
from rummyhall.rules import (
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    Knock,
    Phase,
    SeatAction,
    SeatView,
    best_arrangement,
    new_game,
    parse_cards,
    seat_view,
    view_meld_rules,
)


class PolicyBot:
    """The playout policy as a bot, so that the engine can play what a playout plays."""

    name = "policy"
    needs_view = True

    def __init__(self, playout: GinPlayout) -> None:
        self.playout = playout

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None and view.seat is not None
        memo, seat = self.playout.memo, view.seat
        hand = view.hand
        if view.phase == "draw":
            top = view.discard_pile[-1]
            take = related(top, hand) and min(
                v for c, v in memo.after((*hand, top)).items() if c != top) < memo.dd(hand)
            return DrawDiscard(seat) if take else DrawStock(seat)
        card, left = memo.best_discard(hand, view.taken)
        if left <= self.playout.threshold(view.stock_count):
            kept = [c for c in hand if c != card]
            return knock_with_melds(Knock(seat, card), best_arrangement(kept, memo.rules).melds)
        return Discard(seat, card)


def to_seat_draw(seed: int, turns: int) -> Game:
    """A Gin hand played by strong bots until seat 0's ``turns``-th draw (or None)."""
    game = new_game("gin", players=2, first_dealer=1)
    game.apply(seat_order_shuffle(game, deal_slices(game, random.Random(seed))))
    bots = [StrongBot(), StrongBot()]
    seen = 0
    for _ in range(200):
        s = game.to_move
        assert s is not None and game.phase is not Phase.DEAL
        view = seat_view(game, s)
        if s == 0 and view.phase == "draw":
            seen += 1
            if seen == turns:
                return game
        game.apply(bots[s].choose(view, game.legal_actions()))
    raise AssertionError("no such turn")


@pytest.mark.parametrize("seed", range(12))
def test_a_playout_scores_what_the_engine_scores_for_the_same_play(seed: int) -> None:
    # From seat 0's third draw, the playout of each draw choice and the engine playing
    # the playout policy on the true hidden cards end the hand with the same points.
    for take in (True, False):
        game = to_seat_draw(seed, 3)
        view = seat_view(game, 0)
        playout = GinPlayout(view_meld_rules(view), view.options, knock_risk=0.02)
        value = playout.from_draw(view.hand, game.hands[1], game.stock,
                                  view.discard_pile[-1], take)
        bots = [PolicyBot(playout), PolicyBot(playout)]
        game.apply(DrawDiscard(0) if take else DrawStock(0))
        scored = len(game.results)
        for _ in range(200):
            s = game.to_move
            if len(game.results) > scored or s is None:
                break
            game.apply(bots[s].choose(seat_view(game, s), game.legal_actions()))
        if len(game.results) > scored:
            points = game.results[-1].points
            assert value == points[0] - points[1]
        else:  # a dead hand: the stock ran down, nobody scores
            assert game.phase is Phase.DEAL and value == 0


def test_the_playout_scores_follow_the_tables_bonuses() -> None:
    rules = view_meld_rules(seat_view(to_seat_draw(1, 1), 0))
    plain = GinPlayout(rules, {}, knock_risk=0.02)
    assert plain.score(0, 12) == 25 + 12  # gin
    assert plain.score(5, 12) == 7  # a knock that holds
    assert plain.score(8, 3) == -(25 + 5)  # an undercut
    assert plain.score(6, 6) == -25  # a tie undercuts by default
    house = GinPlayout(rules, {"gin_bonus": 20, "undercut_bonus": 10, "undercut_on_tie": False},
                       knock_risk=0.02)
    assert house.score(0, 12) == 32 and house.score(8, 3) == -15 and house.score(6, 6) == 0


def test_a_card_is_related_to_its_rank_and_its_suit_neighbours() -> None:
    hand = parse_cards("7c 9d Kh")
    assert related(Card.parse("7s"), hand) and related(Card.parse("Jd"), hand)
    assert related(Card.parse("Qh"), hand) and not related(Card.parse("Js"), hand)
    assert not related(Card.parse("6d"), hand) and not related(Card.parse("As"), hand)


def test_the_playout_knocks_lower_as_the_stock_runs_down() -> None:
    tops = knock_thresholds(10, 0.02)
    assert tops[31] == 10  # at the deal any legal count is safe enough
    assert tops[5] == 0 and min(tops) == 0  # late in the hand only gin, gin always
    assert tops[20] < tops[28] < tops[31]
    assert knock_thresholds(0, 0.02)[31] == 0  # a table where only gin ends the hand


def test_every_playout_of_a_table_shares_one_knock_table() -> None:
    # Each decision builds a GinPlayout: the table (hundreds of normal tails) is computed
    # once per table's options, not once per decision.
    rules = view_meld_rules(seat_view(to_seat_draw(1, 1), 0))
    first = GinPlayout(rules, {}, knock_risk=0.02)
    again = GinPlayout(rules, {}, knock_risk=0.02)
    assert first.thresholds is again.thresholds
    assert first.thresholds == knock_thresholds(10, 0.02)
    assert GinPlayout(rules, {"knock_limit": 7}, knock_risk=0.02).thresholds[31] == 7
