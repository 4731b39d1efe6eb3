"""The card tracker's inferences, and the evaluation's potential and danger."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from rummyhall.bots import StrongBot, StrongParams
from rummyhall.bots.arena import seat_order_shuffle
from rummyhall.bots.evaluation import HandEvaluator, meld_completions, run_windows
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.bots.tracking import Tracker, has_played, unseen_faces
from rummyhall.rules import (
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    MeldRules,
    PassUpcard,
    SeatAction,
    Shuffle,
    deadwood_points,
    discard_deadwoods,
    make_deck,
    meld_rules_for,
    new_game,
    parse_cards,
    seat_view,
)

GIN = meld_rules_for("gin")


def rigged_gin(hands: dict[int, str], upcard: str, stock: str) -> Game:
    """A Gin game dealt by seat 1 (seat 0 plays first) with the given cards."""
    game = new_game("gin", players=2, first_dealer=1)
    chosen = {s: list(parse_cards(t)) for s, t in hands.items()}
    top = list(parse_cards(upcard + " " + stock))
    rest = [c for c in make_deck() if c not in {*chosen[0], *chosen[1], *top}]
    game.apply(seat_order_shuffle(game, {0: tuple(chosen[0]), 1: tuple(chosen[1]),
                                         -1: (*top, *rest)}))
    return game


def play(game: Game, tracker: Tracker, action: SeatAction) -> None:
    """Apply ``action``; seat 0's actions go through the tracker as a bot's would."""
    if action.seat == 0:
        view = seat_view(game, 0)
        tracker.observe(view)
        tracker.record(view, action)
    game.apply(action)


def card(text: str) -> Card:
    return Card.parse(text)


def test_the_tracker_learns_what_the_opponent_takes_and_passes() -> None:
    game = rigged_gin({0: "Ac 2c 3c 9d 9h Kd Qs 5h 7s 4d", 1: "8d 8h Ts Js Qc 2s 3s 4h 6c 5c"},
                      "Kc", "Jd 6d 2h 3h")
    tracker = Tracker()
    play(game, tracker, PassUpcard(0))
    play(game, tracker, PassUpcard(1))
    play(game, tracker, DrawStock(0))            # Jd
    play(game, tracker, Discard(0, card("Kd")))
    play(game, tracker, DrawStock(1))            # 6d: seat 1 passed on Kd
    play(game, tracker, Discard(1, card("Qc")))
    mem = tracker.observe(seat_view(game, 0))
    assert card("Kd").face in mem.shunned[1] and card("Qc").face in mem.shunned[1]
    play(game, tracker, DrawStock(0))            # 2h
    play(game, tracker, Discard(0, card("9d")))
    play(game, tracker, DrawDiscard(1))          # seat 1 takes 9d
    play(game, tracker, Discard(1, card("Ts")))
    mem = tracker.observe(seat_view(game, 0))
    assert mem.known[1] == {card("9d")}
    view = seat_view(game, 0)
    unseen = unseen_faces(view, mem)
    assert unseen[card("9d").face] == 0 and unseen[card("Ts").face] == 0
    assert unseen[card("Js").face] == 1
    # Once seat 1 shows the card again it is no longer known to be in its hand.
    play(game, tracker, DrawStock(0))
    play(game, tracker, Discard(0, card("2h")))
    play(game, tracker, DrawStock(1))
    play(game, tracker, Discard(1, card("9d")))
    assert tracker.observe(seat_view(game, 0)).known[1] == set()


def test_a_new_hand_or_a_new_game_starts_a_new_memory() -> None:
    game = rigged_gin({0: "Ac 2c 3c 9d 9h Kd Qs 5h 7s 4d", 1: "8d 8h Ts Js Qc 2s 3s 4h 6c 5c"},
                      "Kc", "")
    tracker = Tracker()
    view = seat_view(game, 0)
    first = tracker.observe(view)
    first.known[1] = {card("Kc")}
    tracker.record(view, PassUpcard(0))
    assert tracker.observe(dataclasses.replace(view, move_number=view.move_number + 2)) is first
    view2 = dataclasses.replace(view, hand_no=2, move_number=50)
    later = tracker.observe(view2)
    assert later is not first and later.known == {}
    tracker.record(view2, PassUpcard(0))
    again = tracker.observe(dataclasses.replace(view, hand_no=2, move_number=3))
    assert again is not later  # an earlier move: another game


def test_potential_counts_live_outs_only() -> None:
    hand = parse_cards("5h 6h Kc Ks Qd 2c 3d 9s Js 4c")
    full = [0] * 64
    for c in make_deck():
        if c not in hand:
            full[c.face] = 1
    live = HandEvaluator(GIN, full).potential(hand)
    dead = list(full)
    for text in ("4h", "7h", "Kd", "Kh"):  # the outs of 5h 6h and of the kings
        dead[card(text).face] = 0
    assert 0 < HandEvaluator(GIN, dead).potential(hand) < live
    assert HandEvaluator(GIN, full).potential(parse_cards("Ac 2c 3c 4d 5d 6d 7h 8h 9h Th")) == 0


def test_potential_matches_a_brute_force_on_a_small_case() -> None:
    hand = parse_cards("5h 6h Kc Ks Qd 2c 3d 9s Js 4c")
    unseen = [0] * 64
    outs = parse_cards("4h 7h Kd Ah Tc")
    for c in outs:
        unseen[c.face] = 1
    expected = 0.0
    dd = deadwood_points(hand, GIN)
    for u in outs:
        grown = (*hand, u)
        best = min(deadwood_points([x for x in grown if x != d], GIN) for d in grown)
        expected += dd - best
    assert math.isclose(HandEvaluator(GIN, unseen).potential(hand), expected / len(outs))


def test_danger_follows_the_opponents_cards() -> None:
    unseen = [0] * 64
    for c in make_deck():
        unseen[c.face] = 1
    ev = HandEvaluator(GIN, unseen)
    seven = card("7h")
    base = ev.danger(seven, holds=10)
    assert 0 < base < 1
    assert ev.danger(seven, holds=10, known=[card("8h"), card("9h")]) == 1.0
    assert ev.danger(seven, holds=10, known=[card("7c"), card("7d")]) == 1.0
    assert ev.danger(seven, holds=10, shunned=[card("7s").face]) < base
    for text in ("7h", "7c", "7d", "7s", "5h", "6h", "8h", "9h"):
        unseen[card(text).face] = 0  # every partner dead: nobody can use it
    assert HandEvaluator(GIN, unseen).danger(seven, holds=10) == 0.0


def windows(rank: int, rules: MeldRules) -> set[frozenset[int]]:
    return {frozenset(w) for w in run_windows(rank, rules)}


def test_run_windows_follow_the_ace_mode() -> None:
    assert windows(1, GIN) == {frozenset({2, 3})}
    assert windows(13, GIN) == {frozenset({11, 12})}
    assert windows(7, GIN) == {frozenset(w) for w in ({5, 6}, {6, 8}, {8, 9})}
    high = meld_rules_for("basic", {"ace_mode": "high_or_low"})
    assert windows(13, high) == {frozenset({11, 12}), frozenset({12, 1})}
    # the ace is low and high both: A-2-3, and Q-K-A above the king
    assert windows(1, high) == {frozenset({2, 3}), frozenset({12, 13})}
    assert windows(12, high) == {frozenset(w) for w in ({10, 11}, {11, 13}, {13, 1})}
    corner = meld_rules_for("basic", {"ace_mode": "round_the_corner"})
    assert windows(1, corner) == {frozenset(w) for w in ({2, 3}, {13, 2}, {12, 13})}


@pytest.mark.parametrize("mode", ["low", "high_or_low", "round_the_corner"])
def test_meld_completions_are_the_run_windows_and_the_sets(mode: str) -> None:
    """The masks' sums agree with the windows, for every set of ranks one suit can hold;
    and a rank held in two other suits (or twice in one) completes a set."""
    rules = meld_rules_for("basic", {"ace_mode": mode})
    for held in range(0, 1 << 14, 2):  # ranks 1 to 13 of hearts (suit 1)
        want = 0
        for rank in range(1, 14):
            if any(held >> a & 1 and held >> b & 1 for a, b in run_windows(rank, rules)):
                want |= 1 << (16 + rank)
        assert meld_completions(held << 16, 0, mode) & 0xFFFF << 16 == want
    sevens = 1 << 7 | 1 << 39  # the seven of suits 0 and 2: the other two suits' sevens
    assert meld_completions(sevens, 0, mode) & (0x1 << 7) * 0x0001_0001_0001_0001 == \
        1 << 23 | 1 << 55
    assert meld_completions(1 << 7, 1 << 7, mode) == 1 << 23 | 1 << 39 | 1 << 55


@pytest.mark.parametrize(("game", "players", "round_no", "text"), [
    ("chicago", 2, 0, "2s 5h 5c 9d Td Kc 3h"),  # one wild card
    ("chicago", 8, 0, "2s 2h 9c 9d Jh Kc 4s"),  # two: runs reach further
    ("three_thirteen", 8, 5, "7c 7h 8d Kc Ks 3h 4h"),  # sevens wild
])
def test_wild_card_potential_is_the_average_saving_of_every_unseen_face(
        game: str, players: int, round_no: int, text: str) -> None:
    """Off the solver's fast path faces that play alike share one solve (same rank, no
    natural card of their suit within reach; the wild cards of one rank): the potential
    is still the exact average, over every unseen card, of what drawing it saves
    (discarding the drawn card or one of the hand's two dearest loose cards)."""
    rules = meld_rules_for(game, round=max(round_no, 1))
    hand = parse_cards(text)
    unseen = [0] * 64
    for c in new_game(game, players=players).shuffle_cards():
        if c not in hand:
            unseen[c.face] += 1
    dd = deadwood_points(hand, rules)
    after = discard_deadwoods(hand, rules)
    most = dd - min(after.values())
    loose = sorted((c for c in hand if after[c] == dd - rules.points(c)),
                   key=lambda c: -rules.points(c))[:2]
    total = expected = 0.0
    for face, n in enumerate(unseen):
        if not n:
            continue
        u = Card(face)
        while u in hand:
            u = Card(u + 64)
        grown = (*hand, u)
        gain = max(0, most - rules.points(u))
        # (a face no natural card of the hand reaches is taken to stay deadwood, as the
        # module says: with two wild cards held that is an approximation)
        reached = rules.is_wild(u) or any(
            not rules.is_wild(c) and (c.rank == u.rank or (
                c.suit == u.suit and abs(c.rank - u.rank) <= 2)) for c in hand)
        if reached and deadwood_points(grown, rules) < dd + rules.points(u):
            gain = max(gain, dd - min([dd, *(deadwood_points([x for x in grown if x != c], rules)
                                             for c in loose)]))
        expected += n * gain
        total += n
    assert math.isclose(HandEvaluator(rules, unseen).potential(hand), expected / total)


def test_in_its_first_turn_only_the_seats_after_the_dealer_have_played() -> None:
    # Four seats, seat 1 deals: seat 2 plays first, then seat 3 (us), seat 0, seat 1.
    game = new_game("chicago", players=4, first_dealer=1)
    game.apply(Shuffle(tuple(game.shuffle_cards())))  # (the deck in its own order)
    for _ in range(2):  # seat 2 draws and discards
        game.apply(next(a for a in game.legal_actions() if isinstance(a, (DrawStock, Discard))))
    tracker = Tracker()
    view = seat_view(game, 3)
    mem = tracker.observe(view)
    assert (view.to_move, mem.turns) == (3, 1)
    assert [has_played(view, mem, s) for s in (0, 1, 2)] == [False, False, True]
    mem.turns = 2  # from our second turn on, every seat has played since our last
    assert all(has_played(view, mem, s) for s in (0, 1, 2))


def test_the_tracker_counts_the_stock_rebuilds_it_sees() -> None:
    # Strong bots play two-seat Basic Rummy hands; a tracker that sees seat 0's views
    # counts each rebuild of the stock (a stock larger than at its last look or action) as
    # the engine counts them, and starts again at 0 in the next hand.
    rng = random.Random(5)
    game = new_game("basic", players=2)
    # (bots that lay their melds down soon, so that the hands run the stock out)
    bots = [StrongBot(StrongParams(rummy_hold_two=2)) for _ in range(2)]
    tracker = Tracker()
    checked = rebuilt = 0
    for _ in range(20_000):
        if game.is_over or checked >= 60:
            break
        s = game.to_move
        if s is None:
            game.apply(shuffle_for(game, rng))
            continue
        view = seat_view(game, s)
        action = bots[s].choose(view, game.legal_actions())
        if s == 0:
            mem = tracker.observe(view)
            assert mem.rebuilds == game.exhaustions
            tracker.record(view, action)
            checked += game.exhaustions > 0
            rebuilt = max(rebuilt, game.exhaustions)
        game.apply(action)
    assert checked >= 60 and rebuilt >= 1
