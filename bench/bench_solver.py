"""Throughput of the meld solver (prints hands per second; never asserts).

Run: ``/work/venv/bin/python bench/bench_solver.py [--seconds S] [--seed N]``

Every figure uses inputs generated before the clock starts, each hand solved once
(distinct hands, so the caches help only as they would in play), and starts with the
solver's caches cleared. "Meld-rich" hands are built by planting 2 or 3 random melds
(runs of 3-5 cards of one suit, or sets of 3-4 cards of one rank, no card used twice)
and filling the hand with random cards from the rest of the deck.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from rummyhall.rules import solver
from rummyhall.rules.cards import Card, make_deck
from rummyhall.rules.melds import MeldRules

GIN = MeldRules()
BASIC_HIGH = MeldRules(ace_mode="high_or_low", ace_points=15)
CHICAGO = MeldRules(max_set_size=0, wild_rank=2)
THIRTEEN_R11 = MeldRules(max_set_size=0, wild_rank=13, joker_points=20)


def random_hands(rng: random.Random, deck: Sequence[Card], size: int, count: int) -> list[
        tuple[Card, ...]]:
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


def plant_meld(rng: random.Random, free: set[Card]) -> list[Card]:
    """A random natural meld of one deck's cards still in ``free`` (empty if none fits)."""
    for _ in range(100):
        if rng.random() < 0.5:
            suit, length = rng.randrange(4), rng.randint(3, 5)
            start = rng.randint(1, 14 - length)
            meld = [Card.make(r, suit) for r in range(start, start + length)]
        else:
            rank = rng.randint(1, 13)
            meld = [Card.make(rank, s) for s in rng.sample(range(4), rng.randint(3, 4))]
        if all(c in free for c in meld):
            return meld
    return []


def meld_rich_hands(rng: random.Random, size: int, count: int) -> list[tuple[Card, ...]]:
    hands: list[tuple[Card, ...]] = []
    deck = make_deck()
    while len(hands) < count:
        free = set(deck)
        hand: list[Card] = []
        for _ in range(rng.randint(2, 3)):
            meld = plant_meld(rng, free)
            if len(hand) + len(meld) <= size:
                hand += meld
                free -= set(meld)
        hand += rng.sample(sorted(free), size - len(hand))
        rng.shuffle(hand)
        hands.append(tuple(hand))
    return hands


def measure(label: str, hands: Sequence[tuple[Card, ...]],
            call: Callable[[tuple[Card, ...]], object], seconds: float) -> None:
    """Solve hands until ``seconds`` have passed or the hands run out; print the rate."""
    solver.clear_caches()  # cold caches for every figure
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    for hand in hands:
        call(hand)
        done += 1
        if not done % 256 and time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    print(f"{label:<64} {done / elapsed:>9,.0f} hands/s  ({done:,} hands, {elapsed:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    secs = args.seconds
    one_deck = make_deck()
    two_decks = make_deck(2)
    two_decks_jokers = make_deck(2, 2)

    gin10 = random_hands(rng, one_deck, 10, 1_000_000 if secs >= 3 else 400_000)
    measure("Gin, random 10 cards, deadwood_points", gin10,
            lambda h: solver.deadwood_points(h, GIN), secs)
    measure("Gin, random 10 cards, best_arrangement", gin10[:200_000],
            lambda h: solver.best_arrangement(h, GIN), secs)
    rich11 = meld_rich_hands(rng, 11, 200_000)
    measure("Gin, meld-rich 11 cards, best_discard", rich11,
            lambda h: solver.best_discard(h, GIN), secs)
    measure("Gin, meld-rich 11 cards, discard_deadwoods", rich11,
            lambda h: solver.discard_deadwoods(h, GIN), secs)
    measure("Gin, meld-rich 11 cards, deadwood_points", rich11,
            lambda h: solver.deadwood_points(h, GIN), secs)
    basic10 = random_hands(rng, one_deck, 10, 400_000)
    measure("Basic high_or_low (ace 15), random 10 cards, deadwood_points", basic10,
            lambda h: solver.deadwood_points(h, BASIC_HIGH), secs)
    rich_basic = meld_rich_hands(rng, 11, 100_000)
    measure("Basic high_or_low, meld-rich 11 cards, best_discard", rich_basic,
            lambda h: solver.best_discard(h, BASIC_HIGH), secs)
    chicago7 = random_hands(rng, two_decks, 7, 100_000)
    measure("Chicago (2 decks, 2s wild), random 7 cards, deadwood_points", chicago7,
            lambda h: solver.deadwood_points(h, CHICAGO), secs)
    chicago8 = random_hands(rng, two_decks, 8, 50_000)
    measure("Chicago, random 8 cards, best_discard", chicago8,
            lambda h: solver.best_discard(h, CHICAGO), secs)
    measure("Chicago, random 7 cards, best_arrangement", chicago7,
            lambda h: solver.best_arrangement(h, CHICAGO), secs)
    t13 = random_hands(rng, two_decks, 13, 20_000)
    measure("3-13 round 11 (2 decks, kings wild), 13 cards, deadwood_points", t13,
            lambda h: solver.deadwood_points(h, THIRTEEN_R11), secs)
    t14 = random_hands(rng, two_decks, 14, 5_000)
    measure("3-13 round 11, 14 cards, best_discard", t14,
            lambda h: solver.best_discard(h, THIRTEEN_R11), secs)
    t13j = random_hands(rng, two_decks_jokers, 13, 20_000)
    measure("3-13 round 11, 2 decks + 4 jokers, 13 cards, deadwood_points", t13j,
            lambda h: solver.deadwood_points(h, THIRTEEN_R11), secs)
    t14j = random_hands(rng, two_decks_jokers, 14, 5_000)
    measure("3-13 round 11, 2 decks + 4 jokers, 14 cards, best_discard", t14j,
            lambda h: solver.best_discard(h, THIRTEEN_R11), secs)


if __name__ == "__main__":
    main()
