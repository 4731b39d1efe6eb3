"""The verifiable shuffle: its derivation, and what a seat checks once it is revealed."""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest

from rummyhall.rules import Card, Shuffle, event_for, make_deck, new_game, parse_options
from rummyhall.rules.fair_deal import (
    BadDealValue,
    DealWatch,
    canonical_order,
    commitment,
    deal_key,
    deal_order,
    verify_deal,
)

SECRET = bytes(range(32))
MINE = bytes(range(32, 64))


def test_an_order_is_a_permutation_of_the_cards_and_depends_on_every_input() -> None:
    deck = make_deck(2, 2)
    order = deal_order(SECRET, {}, deck)
    assert sorted(order) == sorted(deck) and order != tuple(sorted(deck))
    assert deal_order(SECRET, {}, reversed(deck)) == order  # (from the canonical order)
    with_mine = deal_order(SECRET, {1: MINE}, deck)
    assert with_mine != order
    assert deal_order(SECRET, {0: MINE}, deck) not in (order, with_mine)  # the seat counts
    assert deal_order(bytes(32), {1: MINE}, deck) != with_mine


def test_the_canonical_order_is_by_card_code_jokers_and_copies_included() -> None:
    cards = canonical_order(make_deck(2, 1))
    assert [str(c) for c in cards[:3]] == ["JK", "Ac", "2c"]
    assert str(cards[53]) == "JK#1" and str(cards[54]) == "Ac#1"
    assert cards == sorted(cards)


def test_the_key_is_hmac_over_the_documented_bytes() -> None:
    message = b"rummyhall deal v1" + bytes([1]) + MINE
    assert deal_key(SECRET, {1: MINE}) == hmac.new(SECRET, message, hashlib.sha256).digest()
    assert commitment(SECRET) == hashlib.sha256(SECRET).digest()


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), "x" * 32])
def test_bad_values_are_refused(bad: object) -> None:
    with pytest.raises(BadDealValue):
        deal_order(bad, {}, make_deck())  # type: ignore[arg-type]
    with pytest.raises(BadDealValue):
        deal_order(SECRET, {0: bad}, make_deck())  # type: ignore[dict-item]


def test_every_position_is_reachable_by_every_card() -> None:
    """A coarse check against a biased shuffle: over 400 secrets, the first and last
    positions each take at least 50 different cards of 52."""
    firsts, lasts = set(), set()
    for n in range(400):
        order = deal_order(n.to_bytes(32, "big"), {}, make_deck())
        firsts.add(order[0])
        lasts.add(order[-1])
    assert len(firsts) >= 50 and len(lasts) >= 50


def _check(seen: dict[int, int], **changes: object) -> object:
    cards = make_deck()
    order = deal_order(SECRET, {2: MINE}, cards)
    args: dict[str, object] = {
        "commitment_seen": commitment(SECRET), "commitments_seen": {2: commitment(MINE)},
        "secret": SECRET, "contributions": {2: MINE}, "cards": cards,
        "seen": seen or {0: order[0], 7: order[7]}, "mine": MINE, "seat": 2}
    args.update(changes)
    return verify_deal(**args)  # type: ignore[arg-type]


def test_verify_deal_passes_an_honest_deal_and_names_each_failure() -> None:
    order = deal_order(SECRET, {2: MINE}, make_deck())
    good = _check({0: order[0], 7: order[7]})
    assert good.ok and good.checked == 2 and good.mine_used  # type: ignore[attr-defined]
    wrong_card = _check({0: order[1]})
    assert not wrong_card.ok and "not where" in wrong_card.problems[0]  # type: ignore[attr-defined]
    other_secret = _check({}, commitment_seen=commitment(bytes(32)))
    assert "does not match the server's commitment" in other_secret.problems[0]  # type: ignore[attr-defined]
    left_out = _check({}, contributions={})
    assert not left_out.ok and left_out.mine_used is False  # type: ignore[attr-defined]
    assert left_out.withheld == (2,)  # type: ignore[attr-defined]
    unseen = _check({}, commitment_seen=None)
    assert "not seen" in unseen.problems[0]  # type: ignore[attr-defined]
    forged = _check({}, commitments_seen={2: commitment(SECRET)})
    assert "does not match its commitment" in forged.problems[0]  # type: ignore[attr-defined]
    uncommitted = _check({}, commitments_seen={}, mine=None)
    assert "never committed" in uncommitted.problems[0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("game_name,players,options", [
    ("basic", 3, {}), ("basic", 2, {"stock_rebuild": "shuffle"}), ("gin", 2, {}),
    ("chicago", 4, {}), ("three_thirteen", 3, {"decks": 2, "jokers": 2}),
])
def test_a_seat_watching_its_events_sees_every_position_where_the_shuffle_put_it(
        game_name: str, players: int, options: dict[str, object]) -> None:
    """Random games: each seat's :class:`DealWatch` (fed the events as that seat sees
    them) records only cards that are at those positions of the real shuffles."""
    rng = random.Random(7)
    try:
        parsed = parse_options(game_name, options)
    except Exception:
        parsed = parse_options(game_name, {})
    game = new_game(game_name, parsed, players=players)
    watches = [DealWatch(s) for s in range(players)]
    orders: list[tuple[Card, ...]] = []
    checked = 0
    for _ in range(3000):
        if game.is_over:
            break
        if game.to_move is None:
            secret = rng.randbytes(32)
            order = deal_order(secret, {0: rng.randbytes(32)}, game.shuffle_cards())
            if game.phase == "deal":
                orders = []
            orders.append(order)
            events = game.apply(Shuffle(order))
        else:
            events = game.apply(rng.choice(game.legal_actions()))
        shuffled = getattr(game.options, "stock_rebuild", "shuffle") != "turn_over"
        for event in events:
            for seat, watch in enumerate(watches):
                watch.feed(event_for(event, seat), shuffled=shuffled)
            if event.kind == "hand_scored":
                for watch in watches:
                    assert len(watch.shuffles) <= len(orders)
                    for k, seen in enumerate(watch.shuffles):
                        for position, card in seen.items():
                            assert orders[k][position] == card
                            checked += 1
    assert checked > 20
