"""Cards and their notation."""

import pytest

from rummyhall.rules import Card, CardError, format_cards, make_deck, parse_cards, sort_key


def test_ten_parses_both_ways_and_prints_one_way() -> None:
    assert Card.parse("Th") == Card.parse("10h") == Card.make(10, 2)
    assert str(Card.parse("10h")) == "Th"


@pytest.mark.parametrize("text", ["Ac", "2d", "9h", "Ts", "Jc", "Qd", "Kh", "JK", "9c#1", "JK#3"])
def test_round_trip(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) == card
    assert repr(card) == f"Card({text!r})"


@pytest.mark.parametrize("text", ["", "1c", "11h", "Ax", "AAh", "9c#", "9c#x", "9c#99", "JKK"])
def test_bad_cards_are_refused_with_the_text(text: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value) or "copy" in str(info.value)


def test_fields() -> None:
    card = Card.parse("Qs#2")
    assert (card.rank, card.suit, card.copy, card.is_joker) == (12, 3, 2, False)
    assert card.face == Card.parse("Qs").face
    assert Card.parse("JK#1").is_joker


def test_identical_cards_get_their_own_identity() -> None:
    a, b = parse_cards("5d 5d")
    assert a != b and a.face == b.face
    assert format_cards((a, b)) == "5d 5d#1"
    with pytest.raises(CardError):
        parse_cards("5d#1 5d#1")


def test_decks() -> None:
    assert len(make_deck()) == 52 == len(set(make_deck()))
    two = make_deck(2)
    assert len(two) == 104 == len(set(two))
    with_jokers = make_deck(3, 2)
    assert len(with_jokers) == 162 and sum(c.is_joker for c in with_jokers) == 6


def test_display_order() -> None:
    cards = parse_cards("JK Kh 2c Ah 2c")
    assert format_cards(sorted(cards, key=sort_key)) == "2c 2c#1 Ah Kh JK"
