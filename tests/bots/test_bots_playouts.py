"""Playouts: the playout policy and its scores agree with the rules engine."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from rummyhall.bots import StrongBot, StrongParams, knock_with_melds
from rummyhall.bots.arena import deal_slices, seat_order_shuffle
from rummyhall.bots.evaluation import face_mask, first_layoffs
from rummyhall.bots.playouts import (
    BasicHand,
    BasicPlayout,
    ChicagoPlayout,
    GinPlayout,
    ThirteenPlayout,
    knock_thresholds,
    related,
)
from rummyhall.bots.sampling import deck_cards
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    MAX_STOCK_EXHAUSTIONS,
    BasicRummy,
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    GoOut,
    HandScored,
    Knock,
    LayOff,
    Meld,
    MeldRules,
    Phase,
    SeatAction,
    SeatView,
    ThreeThirteen,
    best_arrangement,
    best_layoffs,
    can_lay_off,
    deadwood_points,
    new_game,
    parse_cards,
    seat_view,
    view_meld_rules,
)

MELDING = StrongParams(rummy_hold_two=2)  # (lays its melds down soon: see to_seat_draw_of)


class PolicyBot:
    """A playout's policy as a bot, so that the engine can play what a playout plays
    (Gin's: the knock by the playout's threshold, laying a best arrangement)."""

    name = "policy"
    needs_view = True

    def __init__(self, playout: GinPlayout | ChicagoPlayout) -> None:
        self.playout = playout

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None and view.seat is not None
        memo, seat = self.playout.memo, view.seat
        if view.phase == "draw":
            take = self.playout.takes(view.hand, view.discard_pile[-1])
            return DrawDiscard(seat) if take else DrawStock(seat)
        card, left = memo.best_discard(view.hand, view.taken)
        if left <= self.knock_limit(view):
            return self.knock(view, card)
        return Discard(seat, card)

    def knock_limit(self, view: SeatView) -> int:
        assert isinstance(self.playout, GinPlayout)
        return self.playout.threshold(view.stock_count)

    def knock(self, view: SeatView, card: Card) -> SeatAction:
        assert view.seat is not None
        kept = [c for c in view.hand if c != card]
        melds = best_arrangement(kept, self.playout.memo.rules).melds
        return knock_with_melds(Knock(view.seat, card), melds)


def to_seat_draw(seed: int, turns: int, name: str = "gin") -> Game:
    """A two-seat hand played by strong bots until seat 0's ``turns``-th draw."""
    game = new_game(name, players=2, first_dealer=1)
    game.apply(seat_order_shuffle(game, deal_slices(game, random.Random(seed))))
    return to_seat_draw_of(game, turns)


def to_seat_draw_of(game: Game, turns: int, rng: random.Random | None = None) -> Game:
    """``game``, dealt, played by strong bots until seat 0's ``turns``-th draw; with
    ``rng``, an empty stock rebuilt by its shuffles (without, that ends it first). The
    bots hold their melds for rummy only with two loose cards (``rummy_hold_two`` 2), so
    that Basic Rummy's tables fill and its stocks run out as the tests need."""
    bots = [StrongBot(MELDING), StrongBot(MELDING)]
    seen = 0
    for _ in range(600):
        if rng is not None and game.phase is Phase.REBUILD:
            game.apply(shuffle_for(game, rng))
            continue
        s = game.to_move
        if s is None or game.phase is Phase.DEAL:
            raise EndedFirst
        view = seat_view(game, s)
        if s == 0 and view.phase == "draw":
            seen += 1
            if seen == turns:
                return game
        game.apply(bots[s].choose(view, game.legal_actions()))
    raise AssertionError("no such turn")


class EndedFirst(Exception):
    """The hand ended before the turn asked for."""


def play_out(game: Game, bot: PolicyBot | BasicPolicyBot | ThirteenPolicyBot,
             rng: random.Random | None = None) -> bool:
    """The engine plays the rest of the hand with ``bot`` at both seats; True if it was
    scored (else it ended dead or void). With ``rng`` an empty stock is rebuilt as the
    table says (a shuffle drawn from ``rng`` as :func:`shuffle_for` draws it), and the
    hand may last ten times longer; without, a stock to shuffle ends it unscored."""
    scored = len(game.results)
    for _ in range(300 if rng is None else 3000):
        if rng is not None and game.phase is Phase.REBUILD:
            game.apply(shuffle_for(game, rng))
            continue
        s = game.to_move
        if len(game.results) > scored or s is None:
            break
        game.apply(bot.choose(seat_view(game, s), game.legal_actions()))
    return len(game.results) > scored


def drawn_and_played(game: Game, playout: ChicagoPlayout | BasicPlayout | ThirteenPlayout,
                     bot: PolicyBot | BasicPolicyBot | ThirteenPolicyBot,
                     take: bool) -> tuple[int, HandScored] | None:
    """Seat 0's playout from its draw (``take``: the top discard, else the stock), then
    the engine playing that draw and the rest of the hand with ``bot``: the playout's
    value and the hand's result; None when the hand was not scored or its stock ran out
    (the playouts stop there)."""
    view = seat_view(game, 0)
    value = playout.from_draw(view.hand, game.hands[1], game.stock, view.discard_pile[-1],
                              take)
    game.apply(DrawDiscard(0) if take else DrawStock(0))
    if play_out(game, bot) and not game.exhaustions:
        return value, game.results[-1]
    return None


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
        game.apply(DrawDiscard(0) if take else DrawStock(0))
        if play_out(game, PolicyBot(playout)):
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


def test_a_showdown_skips_the_layoff_search_only_when_nothing_can_be_laid_off() -> None:
    """A defender card can start a chain of layoffs exactly when it is among
    first_layoffs of the knocker's melds; with none of them the defender's count is its
    deadwood, as the full layoff search finds (the showdown then skips the search)."""
    rules = view_meld_rules(seat_view(to_seat_draw(1, 1), 0))
    playout = GinPlayout(rules, {}, knock_risk=0.02)
    deck = list(new_game("gin", players=2).shuffle_cards())
    rng = random.Random(3)
    skipped = laid = 0
    for _ in range(600):
        rng.shuffle(deck)
        kept, defender = deck[:10], deck[10:20]
        melds = best_arrangement(kept, rules).melds
        if not melds:
            continue
        reach = first_layoffs(melds)
        for card in defender:
            fits = any(can_lay_off(meld, [card], rules) for meld in melds)
            assert fits == bool(reach & face_mask([card]))
        exact = best_layoffs(defender, melds, rules).points
        left = deadwood_points(kept, rules)
        assert playout.showdown(kept, left, defender) == playout.score(left, exact)
        if reach & face_mask(defender):
            laid += exact < deadwood_points(defender, rules)
        else:
            skipped += 1
            assert exact == deadwood_points(defender, rules)
    assert skipped > 100 and laid > 50


def test_a_joker_is_never_taken_for_a_card_with_nothing_to_lay_off() -> None:
    """A joker (face 0) lays off on any meld: the shortcut of the showdown leaves it to
    the layoff search, whatever the rules say of wild ranks."""
    rules = MeldRules()
    playout = GinPlayout(rules, {}, knock_risk=0.02)
    kept, defender = parse_cards("3c 4c 5c 9d"), parse_cards("JK Kd")
    melds = best_arrangement(kept, rules).melds
    exact = best_layoffs(defender, melds, rules).points
    assert exact < deadwood_points(defender, rules)  # the joker goes on 3c 4c 5c
    assert playout.showdown(kept, 9, defender) == playout.score(9, exact)


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


class ChicagoPolicyBot(PolicyBot):
    """Chicago's playout policy as a bot: the knock within the seat's limit."""

    def knock_limit(self, view: SeatView) -> int:
        assert view.seat is not None
        return view.knock_limits[view.seat]

    def knock(self, view: SeatView, card: Card) -> SeatAction:
        assert view.seat is not None
        return Knock(view.seat, card)


def test_a_chicago_playout_scores_what_the_engine_scores_for_the_same_play() -> None:
    # From seat 0's second draw, the playout of each draw choice and the engine playing
    # the playout policy on the true hidden cards end the hand with the same points: the
    # other seat's count less seat 0's.
    compared = 0
    for seed in range(60):
        for take in (True, False):
            try:
                game = to_seat_draw(seed, 2, "chicago")
            except EndedFirst:
                continue
            view = seat_view(game, 0)
            limits = (game.knock_limits[0], game.knock_limits[1])
            playout = ChicagoPlayout(view_meld_rules(view), view.options, limits)
            found = drawn_and_played(game, playout, ChicagoPolicyBot(playout), take)
            if found is not None:
                value, result = found
                assert value == result.points[1] - result.points[0], (seed, take)
                compared += 1
    assert compared >= 60  # (the penalty: the next test)


def test_a_chicago_showdown_charges_the_knock_penalty_as_the_options_say() -> None:
    rules = view_meld_rules(seat_view(new_game("chicago", players=2), 0))
    rummy = parse_cards("Th Jh Qh 9c 9d 9s")  # nothing unmelded
    plain = ChicagoPlayout(rules, {}, (10, 10))
    assert plain.memo.dd(rummy) == 0
    assert plain.showdown(5, parse_cards("Kc Kd 9h")) == 29 - 5  # the knock holds
    assert plain.showdown(5, parse_cards("Kc 3d Ah")) == 14 - 5
    assert plain.showdown(5, parse_cards("3d Ah")) == 4 - (5 + 15)  # lower: the penalty
    assert plain.showdown(0, rummy) == 0  # rummy: no penalty, even against rummy
    assert plain.showdown(4, parse_cards("Ac 3d")) == 4 - (4 + 15)  # a tie: penalty
    lenient = ChicagoPlayout(rules, {"knock_penalty_on_tie": False, "knock_penalty": 10},
                             (10, 10))
    assert lenient.showdown(4, parse_cards("Ac 3d")) == 0
    assert lenient.showdown(5, parse_cards("Ac 3d")) == 4 - 15


class BasicPolicyBot:
    """Basic Rummy's playout policy as a bot: one layoff or meld at a time, as the
    playout makes them, then its discard."""

    def __init__(self) -> None:
        self.melded = [0, 0]  # melds each seat made this turn

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None and view.seat is not None
        seat = view.seat
        table = [m for _, m in view.melds]
        may = not view.options.get("layoff_requires_own_meld") or any(
            owner == seat for owner, _ in view.melds)
        playout = BasicPlayout(view_meld_rules(view), view.options, table, deck_cards(view),
                               may_lay_off=(may, may))
        hand = BasicHand(playout, list(view.hand), [], [])
        hand.melds_this_turn = self.melded[seat]
        if view.phase == "draw":
            self.melded[seat] = 0
            take = hand.takes(view.hand, view.discard_pile[-1], 0)
            return DrawDiscard(seat) if take or DrawStock(seat) not in legal else DrawStock(seat)
        cards = list(view.hand)
        forbidden = view.taken if playout.forbid else None
        if hand.lay_off(cards, 0, forbidden):
            i = next(i for i, m in enumerate(hand.table) if i >= len(table) or m != table[i])
            (card,) = set(view.hand) - set(cards)
            return LayOff(seat, (card,), i)
        if hand.meld(cards, 0, forbidden):
            self.melded[seat] += 1
            return Meld(seat, hand.table[-1])
        card, _ = playout.memo.best_discard(cards, forbidden if forbidden in cards else None)
        return Discard(seat, card)


def basic_at_seat_draw(options: dict[str, object], seed: int, turns: int, *,
                       rebuild: bool = False) -> BasicRummy | None:
    """A two-seat Basic Rummy hand played by strong bots until seat 0's ``turns``-th
    draw (melds on the table, cards taken); None when it ended first (or, unless
    ``rebuild``, when its stock ran out: with it, the stock is rebuilt as the table
    says, by shuffles of its own generator)."""
    game = new_game("basic", options, players=2, first_dealer=1)
    game.apply(seat_order_shuffle(game, deal_slices(game, random.Random(seed))))
    try:
        game = to_seat_draw_of(game, turns, random.Random(seed + 1000) if rebuild else None)
    except EndedFirst:
        return None
    assert isinstance(game, BasicRummy)
    return game


def basic_playout_of(game: BasicRummy, **extra: Any) -> BasicPlayout:
    """Seat 0's playouts as the game stands: the table, who may still go rummy (the
    engine's flags) and who may lay off; ``extra`` for :class:`BasicPlayout`."""
    view = seat_view(game, 0)
    may = [not game.options.layoff_requires_own_meld
           or any(m.owner == s for m in game.melds) for s in (0, 1)]
    return BasicPlayout(view_meld_rules(view), view.options, [m for _, m in view.melds],
                        deck_cards(view), melded=(game.melded_before[0], game.melded_before[1]),
                        may_lay_off=(may[0], may[1]), **extra)


@pytest.mark.parametrize("options", [
    {}, {"layoff_requires_own_meld": True},
    {"rummy_bonus": "plus_10", "must_discard_to_go_out": True},
    {"one_meld_per_turn": True, "scoring_mode": "low_score_wins", "ace_mode": "high_or_low"}])
def test_a_basic_playout_scores_what_the_engine_scores_for_the_same_play(
        options: dict[str, object]) -> None:
    # From one of seat 0's first four draws (strong bots before it: melds on the table,
    # cards taken), the playout of each draw choice, tracking the table's melds and
    # layoffs, and the engine playing the same policy on the true hidden cards end the
    # hand with the same points (going rummy included; where the points are a cost, the
    # other's less ours), unless the stock runs out first (the playout stops there).
    compared = rummies = 0
    for seed in range(40):
        for take in (True, False):
            game = basic_at_seat_draw(options, seed, 1 + seed % 4)
            if game is None:
                continue
            found = drawn_and_played(game, basic_playout_of(game), BasicPolicyBot(), take)
            if found is not None:
                value, result = found
                gain = result.points[0] - result.points[1]  # (low_score_wins: a cost)
                assert value == (-gain if game.options.scoring_mode == "low_score_wins"
                                 else gain), (seed, take)
                compared += 1
                rummies += result.outcome == "rummy"
    # (one meld a turn: going out in one turn takes a hand of one meld, rare)
    assert compared >= 40 and (rummies or options.get("one_meld_per_turn"))


def rebuilt_and_scored(game: BasicRummy, seed: int, take: bool) -> tuple[int, str]:
    """Seat 0's playout from its draw, given the pile (shuffles from ``Random(seed)``),
    and the engine playing the same policy on from there (its shuffles from another
    ``Random(seed)``): the playout's value and the hand's outcome ("void" when the stock
    ran out too often), after asserting that the engine scored the playout's value."""
    view = seat_view(game, 0)
    playout = basic_playout_of(game, max_turns=1000, pile=view.discard_pile,
                               exhaustions=game.exhaustions, rng=random.Random(seed))
    value = playout.from_draw(view.hand, game.hands[1], game.stock, view.discard_pile[-1],
                              take)
    game.apply(DrawDiscard(0) if take else DrawStock(0))
    if not play_out(game, BasicPolicyBot(), random.Random(seed)):
        assert game.phase is Phase.DEAL and value == 0  # void: the stock ran out too often
        return value, "void"
    gain = game.results[-1].points[0] - game.results[-1].points[1]
    assert value == (-gain if game.options.scoring_mode == "low_score_wins" else gain), (
        seed, take)
    return value, game.results[-1].outcome


@pytest.mark.parametrize("options", [
    {}, {"stock_rebuild": "turn_over"}, {"stock_exhaustion_limit": 1},
    {"stock_exhaustion_limit": 2, "scoring_mode": "low_score_wins"}])
def test_a_basic_playout_given_the_pile_rebuilds_the_stock_as_the_engine_does(
        options: dict[str, object]) -> None:
    # Late in a hand (some after a rebuild already), the playout given the pile plays
    # past an empty stock as the engine does: the pile under the top card turned over or
    # shuffled (the same shuffles), the hand ended at the exhaustion limit (the counts
    # decide, under either scoring), and scores what the engine scores playing the same
    # policy on the true cards.
    outcomes: Counter[str] = Counter()
    for seed in range(40):
        for take in (True, False):
            game = basic_at_seat_draw(options, seed, 9 + seed % 8, rebuild=True)
            if game is None:
                continue
            # (a hand that ran out before: its count goes on, to the limit or the void)
            game.exhaustions = (0, 1, MAX_STOCK_EXHAUSTIONS - 1)[seed % 3]
            exhaustions = game.exhaustions
            _, outcome = rebuilt_and_scored(game, seed, take)
            outcomes[outcome] += 1
            outcomes["ran out"] += game.exhaustions > exhaustions or outcome != "out"
    assert outcomes.total() - outcomes["ran out"] >= 30 and outcomes["ran out"] >= 10, outcomes
    if options.get("stock_exhaustion_limit"):
        assert outcomes["exhausted"] >= 4 and not outcomes["void"], outcomes
    else:
        assert outcomes["void"] and not outcomes["exhausted"], outcomes


@pytest.mark.parametrize("options", [{}, {"stock_exhaustion_limit": 4}])
def test_with_one_card_on_the_pile_and_no_stock_it_is_the_only_draw(
        options: dict[str, object]) -> None:
    # The table's rule for a turn that starts with an empty stock and one discard (a
    # state two-seat Basic Rummy does not reach by itself: here the other cards are
    # taken out of play): that card is the only draw, every turn, until the hand ends
    # (at the exhaustion limit, or void); the playout agrees with the engine.
    outcomes: list[str] = []
    for seed in range(12):
        game = basic_at_seat_draw(options, seed, 3, rebuild=True)
        if game is None:
            continue
        for exhaustions in (1, 3, 9):
            late = copy.deepcopy(game)
            late.stock, late.discard, late.exhaustions = [], late.discard[-1:], exhaustions
            assert late.legal_actions() == [DrawDiscard(0)]
            outcomes.append(rebuilt_and_scored(late, seed, True)[1])
    assert len(outcomes) >= 20
    assert ("exhausted" in outcomes) == bool(options) != ("void" in outcomes)


def test_candidates_played_out_on_one_world_meet_the_same_shuffles() -> None:
    # Without a generator given, a playout shuffles a rebuilt stock by its world (the
    # stock and the other seat's hand): the same world gives the same value every time,
    # so the candidates of a decision are compared on common shuffles.
    repeated = 0
    for seed in range(60):
        game = basic_at_seat_draw({}, seed, 10 + seed % 8, rebuild=True)
        if game is None:
            continue
        view = seat_view(game, 0)
        playout = basic_playout_of(game, pile=view.discard_pile, exhaustions=game.exhaustions)
        for take in (True, False):
            first = playout.from_draw(view.hand, game.hands[1], game.stock,
                                      view.discard_pile[-1], take)
            again = playout.from_draw(view.hand, game.hands[1], game.stock,
                                      view.discard_pile[-1], take)
            assert first == again, (seed, take)
            repeated += 1
    assert repeated >= 20


class NoShuffles(random.Random):
    """A generator that must not be used."""

    def shuffle(self, x: Any) -> None:
        raise AssertionError("shuffled")


def test_without_the_pile_an_empty_stock_ends_a_basic_playout_at_0() -> None:
    # Seat 1 to draw, the stock empty, a top card it has no use for: without the pile
    # the playout ends there at 0 (no rebuild, no shuffle, whatever lies under the top
    # card); given the pile, the table's rebuild follows and the hand goes on, unless
    # the stock was rebuilt MAX_STOCK_EXHAUSTIONS times already: then the hand is void.
    mine, theirs = parse_cards("2c 3d 9h 5s 7c 10d Jh"), parse_cards("4c 6d 8h Qs Kc 2d 3h")
    top, under = Card.parse("9s"), parse_cards("2s 4h 6c Ad")
    deck = new_game("basic", players=2).shuffle_cards()
    for pile, before in ((None, 0), ((*under, top), MAX_STOCK_EXHAUSTIONS),
                         ((*under, top), MAX_STOCK_EXHAUSTIONS - 1)):
        playout = BasicPlayout(MeldRules(), {"stock_rebuild": "turn_over"}, [], deck,
                               pile=pile, exhaustions=before, rng=NoShuffles())
        hand = BasicHand(playout, list(mine), list(theirs), [], list(under))
        value = hand.play(1, top, None, None)
        if pile is None or before == MAX_STOCK_EXHAUSTIONS:
            assert value == 0 and hand.exhaustions == before and hand.under == list(under)
        else:
            assert hand.exhaustions == MAX_STOCK_EXHAUSTIONS


class ThirteenPolicyBot:
    """Three Thirteen's playout policy as a bot: out when the discard leaves every card
    melded (and nobody is out yet)."""

    def __init__(self, playout: ThirteenPlayout) -> None:
        self.playout = playout

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None and view.seat is not None
        seat = view.seat
        if view.phase == "draw":
            take = self.playout.takes(view.hand, view.discard_pile[-1])
            return DrawDiscard(seat) if take else DrawStock(seat)
        card, left = self.playout.memo.best_discard(view.hand, view.taken)
        if left == 0 and view.out_seat is None:
            return GoOut(seat, card)
        return Discard(seat, card)


def to_thirteen_round(seed: int, rnd: int) -> ThreeThirteen:
    """A two-seat game of Three Thirteen played by strong bots to round ``rnd``, dealt."""
    game = new_game("three_thirteen", players=2, first_dealer=1)
    assert isinstance(game, ThreeThirteen)
    rng, bots = random.Random(seed), [StrongBot(), StrongBot()]
    for _ in range(2000):
        s = game.to_move
        if s is None:
            game.apply(shuffle_for(game, rng))
            if game.round == rnd and game.phase is not Phase.REBUILD:
                return game
        else:
            game.apply(bots[s].choose(seat_view(game, s), game.legal_actions()))
    raise AssertionError("the game did not reach that round")


def to_last_turn(game: ThreeThirteen) -> ThreeThirteen:
    """``game`` played by strong bots until seat 0's last draw of the round, seat 1 out."""
    bots = [StrongBot(), StrongBot()]
    for _ in range(200):
        s = game.to_move
        if s is None or game.phase is Phase.DEAL:
            raise EndedFirst
        view = seat_view(game, s)
        if s == 0 and view.phase == "draw" and view.out_seat == 1:
            return game
        game.apply(bots[s].choose(view, game.legal_actions()))
    raise AssertionError("the round did not end")


def test_a_thirteen_playout_scores_what_the_engine_scores_for_the_same_play() -> None:
    # From one of seat 0's draws (strong bots before it) in rounds of 3 to 13 cards, the
    # playout of each draw choice and the engine playing the same policy on the true
    # hidden cards end the round with the same points: the other seat's count less seat
    # 0's. Seat 0's last turn, after the other went out, is among them.
    compared = last_turns = outs = 0
    for seed in range(48):
        for take in (True, False):
            dealt = to_thirteen_round(seed, 1 + seed % 11)
            try:
                game = (to_seat_draw_of(dealt, 1 + seed % 5) if seed % 3
                        else to_last_turn(dealt))
            except EndedFirst:
                continue
            view = seat_view(game, 0)
            playout = ThirteenPlayout(view_meld_rules(view), view.options,
                                      out=view.out_seat is not None)
            found = drawn_and_played(game, playout, ThirteenPolicyBot(playout), take)
            if found is not None:
                value, result = found
                points = result.points
                assert value == points[1] - points[0], (seed, take)
                compared += 1
                last_turns += view.out_seat is not None
                outs += 0 in (points[0], points[1])
    assert compared >= 60 and last_turns >= 10 and outs >= compared - last_turns


def test_a_thirteen_playout_after_the_last_discard_is_the_round_counted() -> None:
    # The other seat went out: the viewer's discard ends the round, and it pays its count.
    rules = view_meld_rules(seat_view(to_thirteen_round(0, 3), 0))  # fives wild
    kept = parse_cards("3c 4c 9d Kh")  # 3-4 and a five would be a run: 9 + 10 + 7 unmelded
    playout = ThirteenPlayout(rules, {}, out=True)
    assert playout.after_discard(kept, parse_cards("5h 5s 5d"), [], parse_cards("Qd")[0]) \
        == -playout.memo.dd(kept) == -(3 + 4 + 9 + 10)
    # Nobody out: the other seat plays on. It takes the 5h we threw (wild), melds 7d 7s
    # 5h and goes out throwing the Ah; our last turn draws the 2d (the Ah melds with
    # nothing) and throws the 9d: we pay 2 + 3 + 4, it pays nothing.
    on = ThirteenPlayout(rules, {})
    mine, theirs = parse_cards("3c 4c 9d"), parse_cards("7d 7s Ah")
    assert on.after_discard(mine, theirs, parse_cards("Kc 2d"), parse_cards("5h")[0]) == -9
    # From an empty stock the round stops with the counts held: 15 against our 16.
    assert on.from_draw(mine, theirs, [], parse_cards("Qh")[0], False) == 15 - 16
