"""The arena's pure core: duplicate deals, seat rotation, reproducibility, statistics."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from rummyhall.bots import RandomBot, SimpleBot, Strategy, StrongBot, make_strategy
from rummyhall.bots.arena import (
    ArenaConfig,
    Entrant,
    GameOutcome,
    duplicate_shuffler,
    first_dealer,
    paired_interval,
    play_one,
    ratio_interval,
    run_arena,
    summarize,
    wilson_interval,
)
from rummyhall.bots.selfplay import play_game
from rummyhall.rules import (
    Card,
    DrawStock,
    Game,
    HandDealt,
    SeatAction,
    SeatView,
    Shuffle,
    new_game,
)


def builtin(name: str) -> Entrant:
    def factory(rng: random.Random) -> Strategy:
        return make_strategy(name, rng)

    return Entrant(name, factory)


def config(game: str = "gin", names: Sequence[str] = ("strong", "simple"), games: int = 4, *,
           seed: int = 0, max_moves: int = 200_000) -> ArenaConfig:
    return ArenaConfig(game, tuple(builtin(n) for n in names), games, seed=seed,
                       max_moves=max_moves)


# ---------------------------------------------------------------------------- deals


def first_deal(cfg: ArenaConfig, deal_set: int) -> dict[int, tuple[Card, ...]]:
    """The cards each seat gets in the first deal of ``deal_set`` (from the arena's shuffler)."""
    game = new_game(cfg.game, dict(cfg.options), players=cfg.seats,
                    first_dealer=first_dealer(cfg, deal_set))
    events = game.apply(duplicate_shuffler(cfg.seed, deal_set)(game))
    dealt = next(e for e in events if isinstance(e, HandDealt))
    return {s: tuple(h or ()) for s, h in enumerate(dealt.hands)}


class Recorder:
    """A strategy that notes the hand it was dealt: at its first decision of a hand nobody
    but itself can have changed its cards yet."""

    def __init__(self, inner_name: str, rng: random.Random) -> None:
        self.inner = make_strategy(inner_name, rng)
        self.name = inner_name
        self.needs_view = True
        self.hands: dict[int, tuple[Card, ...]] = {}

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None
        self.hands.setdefault(view.hand_no, view.hand)
        return self.inner.choose(view if self.inner.needs_view else None, legal)


@pytest.mark.parametrize(("game", "players"), [("gin", 2), ("chicago", 3), ("basic", 4),
                                              ("three_thirteen", 2)])
def test_a_deal_set_gives_each_seat_the_same_cards_in_every_rotation(game: str,
                                                                      players: int) -> None:
    names = ["strong", "random", "simple", "random"][:players]
    cfg = config(game, names, games=players, seed=5)
    recorders: list[list[Recorder]] = []
    for rotation in range(players):
        lineup = cfg.lineup(rotation)
        bots = [Recorder(names[e], random.Random(s)) for s, e in enumerate(lineup)]
        g = new_game(game, players=players, first_dealer=first_dealer(cfg, 0))
        play_game(g, bots, random.Random(0), max_moves=5_000, max_hands=1,
                  shuffle=duplicate_shuffler(cfg.seed, 0))
        recorders.append(bots)
    # Seat s holds the same first-deal cards in every rotation, played by another entrant.
    expected = first_deal(cfg, 0)
    for bots in recorders:
        for seat, bot in enumerate(bots):
            assert sorted(bot.hands[1]) == sorted(expected[seat])
    for seat in range(players):
        assert {cfg.lineup(r)[seat] for r in range(players)} == set(range(players))


def test_each_seat_gets_its_slice_whoever_deals() -> None:
    cfg = config("chicago", ("strong", "simple", "random"), seed=2)
    hands = []
    for dealer in range(3):
        game = new_game("chicago", players=3, first_dealer=dealer)
        game.apply(duplicate_shuffler(cfg.seed, 7)(game))
        hands.append([tuple(sorted(h)) for h in game.hands])
        upcard = game.discard[-1]
        stock_top = game.stock[-1]
        if dealer == 0:
            first = (upcard, stock_top)
        assert (upcard, stock_top) == first
    assert hands[0] == hands[1] == hands[2]


def test_deals_depend_on_the_seed_and_the_deal_set_only() -> None:
    cfg = config(seed=1)
    assert first_deal(cfg, 0) == first_deal(cfg, 0)
    assert first_deal(cfg, 0) != first_deal(cfg, 1)
    assert first_deal(cfg, 0) != first_deal(config(seed=2), 0)


def test_later_deals_and_rebuilds_are_named_streams() -> None:
    """The k-th deal is the same in every game of a set, whatever was played before it."""
    cfg = config("three_thirteen", seed=4)
    shuffler = duplicate_shuffler(cfg.seed, 3)
    hands: list[list[tuple[Card, ...]]] = []
    lineups: list[list[Strategy]] = [[StrongBot(), StrongBot()],
                                     [RandomBot(random.Random(1)), SimpleBot()]]
    for bots in lineups:
        game = new_game("three_thirteen", players=2, first_dealer=0)
        seen: list[tuple[Card, ...]] = []

        def deal(g: Game, seen: list[tuple[Card, ...]] = seen) -> Shuffle:
            action = shuffler(g)
            if g.phase.value == "deal":
                seen.append(tuple(action.order))
            return action

        play_game(game, bots, random.Random(0), max_moves=5_000, max_hands=2, shuffle=deal)
        hands.append(seen)
    assert hands[0][0] == hands[1][0]
    assert sorted(hands[0][1]) == sorted(hands[1][1])  # round 2 both times: same cards


# ---------------------------------------------------------------------------- playing


def test_the_arena_is_reproducible_and_rotates_seats() -> None:
    cfg = config(games=6, seed=3)
    first = run_arena(cfg)
    second = run_arena(cfg)
    assert first == second
    assert len(first) == 6 and cfg.deal_sets == 3
    assert [o.lineup for o in first[:2]] == [(0, 1), (1, 0)]
    assert all(o.error is None and o.winners for o in first)


def test_games_round_up_to_whole_deal_sets() -> None:
    cfg = config("chicago", ("strong", "simple", "random"), games=4)
    assert cfg.deal_sets == 2
    assert len(run_arena(cfg)) == 6


def test_a_game_past_the_move_cap_is_an_error_not_a_result() -> None:
    cfg = config(games=2, max_moves=30)
    outcomes = run_arena(cfg)
    assert all(o.error is not None and "30 moves" in o.error for o in outcomes)
    stats = summarize(cfg, outcomes)
    assert [s.errors for s in stats] == [2, 2]
    assert [s.games for s in stats] == [0, 0]


class Cheater:
    name = "cheater"
    needs_view = False

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        return DrawStock(5)


def test_a_bot_that_answers_wrongly_is_named_in_the_error() -> None:
    cfg = ArenaConfig("gin", (builtin("strong"), Entrant("cheater", lambda rng: Cheater())),
                      2)
    outcomes = run_arena(cfg)
    assert all(o.error is not None and o.error.startswith("cheater") for o in outcomes)
    assert [s.errors for s in summarize(cfg, outcomes)] == [0, 2]


def test_run_arena_rejects_an_empty_lineup() -> None:
    with pytest.raises(ValueError):
        run_arena(ArenaConfig("gin", (), 2))


def test_play_one_counts_points_per_hand_played() -> None:
    outcome = play_one(config(games=2, seed=8), 0, 1)
    assert outcome.error is None
    assert sum(p for p, _ in outcome.hand_points) == sum(outcome.scores)
    assert all(n == outcome.hands for _, n in outcome.hand_points)


# ---------------------------------------------------------------------------- statistics


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(0, 10)
    assert (low, round(high, 4)) == (0.0, 0.2775)
    low, high = wilson_interval(10, 10)
    assert (round(low, 4), high) == (0.7225, 1.0)
    low, high = wilson_interval(81, 263)  # Wilson's own textbook check: 0.2553 .. 0.3662
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_ratio_interval_known_values() -> None:
    # Equal counts: the usual mean and standard error of the cluster means.
    mean, low, high = ratio_interval([2.0, 4.0, 6.0], [1, 1, 1])
    se = 2.0 / math.sqrt(3)  # sample sd 2 over sqrt(3)
    assert mean == 4.0
    assert low == pytest.approx(4.0 - 1.959964 * se, abs=1e-5)
    assert high == pytest.approx(4.0 + 1.959964 * se, abs=1e-5)
    # Unequal counts: the ratio of sums, and residuals t - R c.
    mean, low, high = ratio_interval([10.0, 30.0], [2, 6])
    assert mean == 5.0 and low == high == 5.0  # both clusters exactly on the ratio
    assert math.isnan(ratio_interval([3.0], [1])[1])
    assert all(math.isnan(x) for x in ratio_interval([], []))


def test_summarize_counts_shared_wins_fractionally() -> None:
    cfg = config(names=("a", "b"), games=4)
    outcomes = [
        GameOutcome(0, 0, (0, 1), 0, winners=(0,), hands=2, hand_points=((30, 2), (0, 2))),
        GameOutcome(0, 1, (1, 0), 0, winners=(0, 1), hands=1, hand_points=((5, 1), (5, 1))),
        GameOutcome(1, 0, (0, 1), 0, winners=(1,), hands=1, hand_points=((0, 1), (20, 1))),
        GameOutcome(1, 1, (1, 0), 0, error="too long"),
    ]
    a, b = summarize(cfg, outcomes)
    assert (a.games, a.wins, a.errors, a.hands) == (3, 1.5, 1, 4)
    assert (b.games, b.wins, b.errors, b.hands) == (3, 1.5, 1, 4)
    assert a.win_rate == 0.5
    assert a.points_per_hand == (30 + 5 + 0) / 4
    assert b.points_per_hand == (0 + 5 + 20) / 4


def test_the_paired_interval_is_taken_over_deal_sets() -> None:
    cfg = config(games=8)

    def game(deal_set: int, rotation: int, winner_entrant: int | None,
             error: str | None = None) -> GameOutcome:
        lineup = cfg.lineup(rotation)
        winners = () if winner_entrant is None else (lineup.index(winner_entrant),)
        return GameOutcome(deal_set, rotation, lineup, 0, winners=winners, error=error)

    outcomes = [
        game(0, 0, 0), game(0, 1, 0),  # set 0: entrant 0 wins both games: 1.0
        game(1, 0, 0), game(1, 1, 1),  # set 1: one each: 0.5
        game(2, 0, 1), game(2, 1, 1),  # set 2: 0.0
        game(3, 0, 0), game(3, 1, 0, error="capped"),  # set 3: one game counts: 1.0
    ]
    mean, low, high = paired_interval(cfg, outcomes, 0)
    shares = [1.0, 0.5, 0.0, 1.0]
    m = sum(shares) / 4
    # the spread counts two imagined sets beside the four, one lost and one won
    padded = [*shares, 0.0, 1.0]
    centre = sum(padded) / 6
    sd = math.sqrt(sum((x - centre) ** 2 for x in padded) / 5)
    assert mean == pytest.approx(m)
    assert low == pytest.approx(max(0.0, m - 1.959963984540054 * sd / 2))
    assert high == pytest.approx(min(1.0, m + 1.959963984540054 * sd / 2))
    other, _, _ = paired_interval(cfg, outcomes, 1)
    assert other == pytest.approx(1 - m)
    # a shared win counts a half; one set gives no interval
    tie = GameOutcome(0, 0, (0, 1), 0, winners=(0, 1))
    half, lo, hi = paired_interval(cfg, [tie], 0)
    assert half == 0.5 and math.isnan(lo) and math.isnan(hi)
    assert math.isnan(paired_interval(cfg, [], 0)[0])


def test_sets_that_all_agree_still_leave_a_paired_interval() -> None:
    # Two bots that play alike split every pair of games: twenty sets of exactly one
    # half each. Twenty sets can agree by chance, so the interval keeps a width (about
    # 6.8 points each side here), narrower than Wilson's over the forty games.
    cfg = config(games=40)
    outcomes = [GameOutcome(d, r, cfg.lineup(r), 0, winners=(cfg.lineup(r).index(r),))
                for d in range(20) for r in range(2)]
    mean, low, high = paired_interval(cfg, outcomes, 0)
    assert mean == 0.5
    half = 1.959963984540054 * math.sqrt(0.5 / 21) / math.sqrt(20)
    assert low == pytest.approx(0.5 - half) and high == pytest.approx(0.5 + half)
    wilson_low, wilson_high = wilson_interval(20, 40)
    assert wilson_low < low < 0.5 - 0.05 and 0.5 + 0.05 < high < wilson_high
