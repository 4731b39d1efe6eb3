"""Meld validity (docs/rules.md 1, "Melds"; 2, layoffs) and reading order."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rummyhall.rules import (
    Card,
    MeldRules,
    can_lay_off,
    format_cards,
    layoff_cards,
    make_deck,
    meld_kind,
    new_game,
    order_meld,
    parse_cards,
)
from rummyhall.rules.melds import ACE_MODES, shared_rules

LOW = MeldRules()
HIGH = MeldRules(ace_mode="high_or_low")
CORNER = MeldRules(ace_mode="round_the_corner")
CHICAGO = MeldRules(max_set_size=0, wild_rank=2)


@pytest.mark.parametrize("text", ["7c 7d 7h", "7c 7d 7h 7s", "Ah 2h 3h", "9s 10s Js Qs"])
def test_valid(text: str) -> None:
    assert meld_kind(parse_cards(text), LOW) is not None


@pytest.mark.parametrize(("text", "low", "high", "corner"), [
    ("7c 7d", False, False, False),
    ("5d 6d 8d", False, False, False),
    ("5d 6h 7d", False, False, False),
    ("Qh Kh Ah", False, True, True),
    ("Kh Ah 2h", False, False, True),
    ("Qs Ks As 2s", False, False, True),
])
def test_invalid_by_ace_mode(text: str, low: bool, high: bool, corner: bool) -> None:
    cards = parse_cards(text)
    assert [meld_kind(cards, r) is not None for r in (LOW, HIGH, CORNER)] == [low, high, corner]


def test_longest_runs() -> None:
    full = parse_cards("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh")
    assert meld_kind(full, LOW) == "run"
    assert meld_kind(parse_cards("Th Jh Qh Kh Ah"), HIGH) == "run"
    assert meld_kind(parse_cards("Th Jh Qh Kh Ah"), LOW) is None
    assert meld_kind(parse_cards("Kh Ah 2h"), HIGH) is None  # one ace, one position


def test_sets_are_capped_at_four_in_one_deck_games() -> None:
    five = parse_cards("7c 7d 7h 7s 7c")
    assert meld_kind(five, LOW) is None
    assert meld_kind(five, CHICAGO) == "set"


def test_wild_cards() -> None:
    assert meld_kind(parse_cards("2s 9d Td"), CHICAGO) == "run"
    assert meld_kind(parse_cards("5h 2c 7h"), CHICAGO) == "run"
    assert meld_kind(parse_cards("Qh Qd 2s"), CHICAGO) == "set"
    assert meld_kind(parse_cards("2c 2d 2h"), CHICAGO) == "set"
    assert meld_kind(parse_cards("4h 2s 7h"), CHICAGO) is None
    assert meld_kind(parse_cards("Qh Kh 2c 2d"), CHICAGO) == "run"  # the 2s stand for Th Jh
    # past the king there is no room when aces are low: 14 cards cannot be a run
    assert meld_kind(parse_cards("Qh Kh 2c 2d 2h 2s 2c 2d 2h 2s JK JK JK JK"), CHICAGO) is None
    three_thirteen_r1 = MeldRules(max_set_size=0, wild_rank=3, all_wild_melds=False)
    assert meld_kind(parse_cards("3h 3s 3d"), three_thirteen_r1) == "set"
    assert meld_kind(parse_cards("3h 3s JK"), three_thirteen_r1) is None
    assert meld_kind(parse_cards("3h 3s JK"), MeldRules(max_set_size=0, wild_rank=3)) == "set"
    assert meld_kind(parse_cards("7c 7d 7h 7s 3c"), three_thirteen_r1) == "set"


def test_reading_order() -> None:
    assert format_cards(order_meld(parse_cards("2s Td 9d"), CHICAGO)) == "9d Td 2s"
    assert format_cards(order_meld(parse_cards("Kh 2c 9h Jh Th Qh"), CHICAGO)) == \
        "2c 9h Th Jh Qh Kh"
    assert format_cards(order_meld(parse_cards("2s Ks As Qs"), CORNER)) == "Qs Ks As 2s"
    assert format_cards(order_meld(parse_cards("Ah Kh Qh"), HIGH)) == "Qh Kh Ah"


def test_layoffs() -> None:
    eights = parse_cards("8c 8d 8s")
    assert can_lay_off(eights, parse_cards("8h"), LOW)
    assert not can_lay_off(eights, parse_cards("9h"), LOW)
    assert not can_lay_off(parse_cards("8c 8d 8s 8h"), parse_cards("8c#1"), LOW)
    run = parse_cards("8h 9h Th")
    assert can_lay_off(run, parse_cards("7h"), LOW)
    assert can_lay_off(run, parse_cards("Jh"), LOW)
    assert can_lay_off(run, parse_cards("7h Jh"), LOW)
    assert not can_lay_off(run, parse_cards("Qh"), LOW)
    assert can_lay_off((*run, *parse_cards("Jh")), parse_cards("Qh"), LOW)
    assert can_lay_off((*run, *parse_cards("7h")), parse_cards("6h"), LOW)
    assert can_lay_off(parse_cards("3c 4c 5c"), parse_cards("6c 7c"), LOW)
    assert not can_lay_off(parse_cards("Jh Qh Kh"), parse_cards("Ah"), LOW)
    assert can_lay_off(parse_cards("Jh Qh Kh"), parse_cards("Ah"), HIGH)


def test_all_wild_melds_respect_a_maximum_set_size() -> None:
    capped = MeldRules(max_set_size=3, wild_rank=2)
    assert meld_kind(parse_cards("2c 2d 2h"), capped) == "set"
    four = parse_cards("2c 2d 2h 2s")
    assert meld_kind(four, capped) == "run"  # too many for a set: only a run of wilds
    assert len(order_meld(four, capped)) == 4
    strict = MeldRules(max_set_size=3, wild_rank=2, all_wild_melds=False)
    assert meld_kind(four, strict) is None  # a natural set of 2s, and too big


@st.composite
def table_and_cards(draw: st.DrawFn) -> tuple[MeldRules, list[Card], list[Card]]:
    """Random card rules, a valid meld (a set or a run, wild cards maybe), other cards."""
    rules = MeldRules(ace_mode=draw(st.sampled_from(ACE_MODES)),
                      max_set_size=draw(st.sampled_from([0, 3, 4, 5])),
                      wild_rank=draw(st.sampled_from([0, 0, 2, 13])),
                      all_wild_melds=draw(st.booleans()))
    deck = list(make_deck(2, 1))
    wilds = [c for c in deck if rules.is_wild(c)]
    if draw(st.booleans()):  # a set: naturals of one rank
        rank = draw(st.integers(1, 13))
        naturals = [c for c in deck if c.rank == rank]
        meld = draw(st.lists(st.sampled_from(naturals), min_size=1, max_size=5, unique=True))
    else:  # a run: consecutive positions of one suit
        suit, start = draw(st.integers(0, 3)), draw(st.integers(1, 13))
        length = draw(st.integers(1, 6))
        meld = [Card.make((start + i - 1) % 13 + 1, suit) for i in range(length)]
    if wilds:
        meld += draw(st.lists(st.sampled_from(wilds), max_size=3, unique=True))
    meld = list(dict.fromkeys(meld))
    assume(meld_kind(meld, rules) is not None)
    rest = [c for c in deck if c not in meld]
    # Mostly cards that might fit: the meld's suits and ranks, and wild cards.
    near = [c for c in rest if any(c.suit == m.suit or c.rank == m.rank for m in meld)]
    return rules, meld, draw(st.lists(st.sampled_from(near) | st.sampled_from(rest),
                                      max_size=12, unique=True))


@settings(max_examples=400, deadline=None)
@given(table_and_cards())
def test_layoff_cards_are_exactly_the_single_card_layoffs(
        case: tuple[MeldRules, list[Card], list[Card]]) -> None:
    rules, meld, cards = case
    expected = [c for c in cards if can_lay_off(meld, [c], rules)]
    assert layoff_cards(meld, cards, rules) == expected
    assert layoff_cards(meld, cards, rules, kind=meld_kind(meld, rules)) == expected


def test_layoff_cards_of_an_invalid_meld_is_empty() -> None:
    assert layoff_cards(parse_cards("2c 3c 5c"), parse_cards("4c Ac"), LOW) == []
    assert layoff_cards(parse_cards("8c 8d 8s"), parse_cards("8h 9h 8c#1"), LOW) == \
        list(parse_cards("8h 8c#1"))


def test_shared_rules_are_one_object_for_equal_fields() -> None:
    # Every deal asks for its hand's rules: equal fields give the same object, which the
    # solver recognises by identity.
    first = shared_rules(max_set_size=0, wild_rank=2)
    assert first is shared_rules(max_set_size=0, wild_rank=2)
    assert first == MeldRules(max_set_size=0, wild_rank=2)
    assert shared_rules(max_set_size=0, wild_rank=3) != first
    game = new_game("chicago", players=4)
    assert game.meld_rules is new_game("chicago", players=2).meld_rules
