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
  has drawn ten times holds melds, not a random hand): among the draws the one nearest
  that target is kept. The expert draws the targets from measured tables of an
  opponent's deadwood by the stage of the hand (Gin: the deadwood held, Chicago: the
  strong bot's table), and in Gin weighs a contradiction as a few points of miss rather
  than before any miss.
- What is left of the pool is the stock, in a random order (its top is ``stock[-1]``).

The hand counts come from the view; if the pool cannot fill them (a memory that went
wrong, which the tracker avoids by recording only what it can prove) the known cards are
dropped first.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rummyhall.rules import Card, MeldRules, SeatView, deadwood_points, new_game

from .evaluation import RUN_WINDOWS, run_windows
from .tracking import HandMemory

_DECK_CARDS: dict[tuple[str, tuple[tuple[str, object], ...], int], tuple[Card, ...]] = {}


def deck_cards(view: SeatView) -> tuple[Card, ...]:
    """Every card of the deck the view's hand was dealt from, in canonical order."""
    key = (view.game, tuple(sorted(view.options.items())), view.players)
    cards = _DECK_CARDS.get(key)
    if cards is None:
        cards = _DECK_CARDS[key] = tuple(
            new_game(view.game, dict(view.options), players=view.players).shuffle_cards())
    return cards


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


def contradictions(hand: Sequence[Card], shunned: set[int], rules: MeldRules) -> int:
    """How many faces in ``shunned`` the hand could meld (the seat would not have let them go):
    two partners of its rank in other suits (copies count), or both other cards of one of
    its run windows."""
    if not shunned:
        return 0
    held = twice = 0  # the natural faces held, and those held more than once
    wild_rank = rules.wild_rank
    for c in hand:
        rank = c & 15
        if rank and rank != wild_rank:  # (not a joker, nor of the wild rank)
            bit = 1 << (c & 63)
            twice |= held & bit
            held |= bit
    melds = _MELD_MASKS[rules.ace_mode]
    count = 0
    for face in shunned:
        if face & 15:  # (a joker's face melds with nothing of its own)
            partners, windows = melds[face]
            if (held & partners).bit_count() + (twice & partners).bit_count() >= 2:
                count += 1
                continue
            for w in windows:
                if held & w == w:
                    count += 1
                    break
    return count


def _meld_masks(face: int, ace_mode: str) -> tuple[int, tuple[int, ...]]:
    """For :func:`contradictions`: the faces of ``face``'s rank in the other suits, and
    each run window's two faces, as masks of faces."""
    rank, suit = face & 15, face >> 4
    partners = sum(1 << (s * 16 + rank) for s in range(4) if s != suit)
    windows = tuple(1 << (suit * 16 + a) | 1 << (suit * 16 + b)
                    for a, b in RUN_WINDOWS[ace_mode][rank]) if 1 <= rank <= 13 else ()
    return partners, windows


_MELD_MASKS: dict[str, tuple[tuple[int, tuple[int, ...]], ...]] = {
    mode: tuple(_meld_masks(face, mode) for face in range(64)) for mode in RUN_WINDOWS}


_MEAN_POINTS = 6.5  # a loose card's points on average (ace 1 to king 10)


def pool_faces(pool: Sequence[Card]) -> dict[int, list[int]]:
    """The indices of ``pool`` by face (for :func:`melded_picks`)."""
    by_face: dict[int, list[int]] = {}
    for i, c in enumerate(pool):
        by_face.setdefault(c & 63, []).append(i)
    return by_face


def melded_picks(pool: Sequence[Card], k: int, melds: int, rng: random.Random,
                 rules: MeldRules, *, by_face: dict[int, list[int]] | None = None
                 ) -> list[int]:
    """``k`` distinct indices of ``pool``, the first ones forming up to ``melds`` melds of three.

    A player who has drawn and discarded for a while holds melds, which a uniform draw
    of the unseen cards almost never gives: this builds a hand that has them, from the
    pool's cards only (each meld a set or a run of three, seeded by a random card), and
    fills the rest at random. ``by_face`` is :func:`pool_faces` of ``pool``, when the
    caller draws from one pool several times.
    """
    if by_face is None:
        by_face = pool_faces(pool)
    used: set[int] = set()
    picks: list[int] = []

    def free(face: int) -> int | None:
        for i in by_face.get(face, ()):
            if i not in used:
                return i
        return None

    attempts = 0
    while melds and len(picks) + 3 <= k and attempts < 8 * melds:
        attempts += 1
        i = rng.randrange(len(pool))
        card = pool[i]
        if i in used or rules.is_wild(card):
            continue
        rank, suit = card & 15, (card >> 4) & 3
        group: list[int] | None = None
        if rng.random() < 0.5:
            partners = [j for s in range(4) if s != suit
                        for j in by_face.get(s * 16 + rank, ()) if j not in used and j != i]
            if len(partners) >= 2:
                group = rng.sample(partners, 2)
        else:
            windows = list(run_windows(rank, rules))
            rng.shuffle(windows)
            for a, b in windows:
                ja, jb = free(suit * 16 + a), free(suit * 16 + b)
                if ja is not None and jb is not None and i not in (ja, jb):
                    group = [ja, jb]
                    break
        if group is None:
            continue
        for j in (i, *group):
            used.add(j)
            picks.append(j)
        melds -= 1
    rest = [j for j in range(len(pool)) if j not in used]
    picks.extend(rng.sample(rest, min(k - len(picks), len(rest))))
    return picks


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
    for s in others:
        shunned = mem.shunned.get(s, set())
        target = targets.get(s) if targets else None
        best: list[Card] | None = None
        best_score: tuple[float, float] = (0.0, 0.0)
        chosen: list[int] = []
        k = min(need[s], len(pool))
        melds = 0
        by_face: dict[int, list[int]] = {}
        if target is not None:
            loose = target / _MEAN_POINTS
            melds = max(0, min(k // 3, round((view.hand_sizes[s] - loose) / 3)))
            by_face = pool_faces(pool)
        for t in range(max(1, tries)):
            if target is None:
                picks = rng.sample(range(len(pool)), k) if k else []
            else:
                m = max(0, min(k // 3, melds + (t % 3) - 1 if t else melds))
                picks = melded_picks(pool, k, m, rng, rules, by_face=by_face)
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
