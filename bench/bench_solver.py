"""Throughput of the meld solver, beside OpenSpiel and rlcard when they are importable.

Run: ``.venv/bin/python bench/bench_solver.py [--seconds S] [--rounds N] [--seed N]``

Prints hands per second; never asserts. Every figure uses inputs generated before the
clock starts, each hand solved once (distinct hands, so the caches help only as they
would in play), and starts with the solver's caches cleared. "Meld-rich" hands are
built by planting 2 or 3 random melds (runs of 3-5 cards of one suit, or sets of 3-4
cards of one rank, no card used twice) and filling the hand with random cards from the
rest of the deck.

The Gin lines time the other Gin solvers on the same hands when they are importable:
OpenSpiel's C++ ``GinRummyUtils.min_deadwood`` (exact on 10 cards; on 11 cards a
heuristic that melds all 11 and then drops the dearest unmelded card, so the exact best
discard is its 10-card call for each of the 11 discards) and rlcard's
``get_best_meld_clusters`` (10 cards only: the best discard is 11 of its calls). Neither
is a dependency of Rummy Hall; to see their columns, install them beside it in a
separate environment, for example::

    python3 -m venv .venv-peers
    .venv-peers/bin/pip install -e . open_spiel rlcard
    .venv-peers/bin/python bench/bench_solver.py

Figures of a shared machine swing from run to run, so the contenders of a line take
turns: ``--rounds`` rounds, each giving every contender ``seconds / rounds`` of work.
Each column is the median of its rounds; the ratio is the median of the rounds' ratios
(Rummy Hall's rate over the other's), with the lowest and highest in brackets. Before
timing, each line checks that every contender gives the same counts as Rummy Hall on
every hand it will time, and says so (or how often it disagrees).

With the optional compiled build in use (``rummyhall compile``; README.md, "The compiled
build"), each line has both paths: this process times the compiled modules, a child
process started with ``RUMMYHALL_COMPILED=off`` times the pure ones on the same hands, and
the two take their turns in the same rounds (bench/paths.py). Each peer's line then gives
both ratios. The first line printed says which path is in use.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import paths

from rummyhall.rules import solver
from rummyhall.rules.cards import Card, make_deck
from rummyhall.rules.melds import MeldRules

GIN = MeldRules()
BASIC_HIGH = MeldRules(ace_mode="high_or_low", ace_points=15)
CHICAGO = MeldRules(max_set_size=0, wild_rank=2)
THIRTEEN_R11 = MeldRules(max_set_size=0, wild_rank=13, joker_points=20)

Hand = tuple[Card, ...]


def random_hands(rng: random.Random, deck: Sequence[Card], size: int, count: int) -> list[Hand]:
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


def meld_rich_hands(rng: random.Random, size: int, count: int) -> list[Hand]:
    hands: list[Hand] = []
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


# --- the contenders ---------------------------------------------------------------------


@dataclass
class Contender:
    """One solver on one line: its inputs (converted before the clock) and its call."""

    name: str
    inputs: Sequence[Any]
    call: Callable[[Any], object]
    value: Callable[[Any], int] | None = None  # the deadwood it finds, for the check
    cold: bool = False  # clear Rummy Hall's caches before each round
    check: int | None = None  # hands checked against Rummy Hall's counts (None: --check)
    done: int = 0  # inputs used so far (each round goes on where the last one stopped)


def _optional(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class Peers:
    """The other Gin solvers found importable, with their card conversions."""

    def __init__(self) -> None:
        spiel = _optional("pyspiel")
        self.spiel_utils = (spiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand
                            if spiel is not None else None)
        self.rl_melding = _optional("rlcard.games.gin_rummy.utils.melding")
        self.rl_utils = _optional("rlcard.games.gin_rummy.utils.utils")

    def missing(self) -> list[str]:
        out = []
        if self.spiel_utils is None:
            out.append("OpenSpiel (pip install open_spiel)")
        if self.rl_melding is None:
            out.append("rlcard (pip install rlcard)")
        return out

    @staticmethod
    def card_id(card: Card) -> int:
        """A card as both peers number them: suit * 13 + rank - 1 (their suit order
        differs from ours, which changes no count)."""
        return card.suit * 13 + card.rank - 1

    def spiel_deadwood(self, hands: Sequence[Hand]) -> Contender:
        utils = self.spiel_utils
        assert utils is not None
        inputs = [[self.card_id(c) for c in h] for h in hands]
        return Contender("OpenSpiel", inputs, utils.min_deadwood, utils.min_deadwood)

    def spiel_exact_discard(self, hands: Sequence[Hand]) -> Contender:
        utils = self.spiel_utils
        assert utils is not None
        min_deadwood = utils.min_deadwood

        def best(hand: list[Any]) -> int:
            return int(min(min_deadwood(hand[:i] + hand[i + 1:]) for i in range(len(hand))))

        inputs = [[self.card_id(c) for c in h] for h in hands]
        return Contender("OpenSpiel exact (11 calls)", inputs, best, best)

    def spiel_heuristic_discard(self, hands: Sequence[Hand]) -> Contender:
        contender = self.spiel_deadwood(hands)
        contender.name = "OpenSpiel 11-card heuristic"
        return contender

    def _rl_deadwood(self) -> Callable[[list[Any]], int]:
        melding, utils = self.rl_melding, self.rl_utils
        assert melding is not None and utils is not None
        clusters_of, count_of = melding.get_best_meld_clusters, utils.get_deadwood_count
        value_of = utils.get_deadwood_value

        def deadwood(hand: list[Any]) -> int:
            clusters = clusters_of(hand)
            if not clusters:
                return sum(value_of(c) for c in hand)
            return int(count_of(hand, clusters[0]))

        return deadwood

    def rl_inputs(self, hands: Sequence[Hand]) -> list[list[object]]:
        utils = self.rl_utils
        assert utils is not None
        return [[utils.get_card(self.card_id(c)) for c in h] for h in hands]

    def rl_deadwood(self, hands: Sequence[Hand]) -> Contender:
        deadwood = self._rl_deadwood()
        return Contender("rlcard", self.rl_inputs(hands), deadwood, deadwood, check=5_000)

    def rl_exact_discard(self, hands: Sequence[Hand]) -> Contender:
        deadwood = self._rl_deadwood()

        def best(hand: list[Any]) -> int:
            return min(deadwood(hand[:i] + hand[i + 1:]) for i in range(len(hand)))

        return Contender("rlcard (11 calls)", self.rl_inputs(hands), best, best, check=500)


# --- measuring --------------------------------------------------------------------------


def run_round(contender: Contender, seconds: float) -> float:
    """Solve inputs for ``seconds`` (going on from the last round; wrapping round at the
    end); return the rate."""
    if contender.cold:
        solver.clear_caches()
    inputs, call = contender.inputs, contender.call
    start = contender.done
    done = 0
    began = time.process_time()
    deadline = began + seconds
    while True:
        stop = min(start + 128, len(inputs))
        for item in inputs[start:stop]:
            call(item)
        done += stop - start
        start = stop % len(inputs)
        if time.process_time() > deadline:
            break
    contender.done = start
    return done / (time.process_time() - began)


def agreement(reference: Callable[[Any], int], ours: Sequence[Any],
              other: Contender, limit: int) -> str:
    """How often ``other`` finds the same count as Rummy Hall on its first hands."""
    assert other.value is not None
    count = min(limit if other.check is None else other.check, len(ours), len(other.inputs))
    same = sum(reference(ours[i]) == other.value(other.inputs[i]) for i in range(count))
    if same == count:
        return f"agrees on all {count:,} hands"
    return f"differs on {count - same:,} of {count:,} hands"


@dataclass(frozen=True)
class Timing:
    seconds: float  # per contender and line, all rounds together
    rounds: int
    check: int  # hands compared with Rummy Hall's counts
    only: str = ""  # time only the lines whose label contains this
    pure: paths.ChildRounds | None = None  # the pure path's process, beside the compiled one
    served: dict[str, Callable[[float], list[float]]] | None = None  # the child's rounds


def line(label: str, ours: Contender, others: Sequence[Contender], timing: Timing) -> None:
    """Time one line: every contender in turn, ``rounds`` times; print the medians."""
    if timing.only not in label:
        return
    if timing.served is not None:  # the pure path's child: time this line when asked
        timing.served[label] = lambda seconds: [run_round(ours, seconds)]
        return
    notes = []
    if ours.value is not None:
        for other in others:
            if other.value is not None and timing.check > 0:
                found = agreement(ours.value, ours.inputs, other, timing.check)
                notes.append(f"{other.name} {found}")
    contenders = [ours, *others]
    rates: list[list[float]] = [[] for _ in contenders]
    pure: list[float] = []
    share = timing.seconds / timing.rounds
    for _ in range(timing.rounds):
        for i, contender in enumerate(contenders):
            rates[i].append(run_round(contender, share))
            if i == 0 and timing.pure is not None:
                pure += timing.pure.run(label, share)
    print(f"{label}")
    path = paths.label()
    print(f"    {'Rummy Hall (' + path + ')':<30} {statistics.median(rates[0]):>11,.0f} hands/s")
    if pure:
        print(f"    {'Rummy Hall (pure)':<30} {statistics.median(pure):>11,.0f} hands/s"
              f"   {path}/pure {spread(rates[0], pure)}")
    for i, other in enumerate(others, 1):
        also = f", pure {spread(pure, rates[i])}" if pure else ""
        print(f"    {other.name:<30} {statistics.median(rates[i]):>11,.0f} hands/s"
              f"   Rummy Hall {path} {spread(rates[0], rates[i])}{also}")
    for note in notes:
        print(f"    ({note})")


def spread(ours: Sequence[float], theirs: Sequence[float]) -> str:
    """The median of the rounds' ratios, with the lowest and highest in brackets."""
    ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)"


def ours(hands: Sequence[Hand], call: Callable[[Hand], object],
         value: Callable[[Hand], int] | None = None) -> Contender:
    return Contender("Rummy Hall", hands, call, value, cold=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time per contender and line, all rounds together")
    parser.add_argument("--rounds", type=int, default=5, help="turns each contender takes")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--check", type=int, default=20_000,
                        help="hands on which the peers' counts are compared with ours")
    parser.add_argument("--no-peers", action="store_true", help="time Rummy Hall alone")
    parser.add_argument("--only", default="", help="time only the lines containing this text")
    parser.add_argument(paths.SERVE_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    serving = args.serve_pure_path  # the pure path's child: its stdout is the parent's pipe
    timing = Timing(args.seconds, max(1, args.rounds), args.check, args.only,
                    pure=None if serving else paths.start(__file__, sys.argv[1:]),
                    served={} if serving else None)
    peers = Peers()
    if not serving:
        print(paths.note())
    if args.no_peers or serving:
        peers.spiel_utils = peers.rl_melding = peers.rl_utils = None
    else:
        for name in peers.missing():
            print(f"(not importable, its columns are left out: {name}; see this file's "
                  "docstring)")
    one_deck = make_deck()
    two_decks = make_deck(2)
    two_decks_jokers = make_deck(2, 2)

    def gin_deadwood(h: Hand) -> int:
        return solver.deadwood_points(h, GIN)

    def gin_discard(h: Hand) -> int:
        return solver.best_discard(h, GIN)[1]

    gin10 = random_hands(rng, one_deck, 10, 300_000)
    rich10 = meld_rich_hands(rng, 10, 100_000)
    rich11 = meld_rich_hands(rng, 11, 100_000)
    for label, hands in (("Gin, random 10 cards, deadwood_points", gin10),
                         ("Gin, meld-rich 10 cards, deadwood_points", rich10)):
        others = []
        if peers.spiel_utils is not None:
            others.append(peers.spiel_deadwood(hands))
        if peers.rl_melding is not None:
            others.append(peers.rl_deadwood(hands[:20_000]))
        line(label, ours(hands, gin_deadwood, gin_deadwood), others, timing)
    others = []
    if peers.spiel_utils is not None:
        others += [peers.spiel_exact_discard(rich11), peers.spiel_heuristic_discard(rich11)]
    if peers.rl_melding is not None:
        others.append(peers.rl_exact_discard(rich11[:5_000]))
    exact = [o for o in others if "heuristic" not in o.name]
    heuristic = [o for o in others if "heuristic" in o.name]
    line("Gin, meld-rich 11 cards, best_discard", ours(rich11, gin_discard, gin_discard),
         exact, timing)
    if heuristic or timing.served is not None:  # (the pure path's child has no peers)
        # The heuristic is not exact: its line says how often it finds a worse count.
        line("Gin, meld-rich 11 cards, best_discard (against a heuristic)",
             ours(rich11, gin_discard, gin_discard), heuristic, timing)

    alone: list[tuple[str, list[Hand], Callable[[Hand], object]]] = [
        ("Gin, random 10 cards, best_arrangement", gin10,
         lambda h: solver.best_arrangement(h, GIN)),
        ("Gin, meld-rich 11 cards, discard_deadwoods", rich11,
         lambda h: solver.discard_deadwoods(h, GIN)),
        ("Basic high_or_low (ace 15), random 10 cards, deadwood_points",
         random_hands(rng, one_deck, 10, 200_000),
         lambda h: solver.deadwood_points(h, BASIC_HIGH)),
        ("Basic high_or_low, meld-rich 11 cards, best_discard",
         meld_rich_hands(rng, 11, 50_000), lambda h: solver.best_discard(h, BASIC_HIGH)),
        ("Chicago (2 decks, 2s wild), random 7 cards, deadwood_points",
         random_hands(rng, two_decks, 7, 100_000),
         lambda h: solver.deadwood_points(h, CHICAGO)),
        ("Chicago, random 8 cards, best_discard", random_hands(rng, two_decks, 8, 50_000),
         lambda h: solver.best_discard(h, CHICAGO)),
        ("Chicago, random 8 cards, discards_at_most 9 (the legal knocks)",
         random_hands(rng, two_decks, 8, 50_000),
         lambda h: solver.discards_at_most(h, CHICAGO, 9)),
        ("3-13 round 11 (2 decks, kings wild), 13 cards, deadwood_points",
         random_hands(rng, two_decks, 13, 20_000),
         lambda h: solver.deadwood_points(h, THIRTEEN_R11)),
        ("3-13 round 11, 14 cards, best_discard", random_hands(rng, two_decks, 14, 5_000),
         lambda h: solver.best_discard(h, THIRTEEN_R11)),
        ("3-13 round 11, 14 cards, discards_at_most 0 (going out)",
         random_hands(rng, two_decks, 14, 20_000),
         lambda h: solver.discards_at_most(h, THIRTEEN_R11, 0)),
        ("3-13 round 11, 2 decks + 4 jokers, 14 cards, best_discard",
         random_hands(rng, two_decks_jokers, 14, 5_000),
         lambda h: solver.best_discard(h, THIRTEEN_R11)),
    ]
    for label, hands, call in alone:
        line(label, ours(hands, call), [], timing)
    if timing.served is not None:
        paths.serve(timing.served)
    if timing.pure is not None:
        timing.pure.close()


if __name__ == "__main__":
    main()
