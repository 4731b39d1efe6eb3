"""The meld solver: the worked examples of docs/rules.md, and properties against a brute force.

The brute force here shares nothing with the solver but :func:`meld_kind` (the normative
validator, docs/rules.md 1): it tries every subset of the cards as a meld.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations, product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rummyhall.rules import solver
from rummyhall.rules.cards import Card, make_deck, parse_cards, sort_key
from rummyhall.rules.errors import CardError, IllegalDiscard, InvalidMeld
from rummyhall.rules.melds import ACE_MODES, MeldRules, meld_kind, order_meld
from rummyhall.rules.solver import (
    Arrangement,
    best_arrangement,
    best_discard,
    best_layoffs,
    deadwood_at_most,
    deadwood_points,
    discard_deadwoods,
    discards_at_most,
    knocker_arrangement,
)
from rummyhall.rules.wild_runs import SuitRuns

GIN = MeldRules()
BASIC_HIGH = MeldRules(ace_mode="high_or_low", ace_points=15)
CHICAGO = MeldRules(max_set_size=0, wild_rank=2)


def thirteen(rnd: int, *, ace_high: bool = False, face_points: bool = False,
             all_wild: bool = True) -> MeldRules:
    """Three Thirteen's card rules in round ``rnd`` (wild rank = cards dealt)."""
    faces = {"jack_points": 11, "queen_points": 12, "king_points": 13} if face_points else {}
    return MeldRules(ace_mode="high_or_low" if ace_high else "low", max_set_size=0,
                     wild_rank=rnd + 2, all_wild_melds=all_wild,
                     ace_points=15 if ace_high else 1, joker_points=20, **faces)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# --- brute force -----------------------------------------------------------------------


def meld_masks(hand: Sequence[int], rules: MeldRules) -> dict[int, list[int]]:
    """Every valid meld of ``hand`` as an index mask, grouped by its lowest index."""
    out: dict[int, list[int]] = {}
    for size in range(3, len(hand) + 1):
        for combo in combinations(range(len(hand)), size):
            if meld_kind([hand[i] for i in combo], rules) is not None:
                out.setdefault(combo[0], []).append(sum(1 << i for i in combo))
    return out


def brute_deadwood(hand: Sequence[int], rules: MeldRules) -> int:
    melds = meld_masks(hand, rules)
    memo = {0: 0}

    def least(mask: int) -> int:
        if mask not in memo:
            low = (mask & -mask).bit_length() - 1
            value = rules.points(hand[low]) + least(mask ^ 1 << low)
            for meld in melds.get(low, []):
                if meld & mask == meld:
                    value = min(value, least(mask ^ meld))
            memo[mask] = value
        return memo[mask]

    return least((1 << len(hand)) - 1)


def brute_optimal_partitions(hand: Sequence[int], rules: MeldRules) -> list[list[list[int]]]:
    """Every minimum-deadwood arrangement, as lists of melds (lists of cards)."""
    melds = meld_masks(hand, rules)
    target = brute_deadwood(hand, rules)
    found: list[list[list[int]]] = []

    def walk(mask: int, spent: int, chosen: list[int]) -> None:
        if not mask:
            if spent == target:
                found.append([[hand[i] for i in range(len(hand)) if m >> i & 1] for m in chosen])
            return
        low = (mask & -mask).bit_length() - 1
        walk(mask ^ 1 << low, spent + rules.points(hand[low]), chosen)
        for meld in melds.get(low, []):
            if meld & mask == meld:
                walk(mask ^ meld, spent, [*chosen, meld])

    walk((1 << len(hand)) - 1, 0, [])
    return found


def brute_layoffs(hand: Sequence[int], targets: Sequence[Sequence[int]],
                  rules: MeldRules) -> int:
    """Least deadwood after own melds and chained layoffs, by trying every assignment."""
    n = len(hand)
    families = []
    for target in targets:
        kind = meld_kind(target, rules)
        ok = {0: True}
        for mask in range(1, 1 << n):  # a subset is layable if some last card completes it
            ok[mask] = any(
                mask >> i & 1 and ok[mask ^ 1 << i]
                and meld_kind([*target, *(hand[k] for k in range(n) if mask >> k & 1)], rules)
                == kind
                and meld_kind([*target, *(hand[k] for k in range(n) if (mask ^ 1 << i) >> k & 1),
                               hand[i]], rules) == kind
                for i in range(n))
        families.append([m for m, good in ok.items() if good])
    best = None
    for parts in product(*families):
        union = 0
        for part in parts:
            if union & part:
                break
            union |= part
        else:
            rest = [hand[i] for i in range(n) if not union >> i & 1]
            value = brute_deadwood(rest, rules)
            best = value if best is None else min(best, value)
    assert best is not None
    return best


def check_arrangement(hand: Sequence[int], arrangement: Arrangement, rules: MeldRules) -> None:
    """Valid, disjoint melds; melds + deadwood are the hand; points add up; the order
    documented: each meld in reading order, the melds by their cards' display order,
    the deadwood in display order, every card a :class:`Card`."""
    laid = [c for meld in arrangement.melds for c in meld] + list(arrangement.deadwood)
    assert sorted(laid) == sorted(hand)
    assert all(type(c) is Card for c in laid)
    for meld in arrangement.melds:
        assert meld_kind(meld, rules) is not None, meld
        assert meld == order_meld(meld, rules), meld
    keys = [[sort_key(c) for c in meld] for meld in arrangement.melds]
    assert keys == sorted(keys)
    assert list(arrangement.deadwood) == sorted(arrangement.deadwood, key=sort_key)
    assert arrangement.points == sum(rules.points(c) for c in arrangement.deadwood)


# --- worked examples ----------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "text", "points"), [
    (GIN, "4h 5h 6h 7h 7s 7d 8c 9c 10c 3s", 3),
    (GIN, "5h 6h 7h 7s 7d 8c 9c 10c Ks Qd", 31),
    (CHICAGO, "2s 5h 5c 9d 10d Kc 3h", 23),
    (CHICAGO, "Qh Qd 2s 2c 9c 5d 5d", 9),
    (CHICAGO, "Ks Kh 2c 9h 10h 6c 4h", 29),
    (thirteen(1), "3c 7h 7s", 0),
    (thirteen(1), "3h 3s 7c", 0),
    (thirteen(1), "3h 3s 3d", 0),
    (thirteen(1, all_wild=False), "3h 3s 3d", 0),
    (thirteen(1), "5d 6d 3s", 0),
    (thirteen(1), "3h 7c Qd", 20),
    (thirteen(1), "JK 2s 7d", 29),
    (thirteen(1), "JK 7d 7s", 0),
    (thirteen(1), "3h 3s JK", 0),
    (thirteen(1, all_wild=False), "3h 3s JK", 26),
    (thirteen(11), "Kh Qs Qd Jc 10c 4h 5h 6h 8d 8c 8s 8h As", 21),
    (thirteen(11, face_points=True), "Kh Qs Qd Jc 10c 4h 5h 6h 8d 8c 8s 8h As", 22),
    (thirteen(11, ace_high=True), "Kh Qs Qd Jc 10c 4h 5h 6h 8d 8c 8s 8h As", 30),
    (thirteen(11, ace_high=True, face_points=True),
     "Kh Qs Qd Jc 10c 4h 5h 6h 8d 8c 8s 8h As", 33),
    (thirteen(11), "Ks Kd 4c 5c 7c 9d 9s Qh Jh 2s 3h Ad 8s", 30),
    (thirteen(11), "Ac 4c 7c 10c 2d 5d 8d Jd 3h 6h 9h Qh Ks", 85),
    (thirteen(11, face_points=True), "Ac 4c 7c 10c 2d 5d 8d Jd 3h 6h 9h Qh Ks", 91),
    (thirteen(11, ace_high=True), "Ac 4c 7c 10c 2d 5d 8d Jd 3h 6h 9h Qh Ks", 99),
])
def test_worked_examples(rules: MeldRules, text: str, points: int) -> None:
    hand = cards(text)
    arrangement = best_arrangement(hand, rules)
    check_arrangement(hand, arrangement, rules)
    assert arrangement.points == deadwood_points(hand, rules) == points
    assert brute_deadwood(hand, rules) == points


def test_greedy_counterexample_melds() -> None:
    arrangement = best_arrangement(cards("4h 5h 6h 7h 7s 7d 8c 9c 10c 3s"), GIN)
    assert set(arrangement.melds) == {cards("4h 5h 6h"), cards("7d 7h 7s"), cards("8c 9c 10c")}
    assert arrangement.deadwood == cards("3s")
    assert str(arrangement) == "8c 9c Tc | 7d 7h 7s | 4h 5h 6h / deadwood 3s (3)"


def test_melds() -> None:
    arrangement = best_arrangement(cards("Qh Qd 2s 2c 9c 5d 5d"), CHICAGO)
    assert sorted(map(sorted, arrangement.melds)) == sorted(
        map(sorted, [cards("Qh Qd 2s"), cards("5d 5d 2c")]))
    assert arrangement.deadwood == cards("9c")


def test_king_goes_with_queens_under_face_points() -> None:
    hand = cards("Kh Qs Qd Jc 10c 4h 5h 6h 8d 8c 8s 8h As")
    arrangement = best_arrangement(hand, thirteen(11, face_points=True))
    assert set(arrangement.deadwood) == set(cards("Jc 10c As"))
    arrangement = best_arrangement(hand, thirteen(11, ace_high=True))
    assert set(arrangement.deadwood) == set(cards("Qd Jc 10c"))
    assert cards("Qs Kh As") in arrangement.melds


def test_unmelded_wild_counts_its_rank() -> None:
    arrangement = best_arrangement(cards("Ac 4c 7c 10c 2d 5d 8d Jd 3h 6h 9h Qh Ks"), thirteen(11))
    assert arrangement.melds == ()
    assert Card.parse("Ks") in arrangement.deadwood


def layoff_cards(result: solver.LayoffResult, melds: Sequence[Sequence[Card]]) -> dict[str, str]:
    """Laid-off card -> the first card of the meld it went on, as text."""
    return {str(card): str(melds[index][0]) for card, index in result.layoffs}


def test_knock_with_layoffs() -> None:
    knocker, defender = cards("2c 3c 4c 9h 9s 9d Js Qs Ks 5d"), cards(
        "5c 6c 9c 10s 7h 7s 7d 4d 4h 8d")
    shown, result = knocker_arrangement(knocker, defender, GIN, allow_layoffs=True)
    assert shown.points == 5
    assert result.points == 16
    assert set(result.deadwood) == set(cards("4d 4h 8d"))
    assert result.own_melds == (cards("7d 7h 7s"),)
    assert layoff_cards(result, shown.melds) == {"5c": "2c", "6c": "2c", "9c": "9d", "Ts": "Js"}
    laid = [str(card) for card, _ in result.layoffs]
    assert laid.index("5c") < laid.index("6c")  # chained: 6c only fits after 5c
    assert deadwood_points(defender, GIN) == 46


def test_undercut_by_laying_off_everything() -> None:
    shown, result = knocker_arrangement(cards("Ac 2c 3c 8h 8s 8d 4h 5h 6h 9s"),
                                        cards("Jc Jd Jh 5s 6s 7s 2d 3d 4d 7h"), GIN,
                                        allow_layoffs=True)
    assert shown.points == 9
    assert result.points == 0
    assert len(result.own_melds) == 3
    assert layoff_cards(result, shown.melds) == {"7h": "4h"}


def test_card_fitting_nothing() -> None:
    shown, result = knocker_arrangement(cards("2c 3c 4c 9h 9s 9d Js Qs Ks 8d"),
                                        cards("5h 5s 5d 10h Jh Qh 2s 3s 4s 8h"), GIN,
                                        allow_layoffs=True)
    assert (shown.points, result.points, result.layoffs) == (8, 8, ())


@pytest.mark.parametrize(("allow", "points"), [(False, 24), (True, 20)])
def test_gin_without_and_with_layoffs(allow: bool, points: int) -> None:
    shown, result = knocker_arrangement(cards("As 2s 3s 4d 4c 4h 7c 8c 9c 10c"),
                                        cards("Jh Qh Kh 5h 5s 5d 4s 2d 8d Qc"), GIN,
                                        allow_layoffs=allow)
    assert shown.points == 0
    assert result.points == points
    assert layoff_cards(result, shown.melds) == ({"4s": "As"} if allow else {})


def test_best_layoffs_direct() -> None:
    targets = [cards("2c 3c 4c"), cards("9h 9s 9d"), cards("Js Qs Ks")]
    result = best_layoffs(cards("5c 6c 9c 10s 7h 7s 7d 4d 4h 8d"), targets, GIN)
    assert result.points == 16
    assert sorted(index for _, index in result.layoffs) == [0, 0, 1, 2]


def test_knocker_blocks_layoffs() -> None:
    """Of two equal arrangements the knocker shows the one the defender can use least."""
    knocker = cards("4h 5h 6h 7h 7s 7d 7c As 2c 3d")
    defender = cards("8h Kd Kc Qs Js 2d 9c 10d 5s 6c")
    shown, result = knocker_arrangement(knocker, defender, GIN, allow_layoffs=True)
    assert shown.points == 6
    assert cards("7c 7d 7h 7s") in shown.melds
    assert result.layoffs == ()
    assert result.points == deadwood_points(defender, GIN) == 80
    # The other arrangement would have let 8h go on 4h-7h.
    assert best_layoffs(defender, [cards("4h 5h 6h 7h"), cards("7c 7d 7s")], GIN).points == 72


def test_knocker_shows_the_fewest_layoffs_even_at_a_cost_in_points() -> None:
    """docs/rules.md 3, "The showdown": the fewest layoffs decides, not the defender's points."""
    knocker = cards("3c 4c 5c 3d 4d 5d 3h 4h 5h 2s")
    defender = cards("5s 2c Ac Ks Qh Jd 9h 8s Td Kc")
    shown, result = knocker_arrangement(knocker, defender, GIN, allow_layoffs=True)
    assert sorted(map(sorted, shown.melds)) == sorted(
        map(sorted, [cards("3c 3d 3h"), cards("4c 4d 4h"), cards("5c 5d 5h")]))
    assert [str(card) for card, _ in result.layoffs] == ["5s"]
    assert result.points == 70  # the runs would have taken 2c and Ac: one more, 72 left
    runs = [cards("3c 4c 5c"), cards("3d 4d 5d"), cards("3h 4h 5h")]
    assert len(best_layoffs(defender, runs, GIN).layoffs) == 2


def test_best_discard_and_forbidden() -> None:
    hand = cards("4h 5h 6h 7s 7d 7c 8c 9c 10c Kd Qs")
    assert best_discard(hand, GIN) == (Card.parse("Kd"), 10)  # ties: Kd and Qs, first by suit
    assert best_discard(hand, GIN, forbidden=Card.parse("Kd")) == (Card.parse("Qs"), 10)
    after = discard_deadwoods(hand, GIN)
    assert after[Card.parse("Kd")] == after[Card.parse("Qs")] == 10
    assert after[Card.parse("4h")] == 5 + 6 + 10 + 10
    with pytest.raises(IllegalDiscard):
        best_discard([], GIN)
    with pytest.raises(IllegalDiscard):
        best_discard(cards("Kd"), GIN, forbidden=Card.parse("Kd"))


def test_errors() -> None:
    with pytest.raises(CardError):
        deadwood_points([5, 5, 6], GIN)
    with pytest.raises(CardError):
        deadwood_points([14], GIN)  # rank 14 is not a card
    with pytest.raises(CardError):
        best_arrangement([-1], GIN)
    with pytest.raises(CardError):
        discard_deadwoods([*cards("2c 2c#1"), Card.parse("2c")], CHICAGO)
    with pytest.raises(CardError):  # (a hand the run tables arrange, one card twice)
        best_arrangement([*cards("7h 8h 9h 5d 5s"), Card.parse("5d")], CHICAGO)
    with pytest.raises(InvalidMeld):
        best_layoffs(cards("5c"), [cards("2c 3c 5c#1")], GIN)
    with pytest.raises(CardError):
        best_layoffs(cards("5c 4c"), [cards("2c 3c 4c")], GIN)
    with pytest.raises(CardError):
        best_layoffs(cards("5c"), [[1, 2, 15]], GIN)
    with pytest.raises(CardError):
        knocker_arrangement(cards("2c 3c 4c"), [16], GIN, allow_layoffs=True)


def test_empty_and_edge_hands() -> None:
    assert deadwood_points([], GIN) == 0
    assert best_arrangement([], CHICAGO) == Arrangement((), (), 0)
    assert deadwood_points(iter(cards("2c 2d 2h")), CHICAGO) == 0  # any iterable
    twenty = [c for c in make_deck() if c.rank <= 5]
    assert deadwood_points(twenty, GIN) == 0
    assert deadwood_points(twenty, MeldRules(max_set_size=3)) == 0
    with pytest.raises(ValueError, match="at most 20"):
        deadwood_points(make_deck()[:21], GIN)
    full_suit = [Card.make(r, 0) for r in range(1, 14)]
    corner = MeldRules(ace_mode="round_the_corner")
    (meld,) = best_arrangement(full_suit, corner).melds
    assert sorted(meld) == full_suit
    assert deadwood_points(cards("Kh Ah 2h Qs Ks As"), corner) == 0
    assert deadwood_points(cards("Kh Ah 2h Qs Ks As"), BASIC_HIGH) == 10 + 15 + 2


def test_caches_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    for points in range(40):
        deadwood_points(cards("Ah 2h 3h"), MeldRules(ace_points=points + 1))
    assert len(solver._REGISTRY.contexts) <= 16
    monkeypatch.setattr(solver, "_MEMO_LIMIT", 50)
    monkeypatch.setattr(solver, "_TRIM_EVERY", 1)
    rules = MeldRules(max_set_size=0, wild_rank=13)
    rng = random.Random(7)
    deck = make_deck(2)
    for _ in range(30):
        hand = rng.sample(deck, 12)
        assert deadwood_points(hand, rules) == best_arrangement(hand, rules).points
    assert solver._context(rules).cache_size() < 5_000
    solver.clear_caches()
    assert solver._context(rules).cache_size() == 0


def test_deterministic_and_order_free() -> None:
    rng = random.Random(3)
    deck = make_deck(2, 2)
    for rules in (GIN, CHICAGO, thirteen(11), BASIC_HIGH):
        for _ in range(30):
            hand = rng.sample(deck if rules.wild_rank else make_deck(), 11)
            shuffled = rng.sample(hand, len(hand))
            assert best_arrangement(hand, rules) == best_arrangement(shuffled, rules)
            assert best_discard(hand, rules) == best_discard(shuffled, rules)


# --- properties against the brute force ------------------------------------------------------


@st.composite
def meld_rules(draw: st.DrawFn, *, wild: bool = True) -> MeldRules:
    face = draw(st.booleans())
    return MeldRules(
        ace_mode=draw(st.sampled_from(ACE_MODES)),
        max_set_size=draw(st.sampled_from([0, 3, 4, 5])),
        wild_rank=draw(st.sampled_from([0, 2, 13]) | st.integers(1, 13)) if wild else 0,
        all_wild_melds=draw(st.booleans()),
        ace_points=draw(st.sampled_from([1, 15])),
        jack_points=11 if face else 10,
        queen_points=12 if face else 10,
        king_points=13 if face else 10,
        joker_points=draw(st.sampled_from([20, 0, 5])),
    )


@st.composite
def small_deck(draw: st.DrawFn, rules: MeldRules, *, max_decks: int = 4) -> list[Card]:
    """Cards of a few ranks and suits (dense in melds) from 1-4 decks, jokers maybe."""
    decks = draw(st.integers(1, max_decks))
    jokers = draw(st.sampled_from([0, 0, 1, 2]))
    ranks = set(draw(st.lists(st.integers(1, 13), min_size=2, max_size=6, unique=True)))
    if draw(st.booleans()):  # consecutive ranks, possibly round the corner
        start = draw(st.integers(1, 13))
        ranks = {(start + i - 1) % 13 + 1 for i in range(len(ranks))}
    if rules.wild_rank:
        ranks.add(rules.wild_rank)
    suits = set(draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True)))
    return [c for c in make_deck(decks, jokers)
            if c.is_joker or (c.rank in ranks and c.suit in suits)]


@st.composite
def rules_and_hand(draw: st.DrawFn, *, max_size: int = 8,
                   wild: bool = True) -> tuple[MeldRules, list[Card]]:
    rules = draw(meld_rules(wild=wild))
    deck = draw(small_deck(rules, max_decks=4 if wild else 1))
    return rules, draw(some_cards(deck, max_size))


def some_cards(deck: list[Card], max_size: int) -> st.SearchStrategy[list[Card]]:
    """Distinct cards of ``deck``, mostly near ``max_size`` of them."""
    if not deck:
        return st.just([])
    return st.integers(0, min(max_size, len(deck))).flatmap(
        lambda size: st.lists(st.sampled_from(deck), unique=True,
                              min_size=max(size, min(len(deck), max_size) // 2),
                              max_size=min(max_size, len(deck))))


@settings(max_examples=500, deadline=None)
@given(rules_and_hand(max_size=9))
def test_arrangement_matches_brute_force(case: tuple[MeldRules, list[Card]]) -> None:
    rules, hand = case
    arrangement = best_arrangement(hand, rules)
    check_arrangement(hand, arrangement, rules)
    assert arrangement.points == deadwood_points(hand, rules) == brute_deadwood(hand, rules)


@st.composite
def table_rules_and_hand(draw: st.DrawFn) -> tuple[MeldRules, list[Card]]:
    """Rules the table path takes (sets without a maximum, aces low or high or low,
    every card worth a point) and a hand of up to 9 cards from up to 4 decks."""
    rules = draw(meld_rules())
    rules = MeldRules(ace_mode=draw(st.sampled_from(["low", "high_or_low"])), max_set_size=0,
                      wild_rank=rules.wild_rank, all_wild_melds=rules.all_wild_melds,
                      ace_points=rules.ace_points, jack_points=rules.jack_points,
                      queen_points=rules.queen_points, king_points=rules.king_points,
                      joker_points=draw(st.sampled_from([20, 5])))
    return rules, draw(some_cards(draw(small_deck(rules)), 9))


@settings(max_examples=400, deadline=None)
@given(table_rules_and_hand())
def test_table_arrangement_matches_brute_force(case: tuple[MeldRules, list[Card]]) -> None:
    """A wild or two-deck hand's arrangement by the run tables (no search): every card
    once, valid melds, the least deadwood; and it is the one best_arrangement shows.
    None only for hands the tables do not take, or that meld no natural card."""
    rules, hand = case
    ctx = solver._context(rules)
    found = ctx.table_arrangement(hand)
    least = brute_deadwood(hand, rules)
    if found is None:
        naturals = sum(rules.points(c) for c in hand if not rules.is_wild(c))
        assert ctx.table_profile(hand) is None or least >= naturals
        return
    melds, deadwood = found
    assert sorted([c for meld in melds for c in meld] + deadwood) == sorted(hand)
    assert all(meld_kind(meld, rules) is not None for meld in melds), melds
    assert sum(rules.points(c) for c in deadwood) == least
    shown = best_arrangement(hand, rules)
    check_arrangement(hand, shown, rules)
    assert sorted(shown.melds) == sorted(tuple(order_meld(m, rules)) for m in
                                         solver._merge(melds, rules))


_TABLES: dict[bool, SuitRuns] = {}  # by ace_high: the traces' tables, shared


@settings(max_examples=300, deadline=None)
@given(st.booleans(), st.integers(0, 0x3FFE), st.integers(0, 0x3FFE), st.integers(0, 3))
def test_suit_runs_trace_reaches_the_table_value(ace_high: bool, once: int, twice: int,
                                                 wilds: int) -> None:
    """The runs a suit pattern's table entry was reached by hold each natural once, fit
    a window of at most 13 positions with their wild cards, and leave exactly the
    entry's deadwood."""
    once &= 0x3FFE
    twice &= once
    assume(once.bit_count() + twice.bit_count() <= 10)  # (a suit of one hand, 13 cards)
    points = (0, 15 if ace_high else 1, *range(2, 11), 10, 10, 10, 15 if ace_high else 1)
    table = _TABLES.setdefault(ace_high, SuitRuns(ace_high, points))  # (filled once)
    runs, dead, unused = table.trace(once | twice << 16, wilds)
    held = [r for r in range(1, 14) for _ in range((once >> r & 1) + (twice >> r & 1))]
    laid = dead + [1 if p == 14 else p for positions, _ in runs for p in positions]
    assert sorted(laid) == held
    entry = table.get(once | twice << 16)
    assert sum(points[r] for r in dead) == entry[wilds] == entry[wilds - unused]
    for positions, need in runs:
        assert len(set(positions)) == len(positions)
        span = max(positions) - min(positions) + 1
        assert span <= 13 and len(positions) + need == max(3, span)
        assert 14 not in positions or ace_high


@settings(max_examples=200, deadline=None)
@given(st.booleans(), st.integers(0, 0x3FFE), st.integers(0, 3))
def test_suit_runs_table_matches_brute_force(ace_high: bool, once: int, wilds: int) -> None:
    """A suit's table entry is the least deadwood of its naturals (one deck) with up to
    ``wilds`` jokers worth nothing, by the brute force."""
    once &= 0x3FFE
    assume(once.bit_count() <= 8)
    rules = MeldRules(ace_mode="high_or_low" if ace_high else "low", max_set_size=0,
                      ace_points=15 if ace_high else 1, joker_points=0)
    points = (0, 15 if ace_high else 1, *range(2, 11), 10, 10, 10, 15 if ace_high else 1)
    hand = [Card(16 + r) for r in range(1, 14) if once >> r & 1] + [
        Card(64 * copy) for copy in range(wilds)]
    assert SuitRuns(ace_high, points).get(once)[wilds] == brute_deadwood(hand, rules)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, (1 << 64) - 1), st.integers(0, (1 << 64) - 1), st.data())
def test_entries_less_one_card_are_the_smaller_hands(once: int, twice: int,
                                                      data: st.DataObject) -> None:
    """The knock lists' shortcut: the suit entries of naturals less one card (a copy of
    a face held twice goes first) are those of the smaller hand, looked up afresh."""
    once &= 0x01FE_01FE_01FE_01FE  # (ranks 1 to 8: the suit tables stay small)
    twice &= once
    assume(once)
    face = data.draw(st.sampled_from([f for f in range(64) if once >> f & 1]))
    ctx = solver._context(CHICAGO)
    less = ctx.entries_less(ctx.suit_entries(once, twice), once, twice, face)
    bit = 1 << face
    smaller = (once, twice ^ bit) if twice & bit else (once ^ bit, twice)
    assert less == ctx.suit_entries(*smaller)


def test_a_long_run_of_wild_cards() -> None:
    """The run tables take runs needing three wild cards (5-6-7-8-9 from 5, 9 and three
    jokers), and the arrangement shows that run."""
    hand = cards("5s 9s JK JK#1 JK#2")
    assert deadwood_points(hand, MeldRules(max_set_size=0)) == 0
    assert best_arrangement(hand, MeldRules(max_set_size=0)).points == 0


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_table_arrangement_of_large_hands(data: st.DataObject) -> None:
    """Hands of 10 to 13 cards (Three Thirteen's late rounds): the run tables'
    arrangement keeps the general search's least deadwood, and the hand's order does
    not change what best_arrangement shows."""
    rules, _ = data.draw(table_rules_and_hand())
    deck = data.draw(small_deck(rules)) if data.draw(st.booleans()) else list(make_deck(2, 2))
    assume(len(deck) >= 10)
    hand = data.draw(st.lists(st.sampled_from(deck), unique=True, min_size=10,
                              max_size=min(13, len(deck))))
    ctx = solver._context(rules)
    found = ctx.table_arrangement(hand)
    if found is not None:
        melds, deadwood = found
        assert sorted([c for meld in melds for c in meld] + deadwood) == sorted(hand)
        assert all(meld_kind(meld, rules) is not None for meld in melds), melds
        ctx.clear_general()
        _, searched = ctx.general_arrangement(hand)
        assert sum(map(rules.points, deadwood)) == sum(map(rules.points, searched))
    shuffled = data.draw(st.permutations(hand))
    assert best_arrangement(hand, rules) == best_arrangement(shuffled, rules)


@settings(max_examples=300, deadline=None)
@given(rules_and_hand(max_size=8))
def test_discards_match_brute_force(case: tuple[MeldRules, list[Card]]) -> None:
    rules, hand = case
    assume(hand)
    after = discard_deadwoods(hand, rules)
    assert list(after) == hand
    for i, card in enumerate(hand):
        assert after[card] == brute_deadwood(hand[:i] + hand[i + 1:], rules)
    card, points = best_discard(hand, rules)
    least = min(after.values())
    assert points == after[card] == least
    assert rules.points(card) == max(rules.points(c) for c in hand if after[c] == least)
    if len(hand) > 1:
        other, _ = best_discard(hand, rules, forbidden=card)
        assert other != card


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_gin_hands_match_brute_force(data: st.DataObject) -> None:
    """Whole-deck hands of 10 and 11 cards under no-wild rules (the fast path)."""
    rules = data.draw(meld_rules(wild=False))
    deck = make_deck()
    if data.draw(st.booleans()):
        suits = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True))
        deck = tuple(c for c in deck if c.suit in suits)
    hand = data.draw(st.lists(st.sampled_from(deck), unique=True, min_size=10, max_size=11))
    arrangement = best_arrangement(hand, rules)
    check_arrangement(hand, arrangement, rules)
    assert arrangement.points == brute_deadwood(hand, rules)
    after = discard_deadwoods(hand, rules)
    for i in data.draw(st.lists(st.integers(0, len(hand) - 1), max_size=3, unique=True)):
        assert after[hand[i]] == brute_deadwood(hand[:i] + hand[i + 1:], rules)


def brute_discards(hand: Sequence[int], rules: MeldRules) -> list[int]:
    """The brute force's least deadwood of ``hand`` without each of its cards."""
    melds = meld_masks(hand, rules)
    memo = {0: 0}

    def least(mask: int) -> int:
        if mask not in memo:
            low = (mask & -mask).bit_length() - 1
            value = rules.points(hand[low]) + least(mask ^ 1 << low)
            for meld in melds.get(low, []):
                if meld & mask == meld:
                    value = min(value, least(mask ^ meld))
            memo[mask] = value
        return memo[mask]

    full = (1 << len(hand)) - 1
    return [least(full ^ 1 << i) for i in range(len(hand))]


@st.composite
def planted_meld(draw: st.DrawFn) -> list[Card]:
    """A natural run or set, or a set with a run of its own suit touching one of its
    cards (a rank whose cards sets and runs compete for)."""
    kind = draw(st.sampled_from(["run", "set", "cross"]))
    if kind == "run":
        suit, length = draw(st.integers(0, 3)), draw(st.integers(3, 5))
        start = draw(st.integers(1, 14 - length))
        return [Card.make(r, suit) for r in range(start, start + length)]
    rank = draw(st.integers(1, 13))
    suits = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
    meld = [Card.make(rank, t) for t in suits]
    if kind == "cross":
        side = draw(st.sampled_from([r for r in (-3, -2, -1, 1, 2, 3) if 1 <= rank + r <= 13]))
        step = 1 if side > 0 else -1
        meld += [Card.make(r, suits[0]) for r in range(rank + step, rank + side + step, step)]
    return meld


@st.composite
def meld_rich_hand(draw: st.DrawFn, size: int) -> list[Card]:
    """``size`` cards of distinct faces holding planted melds (:func:`planted_meld`),
    the rest from the deck; one or two of them maybe a second deck's copy."""
    free = set(make_deck())
    hand: list[Card] = []
    for _ in range(draw(st.integers(1, 3))):
        meld = draw(planted_meld())
        if free.issuperset(meld) and len(hand) + len(meld) <= size:
            hand += meld
            free -= set(meld)
    hand += draw(st.lists(st.sampled_from(sorted(free)), min_size=size - len(hand),
                          max_size=size - len(hand), unique=True))
    copies = draw(st.lists(st.integers(0, size - 1), max_size=2, unique=True))
    hand = [Card.make(c.rank, c.suit, 1) if i in copies else c for i, c in enumerate(hand)]
    return draw(st.permutations(hand))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_best_discard_of_one_deck_matches_brute_force(data: st.DataObject) -> None:
    """Whole-deck hands of distinct faces (the fast path), often meld-rich: the least
    deadwood, the best discard by the documented order (least deadwood, then the
    dearest, then the first in display order), and with that card or another forbidden."""
    rules = data.draw(meld_rules(wild=False))
    size = data.draw(st.integers(4, 11))
    if data.draw(st.booleans()):
        hand = data.draw(meld_rich_hand(size))
    else:
        hand = data.draw(st.lists(st.sampled_from(make_deck()), unique=True,
                                  min_size=size, max_size=size))
    assert deadwood_points(hand, rules) == brute_deadwood(hand, rules)
    after = brute_discards(hand, rules)

    def expected(forbidden: int | None) -> tuple[Card, int]:
        key, i = min(((after[i], -rules.points(c), sort_key(c)), i)
                     for i, c in enumerate(hand) if c != forbidden)
        return hand[i], key[0]

    card, points = best_discard(hand, rules)
    assert (card, points) == expected(None)
    assert best_discard(hand, rules, forbidden=card) == expected(card)
    other = data.draw(st.sampled_from(hand))
    assert best_discard(hand, rules, forbidden=other) == expected(other)


def test_best_discard_of_cards_worth_much() -> None:
    """Card values beyond the fast path's discard keys (255 points) take the general way."""
    rules = MeldRules(ace_points=300, king_points=400)
    hand = list(cards("Ac Ad Ah 2c 3c Ks 9d 5h 6h 7h Qs"))
    after = brute_discards(hand, rules)
    i = min(range(len(hand)), key=lambda i: (after[i], -rules.points(hand[i]), sort_key(hand[i])))
    assert best_discard(hand, rules) == (hand[i], after[i]) == (Card.parse("Ks"), 24)
    assert best_discard(hand, rules, forbidden=Card.parse("Ks")) == (Card.parse("Qs"), 414)


@st.composite
def table_meld(draw: st.DrawFn, rules: MeldRules, deck: list[Card]) -> list[Card]:
    """A valid meld of ``deck`` cards around a random one: a run or a set, maybe with a
    wild card standing in for one of its cards."""
    naturals = [c for c in deck if not rules.is_wild(c)]
    assume(naturals)
    anchor = draw(st.sampled_from(naturals))
    if draw(st.booleans()):
        length = draw(st.integers(3, 4))
        start = anchor.rank - draw(st.integers(0, length - 1))
        faces = [anchor.suit * 16 + (start + i - 1) % 13 + 1 for i in range(length)]
        meld = [next((c for c in deck if c.face == f), anchor) for f in faces]
    else:
        same = [c for c in naturals if c.rank == anchor.rank]
        assume(len(same) >= 3)
        meld = draw(st.lists(st.sampled_from(same), min_size=3, max_size=4, unique=True))
    wilds = [c for c in deck if rules.is_wild(c) and c not in meld]
    use_wild: bool = draw(st.booleans())
    if wilds and use_wild:
        meld[draw(st.integers(0, len(meld) - 1))] = draw(st.sampled_from(wilds))
    assume(len(set(meld)) == len(meld) and meld_kind(meld, rules) is not None)
    return meld


@st.composite
def layoff_case(draw: st.DrawFn, *, wild: bool) -> tuple[MeldRules, list[list[Card]], list[Card]]:
    rules = draw(meld_rules(wild=wild))
    deck = draw(small_deck(rules, max_decks=2 if wild else 1))
    targets: list[list[Card]] = []
    for _ in range(draw(st.integers(1, 3))):
        meld = draw(table_meld(rules, deck))
        deck = [c for c in deck if c not in meld]
        targets.append(meld)
    return rules, targets, draw(some_cards(deck, 6 if wild else 7))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(layoff_case(wild=False))
def test_layoffs_match_brute_force(case: tuple[MeldRules, list[list[Card]], list[Card]]) -> None:
    rules, targets, hand = case
    check_layoffs(rules, targets, hand)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(layoff_case(wild=True))
def test_layoffs_with_wilds_match_brute_force(
        case: tuple[MeldRules, list[list[Card]], list[Card]]) -> None:
    rules, targets, hand = case
    check_layoffs(rules, targets, hand)


def check_layoffs(rules: MeldRules, targets: list[list[Card]], hand: list[Card]) -> None:
    result = best_layoffs(hand, targets, rules)
    assert result.points == brute_layoffs(hand, targets, rules)
    laid = [c for c, _ in result.layoffs]
    own = [c for meld in result.own_melds for c in meld]
    assert sorted(laid + own + list(result.deadwood)) == sorted(hand)
    assert result.points == sum(rules.points(c) for c in result.deadwood)
    for meld in result.own_melds:
        assert meld_kind(meld, rules) is not None
    grown = [list(t) for t in targets]
    for card, index in result.layoffs:  # the order given is a legal chaining order
        assert meld_kind([*grown[index], card], rules) == meld_kind(targets[index], rules)
        grown[index].append(card)


@st.composite
def knock_case(draw: st.DrawFn) -> tuple[MeldRules, list[Card], list[Card]]:
    """A knocker's hand and a defender's, often with a run and a set sharing a card
    (so that equal arrangements differ in the layoffs they allow)."""
    rules = draw(meld_rules(wild=False))
    deck = list(make_deck())
    knocker: list[Card] = []
    if draw(st.booleans()):
        rank, suit = draw(st.integers(1, 13)), draw(st.integers(0, 3))
        low = rank - draw(st.sampled_from([0, 3, 1, 2]))  # the shared card at an end, often
        knocker = [Card.make((low + i - 1) % 13 + 1, suit) for i in range(4)]
        others = [Card.make(rank, s) for s in range(4) if s != suit]
        knocker += others[:draw(st.sampled_from([3, 2]))]
        near = {(rank + d - 1) % 13 + 1 for d in range(-5, 6)}
        deck = [c for c in deck if c.rank in near and c not in knocker]
    else:
        deck = draw(small_deck(rules, max_decks=1))
    knocker += draw(st.lists(st.sampled_from(deck), unique=True, max_size=8 - len(knocker)))
    rest = [c for c in deck if c not in knocker]
    defender = draw(st.lists(st.sampled_from(rest), unique=True, min_size=min(3, len(rest)),
                             max_size=6)) if rest else []
    return rules, knocker, defender


@settings(max_examples=300, deadline=None)
@given(knock_case(), st.booleans())
def test_knocker_arrangement_matches_brute_force(
        case: tuple[MeldRules, list[Card], list[Card]], allow: bool) -> None:
    rules, knocker, defender = case
    shown, result = knocker_arrangement(knocker, defender, rules, allow_layoffs=allow)
    check_arrangement(knocker, shown, rules)
    assert shown.points == brute_deadwood(knocker, rules)
    if allow:
        assert result.points == brute_layoffs(defender, shown.melds, rules)
        assert result.points == max(brute_layoffs(defender, melds, rules)
                                    for melds in brute_optimal_partitions(knocker, rules))
    else:
        assert result.layoffs == ()
        assert result.points == brute_deadwood(defender, rules)


@st.composite
def table_rules(draw: st.DrawFn) -> MeldRules:
    """Card rules the table path takes: sets without a maximum, aces low or high or low."""
    face = draw(st.booleans())
    return MeldRules(
        ace_mode=draw(st.sampled_from(["low", "high_or_low"])), max_set_size=0,
        wild_rank=draw(st.integers(0, 13)), all_wild_melds=draw(st.booleans()),
        ace_points=draw(st.sampled_from([1, 15])), jack_points=11 if face else 10,
        queen_points=12 if face else 10, king_points=13 if face else 10,
        joker_points=draw(st.sampled_from([20, 0, 5])))


@st.composite
def table_case(draw: st.DrawFn, max_size: int) -> tuple[MeldRules, list[Card]]:
    rules = draw(table_rules())
    deck = draw(small_deck(rules, max_decks=2))
    return rules, draw(some_cards(deck, max_size))


def table_path_takes(hand: Sequence[Card], rules: MeldRules) -> bool:
    """At most three wild cards and no face three times: the table path's hands."""
    wilds = sum(1 for c in hand if rules.is_wild(c))
    faces = [c.face for c in hand if not rules.is_wild(c)]
    return wilds <= 3 and all(faces.count(f) <= 2 for f in faces)


@settings(max_examples=400, deadline=None)
@given(table_case(max_size=9))
def test_table_path_matches_brute_force(case: tuple[MeldRules, list[Card]]) -> None:
    """The per-suit run tables with set choices (wild cards, two decks) are exact."""
    rules, hand = case
    assume(table_path_takes(hand, rules))
    value = solver._context(rules).table_deadwood(hand)
    assert value is not None
    assert value == brute_deadwood(hand, rules)


@settings(max_examples=300, deadline=None)
@given(table_case(max_size=13))
def test_table_path_matches_the_general_search(case: tuple[MeldRules, list[Card]]) -> None:
    """Up to 13 cards (Three Thirteen's hands), against the general path's own search."""
    rules, hand = case
    assume(table_path_takes(hand, rules))
    ctx = solver._context(rules)
    n, pm, wilds, jokers, dead = ctx.classify(hand)
    rec = ctx.recursion(len(wilds), len(jokers))
    general = sum(rules.points(c) for c in dead) + rec(n, pm, len(wilds) + len(jokers), 0)
    assert ctx.table_deadwood(hand) == general


@settings(max_examples=300, deadline=None)
@given(table_case(max_size=10), st.sampled_from([0, 0, 0, 1, 5, 9, 15]))
def test_table_discards_match_brute_force(case: tuple[MeldRules, list[Card]],
                                          limit: int) -> None:
    rules, hand = case
    assume(table_path_takes(hand, rules))
    want = [c for i, c in enumerate(hand)
            if brute_deadwood(hand[:i] + hand[i + 1:], rules) <= limit]
    assert discards_at_most(hand, rules, limit) == want


@settings(max_examples=300, deadline=None)
@given(table_case(max_size=14), st.sampled_from([0, 0, 3, 9, 15, 30]))
def test_table_discards_match_each_kept_hand(case: tuple[MeldRules, list[Card]],
                                             limit: int) -> None:
    """Up to 14 cards (a Three Thirteen hand after its draw): the discards settled from
    the whole hand's set choices against a solve of each kept hand (13 cards at most)."""
    rules, hand = case
    assume(table_path_takes(hand, rules))
    want = [c for i, c in enumerate(hand)
            if deadwood_points(hand[:i] + hand[i + 1:], rules) <= limit]
    assert discards_at_most(hand, rules, limit) == want


def test_table_discards_try_no_set_of_the_rank_left_two() -> None:
    # 7h 7h#1 7c: three naturals no run holds, a set at no cost in the whole hand. Less
    # 7h#1 the two left are better unmelded, the wild card melding the tens and jacks;
    # the whole hand's choices all set the 7s, so this discard is solved on its own.
    hand = cards("Td Tc#1 Jd#1 2h#1 7h#1 Jh 7h 7c")
    kept = [c for c in hand if str(c) != "7h#1"]
    assert brute_deadwood(kept, CHICAGO) == 34
    sevens = [str(c) for c in discards_at_most(hand, CHICAGO, 34) if c.rank == 7]
    assert sevens == ["7h#1", "7h", "7c"]
    assert not [c for c in discards_at_most(hand, CHICAGO, 33) if c.rank == 7]


@settings(max_examples=300, deadline=None)
@given(rules_and_hand(max_size=9), st.integers(-1, 40))
def test_deadwood_at_most_matches_brute_force(case: tuple[MeldRules, list[Card]],
                                              limit: int) -> None:
    rules, hand = case
    assert deadwood_at_most(hand, rules, limit) == (brute_deadwood(hand, rules) <= limit)


@settings(max_examples=400, deadline=None)
@given(rules_and_hand(max_size=9), st.sampled_from([-1, 0, 0, 0, 1, 3, 5, 9, 10, 15, 25]))
def test_discards_at_most_match_brute_force(case: tuple[MeldRules, list[Card]],
                                            limit: int) -> None:
    # The lower bounds, the search with a spare discard and the one-meld test of a
    # small hand each decide some of these.
    rules, hand = case
    want = [c for i, c in enumerate(hand)
            if brute_deadwood(hand[:i] + hand[i + 1:], rules) <= limit]
    assert discards_at_most(hand, rules, limit) == want


@st.composite
def nearly_out(draw: st.DrawFn, *, table: bool = False,
               melds: int = 2, size: int = 10) -> tuple[MeldRules, list[Card]]:
    """A hand of whole melds (:func:`table_meld`, some with a wild card) and one or two
    cards more: hands at or near going out, where the count of what the needy naturals
    need (``solver._may_meld_all``) must not settle a hand that has a way out, nor the
    table path's count of each set choice's wild cards (``solver._table_out``, with
    ``table``: rules it takes) miss one."""
    rules = draw(table_rules() if table else meld_rules())
    deck = draw(small_deck(rules, max_decks=2))
    hand: list[Card] = []
    for _ in range(draw(st.integers(1, melds))):
        meld = draw(table_meld(rules, [c for c in deck if c not in hand]))
        hand += meld
    free = [c for c in deck if c not in hand]
    hand += draw(st.lists(st.sampled_from(free), min_size=min(1, len(free)),
                          max_size=min(2, len(free)), unique=True)) if free else []
    assume(len(hand) <= size)
    return rules, draw(st.permutations(hand))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much])
@given(nearly_out(table=True, melds=4, size=14))
def test_table_going_out_matches_each_kept_hand(case: tuple[MeldRules, list[Card]]) -> None:
    rules, hand = case
    assume(table_path_takes(hand, rules))
    want = [c for i, c in enumerate(hand)
            if deadwood_points(hand[:i] + hand[i + 1:], rules) == 0]
    assert discards_at_most(hand, rules, 0) == want


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much])
@given(nearly_out())
def test_going_out_near_out_matches_brute_force(case: tuple[MeldRules, list[Card]]) -> None:
    rules, hand = case
    want = [c for i, c in enumerate(hand) if brute_deadwood(hand[:i] + hand[i + 1:], rules) == 0]
    assert discards_at_most(hand, rules, 0) == want
    assert deadwood_at_most(hand, rules, 0) == (brute_deadwood(hand, rules) == 0)


@pytest.mark.parametrize("text, rnd, out", [
    # Fours wild: the three naturals are lonely (no other natural shares a meld with
    # one), each needing two wild cards; a discard takes one away and two remain for
    # the other two: four wild cards, and the hand holds two. (Their points, 23 less
    # the 10 discarded, are what two wild cards could cover: the points' bound passes.)
    ("3h 4s Qc Kd 4h", 2, False),
    # The same count with a run: the Kc is lonely, and its discard leaves the run.
    ("5h 6h 7h 4s Kc", 2, True),
    # Sevens wild, 8 cards, two wild cards (7d 7d#1): the Ac and the 8h are lonely (two
    # wild cards each), the kings are a group, and so are the 6c and the 9c (a run with
    # two wild cards between them): six wild cards, four when the discard is a lonely one.
    ("Kc 8h 7d 9c#1 6c Kh 7d#1 Ac", 5, False),
    # Fours wild, one wild card: the 2d shares a rank with the 2h, the 2h a suit with the
    # 3h, so the groups join the three into one; yet no meld holds the 2d with the 3h,
    # nor the Ac with either: three melds, each with a wild card of its own, two when a
    # discard takes one of them away, and the hand holds one.
    ("2d 2h 3h Ac 4s", 2, False),
])
def test_going_out_counts_the_wild_cards_needy_naturals_need(text: str, rnd: int,
                                                             out: bool) -> None:
    hand, rules = cards(text), thirteen(rnd)
    want = [c for i, c in enumerate(hand) if brute_deadwood(hand[:i] + hand[i + 1:], rules) == 0]
    assert bool(want) == out
    assert discards_at_most(hand, rules, 0) == want
    # The screen settles the hands with no way out before any search.
    assert solver._may_keep(hand, rules, 0, spare=True) == out


@pytest.mark.parametrize("text, fields, call", [
    # A natural worth 0 may stay unmelded: the count of what needy naturals need, which
    # takes every natural as melded, must not settle these (a second reader's finds).
    ("Ah 9c 2d 2h", {"ace_points": 0, "wild_rank": 2}, "whole"),
    ("Ah 9c 2d 2h Kd", {"ace_points": 0, "wild_rank": 2}, "discards"),
    ("Kd 7s 7d Js 7s#1", {"wild_rank": 7, "all_wild_melds": False, "jack_points": 11,
                          "queen_points": 12, "king_points": 0, "joker_points": 5}, "whole"),
    ("Kd 4c Ad 4h Qd", {"ace_mode": "round_the_corner", "wild_rank": 13, "ace_points": 0},
     "discards"),
])
def test_going_out_with_naturals_worth_nothing(text: str, fields: dict[str, object],
                                               call: str) -> None:
    hand, rules = cards(text), MeldRules(**fields)  # type: ignore[arg-type]
    if call == "whole":
        assert deadwood_at_most(hand, rules, 0) == (brute_deadwood(hand, rules) == 0)
        assert brute_deadwood(hand, rules) == 0
    else:
        want = [c for i, c in enumerate(hand)
                if brute_deadwood(hand[:i] + hand[i + 1:], rules) == 0]
        assert want
        assert discards_at_most(hand, rules, 0) == want


@pytest.mark.parametrize("text, limit, kept", [
    ("2h 4d 5d 7d 9c 9d 9h As", 1, "4d 7d As"),  # the wild card fills 6d: 5d 2h 7d
    ("5d 5d#1 6s 7s 8s 2c Kh Kh#1", 5, "5d 5d#1"),  # identical cards: Kh Kh#1 2c
    ("2h 2s 5d 9c 9d Kh Kc Ks", 0, "5d"),  # rummy: 9c 9d 2h 2s beside the kings
    ("2h 2s 5d 9c Kh Kc Ks 3s", 3, "5d 9c"),  # two wild cards meld one lonely card
])
def test_discards_at_most_examples(text: str, limit: int, kept: str) -> None:
    hand = cards(text)
    want = [c for i, c in enumerate(hand)
            if brute_deadwood(hand[:i] + hand[i + 1:], CHICAGO) <= limit]
    assert discards_at_most(hand, CHICAGO, limit) == want
    assert [str(c) for c in want] == kept.split()


def test_deadwood_at_most_answers_before_the_search() -> None:
    # Two wild-rank cards at most: the Ks and 9d fit no meld, so 19 is certain.
    hand = cards("Ks 9d 4c 5c 2h")
    assert not deadwood_at_most(hand, CHICAGO, 18)
    assert deadwood_at_most(hand, CHICAGO, 19)
    assert deadwood_at_most(cards("4h 5h 6h 7h 7s 7d 8c 9c 10c 3s"), GIN, 3)
    assert not deadwood_at_most(cards("4h 5h 6h 7h 7s 7d 8c 9c 10c 3s"), GIN, 2)
    with pytest.raises(CardError):
        deadwood_at_most([5, 5, 6], GIN, 10)


# --- the bounds the bounded questions take first ----------------------------------------


def check_screen(hand: list[Card], rules: MeldRules, limit: int) -> None:
    """The screen of the knock listing never refuses a hand that keeps within the limit."""
    if brute_deadwood(hand, rules) <= limit:
        assert solver._may_keep(tuple(hand), rules, limit, spare=False)
    if any(brute_deadwood(hand[:i] + hand[i + 1:], rules) <= limit for i in range(len(hand))):
        assert solver._may_keep(tuple(hand), rules, limit, spare=True)


@settings(max_examples=400, deadline=None)
@given(rules_and_hand(max_size=9), st.integers(-1, 30))
def test_the_screen_never_refuses_a_hand_within_the_limit(
        case: tuple[MeldRules, list[Card]], limit: int) -> None:
    rules, hand = case
    assume(len(set(hand)) == len(hand))
    check_screen(hand, rules, limit)


@settings(max_examples=300, deadline=None)
@given(table_case(max_size=10), st.sampled_from([0, 0, 1, 5, 9, 15]))
def test_the_screen_never_refuses_a_two_deck_hand_within_the_limit(
        case: tuple[MeldRules, list[Card]], limit: int) -> None:
    # Two decks and up to three wild cards: the hands of Chicago and Three Thirteen.
    rules, hand = case
    check_screen(hand, rules, limit)


def test_the_screen_settles_hands_far_from_the_limit() -> None:
    # No natural is in a meld of naturals (28 points); the one wild card melds one run
    # at most, 4c 5c (9; not the lone Ks, a suit's dearest): 19 is certain, 9 after the
    # dearest discard.
    hand = tuple(cards("Ks 9d 4c 5c 2h"))
    assert not solver._may_keep(hand, CHICAGO, 18, spare=False)
    assert solver._may_keep(hand, CHICAGO, 19, spare=False)
    assert not solver._may_keep(hand, CHICAGO, 8, spare=True)
    assert solver._may_keep(hand, CHICAGO, 9, spare=True)
    # Two wild cards: each melds one suit's or one rank's needy points at most (10).
    two = tuple(cards("Ks 9d 4c 5c 2h 2s"))
    assert not solver._may_keep(two, CHICAGO, 7, spare=False)
    assert solver._may_keep(two, CHICAGO, 8, spare=False)
    # Identical cards (two decks) are profiled too; a card named twice, or a code that
    # is no card, is left to the solver's own checks (which raise).
    assert not solver._may_keep(tuple(cards("Kh Kh#1 9d 4c")), CHICAGO, 5, spare=True)
    assert solver._may_keep((5, 5, 6), GIN, 0, spare=False)
    assert solver._may_keep((5, 14, 6), GIN, 0, spare=False)  # 14: no rank
    with pytest.raises(CardError):
        discards_at_most([5, 5, 6], GIN, 0)



@settings(max_examples=400, deadline=None)
@given(rules_and_hand(max_size=9), st.integers(-1, 30))
def test_bounds_never_exceed_the_least_deadwood(case: tuple[MeldRules, list[Card]],
                                                limit: int) -> None:
    # A bound above the true count would refuse a legal knock or going out: each bound,
    # with or without the cruder first step ``limit`` allows, is at most the brute force.
    rules, hand = case
    ctx = solver._context(rules)
    assume(len(set(hand)) == len(hand))
    least = brute_deadwood(hand, rules)
    assert solver._bound(ctx, hand, limit) <= least
    bound = ctx.needy_bound(hand, limit)
    if bound is not None:
        assert bound <= least
    if hand:
        after = [brute_deadwood(hand[:i] + hand[i + 1:], rules) for i in range(len(hand))]
        naturals, wilds = solver._discard_bounds(ctx, tuple(hand), limit)
        for card, value in zip(hand, after, strict=True):
            if value <= limit:  # a discard that keeps at most the limit is never ruled out
                assert wilds if rules.is_wild(card) else naturals


@pytest.mark.parametrize("text, wilds, covered", [
    ("5h 6h 9h Kc", 1, 11),  # one wild card: 5h 6h and it (9h and Kc stay)
    ("5h 6h 9h Kc", 2, 20),  # two: 5h 6h . . 9h, one run
    ("5h 7h 9h Kc", 1, 16),  # 7h . 9h
    ("5h 7h 9h Kc", 2, 28),  # 7h . 9h and 5h . 7h: the 7h counted twice (a bound)
    ("5h 5d Kc Kd", 1, 20),  # a set of two kings and a wild card
    ("5h 5d Kc Kd", 2, 30),  # both pairs
    ("4c 9d Qh", 2, 10),  # a lone card takes two wild cards: the queen
    ("4c 9d Qh", 3, 10),  # and the third wild card melds nothing more
])
def test_cover_examples(text: str, wilds: int, covered: int) -> None:
    # The most points of needy naturals ``wilds`` wild cards' melds may hold (an upper
    # bound: two groups may share a card).
    ctx = solver._context(CHICAGO)
    found = ctx.needy(cards(text))
    assert found is not None
    _, pm, dup, pairs, needy = found
    assert needy == pm  # none of these is in a meld of naturals
    assert ctx.cover(pm, dup, pairs, needy, wilds)[0] == covered


def test_needy_profile() -> None:
    ctx = solver._context(CHICAGO)
    # 7c twice (two decks) and 7d: a set of naturals, so not needy; 4h 5h 6h a run.
    found = ctx.needy(cards("7c 7c 7d 4h 5h 6h 9s 2d"))
    assert found is not None
    wilds, pm, dup, pairs, needy = found
    assert wilds == 1
    assert pm == sum(1 << card_face(t) for t in ("7c", "7d", "4h", "5h", "6h", "9s"))
    assert dup == 1 << card_face("7c")
    assert pairs == 1 << 7
    assert needy == 1 << card_face("9s")
    assert ctx.needy(cards("7c 7c 7c")) is None  # a face three times: the other bound


def card_face(text: str) -> int:
    return Card.parse(text) & 63
