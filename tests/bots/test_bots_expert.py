"""The expert bot: the sampler's worlds, the thinking budget, and its fallback."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from rummyhall.bots import (
    STRATEGIES,
    ExpertBot,
    ExpertParams,
    StrongBot,
    StrongParams,
    expert_bot,
    make_strategy,
)
from rummyhall.bots.arena import deal_slices, seat_order_shuffle
from rummyhall.bots.evaluation import run_windows
from rummyhall.bots.expert_bot import GIN_HELD, PLAYOUTS, WorldBudget
from rummyhall.bots.playouts import BasicPlayout, ThirteenPlayout, related
from rummyhall.bots.sampling import (
    contradictions,
    deck_cards,
    melded_picks,
    sample_world,
    unseen_pool,
)
from rummyhall.bots.selfplay import play_game, shuffle_for
from rummyhall.bots.strong_bot import GIN_OPPONENT, StrongTurn, interpolate
from rummyhall.bots.tracking import Tracker
from rummyhall.rules import (
    BasicRummy,
    Card,
    Discard,
    DrawStock,
    Game,
    Knock,
    MeldRules,
    Phase,
    SeatView,
    Shuffle,
    TableMeld,
    deadwood_points,
    new_game,
    parse_cards,
    seat_view,
    view_meld_rules,
)

# Two strong seats of Basic Rummy hold their melds for rummy (rummy_hold_two); the tests
# that need melds on the table and long hands make them with the first number.
MELDING = StrongParams(rummy_hold_two=2)


class CountingClock:
    """A clock that moves ``step`` seconds each time it is read (no wall time)."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def dealt(name: str, players: int, seed: int) -> Game:
    game = new_game(name, players=players, first_dealer=players - 1)
    game.apply(seat_order_shuffle(game, deal_slices(game, random.Random(seed))))
    return game


def views_of_seat(name: str, players: int, seed: int, seat: int = 0,
                  params: StrongParams | None = None) -> Iterator[tuple[Game, SeatView]]:
    """Play a hand with strong bots, yielding (game, view) at each decision of ``seat``."""
    game = dealt(name, players, seed)
    bots = [StrongBot(params) for _ in range(players)]
    hand = game.hand_no
    for _ in range(400):
        if game.phase is Phase.DEAL or game.hand_no != hand or game.to_move is None:
            return
        s = game.to_move
        view = seat_view(game, s)
        if s == seat:
            yield game, view
        game.apply(bots[s].choose(view, game.legal_actions()))


@pytest.mark.parametrize(("name", "players"), [("gin", 2), ("basic", 4), ("chicago", 3),
                                               ("three_thirteen", 2)])
def test_every_world_agrees_with_the_view_and_the_memory(name: str, players: int) -> None:
    tracker = Tracker()
    rng = random.Random(5)
    checked = 0
    for game, view in views_of_seat(name, players, 11):
        mem = tracker.observe(view)
        rules = view_meld_rules(view)
        for _ in range(3):
            world = sample_world(view, mem, rng, rules)
            assert world.hands[0] == view.hand
            assert [len(h) for h in world.hands] == list(view.hand_sizes)
            assert len(world.stock) == view.stock_count
            everything = Counter(int(c) for h in world.hands for c in h)
            everything.update(int(c) for c in world.stock)
            everything.update(int(c) for c in view.discard_pile)
            for _, meld in view.melds:
                everything.update(int(c) for c in meld)
            assert everything == Counter(int(c) for c in deck_cards(view))
            for seat, held in mem.known.items():
                assert set(held) <= set(world.hands[seat])
            # the true hidden cards are not what the sampler starts from: it never saw them
            hidden = Counter(int(c) for s in range(1, players) for c in game.hands[s])
            hidden.update(int(c) for c in game.stock)
            assert Counter(int(c) for c in unseen_pool(view, mem)) + Counter(
                int(c) for s, held in mem.known.items() for c in held) == hidden
        tracker.record(view, StrongBot().choose(view, game.legal_actions()))
        checked += 1
    assert checked >= 2


def test_a_card_taken_from_the_pile_is_always_in_the_takers_sampled_hand() -> None:
    found = False
    for seed in range(1, 30):
        tracker = Tracker()
        for game, view in views_of_seat("gin", 2, seed):
            mem = tracker.observe(view)
            if mem.known.get(1):
                world = sample_world(view, mem, random.Random(seed), view_meld_rules(view))
                assert mem.known[1] <= set(world.hands[1])
                found = True
            tracker.record(view, StrongBot().choose(view, game.legal_actions()))
        if found:
            break
    assert found


def test_expert_is_a_built_in_level() -> None:
    assert STRATEGIES == ("random", "simple", "strong", "expert")
    bot = make_strategy("expert", random.Random(1))
    assert isinstance(bot, ExpertBot) and bot.params.budget_ms == 100.0


def test_with_no_time_left_the_expert_plays_the_strong_bots_choice() -> None:
    # The clock jumps a whole second at every read: no world fits in the budget.
    expert = ExpertBot(ExpertParams(budget_ms=50.0), random.Random(2),
                       clock=CountingClock(1.0))
    strong = StrongBot()
    decisions = 0
    for game, view in views_of_seat("gin", 2, 3):
        legal = game.legal_actions()
        assert expert.choose(view, legal) == strong.choose(view, legal)
        assert expert.last_worlds == 0
        decisions += 1
    assert decisions >= 5


def test_the_budget_bounds_the_worlds_searched() -> None:
    # 1 ms of "time" per clock read and a 6.5 ms budget: at most a few worlds per
    # decision, however fast the machine is.
    clock = CountingClock(0.001)
    expert = ExpertBot(ExpertParams(budget_ms=6.5, min_worlds=100), random.Random(2),
                       clock=clock)
    most = 0
    for game, view in views_of_seat("gin", 2, 4):
        action = expert.choose(view, game.legal_actions())
        assert action in game.legal_actions()
        most = max(most, expert.last_worlds)
    # One clock read per world: a world "costs" 1 ms, and the search starts one only
    # while more than that is left: the budget ends at 7.5 ms (read at 1), worlds start
    # at 2, 3, 4, 5 and 6 ms, not at 7 (0.5 ms left), which would end past the budget.
    assert 1 <= most <= 5


def test_the_cpu_clock_counts_the_bots_own_time_and_the_wall_clock_caps_it() -> None:
    # CPU time moves 1 ms a read, the wall clock not at all: the 2 ms budget of CPU time
    # bounds the worlds, as the wall budget does above.
    cpu = CountingClock(0.001)
    expert = ExpertBot(ExpertParams(budget_ms=2.0, min_worlds=100, clock="cpu"),
                       random.Random(2), clock=CountingClock(0.0), cpu_clock=cpu)
    most = 0
    for game, view in views_of_seat("gin", 2, 4):
        expert.choose(view, game.legal_actions())
        most = max(most, expert.last_worlds)
    assert 1 <= most <= 2 and cpu.reads > 0
    # The CPU clock stands still (the thread gets no core), the wall clock runs: the wall
    # cap (5 x the budget by default, here 10 ms) ends the search all the same.
    capped = ExpertBot(ExpertParams(budget_ms=2.0, min_worlds=100, clock="cpu"),
                       random.Random(2), clock=CountingClock(0.001), cpu_clock=CountingClock(0.0))
    most = 0
    for game, view in views_of_seat("gin", 2, 4):
        capped.choose(view, game.legal_actions())
        most = max(most, capped.last_worlds)
    assert 3 <= most <= 10
    with pytest.raises(ValueError, match="clock"):
        ExpertParams(clock="sundial")


def test_make_strategy_sets_the_experts_clock_and_world_count() -> None:
    bot = make_strategy("expert", random.Random(1), think_ms=20, clock="cpu")
    assert isinstance(bot, ExpertBot)
    assert (bot.params.budget_ms, bot.params.clock) == (20, "cpu")
    fixed = make_strategy("expert", random.Random(1), worlds=9)
    assert isinstance(fixed, ExpertBot)
    assert (fixed.params.budget_ms, fixed.params.max_worlds) == (None, 9)
    with pytest.raises(ValueError, match="clock"):
        make_strategy("expert", clock="sundial")
    with pytest.raises(ValueError, match="world count"):
        make_strategy("expert", worlds=0)


def test_a_clear_choice_stops_the_search_early() -> None:
    eager = ExpertBot(ExpertParams(budget_ms=None, max_worlds=60, min_worlds=4, clear_z=0.0),
                      random.Random(3))
    patient = ExpertBot(ExpertParams(budget_ms=None, max_worlds=60, min_worlds=60),
                        random.Random(3))
    eager_worlds = patient_worlds = 0
    for game, view in views_of_seat("gin", 2, 6):
        legal = game.legal_actions()
        eager.choose(view, legal)
        patient.choose(view, legal)
        eager_worlds += eager.last_worlds
        patient_worlds += patient.last_worlds
    assert 0 < eager_worlds < patient_worlds


@pytest.mark.parametrize(("name", "players"), [("gin", 2), ("basic", 3), ("chicago", 4),
                                               ("three_thirteen", 3)])
def test_the_expert_plays_whole_legal_games(name: str, players: int) -> None:
    game = new_game(name, players=players)
    bots = [ExpertBot(ExpertParams(budget_ms=None, max_worlds=4), random.Random(s))
            for s in range(players)]
    record = play_game(game, bots, random.Random(8), max_hands=2)
    assert record.results


def test_the_strong_bots_knock_stands_with_its_melds_unless_the_worlds_veto_it() -> None:
    knocks = 0
    for seed in range(1, 40):
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=4, knock_risk=1.01),
                           random.Random(seed))
        strong = StrongBot()
        for game, view in views_of_seat("gin", 2, seed):
            legal = game.legal_actions()
            mine, theirs = expert.choose(view, legal), strong.choose(view, legal)
            if isinstance(theirs, Knock):
                assert mine == theirs  # the same card, and the same melds laid (or none)
                knocks += 1
        if knocks >= 3:
            break
    assert knocks >= 3


def test_gin_draws_are_judged_by_playouts_and_the_strong_bots_draw_stands_without() -> None:
    searched = {(): 0, ("draw",): 0}
    clear = 0
    for plays in searched:
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=3, playouts=plays),
                           random.Random(4))
        for seed in (4, 5):
            strong = StrongBot()  # seat 0's own player: the same views, the same memory
            for game, view in views_of_seat("gin", 2, seed):
                legal = game.legal_actions()
                action, plain = expert.choose(view, legal), strong.choose(view, legal)
                if view.phase == "draw":
                    searched[plays] += expert.last_worlds
                    if plays and not related(view.discard_pile[-1], view.hand) and \
                            isinstance(plain, DrawStock) and action == plain:
                        # a top card that melds with nothing: the stock, no search
                        assert expert.last_worlds == 0
                        clear += 1
    assert searched[()] == 0 < searched["draw",]
    assert clear > 0


def test_every_gin_decision_may_be_played_out_and_stays_legal() -> None:
    game = new_game("gin", players=2)
    bots = [ExpertBot(ExpertParams(budget_ms=None, max_worlds=2, playouts=PLAYOUTS),
                      random.Random(s)) for s in range(2)]
    record = play_game(game, bots, random.Random(3), max_hands=2)
    assert record.results
    with pytest.raises(ValueError, match="plays out"):
        ExpertParams(playouts=("undercut",))


def test_late_in_a_gin_hand_the_sampled_opponent_holds_melds_as_a_real_one_does() -> None:
    # Strong players hold about 7 points of deadwood after 18 draws (6.9 in these hands).
    # The expert's worlds (targets from GIN_HELD, contradictions weighed as points) come
    # within 2 points of the true hands' mean (5.7). A meld builder seeded by random
    # cards, which missed the few melds of a thin pool and could not build on the cards a
    # seat took from the pile, kept 9.2; fitted to the strong bot's table of a defender's
    # count (GIN_OPPONENT, the count after layoffs) they are looser still.
    true: list[int] = []
    sampled: dict[bool, list[int]] = {True: [], False: []}
    rng = random.Random(2)
    for seed in range(40):
        tracker = Tracker()
        for game, view in views_of_seat("gin", 2, seed):
            mem = tracker.observe(view)
            drawn = 31 - view.stock_count
            if view.phase == "play" and drawn >= 18:
                rules = view_meld_rules(view)
                true.append(deadwood_points(game.hands[1], rules))
                for held in (True, False):
                    mean, spread = interpolate(GIN_HELD if held else GIN_OPPONENT, drawn)
                    for _ in range(4):
                        target = max(0.0, rng.gauss(mean, spread))
                        world = sample_world(view, mem, rng, rules, tries=6,
                                             targets={1: target}, shunned_points=4.0)
                        sampled[held].append(deadwood_points(world.hands[1], rules))
            tracker.record(view, StrongBot().choose(view, game.legal_actions()))
    assert len(true) >= 40
    assert abs(statistics.mean(sampled[True]) - statistics.mean(true)) < 2
    assert statistics.mean(sampled[False]) > statistics.mean(sampled[True]) + 2


def test_the_meld_builder_finds_a_thin_pools_melds_and_builds_on_known_cards() -> None:
    # Three melds hidden among loose cards: asked for three, the builder finds them every
    # time (in its first nine picks); a seat known to hold 7c 8c gets the 9c beside them.
    rules = MeldRules()
    pool = parse_cards("4h Kh 5h Jd 2d Js 6h 9c 2s Jc 3s Qc 4s")
    for seed in range(200):
        picks = melded_picks(pool, 9, 3, random.Random(seed), rules)
        assert len(set(picks)) == 9
        assert deadwood_points([pool[i] for i in picks], rules) == 0
    held = parse_cards("7c 8c")
    pool = parse_cards("9c 2h 5s Kd Qh 4d 10h 3c")
    for seed in range(50):
        picks = melded_picks(pool, 8, 1, random.Random(seed), rules,
                             held=[c & 63 for c in held])
        assert pool.index(parse_cards("9c")[0]) == picks[0]


def test_gins_knock_is_played_out_only_while_the_stock_holds_enough_cards() -> None:
    """Knocking where the strong bot plays on comes from the knock's playouts alone, and
    only with ``knock_playout_stock`` stock cards or more (0: at any stock)."""
    early: dict[int, list[int]] = {20: [], 0: []}  # stock counts where the expert knocked
    for seed in range(1, 13):
        for least, knocked in early.items():
            params = ExpertParams(budget_ms=None, max_worlds=8, playouts=("draw", "knock"),
                                  knock_playout_stock=least)
            expert, strong = ExpertBot(params, random.Random(seed)), StrongBot()
            for game, view in views_of_seat("gin", 2, seed):
                legal = game.legal_actions()
                mine, theirs = expert.choose(view, legal), strong.choose(view, legal)
                if isinstance(mine, Knock) and not isinstance(theirs, Knock):
                    knocked.append(view.stock_count)
        if early[20] and any(n < 20 for n in early[0]):
            break
    assert early[20] and min(early[20]) >= 20
    assert any(n < 20 for n in early[0])


def test_two_seat_chicagos_draws_and_knocks_may_be_judged_by_playouts() -> None:
    """``chicago_playouts`` names the decisions searched by playouts in two-seat Chicago:
    none, the strong bot's draws stand unsearched; with the draw, draws whose top card
    could meld are searched; with the knock, turns that hold a knock are. Every answer is
    legal."""
    searched: dict[tuple[str, ...], dict[str, int]] = {
        plays: {"draw": 0, "play": 0} for plays in ((), ("draw",), ("knock",))}
    for plays, worlds in searched.items():
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=3, chicago_playouts=plays),
                           random.Random(4))
        for seed in range(1, 9):
            for game, view in views_of_seat("chicago", 2, seed):
                legal = game.legal_actions()
                action = expert.choose(view, legal)
                assert action in legal
                if view.phase == "draw" or any(isinstance(a, Knock) for a in legal):
                    worlds[view.phase] += expert.last_worlds
    assert searched[()]["draw"] == 0 == searched["knock",]["draw"]
    assert searched["draw",]["draw"] > 0
    assert searched["knock",]["play"] > searched[()]["play"]
    with pytest.raises(ValueError, match="in Chicago"):
        ExpertParams(chicago_playouts=("discard",))


def test_a_world_starts_only_while_the_time_left_exceeds_the_dearest_world_so_far() -> None:
    # Seconds left at each check: worlds of 1, 4, then 1 s. After the 4 s world, 4 s
    # are left after a 1 s world: a world as dear as the 4 s one would end past the
    # budget, so none starts (the last world's 1 s alone would have let one start).
    left = iter([10.0, 9.0, 5.0, 4.0])
    budget = WorldBudget(lambda: next(left))
    assert [budget.fits() for _ in range(4)] == [True, True, True, False]
    assert budget.dearest == 4.0
    # Nothing is left, or less than any world took: no world; no budget: always.
    assert not WorldBudget(lambda: 0.0).fits()
    unbounded = WorldBudget(lambda: math.inf)
    assert all(unbounded.fits() for _ in range(3))


def test_the_meld_builder_draws_nothing_from_an_empty_pool() -> None:
    """No card left to pick: no meld is tried (a draw below 0 would never end; the
    generator here gives up after a few hundred draws instead of hanging the suite)."""

    class Counted(random.Random):
        draws = 0

        def getrandbits(self, k: int, /) -> int:
            self.draws += 1
            if self.draws > 500:
                raise AssertionError("drawing without end")
            return super().getrandbits(k)

    rng = Counted(0)
    assert melded_picks([], 3, 1, rng, MeldRules()) == []
    assert melded_picks(parse_cards("7c 7d"), 3, 1, rng, MeldRules()) in ([0, 1], [1, 0])


def test_contradictions_count_the_shunned_faces_a_hand_could_meld() -> None:
    # Against the rule said plainly, card by card: a shunned face is a contradiction when
    # the hand holds two partners of its rank in the other suits (a copy of another deck
    # counts), or both other cards of one of its run windows; wild cards and jokers
    # partner nothing here. Two decks, wild 2s, jokers, every ace mode.
    def plain(hand: list[Card], shunned: set[int], rules: MeldRules) -> int:
        faces = Counter(c & 63 for c in hand if not rules.is_wild(c))
        count = 0
        for face in shunned:
            rank, suit = face & 15, face >> 4
            if not rank:
                continue
            same = sum(faces[s * 16 + rank] for s in range(4) if s != suit)
            if same >= 2 or any(faces[suit * 16 + a] and faces[suit * 16 + b]
                                for a, b in run_windows(rank, rules)):
                count += 1
        return count

    rng = random.Random(5)
    deck = [Card(copy * 64 + suit * 16 + rank) for copy in range(2) for suit in range(4)
            for rank in range(1, 14)] + [Card(0), Card(64)]
    found = 0
    for mode in ("low", "high_or_low", "round_the_corner"):
        for wild_rank in (0, 2):
            rules = MeldRules(ace_mode=mode, wild_rank=wild_rank)
            for _ in range(400):
                hand = rng.sample(deck, rng.randint(0, 13))
                shunned = {c & 63 for c in rng.sample(deck, rng.randint(0, 20))}
                expected = plain(hand, shunned, rules)
                assert contradictions(hand, shunned, rules) == expected
                found += expected > 0
    assert found > 500  # (the hands do contradict, often)


def test_a_discard_the_next_seat_can_lay_off_keeps_its_danger(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Basic Rummy, layoffs only onto one's own melds: seat 1 owns Th Jh Qh on the table,
    # seat 0 has no meld, so the Kh stays in its hand and seat 1 could lay it off. The
    # strong bot weighs that as a sure danger (6 points) and throws the 9c. The expert's
    # worlds model only what the next seat's own hand makes of a card: here they see no
    # feed at all (a stub), and the Kh, whose danger they replace, would be 1 point
    # cheaper than the 9c. The table's layoff is not theirs to replace: the 9c stays.
    game = new_game("basic", {"layoff_requires_own_meld": True}, players=2, first_dealer=1)
    order = list(game.shuffle_cards())
    random.Random(3).shuffle(order)
    game.apply(Shuffle(tuple(order)))
    mine, pile, meld = (parse_cards(x) for x in ("Kh 9c 2h 3s 4c Ad 5d 2s 3c 4h Ac",
                                                  "2c 5h", "Th Jh Qh"))
    rest = [c for c in order if c not in {*mine, *pile, *meld}]
    game.hands = [list(mine), rest[:7]]
    game.discard, game.stock, game.melds = list(pile), rest[7:], [TableMeld(1, meld)]
    game.turn, game.taken, game.phase = 0, None, Phase.PLAY
    view, legal = seat_view(game, 0), game.legal_actions()
    assert StrongBot().choose(view, legal) == Discard(0, Card.parse("9c"))
    expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=16), random.Random(1))
    monkeypatch.setattr(expert_bot._Search, "feeds",
                        lambda self, world, cards, kept: [0.0] * len(cards))
    assert expert.choose(view, legal) == Discard(0, Card.parse("9c"))


def test_two_seat_basic_rummys_draws_and_discards_may_be_judged_by_playouts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``basic_playouts`` names the decisions searched by playouts in two-seat Basic
    Rummy: with none, the draws stand unsearched; with the draw, draws whose top card
    could be used are searched, and some answers differ from the strong bot's; with the
    discard too (the default), discards are played out, some differing. Every answer is
    legal."""
    played_out = 0
    after_discard = BasicPlayout.after_discard

    def counted(self: BasicPlayout, *args: Any) -> int:
        nonlocal played_out
        played_out += 1
        return after_discard(self, *args)
    monkeypatch.setattr(BasicPlayout, "after_discard", counted)
    draws: dict[tuple[str, ...], int] = {}
    discards: dict[tuple[str, ...], int] = {}
    departures = other_discards = 0
    for plays in ((), ("draw",), ("draw", "discard")):
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=6, basic_playouts=plays,
                                        clear_cost=math.inf), random.Random(4))
        draws[plays] = played_out = 0
        for seed in range(1, 7):
            strong = StrongBot()  # seat 0's own player: the same views, the same memory
            for game, view in views_of_seat("basic", 2, seed):
                legal = game.legal_actions()
                action, plain = expert.choose(view, legal), strong.choose(view, legal)
                assert action in legal
                if view.phase == "draw":
                    draws[plays] += expert.last_worlds
                    departures += action != plain
                elif "discard" in plays and isinstance(plain, Discard):
                    other_discards += action != plain
        discards[plays] = played_out
    assert draws[()] == 0 < draws["draw",]
    assert discards[()] == discards["draw",] == 0 < discards["draw", "discard"]
    assert departures > 0 and other_discards > 0
    assert ExpertParams().basic_playouts == ("draw", "discard")
    with pytest.raises(ValueError, match="in Basic Rummy"):
        ExpertParams(basic_playouts=("knock",))


def thirteen_views(seed: int, rounds: int) -> Iterator[tuple[Game, SeatView]]:
    """Two-seat Three Thirteen played by strong bots for ``rounds`` rounds, yielding
    (game, view) at each decision of seat 0."""
    game = dealt("three_thirteen", 2, seed)
    rng, bots = random.Random(seed), [StrongBot(), StrongBot()]
    for _ in range(400 * rounds):
        s = game.to_move
        if s is None:
            if game.is_over or len(game.results) >= rounds:
                return
            game.apply(shuffle_for(game, rng))
            continue
        view = seat_view(game, s)
        if s == 0:
            yield game, view
        game.apply(bots[s].choose(view, game.legal_actions()))


def test_two_seat_three_thirteens_draws_and_discards_may_be_judged_by_playouts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``thirteen_playouts`` names the decisions searched by playouts in two-seat Three
    Thirteen: with none (the default), draws stand unsearched and nothing is played
    out; with the draw, draws whose top card could be used are played out, on the last
    turn too, and some answers differ from the strong bot's; with the discard, discards are
    played out, but not on the last turn (nobody takes the card then). Every answer is
    legal."""
    calls: Counter[str] = Counter()

    def counting(name: str) -> Any:
        method = getattr(ThirteenPlayout, name)

        def counted(self: ThirteenPlayout, *args: Any) -> int:
            calls[name] += 1
            calls[f"{name}, last"] += self.out
            return int(method(self, *args))
        return counted
    for name in ("from_draw", "after_discard"):
        monkeypatch.setattr(ThirteenPlayout, name, counting(name))
    seen: dict[tuple[str, ...], Counter[str]] = {}
    departures = 0
    for plays in ((), ("draw",), ("draw", "discard")):
        calls.clear()
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=4, thirteen_playouts=plays,
                                        clear_cost=math.inf), random.Random(4))
        for seed in range(1, 4):
            strong = StrongBot()  # seat 0's own player: the same views, the same memory
            for game, view in thirteen_views(seed, 7):
                legal = game.legal_actions()
                action, plain = expert.choose(view, legal), strong.choose(view, legal)
                assert action in legal
                departures += action != plain and view.phase == "draw"
        seen[plays] = Counter(calls)
    assert not seen[()]["from_draw"] and not seen[()]["after_discard"]
    assert seen["draw",]["from_draw"] and not seen["draw",]["after_discard"]
    assert seen["draw",]["from_draw, last"] and departures
    assert seen["draw", "discard"]["after_discard"]
    assert not seen["draw", "discard"]["after_discard, last"]
    assert ExpertParams().thirteen_playouts == ()  # (off by default: docs/bot-design.md)
    with pytest.raises(ValueError, match="in Three Thirteen"):
        ExpertParams(thirteen_playouts=("knock",))


def test_basic_rummys_playouts_may_rebuild_the_stock_from_the_pile() -> None:
    # With ``basic_rebuild`` the playouts of a decision get the pile the seat sees and
    # the rebuilds its memory counted, as many as the engine made; without it (the
    # default) no pile: an empty stock ends a playout at 0. Every answer is legal.
    late = 0
    for rebuild in (False, True):
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=2, basic_rebuild=rebuild),
                           random.Random(3), strong=MELDING)
        game = dealt("basic", 2, 8)
        rng, strong = random.Random(8), StrongBot(MELDING)
        for _ in range(6000):
            s = game.to_move
            if game.is_over or len(game.results) >= (30 if rebuild else 4) or late >= 3:
                break
            if s is None:
                game.apply(shuffle_for(game, rng))
                continue
            view, legal = seat_view(game, s), game.legal_actions()
            if s == 1:
                game.apply(strong.choose(view, legal))
                continue
            action = expert.choose(view, legal)
            assert action in legal
            mem = expert.strong.tracker.memory  # (as the decision left it)
            assert mem is not None
            search = expert_bot._Search(expert, StrongTurn(expert.strong, view, legal, mem),
                                        mem, lambda: 0.0)
            playout = search.basic_playout()
            assert playout.pile == (view.discard_pile if rebuild else None)
            assert playout.exhaustions == game.exhaustions
            late += rebuild and game.exhaustions > 0
            game.apply(action)
    assert late
    assert not ExpertParams().basic_rebuild  # (off by default: docs/bot-design.md)


def test_basic_rummys_playouts_know_who_may_still_go_rummy() -> None:
    # Going rummy needs a hand with nothing melded or laid off in an earlier turn. The
    # playouts of a decision start from what the seat knows: our memory (this turn's
    # plays count: a playout after our discard goes out in a later turn) and, for the
    # other seat, its hand below the deal's size (a turn without a play leaves it so),
    # which catches a seat that only laid off on our melds. The engine's own flags agree.
    mid_turn = layoffs_only = 0
    for seed in range(1, 13):
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=1), random.Random(seed),
                           strong=MELDING)
        for game, view in views_of_seat("basic", 2, seed, params=MELDING):
            assert isinstance(game, BasicRummy)
            legal = game.legal_actions()
            mem = expert.strong.tracker.observe(view)
            turn = StrongTurn(expert.strong, view, legal, mem)
            search = expert_bot._Search(expert, turn, mem, lambda: 0.0)
            ours = game.melded_before[0] or game.played_this_turn
            assert search.basic_playout().melded == (ours, game.melded_before[1])
            mid_turn += game.played_this_turn and not game.melded_before[0]
            layoffs_only += game.melded_before[1] and not any(m.owner == 1 for m in game.melds)
            expert.strong.tracker.record(view, turn.decide())  # (what seat 0 plays)
    assert mid_turn and layoffs_only
