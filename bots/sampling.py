"""Determinization: whole deals drawn at random consistently with what a seat has seen.

Theory of operation
-------------------
A :class:`World` is one guess at the hidden part of a hand: every other seat's cards and
the stock's order. :func:`sample_world` builds one from the seat's
:class:`~rummyhall.rules.SeatView` and the :class:`~rummyhall.bots.tracking.HandMemory`
the seat has built from its earlier views, and from nothing else (it is never given a
game), so a bot that searches over worlds cannot read a hidden card.

- The *pool* is every card of the deck that the seat cannot place: not in its hand, not
  on the discard pile, not in a meld on the table, not known in another hand. Cards are
  exact (``9c#1`` is not ``9c``): the deck comes from the game's options.
- Each other active seat gets the cards it is known to hold (it took them from the
  pile and has not shown them since) and the rest of its hand from the pool.
- A seat's discards and passes say what it does not collect: a hand in which a face the
  seat shunned would complete a meld (two partners of its rank, or both other cards of
  one of its run windows) is unlikely. Each hand is drawn up to ``tries`` times and the
  one with the fewest such contradictions is kept (rejection sampling, bounded).
- An opponent model may say how much deadwood a seat's hand should have (a player who
  has drawn ten times holds melds, not a random hand): each draw is built with about
  that many melds of three, found among the pool's cards and the seat's known ones
  (:func:`melded_picks`), and among the draws the one nearest that target is kept. The
  expert draws the targets from measured tables of an opponent's deadwood by the stage
  of the hand (Gin: the deadwood held, Chicago: the strong bot's table), and in Gin
  weighs a contradiction as a few points of miss rather than before any miss.
- What is left of the pool is the stock, in a random order (its top is ``stock[-1]``).

The hand counts come from the view; if the pool cannot fill them (a memory that went
wrong, which the tracker avoids by recording only what it can prove) the known cards are
dropped first.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from rummyhall.rules import Card, MeldRules, SeatView, deadwood_points

from .evaluation import RUN_WINDOWS, face_mask, meld_completions
from .tracking import HandMemory, table_facts


def deck_cards(view: SeatView) -> tuple[Card, ...]:
    """Every card of the deck the view's hand was dealt from, in canonical order."""
    return table_facts(view)[0]


def dealt_size(view: SeatView) -> int:
    """How many cards each seat of the view's hand was dealt (the first round's, in Three
    Thirteen)."""
    return table_facts(view)[1]


@dataclass(frozen=True, slots=True)
class World:
    """One determinization: every seat's hand (the viewer's is its own) and the stock."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]  # the top card is the last one


def unseen_pool(view: SeatView, mem: HandMemory) -> list[Card]:
    """The cards the viewer cannot place, in canonical order (see the module docstring)."""
    placed = Counter(int(c) for c in view.hand)
    placed.update(int(c) for c in view.discard_pile)
    for _, meld in view.melds:
        placed.update(int(c) for c in meld)
    for seat, held in mem.known.items():
        if seat != view.seat:
            placed.update(int(c) for c in held)
    pool = []
    for card in deck_cards(view):
        if placed[int(card)]:
            placed[int(card)] -= 1
        else:
            pool.append(card)
    return pool


def contradictions(hand: Sequence[Card], shunned: set[int] | int, rules: MeldRules) -> int:
    """How many faces in ``shunned`` the hand could meld (the seat would not have let them go):
    two partners of its rank in other suits (copies count), or both other cards of one of
    its run windows. ``shunned`` is a set of faces, or :func:`face_mask` of one."""
    if not shunned:
        return 0
    mask = shunned if isinstance(shunned, int) else face_mask(shunned)
    return (meldable_faces(hand, rules) & mask).bit_count()


def meldable_faces(hand: Sequence[Card], rules: MeldRules) -> int:
    """The faces (as bits ``suit * 16 + rank``) that would complete a meld of three with
    natural cards of ``hand``: two partners of the face's rank in the other suits (a copy
    of another deck counts), or both other cards of one of its run windows (wild cards
    and jokers partner nothing here, and a joker's face melds with nothing)."""
    held = twice = 0  # the natural faces held, and those held more than once
    wild_rank = rules.wild_rank
    for c in hand:
        rank = c & 15
        if rank and rank != wild_rank:
            bit = 1 << (c & 63)
            twice |= held & bit
            held |= bit
    return meld_completions(held, twice, rules.ace_mode)


_MEAN_POINTS = 6.5  # a loose card's points on average (ace 1 to king 10)


def pool_faces(pool: Sequence[Card]) -> dict[int, list[int]]:
    """The indices of ``pool`` by face (for :func:`melded_picks`)."""
    by_face: dict[int, list[int]] = {}
    for i, c in enumerate(pool):
        by_face.setdefault(c & 63, []).append(i)
    return by_face


_Triples = tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]


def meld_triples(faces: Iterable[int], rules: MeldRules) -> _Triples:
    """Every meld of three natural faces among ``faces`` (faces ``suit * 16 + rank``):
    the sets (three suits of one rank) and the runs (a run window of one suit), each
    listed once. Wild cards and jokers are left out (a built meld is natural).

    The worlds of one decision draw from one pool: the answer is kept for the last few
    sets of faces (a function of the faces and the rules alone)."""
    return _meld_triples(frozenset(faces), rules.ace_mode, rules.wild_rank)


@lru_cache(maxsize=16)
def _meld_triples(faces: frozenset[int], ace_mode: str, wild_rank: int) -> _Triples:
    present = {f for f in faces if f & 15 and f & 15 != wild_rank}
    sets: list[tuple[int, int, int]] = []
    for rank in range(1, 14):
        suits = [s * 16 + rank for s in range(4) if s * 16 + rank in present]
        sets.extend(combinations(suits, 3))
    runs: set[tuple[int, int, int]] = set()
    windows_of = RUN_WINDOWS[ace_mode]
    for face in present:
        base = face & 48
        for a, b in windows_of[face & 15]:
            if base + a in present and base + b in present:
                low, mid, high = sorted((face, base + a, base + b))
                runs.add((low, mid, high))
    return tuple(sets), tuple(sorted(runs))


def melded_picks(pool: Sequence[Card], k: int, melds: int, rng: random.Random,
                 rules: MeldRules, *, by_face: dict[int, list[int]] | None = None,
                 triples: _Triples | None = None,
                 held: Sequence[int] = ()) -> list[int]:
    """``k`` distinct indices of ``pool``, the first ones forming up to ``melds`` melds of three.

    A player who has drawn and discarded for a while holds melds, which a uniform draw
    of the unseen cards almost never gives: this builds a hand that has them, from the
    pool's cards only, and fills the rest at random. Each meld is a set or a run (even
    odds, while the pool holds both) drawn at random among the pool's melds of three
    (:func:`meld_triples`) whose cards are still free: late in a hand, when the pool is
    thin, the melds it holds are found rather than missed. ``held`` are the faces the
    seat is known to hold already (the cards it took from the pile): a meld may use them,
    once each, and then takes fewer cards of the pool. ``by_face`` is :func:`pool_faces`
    of ``pool`` and ``triples`` :func:`meld_triples` of its faces and ``held`` (or of a
    larger pool's), when the caller draws from one pool several times.
    """
    if by_face is None:
        by_face = pool_faces(pool)
    n = len(pool)
    # A uniform index below m from the generator's bits (as randrange draws them).
    bits = rng.getrandbits

    def below(m: int) -> int:
        size = m.bit_length()
        r = bits(size)
        while r >= m:
            r = bits(size)
        return r

    used: set[int] = set()
    picks: list[int] = []
    if melds and k:
        sets, runs = (list(t) for t in (triples or meld_triples([*by_face, *held], rules)))
        random = rng.random
        get = by_face.get
        spare = list(held)  # (the held faces no built meld uses yet)
        while melds and len(picks) < k and (sets or runs):
            drawn = sets if sets and (not runs or random() < 0.5) else runs
            x = below(len(drawn))  # (drawn without replacement: the last takes its place)
            meld = drawn[x]
            drawn[x] = drawn[-1]
            drawn.pop()
            chosen: list[int] = []
            mine: list[int] = []  # (a meld's three faces differ: each is found once)
            for face in meld:
                if face in spare:
                    mine.append(face)
                    continue
                j = _first_free(get(face, ()), used)
                if j is None:
                    break
                chosen.append(j)
            else:
                if len(picks) + len(chosen) > k or not chosen:
                    continue
                for face in mine:
                    spare.remove(face)
                used.update(chosen)
                picks.extend(chosen)
                melds -= 1
    rest = [j for j in range(n) if j not in used] if used else range(n)
    picks.extend(rng.sample(rest, min(k - len(picks), len(rest))))
    return picks


def _first_free(indices: Sequence[int], used: set[int]) -> int | None:
    """The first of ``indices`` not in ``used``."""
    for j in indices:
        if j not in used:
            return j
    return None


def sample_world(view: SeatView, mem: HandMemory, rng: random.Random, rules: MeldRules, *,
                 tries: int = 3, targets: Mapping[int, float] | None = None,
                 shunned_points: float | None = None,
                 unseen: Sequence[Card] | None = None) -> World:
    """One world consistent with ``view`` and ``mem`` (see the module docstring).

    ``targets`` maps a seat to the deadwood its hand should have (an opponent model):
    among its ``tries`` draws the one nearest that deadwood is kept, after the fewest
    contradictions; or, with ``shunned_points``, the one of the least miss plus
    ``shunned_points`` per contradiction (late in a hand a seat has shunned many faces,
    and a hand of melds that are near none of them is rare: putting the contradictions
    first then keeps the loosest hand). ``unseen`` is :func:`unseen_pool` of the view and
    memory, when the caller draws many worlds of one decision.
    """
    seat = view.seat
    pool = unseen_pool(view, mem) if unseen is None else list(unseen)
    rng.shuffle(pool)
    hands: list[tuple[Card, ...]] = [() for _ in range(view.players)]
    if seat is not None:
        hands[seat] = tuple(view.hand)
    others = [s for s in range(view.players) if s != seat and view.active[s]]
    known = {s: sorted(mem.known.get(s, ())) for s in others}
    need = {s: max(0, view.hand_sizes[s] - len(known[s])) for s in others}
    short = sum(need.values()) - len(pool)
    if short > 0:  # the memory disagrees with the counts: trust the counts
        for s in others:
            pool.extend(known[s])
            need[s] += len(known[s])
            known[s] = []
        rng.shuffle(pool)
    faces = {c & 63 for c in pool} if targets else set()
    for s in others:
        shunned = face_mask(mem.shunned.get(s, set()))
        target = targets.get(s) if targets else None
        best: list[Card] | None = None
        best_score: tuple[float, float] = (0.0, 0.0)
        chosen: list[int] = []
        k = min(need[s], len(pool))
        melds = most = 0
        by_face: dict[int, list[int]] = {}
        triples = None
        held_faces = [c & 63 for c in known[s]]
        if target is not None:
            triples = meld_triples(faces.union(held_faces), rules)
            loose = target / _MEAN_POINTS
            most = view.hand_sizes[s] // 3  # (melds may hold the known cards too)
            melds = max(0, min(most, round((view.hand_sizes[s] - loose) / 3)))
            by_face = pool_faces(pool)
        for t in range(max(1, tries)):
            if target is None:
                picks = rng.sample(range(len(pool)), k) if k else []
            else:
                m = max(0, min(most, melds + (t % 3) - 1 if t else melds))
                picks = melded_picks(pool, k, m, rng, rules, by_face=by_face,
                                     triples=triples, held=held_faces)
            cand = [pool[i] for i in picks]
            held = [*known[s], *cand]
            miss = 0.0
            if target is not None:
                miss = abs(deadwood_points(held, rules) - target)
            against = contradictions(held, shunned, rules)
            score = ((0.0, miss + shunned_points * against) if shunned_points is not None
                     else (float(against), miss))
            if best is None or score < best_score:
                best, best_score = cand, score
                chosen = picks
            if score == (0.0, 0.0):
                break
        assert best is not None
        for i in sorted(chosen, reverse=True):
            pool.pop(i)
        hands[s] = (*known[s], *best)
    return World(tuple(hands), tuple(pool[:view.stock_count]))
