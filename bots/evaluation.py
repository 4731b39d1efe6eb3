"""Hand evaluation for the strong bot: deadwood, draw potential and discard danger.

Theory of operation
-------------------
All numbers are in deadwood points, the unit every rummy scores in, so they add up.

*Deadwood* ``dd(H)`` is exact: the meld solver's least deadwood of the hand.

*Potential* ``g(H)`` is the expected deadwood saved by the next draw: the average, over
the cards the bot cannot place (each face weighted by its unseen copies), of
``dd(H) - min over discards d of dd(H + u - d)``. Most cards cannot meld with a hand: a
card ``u`` that shares no rank with the hand and lies more than two ranks from every
card of its suit (with at most one wild card in the hand) stays deadwood, and its saving
is exactly ``max(0, m - points(u))`` where ``m`` is the most one discard can take off
``dd(H)``: drawing a low card lets a high one go. Only the other cards cost a solve (with
two wild cards or more the same shortcut is an approximation: such wild cards are rarely
free to meld a new card). On the solver's slow path (wild cards, several decks) the
discard after drawing is searched among the hand's two dearest loose cards only.
A card whose partners are all dead (on the pile, in the bot's hand) adds no potential,
so discarding it costs nothing: that is how "discard the dead cards" comes out.

*Value* of a hand the bot keeps: ``V(H) = dd(H) - beta * g(H)``, lower is better; beta
says how much the coming draws matter (it shrinks as the stock does).

*Danger* of a discard is the probability that the next seat can use it: a set needs two
partners of the card's rank (wild cards count), a run needs both cards of one of its
three windows of three. A partner the next seat is known to hold (it took it from the
pile) counts for sure; an unseen one with probability ``1 - exp(-q * copies)`` where
``q`` is the share of the unseen cards that seat holds; a dead one not at all. A rank
the next seat discarded or passed on is less likely collected (sets count 0.4 times).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

from rummyhall.rules import Card, MeldRules, deadwood_points, discard_deadwoods

_RANK_FACES = [sum(1 << (s * 16 + r) for s in range(4)) for r in range(14)]


def _near(suit: int, rank: int, cyclic: bool) -> int:
    """Faces of ``suit`` within two ranks of ``rank`` (the ranks wrap when aces can be high)."""
    mask = 0
    for delta in (-2, -1, 1, 2):
        r = rank + delta
        if cyclic:
            r = (r - 1) % 13 + 1
        if 1 <= r <= 13:
            mask |= 1 << (suit * 16 + r)
    return mask


_NEAR = {cyclic: [[_near(s, r, cyclic) for r in range(14)] for s in range(4)]
         for cyclic in (False, True)}


def run_windows(rank: int, rules: MeldRules) -> tuple[tuple[int, int], ...]:
    """The pairs of ranks that make a three-card run with ``rank`` under ``rules``
    (a table by ace mode: the sampler and the danger term ask it for every card)."""
    return RUN_WINDOWS[rules.ace_mode][rank]


def _windows(rank: int, ace_mode: str) -> tuple[tuple[int, int], ...]:
    if not 1 <= rank <= 13:
        return ()
    cyclic = ace_mode == "round_the_corner"
    high = ace_mode == "high_or_low"
    top = 14 if high else 13  # (with the ace high too, position 14 is the ace)
    windows = []
    for place in (1, 14) if high and rank == 1 else (rank,):
        for lo in (place - 2, place - 1, place):
            run = [lo, lo + 1, lo + 2]
            if cyclic:
                run = [(r - 1) % 13 + 1 for r in run]
            elif not all(1 <= r <= top for r in run):
                continue
            others = [1 if r == 14 else r for r in run if r != place]
            windows.append((others[0], others[1]))
    return tuple(windows)


#: :func:`run_windows` by ace mode, then by rank (0 to 13).
RUN_WINDOWS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    mode: tuple(_windows(rank, mode) for rank in range(14))
    for mode in ("low", "high_or_low", "round_the_corner")}


def face_mask(cards: Iterable[int]) -> int:
    """The faces of ``cards`` (cards or faces: ``card & 63``) as bits of one mask."""
    mask = 0
    for c in cards:
        mask |= 1 << (c & 63)
    return mask


def first_layoffs(melds: Sequence[Sequence[int]]) -> int:
    """The faces (bits ``card & 63``) a defender could lay off first on one of ``melds``,
    natural melds with aces low, a natural card: a card of a set's rank, or the card below
    or above a run (every chain of layoffs starts with one of them)."""
    out = 0
    for meld in melds:
        ranks = [c & 15 for c in meld]
        low, high = min(ranks), max(ranks)
        if low == high:
            out |= _SPREAD << low
        else:
            base = meld[0] & 48
            if low > 1:
                out |= 1 << (base + low - 1)
            if high < 13:
                out |= 1 << (base + high + 1)
    return out


def meld_completions(held: int, twice: int, ace_mode: str) -> int:
    """The faces (bits ``suit * 16 + rank``, ranks 1 to 13) that complete a meld of three
    with two natural cards of face mask ``held`` (``twice``: the faces held twice, which
    are in ``held`` too): two partners of the face's rank in the other suits (a face held
    twice is two), or both other cards of one of its run windows (:func:`run_windows`).
    """
    if not held:
        return 0
    h0, h1, h2, h3 = held & _SUIT_BITS, held >> 16 & _SUIT_BITS, held >> 32 & _SUIT_BITS, \
        held >> 48 & _SUIT_BITS
    runs = _RUN_COMPLETIONS[ace_mode]
    out = runs(h0) | runs(h1) << 16 | runs(h2) << 32 | runs(h3) << 48
    if twice:
        t0, t1, t2, t3 = twice & _SUIT_BITS, twice >> 16 & _SUIT_BITS, \
            twice >> 32 & _SUIT_BITS, twice >> 48 & _SUIT_BITS
        out |= t1 | t2 | t3 | (t0 | t2 | t3) << 16 | (t0 | t1 | t3) << 32 | (
            t0 | t1 | t2) << 48
    # (two held partners: two of the three other suits)
    return out | (h1 & h2 | h1 & h3 | h2 & h3) | (h0 & h2 | h0 & h3 | h2 & h3) << 16 | (
        h0 & h1 | h0 & h3 | h1 & h3) << 32 | (h0 & h1 | h0 & h2 | h1 & h2) << 48


def _low_runs(h: int) -> int:
    """The ranks (bits 1 to 13) one of whose run windows ``h`` holds, aces low."""
    return (h << 1 & h << 2 | h << 1 & h >> 1 | h >> 1 & h >> 2) & _SUIT_BITS


def _high_or_low_runs(h: int) -> int:
    """:func:`_low_runs` with the ace above the king too (position 14)."""
    h |= (h & 2) << 13
    c = h << 1 & h << 2 | h << 1 & h >> 1 | h >> 1 & h >> 2
    return (c | c >> 13 & 2) & _SUIT_BITS


def _corner_runs(h: int) -> int:
    """:func:`_low_runs` with runs round the corner (king, ace, two)."""
    h |= h << 13 | h << 26  # three turns of the ranks: the middle one sees both ends
    c = h << 1 & h << 2 | h << 1 & h >> 1 | h >> 1 & h >> 2
    return c >> 13 & _SUIT_BITS


_RUN_COMPLETIONS = {"low": _low_runs, "high_or_low": _high_or_low_runs,
                    "round_the_corner": _corner_runs}


class HandEvaluator:
    """Evaluates hands for one decision, given the card rules and the unseen cards.

    ``unseen`` holds a count per face (64 entries, see
    :func:`~rummyhall.bots.tracking.unseen_faces`).
    """

    def __init__(self, rules: MeldRules, unseen: Sequence[int],
                 gains: dict[tuple[Card, ...], dict[int, float]] | None = None) -> None:
        self.rules = rules
        self.unseen = unseen
        self.total = sum(unseen)
        self.faces = [(face, n) for face, n in enumerate(unseen) if n]
        self.cyclic = rules.ace_mode != "low"
        self.wild_mask = 1 | (_RANK_FACES[rules.wild_rank] if rules.wild_rank else 0)
        self.wild_faces = _bits(self.wild_mask)
        # What drawing a face saves a hand depends on the hand and the face alone, not on
        # the unseen cards (they only weigh the faces): ``gains`` keeps those savings for
        # every decision of a hand (the caller's HandMemory.gains), so a potential is
        # exact for the unseen cards of this decision and the same whatever was computed
        # before (a bot restored from the journal decides as one that never stopped).
        self._gains: dict[tuple[Card, ...], dict[int, float]] = {} if gains is None else gains
        self._potential: dict[tuple[Card, ...], float] = {}

    # -- deadwood and potential

    def deadwood(self, hand: Sequence[Card]) -> int:
        return deadwood_points(hand, self.rules)

    def related(self, card: Card, hand: Sequence[Card]) -> bool:
        """True if ``card`` might meld with cards of ``hand`` (see :meth:`_related_exact`)."""
        return bool(self._related_exact(hand)[0] >> (card & 63) & 1)

    def _related_exact(self, hand: Sequence[Card]) -> tuple[int, bool]:
        """Faces that might meld with ``hand`` (the others stay deadwood).

        The flag says the mask is exact and the hand on the solver's fast path: aces low,
        no wild card, distinct faces (Gin, most Basic Rummy); then a face is listed only
        if it completes a set (two cards of its rank held) or a run (two cards of one of
        its windows held).
        """
        rules = self.rules
        wilds = sum(1 for c in hand if rules.is_wild(c))
        if not wilds and not self.cyclic and not self.wild_mask & ~1:
            m = face_mask(hand)
            if m.bit_count() == len(hand):
                return _meldable(m) | 1, True
        near = _NEAR[self.cyclic]
        mask = self.wild_mask
        for c in hand:
            if not rules.is_wild(c):
                rank = c & 15
                mask |= _RANK_FACES[rank] | near[(c >> 4) & 3][rank]
        # With one wild card a meld still needs a partner within two ranks. With two or
        # more any card could meld with two wild cards, but those are rarely free (they
        # already meld the hand's loose cards): the mask ignores that, an approximation.
        return mask, False

    def potential(self, hand: Sequence[Card]) -> float:
        """``g(H)``: the expected deadwood the next draw saves (see the module docstring)."""
        key = tuple(sorted(hand))
        cached = self._potential.get(key)
        if cached is not None:
            return cached
        value = self._compute_potential(key)
        self._potential[key] = value
        return value

    def _compute_potential(self, hand: tuple[Card, ...]) -> float:
        if not self.total:
            return 0.0
        gains = self._gains.get(hand)
        if gains is None:
            gains = self._gains[hand] = {}
        missing = [face for face, _ in self.faces if face not in gains]
        if missing:
            self._fill_gains(hand, missing, gains)
        return sum(n * gains[face] for face, n in self.faces) / self.total

    def _fill_gains(self, hand: tuple[Card, ...], faces: Sequence[int],
                    gains: dict[int, float]) -> None:
        """The deadwood that drawing each of ``faces`` saves ``hand`` (then discarding)."""
        rules = self.rules
        dd = deadwood_points(hand, rules)
        if dd == 0:
            gains.update(dict.fromkeys(faces, 0.0))
            return
        after = discard_deadwoods(hand, rules)
        most = dd - min(after.values())
        related, exact = self._related_exact(hand)
        # Without the exact (fast) path a full discard search per card is dear: try only
        # the two dearest loose cards of the hand as the discard after drawing.
        points = rules.points_by_face
        loose = sorted((c for c in hand if after[c] == dd - points[c & 63]),
                       key=lambda c: -points[c & 63])[:2]
        held = set(hand)
        # Off the fast path, faces that play alike share one solve: two faces of one rank
        # whose suits hold no natural card within a run's reach (one rank more per wild
        # card held) can only meld in sets or with wild cards, and suits score alike; so
        # are the wild cards of one rank.
        classes: dict[tuple[int, int], float] = {}
        wilds = sum(1 for c in hand if rules.is_wild(c))
        reach = 2 + wilds
        suit_ranks = [[c & 15 for c in hand if not rules.is_wild(c) and (c >> 4) & 3 == suit]
                      for suit in range(4)]
        for face in faces:
            p = points[face]
            gain = most - p if most > p else 0
            key: tuple[int, int] | None = None
            if related >> face & 1 and not exact:
                rank = face & 15
                if self.wild_mask >> face & 1:
                    key = (-1, rank)
                elif not any(_distance(rank, r, self.cyclic) <= reach
                             for r in suit_ranks[(face >> 4) & 3]):
                    key = (rank, 0)
                if key is not None and key in classes:
                    gains[face] = classes[key]
                    continue
            if related >> face & 1:
                u = face
                while u in held:
                    u += 64
                grown = (*hand, Card(u))
                if deadwood_points(grown, rules) < dd + p:  # it melds with the hand
                    if exact:
                        best = min(discard_deadwoods(grown, rules).values())
                    else:
                        best = min([dd, *(deadwood_points([x for x in grown if x != c], rules)
                                          for c in loose)])
                    gain = max(gain, dd - best)
            gains[face] = float(gain)
            if key is not None:
                classes[key] = float(gain)

    def draw_chances(self, hand: Sequence[Card], limit: int) -> tuple[float, float]:
        """What the next draw does for ``hand``: the chance that, drawing a card and
        discarding the best one, the deadwood is at most ``limit`` (the hand can end), and
        the expected deadwood after it (``dd(H) - g(H)``)."""
        key = tuple(sorted(hand))
        dd = deadwood_points(key, self.rules)
        if not self.total:
            return (1.0 if dd <= limit else 0.0), float(dd)
        g = self.potential(key)
        gains = self._gains[key] if dd else {}
        reach = dd - limit  # the saving a draw needs
        if reach <= 0:
            return 1.0, dd - g
        hits = sum(n for face, n in self.faces if gains.get(face, 0.0) >= reach)
        return hits / self.total, dd - g

    def draw_outcomes(self, hand: Sequence[Card], limit: int) -> tuple[float, float, float]:
        """The next draw's chance to bring ``hand`` within ``limit`` (as
        :meth:`draw_chances`), and the expected deadwood after it when it does and when it
        does not (each the hand's own count when that never happens)."""
        key = tuple(sorted(hand))
        dd = deadwood_points(key, self.rules)
        if not self.total:
            return (1.0 if dd <= limit else 0.0), float(dd), float(dd)
        self.potential(key)
        gains = self._gains[key] if dd else {}
        reach = dd - limit
        hit_n = miss_n = 0
        hit_sum = miss_sum = 0.0
        for face, n in self.faces:
            gain = gains.get(face, 0.0)
            if gain >= reach:
                hit_n += n
                hit_sum += n * (dd - gain)
            else:
                miss_n += n
                miss_sum += n * (dd - gain)
        return (hit_n / self.total, hit_sum / hit_n if hit_n else float(dd),
                miss_sum / miss_n if miss_n else float(dd))

    def value(self, hand: Sequence[Card], beta: float, dd: int | None = None) -> float:
        """``V(H) = dd(H) - beta * g(H)``: lower is better."""
        if dd is None:
            dd = deadwood_points(hand, self.rules)
        if beta <= 0 or dd == 0:
            return float(dd)
        return dd - beta * self.potential(hand)

    # -- danger

    def danger(self, card: Card, *, holds: float, known: Collection[Card] = (),
               shunned: Collection[int] = ()) -> float:
        """The probability that a seat holding ``holds`` unknown cards can meld ``card``.

        ``known`` are cards that seat is known to hold, ``shunned`` faces it discarded or
        passed on.
        """
        rules = self.rules
        if rules.is_wild(card):
            return 1.0
        q = holds / self.total if self.total else 0.0
        known_faces: dict[int, int] = {}
        for c in known:
            known_faces[c & 63] = known_faces.get(c & 63, 0) + 1
        unseen = self.unseen
        rank, suit = card & 15, (card >> 4) & 3

        def has(face: int) -> float:
            if known_faces.get(face):
                return 1.0
            n = unseen[face]
            return 1.0 - math.exp(-q * n) if n else 0.0

        # Sets: two partners of the same rank (or wild cards) among the seat's cards.
        sure = 0
        lam = 0.0
        for face in (*_rank_faces(rank), *self.wild_faces):
            sure += known_faces.get(face, 0)
            lam += q * unseen[face]
        if sure >= 2:
            p_set = 1.0
        elif sure == 1:
            p_set = 1.0 - math.exp(-lam)
        else:
            p_set = 1.0 - math.exp(-lam) * (1.0 + lam)
        if any(f & 15 == rank for f in shunned):
            p_set *= 0.4
        # Runs: both other cards of one of the (up to) three windows.
        miss = 1.0
        for a, b in run_windows(rank, rules):
            miss *= 1.0 - has(suit * 16 + a) * has(suit * 16 + b)
        return 1.0 - (1.0 - p_set) * miss


_SUIT_BITS = 0x3FFE  # positions 1..13 of one suit's 16-bit field
_SPREAD = 0x0001_0001_0001_0001


def _meldable(m: int) -> int:
    """Faces (not in ``m``) that form a meld with two cards of face mask ``m``: aces low."""
    return meld_completions(m, 0, "low") & ~m


def _distance(a: int, b: int, cyclic: bool) -> int:
    """How many ranks apart ``a`` and ``b`` are (round the corner when ``cyclic``)."""
    d = abs(a - b)
    return min(d, 13 - d) if cyclic else d


def _rank_faces(rank: int) -> tuple[int, ...]:
    return (rank, 16 + rank, 32 + rank, 48 + rank)


def _bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out
