"""The meld solver: best arrangements, deadwood, discards and Gin layoffs.

Theory of operation
-------------------
Every question here reduces to one number: the least deadwood a card list can keep
(docs/rules.md 1, "Deadwood and the best arrangement"), that is its total points
minus the most points it can put into disjoint valid melds. Two exact searches answer it.

*Fast path* (no wild card in the hand, no two identical faces: Gin, Basic Rummy,
and most Chicago hands). The hand becomes a 64-bit mask with bit ``suit*16 + rank``
(a card's face): one sum of the cards' bits, which also tells identical faces apart
(they carry, so the mask has fewer bits than the hand has cards). With one deck a rank
holds at most one set, and once the sets are chosen the four suits are independent run
problems. A suit's best run value depends only on its 14-bit pattern: it is the value
of the cards lying in some window of three present positions (a maximal stretch of
three or more is one valid run; the ace-high mode tries the ace at 1 and at 14). Two
tables of 2**14 entries hold, for every pattern, that value and the deadwood the suit
keeps alone; they are built once per ace mode and card values (a few milliseconds), so
a hand with no rank in three suits costs four lookups. Otherwise the solver looks at
the ranks present in three suits or four. A rank none of whose cards can sit in a run
("uncontested": no window of three present positions holds it) is melded whole, or as
much of it as a set holds, whatever the rest does: its cards are deadwood in their
suits, and the set takes them off. For the other ranks the solver tries the set choices
of each, keeping only those not beaten by another: a set takes every uncontested card
of its rank it can, and "no set" is tried only if the uncontested cards cannot make
one. That leaves one to a few choices per rank, each scored with four lookups.
Discards reuse the choices: removing a card changes one suit pattern (one lookup per
choice); a card of a set rank costs, if its rank is uncontested, only the set's
shrinking, otherwise one fresh solve of the hand without it. The hand's own scan is
``bytes`` of its codes (which refuses any number beyond 255, leaving those to a checked
scan) and one sum over a list by code; a wild card or a code that is no card adds no
bit, so a hand whose bits do not number its cards leaves the fast path. With no
contested rank, the sets' points are two lookups by rank pattern. :func:`best_discard`
needs only the best discard: a third table gives, for every suit pattern, the key of its
best card to drop (deadwood change, points, display order in one number), so a hand
whose suits stand alone is four lookups and a minimum; with contested ranks, four
lookups per set choice, and a fresh solve only for a contested rank's card whose
points could beat the best key found (a discard lowers the deadwood by its points at
most).

*General path* (wild cards, or identical cards from several decks). The naturals
become a multiset (5-bit count per face) and the wild cards two counts: wild-rank
cards and jokers, which differ only in points and, when ``all_wild_melds`` is off, in
whether they may sit in an all-wild meld. The search takes the lowest natural and
either leaves it as deadwood or builds the meld in which it is the lowest natural:
a set of its rank (1 to 5 naturals: larger sets split) or a run of its suit (any
subset of that suit's present ranks), each with the fewest wild cards it needs. A
meld also records its *capacity*: how many more wild cards it could take (no limit
for a set without maximum, ``13 - length`` for a run, the larger for a one-natural
meld, which is both). When no natural is left, a leaf decides the wild cards:
those the melds need, those absorbed by spare capacity, those forming all-wild melds
(three or more; only wild-rank cards, in sets up to the maximum, when
``all_wild_melds`` is off) and the cheapest rest left as deadwood at their own points.
States ``(naturals, wilds left, capacity capped at wilds left, wild counts)`` are
memoised. Naturals that cannot belong to any meld (possible to tell only with fewer
than two wild cards) are removed first as pure deadwood.

*Table path* (wild cards or two decks under sets without a maximum, aces low or high
or low: Chicago and Three Thirteen; at most three wild cards, no face three times). A
rank of two naturals or more (three without wild cards) is melded in one set or not at
all; a natural no run of its suit can hold goes into its rank's set whenever there is
one, the others are tried in and out. Each choice leaves four suits whose naturals
only meld in runs, and :class:`~rummyhall.rules.wild_runs.SuitRuns` (one table per ace
mode and card values, filled as suit patterns come) gives each suit's least deadwood
for 0 to 3 wild cards; the wild cards left are shared among the suits at their best.
With one meld or more every wild card finds a place (13 cards at most), so the naturals'
deadwood is the hand's. :func:`discards_at_most` solves the whole hand once: a card
worth less than its deadwood less the limit cannot be the discard, and the few discards
left are settled from the whole hand's set choices less the discard, which are exact for
a natural's (a wild card's kept hand, and a natural whose rank held exactly three
uncontested naturals, are solved alone). The needy bounds below come first on hands of
ten cards or more when the limit is above 0, where they answer sooner. Hands the table
path does not take go to the general path.

*Bounded questions* ("at most ``limit``?", the knocks and going out a game lists at every
turn, :func:`deadwood_at_most` and :func:`discards_at_most`) first take a lower bound,
from two sums and one "or" over the hand (:meth:`_Context.needy`). A *needy* natural
is in no meld of naturals only (no run of three present positions of its suit, no
three naturals of its rank), so any meld holding it holds a wild card: with ``w`` wild
cards at most ``w`` melds hold needy naturals. Each such meld is a set of a rank held
twice or more, a run holding the needy naturals of one window of its suit with as many
positions missing as it has wild cards, or a needy natural alone with two wild cards;
the best groups of each cost, added up for at most ``w`` wild cards (three at most; a
card counted twice only loosens it), bound what the wild cards save, and the needy
naturals' points less that bound the deadwood (:meth:`_Context.cover`; a cruder
bound, ``w`` times the most needy points of one suit or rank, is tried first). A
discard takes away at most the dearest needy natural, or one wild card. Beyond three
wild cards, or with a face held three times, the older bound stands: a natural that no
meld with another natural can hold is deadwood unless two wild cards meld it. Only then
the general search runs, bounded: a natural left unmelded spends its points from the
limit, melds are tried first, the first arrangement within the limit ends it, a bound
found too small for a state is remembered, and a state whose wild cards are all placed
and whose naturals are distinct faces is answered by the fast path's tables. "Some
discard" is one search that may set one natural aside for nothing; only when it
succeeds is each discard searched. Fewer than six cards with nothing unmelded are one
meld, which :func:`meld_kind` checks directly.

Caches. Equal :class:`MeldRules` share one context (at most ``_MAX_CONTEXTS`` = 16;
all are dropped when a 17th arrives) holding the general path's memo and candidate
tables. The fast path's tables are shared by the rules with the same ace mode and card
values: one run-mask table per ace mode (three at most) and at most 16 value tables,
about 0.3 MB each, and as many set tables and discard tables (2**14 entries each, the
discard table built on the first :func:`best_discard`, some 25 ms). The general path's
tables, all rules together, are cleared once they exceed ``_MEMO_LIMIT`` = 200,000
entries (about 30 MB; checked every 16 searches, so the overshoot is a few searches'
states). Worst case, about 45 MB in all, and the
bounds' suit tables of each context (by pattern: points, partners for up to three wild
cards, the runs one wild card completes; filled as patterns come, 2**14 entries at
most each) up to about 5 MB more per context, and the needy bound's tables of runs with
one to three wild cards, shared by ace mode (three at most, 2**14 entries each by wild
count, a few runs an entry: about 25 MB if every pattern came). Nothing in
them depends on a hand or a seat, and results never depend on the caches; nor in the
table path's suit tables (at most ``wild_runs.MAX_ENTRIES`` = 60,000 short tuples each,
about 10 MB, emptied when full; at most 16 tables);
:func:`clear_caches` drops them. Hands are limited to ``_MAX_HAND`` = 20 cards (the
games hold 14 at most): the set choices grow exponentially with the ranks that can
form a set.

Ties are broken deterministically by the search order; the arrangement shown merges
melds of one kind that still form a valid meld together (two touching runs of a suit,
two sets of a rank from several decks). A hand the table path takes (13 cards at most,
three wild cards at most, some natural melded) is arranged without a search
(:meth:`_Context.table_arrangement`): its best set choice, then each suit's runs as its
table entry was reached (``SuitRuns.trace``), the wild cards split among the suits as
the count split them. Other hands go to the general path, which builds an arrangement
from its lowest natural up: the first of its set and run candidates that keeps the
hand's least deadwood (known once, from the table path when it takes the hand), else
that natural as deadwood; the bounded search, bounded by that least deadwood, says
whether a candidate keeps it.

Layoffs (Gin showdown, docs/rules.md 3) are searched exhaustively: for each knocker meld
the family of card subsets the defender can lay off on it in some legal order, then
every disjoint combination, each scored by the fast deadwood of the cards left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Final, TypeVar

from .cards import JOKER_RANK, MAX_COPIES, Card, format_cards, sort_key
from .errors import CardError, IllegalDiscard, InvalidMeld
from .melds import MAX_RUN, AceMode, MeldRules, meld_kind, order_meld, run_span
from .wild_runs import MAX_WILDS, SuitRuns

__all__ = [
    "Arrangement",
    "LayoffResult",
    "best_arrangement",
    "best_discard",
    "best_layoffs",
    "clear_caches",
    "deadwood_at_most",
    "deadwood_points",
    "discard_deadwoods",
    "discards_at_most",
    "knocker_arrangement",
]

_V = TypeVar("_V")

_MAX_CONTEXTS: Final = 16
_MEMO_LIMIT: Final = 200_000
_TRIM_EVERY: Final = 16
_ARRANGEMENT_LIMIT: Final = 1_000  # optimal knocker arrangements compared, at most

_SUIT: Final = 0x3FFE  # positions 1..13 of one suit's 16-bit field
# One bit per suit, same rank: a mask to test a rank's suits with (``m >> r & _SPREAD``).
# A rank mask is spread over the four suits with shifts (``t | t << 16 | t << 32 | t << 48``),
# never by multiplying it by this: CPython's multiplication of large integers checks for
# signals, and in the compiled build (mypyc) the KeyboardInterrupt a Ctrl-C raises there
# is taken for a failed allocation, which aborts the process ("fatal: out of memory").
_SPREAD: Final = 0x0001_0001_0001_0001
_FIELD: Final = 5  # bits per face count in the general path's multiset
_COUNT: Final = (1 << _FIELD) - 1
_SEQUENCES: Final = (tuple, list)
_FACES: Final = (1 << 64) - 1  # the face bits of a scanned hand
_POINTS_AT: Final = 72  # where a scanned hand's points start (the face bits carry at most to 68)
_NO_LIMIT: Final = 31  # "unbounded" capacity; capacities are capped by the wild cards left
_MAX_HAND: Final = 20  # cards per call; the games hold 14 at most (5-bit counts fit too)
_ONE_MELD: Final = 5  # the most cards that cannot hold two melds
_TABLE_CARDS: Final = 13  # the table path is exact up to this many cards
_NO_BOUND: Final = 1 << 30
# The needy bounds come before the table path on hands longer than this, for a limit
# above 0: they answer those sooner. For 0 the table path answers sooner on every hand
# (it settles each natural's discard from the whole hand's set choices).
_BOUNDS_FIRST: Final = 9
_KEPT_WILDS: Final = 3  # the bounds' suit tables are kept for this many wild cards
# By rank: the bits of its four faces' counts in the general path's multiset.
_RANK_FIELDS: Final = tuple(sum(_COUNT << (_FIELD * (t * 16 + r)) for t in range(4))
                            for r in range(16))
# The bits of the general path's multiset that are set where a face is held twice or more.
_TWICE: Final = sum((_COUNT - 1) << (_FIELD * f) for f in range(64))
_COVER_WILDS: Final = 3  # the needy bound (:meth:`_Context.cover`) takes this many at most


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A best arrangement: disjoint valid melds, the deadwood left, and its points."""

    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    points: int

    def __str__(self) -> str:
        parts = [format_cards(meld) for meld in self.melds]
        dead = format_cards(self.deadwood) or "-"
        return f"{' | '.join(parts) or '-'} / deadwood {dead} ({self.points})"


@dataclass(frozen=True, slots=True)
class LayoffResult:
    """The defender's side of a Gin showdown: own melds, layoffs, deadwood left."""

    own_melds: tuple[tuple[Card, ...], ...]
    layoffs: tuple[tuple[Card, int], ...]
    deadwood: tuple[Card, ...]
    points: int

    def __str__(self) -> str:
        own = " | ".join(format_cards(meld) for meld in self.own_melds) or "-"
        lays = " ".join(f"{card}>{index}" for card, index in self.layoffs) or "-"
        dead = format_cards(self.deadwood) or "-"
        return f"{own} / layoffs {lays} / deadwood {dead} ({self.points})"


# --- per-suit pattern helpers (positions 1..13 at bits 1..13, ace high at bit 14) ----


def _low_runs(p: int) -> int:
    """Bits of ``p`` lying in some window of three consecutive set bits."""
    r = p & p >> 1 & p >> 2
    return r | r << 1 | r << 2


def _corner_runs(p: int) -> int:
    """Like :func:`_low_runs`, with positions 13 and 1 adjacent (round the corner)."""
    d = p | p << 13
    r = d & d >> 1 & d >> 2
    x = r | r << 1 | r << 2
    return (x | x >> 13) & _SUIT


def _high(p: int) -> int:
    """The pattern with its ace moved from position 1 to position 14."""
    return (p & ~2) | (p & 2) << 13


_PATTERNS: Final = 1 << 14  # suit patterns have bits 1..13: table index < 2**14


def _run_mask(p: int, mode: AceMode) -> int:
    """The cards of suit pattern ``p`` that lie in some run of ``p`` (either ace place)."""
    if mode == "round_the_corner":
        return _corner_runs(p)
    mask = _low_runs(p)
    if mode == "high_or_low" and p & 2:
        high = _low_runs(_high(p))
        mask |= (high & ~(1 << 14)) | (high >> 13 & 2)
    return mask


_MASK_TABLES: Final[dict[str, list[int]]] = {}


def _mask_table(mode: str) -> list[int]:
    """:func:`_run_mask` of every suit pattern under an ace mode (built once, 2**14 entries).

    Under ``"high_ace"`` (not a rules mode): the runs of the pattern with its ace at 14.
    """
    table = _MASK_TABLES.get(mode)
    if table is None:
        if mode == "high_ace":
            table = [_low_runs(_high(p)) if p & 2 else 0 for p in range(_PATTERNS)]
        else:
            ace_mode: AceMode = "low" if mode == "low" else (
                "high_or_low" if mode == "high_or_low" else "round_the_corner")
            table = [_run_mask(p, ace_mode) for p in range(_PATTERNS)]
        _MASK_TABLES[mode] = table
    return table


_VALUE_TABLES: Final[dict[tuple[str, tuple[int, ...]], tuple[list[int], list[int]]]] = {}


def _value_tables(mode: AceMode, rank_points: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Of every suit pattern: the best run value (the points its runs hold) and the
    deadwood the pattern keeps alone (its points minus that value).

    Shared by the rules with the same ace mode and rank points (at most
    ``_MAX_CONTEXTS`` pairs are kept). Under ``high_or_low`` an ace makes runs either
    low or high, never both: the better of the two.
    """
    key = (mode, rank_points)
    tables = _VALUE_TABLES.get(key)
    if tables is not None:
        return tables
    # The points of a mask of positions 0..15, summed by its two bytes.
    low = [sum(rank_points[i] for i in range(8) if x >> i & 1) for x in range(256)]
    high = [sum(rank_points[8 + i] for i in range(7) if x >> i & 1) for x in range(256)]
    if mode == "high_or_low":
        value = [max(low[a & 255] + high[a >> 8], low[b & 255] + high[b >> 8])
                 for a, b in zip(_mask_table("low"), _mask_table("high_ace"), strict=True)]
    else:
        value = [low[a & 255] + high[a >> 8] for a in _mask_table(mode)]
    dead = [low[p & 255] + high[p >> 8] - v for p, v in enumerate(value)]
    if len(_VALUE_TABLES) >= _MAX_CONTEXTS:
        _VALUE_TABLES.clear()
    _VALUE_TABLES[key] = tables = (value, dead)
    return tables


def _windows(mode: AceMode, t: int) -> Callable[[int], tuple[int, ...]]:
    """The ranks of each run a suit pattern can hold with ``t`` wild cards (rank bits).

    Every window of at most 13 positions with at most ``t`` of them missing (two
    naturals at least for one wild card), the widest from each start; generous like
    :meth:`_Context._wild_runs` (a bound takes them).
    """
    top = 13 if mode == "low" else 14 if mode == "high_or_low" else 26
    least = 2 if t == 1 else 1

    def fill(p: int) -> tuple[int, ...]:
        q = _positions(p, mode)
        found: set[int] = set()
        for lo in range(1, top + 1):
            hi, missing = lo, 0
            while hi <= top and hi - lo < MAX_RUN:
                if not q >> hi & 1:
                    if missing == t:
                        break
                    missing += 1
                hi += 1
            window = q & ((1 << hi) - (1 << lo))
            if window.bit_count() >= least:
                found.add(_ranks_of(window))
        return tuple(sorted(x for x in found if not any(x != y and x & y == x for y in found)))
    return fill


_WINDOW_TABLES: Final[dict[str, list[_Lazy[tuple[int, ...]]]]] = {}


def _window_tables(mode: AceMode) -> list[_Lazy[tuple[int, ...]]]:
    """By wild cards (1..3), the :func:`_windows` of each suit pattern under an ace mode,
    filled as patterns come (shared by every rules of the mode: three modes at most)."""
    tables = _WINDOW_TABLES.get(mode)
    if tables is None:
        tables = _WINDOW_TABLES[mode] = [_Lazy(_windows(mode, t))
                                         for t in range(_COVER_WILDS + 1)]
    return tables


_MAX_TABLES: Final[dict[tuple[int, ...], list[int]]] = {}


def _max_table(rank_points: tuple[int, ...]) -> list[int]:
    """Of every suit pattern: the points of its dearest card (shared like the value tables)."""
    table = _MAX_TABLES.get(rank_points)
    if table is None:
        table = [0] * _PATTERNS
        for r in range(1, 14):  # a pattern's dearest card: its own, or one of its lower bits'
            bit = 1 << r
            for p in range(bit, 2 * bit):
                table[p] = max(table[p - bit], rank_points[r])
        if len(_MAX_TABLES) >= _MAX_CONTEXTS:
            _MAX_TABLES.clear()
        _MAX_TABLES[rank_points] = table
    return table


_SET_TABLES: Final[dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[list[int], list[int]]]] = {}


def _set_tables(rank_points: tuple[int, ...], take: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """By rank pattern (bit ``rank``): the points its sets meld when each rank is held
    three times, and the more they meld when four times (``take``: the most cards of one
    rank sets hold, by how many are held; shared like the value tables)."""
    key = (rank_points, take)
    tables = _SET_TABLES.get(key)
    if tables is None:
        three, four = [0] * _PATTERNS, [0] * _PATTERNS
        for r in range(1, 14):  # a pattern's points: its top rank's and its lower bits'
            bit = 1 << r
            for p in range(bit, 2 * bit):
                three[p] = three[p - bit] + rank_points[r] * take[3]
                four[p] = four[p - bit] + rank_points[r] * (take[4] - take[3])
        if len(_SET_TABLES) >= _MAX_CONTEXTS:
            _SET_TABLES.clear()
        _SET_TABLES[key] = tables = (three, four)
    return tables


# A discard's key (:func:`_drop_table`): its deadwood change from bit _LOSS_AT (plus
# _LOSS_BASE), then 255 less its points from bit 6, then its face: the least key is
# the best discard (least deadwood, then dearest, then first in display order).
_LOSS_AT: Final = 14
_LOSS_BASE: Final = 1 << 14
_POINTS_FIELD: Final = 255  # the most points a card may have for these keys
_NO_DROP: Final = 1 << 30  # the key of an empty suit: above every card's
_DROP_TABLES: Final[dict[tuple[str, tuple[int, ...]], list[int]]] = {}


def _drop_key(loss: int, points: int, face: int) -> int:
    return (_LOSS_BASE + loss) << _LOSS_AT | (_POINTS_FIELD - points) << 6 | face


def _drop_table(mode: AceMode, rank_points: tuple[int, ...]) -> list[int]:
    """By suit pattern: the key of its best card to discard when the suit stands alone
    (:func:`_drop_key` of the rank, with the suit's deadwood change as the loss).

    Built on first use (a few tens of milliseconds) and shared like the value tables.
    Only for card values of 0 to ``_POINTS_FIELD`` points (:meth:`_Context.fast_discard`).
    """
    key = (mode, rank_points)
    table = _DROP_TABLES.get(key)
    if table is None:
        dead = _value_tables(mode, rank_points)[1]
        table = [_NO_DROP] * _PATTERNS
        for r in range(1, 14):
            bit = 1 << r
            tail = (_POINTS_FIELD - rank_points[r]) << 6 | r
            for p in range(bit, _PATTERNS, 2 * bit):  # the patterns holding r: p + low
                for q in range(p, p + bit, 2):
                    table[q] = min(table[q],
                                   (_LOSS_BASE + dead[q ^ bit] - dead[q]) << _LOSS_AT | tail)
        if len(_DROP_TABLES) >= _MAX_CONTEXTS:
            _DROP_TABLES.clear()
        _DROP_TABLES[key] = table
    return table


_SUIT_RUNS: Final[dict[tuple[bool, tuple[int, ...]], SuitRuns]] = {}


def _suit_runs(ace_high: bool, rank_points: tuple[int, ...]) -> SuitRuns:
    """The :class:`SuitRuns` table of an ace mode and card values (shared like the
    value tables)."""
    key = (ace_high, rank_points)
    table = _SUIT_RUNS.get(key)
    if table is None:
        if len(_SUIT_RUNS) >= _MAX_CONTEXTS:
            _SUIT_RUNS.clear()
        table = _SUIT_RUNS[key] = SuitRuns(ace_high, rank_points)
    return table


_PARTNERS: Final[dict[str, tuple[list[list[int]], list[_Lazy[int]]]]] = {}


def _partner_mask(partners: list[int]) -> Callable[[int], int]:
    """A suit pattern's ranks with another rank of it in ``partners`` (by rank) reach."""
    def mask(p: int) -> int:
        return sum(1 << r for r in _bits(p) if p & ~(1 << r) & partners[r])
    return mask


_PATTERN_POINTS: Final[dict[tuple[int, ...], list[int]]] = {}


def _pattern_points(rank_points: tuple[int, ...]) -> list[int]:
    """Of every suit pattern: its points (shared like the value tables)."""
    table = _PATTERN_POINTS.get(rank_points)
    if table is None:
        low = [sum(rank_points[i] for i in range(8) if x >> i & 1) for x in range(256)]
        high = [sum(rank_points[8 + i] for i in range(7) if x >> i & 1) for x in range(256)]
        table = [low[p & 255] + high[p >> 8] for p in range(_PATTERNS)]
        if len(_PATTERN_POINTS) >= _MAX_CONTEXTS:
            _PATTERN_POINTS.clear()
        _PATTERN_POINTS[rank_points] = table
    return table


def _bits(x: int) -> Iterator[int]:
    """Positions of the set bits of ``x``, lowest first."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def _shared_dead(v0: tuple[int, ...], v1: tuple[int, ...], v2: tuple[int, ...],
                 v3: tuple[int, ...], wilds: int) -> int:
    """The least deadwood of four suits by their :class:`SuitRuns` entries, ``wilds``
    wild cards (1 to 3) shared among them (:meth:`_Context.suits_dead`)."""
    base = v0[0] + v1[0] + v2[0] + v3[0]
    # What the wild cards save: the best split of them among the suits (a suit's
    # saving grows with its wild cards: the splits below cover every other).
    ones = (v0[0] - v0[1], v1[0] - v1[1], v2[0] - v2[1], v3[0] - v3[1])
    if wilds == 1:
        return base - max(ones)
    low, second, top = sorted(ones)[1:]
    if wilds == 2:  # both in one suit, or one and one
        return base - max(v0[0] - v0[2], v1[0] - v1[2], v2[0] - v2[2], v3[0] - v3[2],
                          top + second)
    # All three in one suit, two and one, or one, one and one.
    best = max(v0[0] - v0[3], v1[0] - v1[3], v2[0] - v2[3], v3[0] - v3[3],
               top + second + low)
    for v, one in zip((v0, v1, v2, v3), ones, strict=True):
        best = max(best, v[0] - v[2] + (second if one == top else top))
    return base - best


def _entries_dead(entries: list[tuple[int, ...]], wilds: int) -> int:
    """:func:`_shared_dead` of four suits' entries (:meth:`_Context.suit_entries`)."""
    v0, v1, v2, v3 = entries
    if not wilds:
        return v0[0] + v1[0] + v2[0] + v3[0]
    return _shared_dead(v0, v1, v2, v3, wilds)


def _faces(bit_of: Callable[[int], int], hand: Sequence[int]) -> int:
    """The "or" of the bits ``bit_of`` gives the cards of ``hand``: a loop, which the
    compiled build runs on machine integers (``reduce(or_, ...)`` calls back into the
    interpreter for every card)."""
    faces = 0
    for card in hand:
        faces |= bit_of(card)
    return faces


def _stretch(q: int, g: int) -> int:
    """The bits of the stretch of consecutive set bits of ``q`` through bit ``g`` (set)."""
    up = q >> g
    top = g + ((up + 1) & ~up).bit_length() - 1
    low = (~q & ((1 << g) - 1)).bit_length()
    return ((1 << top) - 1) & ~((1 << low) - 1)


def _positions(p: int, mode: AceMode) -> int:
    """A suit pattern's run positions: the ace at 14 too (high or low), or the pattern
    twice, 13 positions apart (round the corner)."""
    if mode == "high_or_low":
        return p | (p & 2) << 13
    if mode == "round_the_corner":
        return p | p << 13
    return p


def _ranks_of(positions: int) -> int:
    """Rank bits of run positions (14 is the ace; 14..26 are round the corner)."""
    ranks = positions & _SUIT
    for pos in _bits(positions >> 14):
        ranks |= 1 << ((pos + 14 - 1) % 13 + 1)
    return ranks


@dataclass(frozen=True, slots=True)
class _Lonely:
    """What :meth:`_Context.unsupported` finds in a hand: masks of faces (bit ``face``)."""

    wilds: int
    lonely: int  # naturals no meld with another natural holds, with all the wild cards
    fewer: int  # the same with one wild card fewer (0 without wild cards)
    naturals: int  # every natural face
    dup: int  # faces held twice or more
    pairs: int  # ranks (bit ``rank``) of which two naturals or more are held


class _Lazy(dict[int, _V]):
    """A lazily filled table: a missing entry is computed by ``fill`` on first use."""

    __slots__ = ("fill",)

    def __init__(self, fill: Callable[[int], _V]) -> None:
        super().__init__()
        self.fill = fill

    def __missing__(self, key: int) -> _V:
        value = self[key] = self.fill(key)
        return value


_SetCands = list[tuple[int, tuple[int, ...], int, int]]  # (delta, faces, wilds, capacity)
_Meld = tuple[tuple[int, ...], int, int]  # (natural faces, wilds needed, capacity)
# (naturals' deadwood, set faces, their second copies, wild cards, suit entries)
_Scored = tuple[int, int, int, int, list[tuple[int, ...]]]


class _Context:
    """Everything the solver derives from one :class:`MeldRules`, with its caches."""

    def __init__(self, rules: MeldRules) -> None:
        self.rules = rules
        by_face = rules.points_by_face
        self.face_points = by_face
        self.rank_points = [by_face[r] for r in range(14)] + [by_face[1]]
        bits: dict[int, int] = {}
        points: dict[int, int] = {}
        for copy in range(MAX_COPIES):
            faces = [JOKER_RANK] + [s * 16 + r for s in range(4) for r in range(1, 14)]
            for face in faces:
                bits[copy * 64 + face] = 1 << face
                points[copy * 64 + face] = by_face[face]
        self.bits = bits  # (the checked scan, :func:`_face_mask`)
        self.bit_of = bits.__getitem__
        self.points_of = points.__getitem__
        # A card's face bit and, from bit _POINTS_AT, its points: one sum scans a hand.
        self.code_value = {code: bit | points[code] << _POINTS_AT
                           for code, bit in bits.items()}.__getitem__
        wild = rules.wild_rank
        self.wild_bits = 1 | ((_SPREAD << wild) if wild else 0)
        # A natural card's face bit (0 for a wild card), and 1 for a wild card: two sums
        # and one "or" profile a hand for the bounds (:meth:`needy`).
        self.natural_bit = {code: 0 if code & 15 in (JOKER_RANK, wild) else bit
                            for code, bit in bits.items()}.__getitem__
        self.wild_one = {code: int(code & 15 in (JOKER_RANK, wild))
                         for code in bits}.__getitem__
        # A natural card's count bit in the general path's multiset (0 for a wild card).
        self.natural_field = {code: 0 if code & 15 in (JOKER_RANK, wild) else
                              1 << (_FIELD * (code & 63)) for code in bits}.__getitem__
        smax = rules.max_set_size
        self.set_sizes = tuple(n for n in (3, 4) if smax == 0 or n <= smax)
        self.rank_options = _Lazy(self._rank_options)
        # Most cards of one rank that sets can hold, by how many are present.
        self.set_take = [max((n for n in self.set_sizes if n <= k), default=0) for k in range(5)]
        self.run_value, self.suit_deadwood = _value_tables(rules.ace_mode,
                                                           tuple(self.rank_points))
        self.run_mask = _mask_table(rules.ace_mode)
        # The fast path's scan: by card code below 256 (four copies; ``bytes`` takes a
        # hand's codes and refuses any other number), a natural's face bit, and 0 for a
        # wild card or a code that is no card. A hand's bits then number its cards only
        # if they are distinct natural faces.
        fast_bits = [0 if code & 15 in (JOKER_RANK, wild) or code & 15 > 13
                     else 1 << (code & 63) for code in range(256)]
        # By the ranks of a hand's sets (bit ``rank``): the points they meld when each
        # such rank is held three times, and the more they meld when four times.
        set_three, set_four = _set_tables(tuple(self.rank_points), tuple(self.set_take))
        # What :func:`deadwood_points` takes, in one attribute: one lookup.
        self.fast = (fast_bits.__getitem__, self.suit_deadwood, self.run_mask,
                     set_three, set_four)
        # :meth:`fast_discard`'s table (:func:`_drop_table`), on first use; none when a
        # card is worth more than its keys hold.
        self.drops: list[int] | None = None
        self.drops_ok = all(0 <= v <= _POINTS_FIELD for v in self.rank_points[1:14])
        self.near_mask = _Lazy(self._near_mask)
        # By wild cards at hand (0..13), then rank: the ranks a run may share with it;
        # and by wild cards at hand, then suit pattern: its ranks with another in reach
        # (kept for up to three wild cards: 2**14 entries at most each). Both depend on
        # the ace mode alone: shared by the rules of one mode.
        shared = _PARTNERS.get(rules.ace_mode)
        if shared is None:
            partners = [[self._run_partners(r, w) for r in range(16)]
                        for w in range(MAX_RUN + 1)]
            shared = _PARTNERS[rules.ace_mode] = (partners, [
                _Lazy(_partner_mask(partners[w])) for w in range(_KEPT_WILDS + 1)])
        self.run_partners, self.partner_masks = shared
        self.pattern_points = _pattern_points(tuple(self.rank_points))
        self.pattern_max = _max_table(tuple(self.rank_points))
        self.wild_runs = _Lazy(self._wild_runs)
        # By suit pattern: its best runs as (face offsets in reading order, their mask),
        # filled as patterns come (the fast path's arrangements).
        self.segments: _Lazy[tuple[tuple[tuple[int, ...], int], ...]] = _Lazy(
            self._segments)
        # By wild cards t (1..3), then suit pattern: the runs t wild cards can make.
        self.windows = _window_tables(rules.ace_mode)
        # Table path (:meth:`table_deadwood`): sets without a maximum, aces low or high
        # or low, every natural worth a point at least.
        self.table_ok = (smax == 0 and rules.ace_mode != "round_the_corner"
                         and min(self.rank_points[1:14]) > 0)
        self.suit_runs = _suit_runs(rules.ace_mode == "high_or_low", tuple(self.rank_points))
        # By suit table key: the fewest wild cards that meld the whole suit in runs
        # (MAX_WILDS + 1: none do), filled as keys come (:func:`_table_out`).
        self.suit_wilds = _Lazy(self._suit_wilds)
        # A natural's face bit and, from bit _POINTS_AT, its points; 1 << 64 for a wild
        # card: one sum profiles a hand for the table path.
        self.table_code = {code: (1 << 64 if code & 15 in (JOKER_RANK, wild)
                                  else bit | points[code] << _POINTS_AT)
                           for code, bit in bits.items()}.__getitem__
        # General path.
        self.memo: dict[int, int] = {}
        self.set_cache: dict[int, _SetCands] = {}
        self.run_cache: dict[int, _SetCands] = {}
        self.leaf_cache: dict[tuple[int, int, int, int], tuple[int, int, int, int]] = {}
        self.recursions: dict[tuple[int, int], Callable[[int, int, int, int], int]] = {}
        # The bounded search: per state, the largest bound known to be too small.
        self.fail_memo: dict[int, int] = {}
        self.bounded_searches: dict[tuple[int, int],
                                    Callable[[int, int, int, int, int], bool]] = {}

    # -- suit tables --------------------------------------------------------------

    def _suit_wilds(self, key: int) -> int:
        entry = self.suit_runs.get(key)
        return next((w for w, dead in enumerate(entry) if not dead), MAX_WILDS + 1)

    def _pattern_points(self, p: int) -> int:
        rp = self.rank_points
        return sum(rp[r] for r in _bits(p))

    def _partner_mask(self, wilds: int) -> Callable[[int], int]:
        return _partner_mask(self.run_partners[min(wilds, MAX_RUN)])

    def partners(self, wilds: int) -> Callable[[int], int]:
        """Of a suit pattern, its ranks that another rank of it can share a run with,
        given ``wilds`` wild cards (none: the runs of three or more it holds)."""
        if not wilds:
            return self.run_mask.__getitem__
        if wilds <= _KEPT_WILDS:
            return self.partner_masks[wilds].__getitem__
        return self._partner_mask(wilds)

    def _run_partners(self, rank: int, wilds: int) -> int:
        """The ranks that fit in one run with ``rank`` and at most ``wilds`` wild cards."""
        if not 1 <= rank <= 13:
            return 0
        return sum(1 << q for q in range(1, 14)
                   if q != rank and max(3, run_span([rank, q], self.rules)) - 2 <= wilds)

    def unsupported(self, hand: Sequence[int]) -> _Lonely:
        """The naturals of ``hand`` that no meld with another natural can hold.

        With all the hand's wild cards, and with one fewer (a wild discarded). Such a
        natural can only be melded with two wild cards or more and no other natural. A
        natural with another can only share a set of its rank (two of them and a wild
        card at least, or three) or a run of its suit with a rank in reach of the wild
        cards (none: a run of three or more naturals, which ``run_mask`` holds).
        """
        m = sum(map(self.bit_of, hand))
        pm = dup = trip = 0
        if m.bit_count() == len(hand):  # no face twice: the sum is the faces
            pm = m & ~self.wild_bits
            wilds = len(hand) - pm.bit_count()
        else:
            wild_rank = self.rules.wild_rank
            wilds = 0
            for card in hand:
                face = card & 63
                if face & 15 in (JOKER_RANK, wild_rank):
                    wilds += 1
                    continue
                bit = 1 << face
                trip |= dup & bit
                dup |= pm & bit
                pm |= bit
        a, b, c, d = pm & _SUIT, pm >> 16 & _SUIT, pm >> 32 & _SUIT, pm >> 48
        da = dup | dup >> 16 | dup >> 32 | dup >> 48
        two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        three = ((a & b & (c | d)) | (c & d & (a | b)) | (da & two)
                 | trip | trip >> 16 | trip >> 32 | trip >> 48) & _SUIT
        pairs = (two | da) & _SUIT
        if not self.set_sizes:
            three = pairs = 0
        masks = []
        for w in (wilds, wilds - 1):
            if w < 0:
                masks.append(0)
                continue
            ranks = pairs if w else three
            partner = self.partners(w)
            masks.append(sum((p & ~partner(p) & ~ranks) << (16 * s)
                             for s, p in enumerate((a, b, c, d)) if p))
        return _Lonely(wilds, masks[0], masks[1], pm, dup, pairs)

    def lonely_points(self, mask: int, dup: int) -> int:
        """The points of the naturals of face ``mask`` (those of ``dup`` held twice)."""
        pts = self.pattern_points
        total = 0
        for m in (mask, mask & dup):
            if m:
                total += (pts[m & _SUIT] + pts[m >> 16 & _SUIT] + pts[m >> 32 & _SUIT]
                          + pts[m >> 48])
        return total

    def lonely_list(self, mask: int, dup: int) -> list[int]:
        """The points of each natural of face ``mask``, dearest first."""
        points = self.face_points
        out = [points[f] for f in _bits(mask)] + [points[f] for f in _bits(mask & dup)]
        out.sort(reverse=True)
        return out

    def wild_cover(self, found: _Lonely) -> int:
        """At most how many points of ``found.fewer`` one meld with one wild card holds.

        Those naturals (no meld of naturals only holds them) can meld only beside a
        wild card: in a set of a rank held twice, or in a run where the wild card fills
        the one position missing next to them (:meth:`_wild_runs`).
        """
        mask, dup = found.fewer, found.dup
        best = 0
        rp = self.rank_points
        for r in _bits(found.pairs & (mask | mask >> 16 | mask >> 32 | mask >> 48)):
            held = mask >> r & _SPREAD
            best = max(best, rp[r] * (held.bit_count() + (held & dup >> r).bit_count()))
        pts = self.pattern_points
        runs = self.wild_runs
        naturals = found.naturals
        for s in range(4):
            lone = mask >> (16 * s) & _SUIT
            if lone:
                for run in runs[naturals >> (16 * s) & _SUIT]:
                    best = max(best, pts[lone & run])
        return best

    def _wild_runs(self, p: int) -> list[int]:
        """The ranks of each run a suit pattern makes with one wild card (as rank bits).

        The wild card fills one missing position, joining the stretches of positions
        held on both sides (three cards at least). Counted generously (an ace at both
        ends, round the corner twice): a bound takes them.
        """
        mode = self.rules.ace_mode
        q = _positions(p, mode)
        top = 13 if mode == "low" else 14 if mode == "high_or_low" else 26
        out = []
        for g in range(1, top + 1):
            if not q >> g & 1:
                run = _stretch(q | 1 << g, g) & ~(1 << g)
                if run.bit_count() >= 2:
                    out.append(_ranks_of(run))
        return out

    def needy(self, hand: Sequence[int]) -> tuple[int, int, int, int, int] | None:
        """The hand's profile for :meth:`cover`: (wild cards, natural faces, faces held
        twice, ranks held twice or more, *needy* faces), or None when a face is held
        three times or more.

        A needy natural is in no meld of naturals only (no run of three present
        positions of its suit, no three naturals of its rank): whatever meld holds it
        holds a wild card. Two sums and one "or" find the faces held twice: the sum of
        the face bits less their "or" is those faces when no face is held three times.
        """
        nb = self.natural_bit
        wilds = sum(map(self.wild_one, hand))
        pm = _faces(nb, hand)
        dup = sum(map(nb, hand)) - pm
        if dup.bit_count() != len(hand) - wilds - pm.bit_count():
            return None
        a, b, c, d = pm & _SUIT, pm >> 16 & _SUIT, pm >> 32 & _SUIT, pm >> 48
        da = (dup | dup >> 16 | dup >> 32 | dup >> 48) & _SUIT
        two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        if self.set_sizes:
            three = ((a & b & (c | d)) | (c & d & (a | b)) | (da & two)) & _SUIT
            pairs = (two | da) & _SUIT
        else:
            three = pairs = 0
        rm = self.run_mask
        runs = rm[a] | rm[b] << 16 | rm[c] << 32 | rm[d] << 48
        return wilds, pm, dup, pairs, pm & ~(runs | three | three << 16 | three << 32
                                             | three << 48)

    def cover(self, pm: int, dup: int, pairs: int, needy: int, wilds: int) -> tuple[int, int]:
        """At most how many points of the ``needy`` naturals ``wilds`` (0..3) wild cards
        meld, and one wild card fewer.

        Each meld holding a needy natural holds a wild card, so at most ``wilds`` melds
        hold them: a set of a rank held twice or more, or a run of one suit, each
        holding the needy naturals of one window of its suit's positions with as many
        positions missing as it has wild cards (:meth:`_windows`), or a needy natural
        alone with two wild cards. The best groups of each cost are added up (the same
        card may be counted twice: an upper bound).
        """
        if not wilds or not needy:
            return 0, 0
        ones = self._one_wild_groups(pm, dup, pairs, needy)
        one = ones[0] if ones else 0
        if wilds == 1:
            return one, 0
        two = max(self._windows_value(pm, dup, needy, 2), self.dearest(needy))
        pair = sum(ones[:2])
        if wilds == 2:
            return max(pair, two), one
        three = self._windows_value(pm, dup, needy, 3)
        return max(sum(ones[:3]), one + two, three, two), max(pair, two)

    def _one_wild_groups(self, pm: int, dup: int, pairs: int, needy: int) -> list[int]:
        """The needy points of each group one wild card can meld, dearest first."""
        pts = self.pattern_points
        rp = self.rank_points
        nd = needy & dup
        out = [rp[r] * ((needy >> r & _SPREAD).bit_count() + (nd >> r & _SPREAD).bit_count())
               for r in _bits((needy | needy >> 16 | needy >> 32 | needy >> 48) & pairs & _SUIT)]
        windows = self.windows[1]
        for s in range(4):
            lone = needy >> (16 * s) & _SUIT
            if lone:
                twice = nd >> (16 * s) & _SUIT
                out.extend(pts[lone & w] + pts[twice & w]
                           for w in windows[pm >> (16 * s) & _SUIT])
        out.sort(reverse=True)
        return out

    def _windows_value(self, pm: int, dup: int, needy: int, t: int) -> int:
        """The most needy points one run with ``t`` wild cards holds."""
        pts = self.pattern_points
        nd = needy & dup
        windows = self.windows[t]
        best = 0
        for s in range(4):
            lone = needy >> (16 * s) & _SUIT
            if lone:
                twice = nd >> (16 * s) & _SUIT
                best = max(best, max((pts[lone & w] + pts[twice & w]
                                      for w in windows[pm >> (16 * s) & _SUIT]), default=0))
        return best

    def group_most(self, dup: int, pairs: int, needy: int) -> int:
        """At least the needy points of any one group :meth:`cover` counts: the most of
        one suit's, or of one rank's held twice or more (a cheap first bound)."""
        pts = self.pattern_points
        nd = needy & dup
        most = max(pts[needy & _SUIT] + pts[nd & _SUIT],
                   pts[needy >> 16 & _SUIT] + pts[nd >> 16 & _SUIT],
                   pts[needy >> 32 & _SUIT] + pts[nd >> 32 & _SUIT],
                   pts[needy >> 48] + pts[nd >> 48])
        ranks = (needy | needy >> 16 | needy >> 32 | needy >> 48) & pairs & _SUIT
        if ranks:
            rp = self.rank_points
            for r in _bits(ranks):
                most = max(most, rp[r] * ((needy >> r & _SPREAD).bit_count()
                                          + (nd >> r & _SPREAD).bit_count()))
        return most

    def dearest(self, mask: int) -> int:
        """The points of the dearest card of face ``mask``."""
        top = self.pattern_max
        return max(top[mask & _SUIT], top[mask >> 16 & _SUIT], top[mask >> 32 & _SUIT],
                   top[mask >> 48])

    def needy_bound(self, hand: Sequence[int], limit: int) -> int | None:
        """A lower bound of the hand's least deadwood: its needy naturals' points less
        what its wild cards can :meth:`cover` (less a cruder bound of that first, when
        the bound then already exceeds ``limit``); None beyond three wild cards or with a
        face held three times (then :meth:`unsupported` bounds it)."""
        found = self.needy(hand)
        if found is None or found[0] > _COVER_WILDS:
            return None
        wilds, pm, dup, pairs, needy = found
        dead = self.lonely_points(needy, dup)
        if dead <= limit:
            return 0
        quick = dead - wilds * self.group_most(dup, pairs, needy)
        if quick > limit:
            return quick
        return dead - self.cover(pm, dup, pairs, needy, wilds)[0]

    def _near_mask(self, p: int) -> int:
        """Ranks of ``p`` that fit in a 3-position window with another rank of ``p``."""
        ranks = list(_bits(p))
        out = 0
        for r, q in combinations(ranks, 2):
            if run_span([r, q], self.rules) <= 3:
                out |= 1 << r | 1 << q
        return out

    def _segments(self, p: int) -> tuple[tuple[tuple[int, ...], int], ...]:
        """:meth:`run_segments` of ``p``, each with the mask of its ranks (``segments``)."""
        return tuple((tuple(seg), sum(1 << r for r in seg)) for seg in self.run_segments(p))

    def run_segments(self, p: int) -> list[list[int]]:
        """The runs (rank lists in reading order) of a suit pattern's best run value.

        Each list is in the order :func:`order_meld` reads a natural run (the ace last in
        Q-K-A, K-A-2 round the corner): :func:`_fast_arrangement` lays them as they are.
        """
        mode = self.rules.ace_mode
        if mode == "round_the_corner":
            mask = _corner_runs(p)
            if mask == _SUIT:
                return [list(range(1, 14))]
            # Start each arc just after an absent position.
            starts = [r for r in _bits(mask) if not mask >> (r - 1 if r > 1 else 13) & 1]
            segments = []
            for start in starts:
                seg, r = [], start
                while mask >> r & 1:
                    seg.append(r)
                    r = r % 13 + 1
                segments.append(seg)
            return segments
        mask = _low_runs(p)
        if mode == "high_or_low" and p & 2:
            high = _low_runs(_high(p))
            if self._pattern_points(high) > self._pattern_points(mask):
                mask = high
        segments, seg = [], []
        for r in range(1, 16):
            if mask >> r & 1:
                seg.append(1 if r == 14 else r)
            elif seg:
                segments.append(seg)
                seg = []
        return segments

    # -- fast path ------------------------------------------------------------------

    def _rank_options(self, key: int) -> list[tuple[int, int]]:
        """The set choices worth trying for one rank: (suits used as a spread, count).

        ``key`` holds the rank's present suits (spread, bits 0/16/32/48) and, shifted left
        by one, those of its cards that could also sit in a run ("contested"). A set
        should take every uncontested card it can: leaving one out only adds deadwood.
        Choices that differ only in which uncontested cards they take are equivalent.
        """
        present = key & _SPREAD
        contested = key >> 1 & _SPREAD
        free = present & ~contested
        n_free = free.bit_count()
        sizes = self.set_sizes
        out: list[tuple[int, int]] = []
        if not any(size <= n_free for size in sizes):
            out.append((0, 0))
        seen = set()
        parts = [1 << (16 * s) for s in range(4) if present >> (16 * s) & 1]
        for size in sizes:
            for sub in combinations(parts, size):
                used = sum(sub)
                if (used & free).bit_count() < min(size, n_free):
                    continue  # swap a contested card for an uncontested one
                if free & ~used and size + 1 in sizes:
                    continue  # add the uncontested card left out
                if (used & contested, size) not in seen:
                    seen.add((used & contested, size))
                    out.append((used, size))
        return out

    def runs_of(self, m: int) -> int:
        """The cards of mask ``m`` that lie in some run of ``m``."""
        rm = self.run_mask
        return (rm[m & _SUIT] | rm[m >> 16 & _SUIT] << 16 | rm[m >> 32 & _SUIT] << 32
                | rm[m >> 48] << 48)

    def free_sets(self, m: int, ranks: int) -> tuple[int, int]:
        """The sets of ``ranks`` none of whose cards can sit in a run: (points, cards used).

        Such a rank is best melded whole (or as much of it as a set holds), whatever the
        rest of the hand does: no run could use its cards, in ``m`` or in any part of it.
        """
        rp = self.rank_points
        take = self.set_take
        saved = used = 0
        for r in _bits(ranks):
            present = m >> r & _SPREAD
            k = present.bit_count()
            saved += rp[r] * take[k]
            while k > take[k]:  # a set holds fewer: leave the highest suits out
                present ^= 1 << (present.bit_length() - 1)
                k -= 1
            used |= present << r
        return saved, used

    def set_choices(self, m: int, ranks: int, runs: int) -> list[tuple[int, int]]:
        """The set choices worth trying for ``ranks`` in mask ``m``: (cards used, their points).

        ``ranks`` has bit ``r`` for ranks present in three suits or more, ``runs`` is
        :meth:`runs_of` ``m``. Every choice left out is matched or beaten by one listed
        (see :meth:`_rank_options`), also in ``m`` minus a card of a rank not in ``ranks``.
        """
        choices = [(0, 0)]
        rp = self.rank_points
        options = self.rank_options
        for r in _bits(ranks):
            present = m >> r & _SPREAD
            subs = options[present | (runs >> r & present) << 1]
            pr = rp[r]
            if len(subs) == 1:
                sub, size = subs[0]
                sub <<= r
                choices = [(used | sub, val + pr * size) for used, val in choices]
            else:
                choices = [(used | sub << r, val + pr * size)
                           for used, val in choices for sub, size in subs]
        return choices

    def split_sets(self, m: int, three: int) -> tuple[int, int, int]:
        """Of the ranks in ``three``, those with a card that could also sit in a run.

        Returns (those "contested" ranks, :meth:`runs_of` ``m``, the cards of ``three``).
        """
        runs = self.runs_of(m)
        set_cards = m & (three | three << 16 | three << 32 | three << 48)
        c = runs & set_cards
        return (c | c >> 16 | c >> 32 | c >> 48) & _SUIT, runs, set_cards

    def fast_best(self, m: int) -> tuple[int, int]:
        """The most points mask ``m`` can meld, and the set cards of one way to do it."""
        rv = self.run_value
        a, b, c, d = m & _SUIT, m >> 16 & _SUIT, m >> 32 & _SUIT, m >> 48
        three = (a & b & (c | d)) | (c & d & (a | b))
        if not three or not self.set_sizes:
            return rv[a] + rv[b] + rv[c] + rv[d], 0
        contested, runs, _ = self.split_sets(m, three)
        saved, used = self.free_sets(m, three & ~contested)
        if not contested:
            return saved + rv[a] + rv[b] + rv[c] + rv[d], used
        best, best_used = -1, 0
        for sub, val in self.set_choices(m, contested, runs):
            y = m ^ sub
            val += rv[y & _SUIT] + rv[y >> 16 & _SUIT] + rv[y >> 32 & _SUIT] + rv[y >> 48]
            if val > best:
                best, best_used = val, sub
        return saved + best, used | best_used

    def fast_saved(self, m: int) -> int:
        """The most points mask ``m`` can meld (no wild card, distinct faces)."""
        rv = self.run_value
        a, b, c, d = m & _SUIT, m >> 16 & _SUIT, m >> 32 & _SUIT, m >> 48
        if (a & b & (c | d)) | (c & d & (a | b)) and self.set_sizes:
            return self.fast_best(m)[0]
        return rv[a] + rv[b] + rv[c] + rv[d]

    def mask_deadwood(self, m: int) -> int:
        """The least deadwood of the naturals of face mask ``m`` (distinct faces)."""
        pts = self.pattern_points
        return (pts[m & _SUIT] + pts[m >> 16 & _SUIT] + pts[m >> 32 & _SUIT] + pts[m >> 48]
                - self.fast_saved(m))

    def settled(self, m: int, room: int) -> bool | None:
        """The bounded search's answer for the naturals of face mask ``m`` and no wild
        card (the fast path's tables): None when a spare discard leaves it open."""
        dead = self.mask_deadwood(m)
        if not room & 1:
            return dead <= room >> 1
        if dead - self.dearest(m) > room >> 1:
            return False  # (a natural set aside takes its points off, at most)
        return None

    def fast_discard(self, m: int) -> tuple[int, int]:
        """The best discard of face mask ``m`` (distinct naturals) in :func:`best_discard`'s
        order: (its face, the deadwood left); (-1, 0) for no card, or for card values
        beyond the keys (:func:`_drop_key`).

        With no rank in three suits the suits stand alone: a discard changes one suit's
        deadwood, and each suit's best card is one lookup (:func:`_drop_table`). When
        such ranks hold no card a run could take, each melds whole whatever is
        discarded (:meth:`free_sets`): the suits without them stand alone, and a card of
        such a rank costs what its set loses. Else :meth:`contested_discard`. The least
        key of the cards is the best discard.
        """
        drops = self.drops
        if drops is None:
            if not self.drops_ok:
                return -1, 0
            drops = self.drops = _drop_table(self.rules.ace_mode, tuple(self.rank_points))
        _, dw, rm, set_three, set_four = self.fast
        a, b, c, d = m & _SUIT, m >> 16 & _SUIT, m >> 32 & _SUIT, m >> 48
        three = (a & b & (c | d)) | (c & d & (a | b))
        dead = dw[a] + dw[b] + dw[c] + dw[d]
        if three:
            contested = (rm[a] | rm[b] | rm[c] | rm[d]) & three
            if contested:
                best = self.contested_discard(m, three, contested, drops)
                return best & 63, (best >> _LOSS_AT) - _LOSS_BASE
            dead -= set_three[three] + set_four[a & b & c & d]
            best = self.set_discard(m, three)
            a, b, c, d = a & ~three, b & ~three, c & ~three, d & ~three
            best = min(best, drops[a], drops[b] + 16, drops[c] + 32, drops[d] + 48)
        else:
            best = min(drops[a], drops[b] + 16, drops[c] + 32, drops[d] + 48)
        if best >= _NO_DROP:
            return -1, 0
        return best & 63, dead + (best >> _LOSS_AT) - _LOSS_BASE

    def contested_discard(self, m: int, three: int, contested: int, drops: list[int]) -> int:
        """:meth:`fast_discard` when some of the ranks ``three`` have a card a run could
        take (``contested``): the least discard key, its loss the deadwood left.

        Each set choice of the contested ranks (:meth:`set_choices`) leaves suits that
        stand alone: one lookup a suit gives its best card under that choice, exact for
        the cards of no set rank (as in :meth:`fast_discards`) and a deadwood reached
        for the others. A card of an uncontested set rank costs what its set loses. A
        contested rank's card is solved anew, unless the hand's deadwood less its
        points already loses to the best key found: no discard saves more than itself.
        """
        rv, rp, pts = self.run_value, self.rank_points, self.pattern_points
        a, b, c, d = m & _SUIT, m >> 16 & _SUIT, m >> 32 & _SUIT, m >> 48
        total = pts[a] + pts[b] + pts[c] + pts[d]
        free_saved, free_used = self.free_sets(m, three & ~contested)
        best = _NO_DROP
        most = -1  # the most points the hand melds
        for used, val in self.set_choices(m, contested, self.runs_of(m)):
            y = m ^ used
            a, b, c, d = y & _SUIT, y >> 16 & _SUIT, y >> 32 & _SUIT, y >> 48
            saved = free_saved + val + rv[a] + rv[b] + rv[c] + rv[d]
            most = max(most, saved)
            y &= ~free_used  # (cards outside every run: the suits' run values stand)
            a, b, c, d = y & _SUIT, y >> 16 & _SUIT, y >> 32 & _SUIT, y >> 48
            best = min(best, (total - saved << _LOSS_AT)
                       + min(drops[a], drops[b] + 16, drops[c] + 32, drops[d] + 48))
        dead = total - most
        best = min(best, self.set_discard(m, three & ~contested) + (dead << _LOSS_AT))
        for r in _bits(contested):
            present = m >> r & _SPREAD
            while present:
                low = present & -present
                face = low.bit_length() - 1 + r
                if _drop_key(dead - rp[r], rp[r], face) < best:
                    left = total - rp[r] - self.fast_saved(m ^ 1 << face)
                    best = min(best, _drop_key(left, rp[r], face))
                present ^= low
        return best

    def set_discard(self, m: int, three: int) -> int:
        """The least discard key (:func:`_drop_key`) among the cards of the ranks
        ``three`` of mask ``m`` when each melds whole: the set's first card in display
        order, its loss the points the set no longer melds, less its own."""
        rp, take = self.rank_points, self.set_take
        best = _NO_DROP
        while three:
            low = three & -three
            r = low.bit_length() - 1
            present = m >> r & _SPREAD
            k = present.bit_count()
            face = (present & -present).bit_length() - 1 + r  # the lowest suit's card
            best = min(best, _drop_key(rp[r] * (take[k] - take[k - 1] - 1), rp[r], face))
            three ^= low
        return best

    def fast_discards(self, hand: Sequence[int], m: int, total: int) -> list[int]:
        """Deadwood of ``hand`` without each of its cards, in hand order (fast path).

        Removing a card changes one suit pattern, so each set choice of the whole hand
        is re-scored with one table lookup (with one choice, the suit's own deadwood
        before and after is the change). A card whose rank can form a set is handled
        apart: if none of its rank's cards can sit in a run, its rank only loses the
        points of the set's shrinking; otherwise the hand without it is solved anew.
        """
        rv, dw, rp = self.run_value, self.suit_deadwood, self.rank_points
        ys = (m & _SUIT, m >> 16 & _SUIT, m >> 32 & _SUIT, m >> 48)
        a, b, c, d = ys
        three = (a & b & (c | d)) | (c & d & (a | b)) if self.set_sizes else 0
        out = []
        if not three:
            dead = dw[a] + dw[b] + dw[c] + dw[d]
            for card in hand:
                p = ys[card >> 4 & 3]
                out.append(dead + dw[p ^ 1 << (card & 15)] - dw[p])
            return out
        contested, runs, set_cards = self.split_sets(m, three)
        free_saved, _ = self.free_sets(m, three & ~contested)
        # Per set choice of the contested ranks: the suit patterns left for runs and
        # the choice's total value.
        rows = []
        saved_all = -1
        for used, val in self.set_choices(m, contested, runs):
            y = m ^ used
            ys = (y & _SUIT, y >> 16 & _SUIT, y >> 32 & _SUIT, y >> 48)
            val += free_saved + rv[ys[0]] + rv[ys[1]] + rv[ys[2]] + rv[ys[3]]
            rows.append((ys, val))
            saved_all = max(saved_all, val)
        dead = total - saved_all
        take = self.set_take
        only = rows[0][0] if len(rows) == 1 else None
        for card in hand:
            bit = 1 << (card & 63)
            rank = card & 15
            if bit & set_cards:
                if contested >> rank & 1:
                    out.append(total - rp[rank] - self.fast_saved(m ^ bit))
                else:
                    count = (m >> rank & _SPREAD).bit_count()
                    out.append(dead - rp[rank] + rp[rank] * (take[count] - take[count - 1]))
            elif only is not None:
                p = only[card >> 4 & 3]
                out.append(dead + dw[p ^ 1 << rank] - dw[p])
            else:
                suit = card >> 4 & 3
                low = 1 << rank
                saved = -1
                for ys, val in rows:
                    p = ys[suit]
                    saved = max(saved, val - rv[p] + rv[p ^ low])
                out.append(total - rp[rank] - saved)
        return out

    # -- table path -----------------------------------------------------------------

    def table_profile(self, hand: Sequence[int]) -> tuple[int, int, int, int] | None:
        """(natural faces, faces held twice, wild cards, naturals' points) of a hand the
        table path takes: at most ``MAX_WILDS`` wild cards, no face three times; else
        None. Two sums and one "or" over the hand."""
        if not self.table_ok:
            return None
        v = sum(map(self.table_code, hand))
        wilds = v >> 64 & 255
        if wilds > MAX_WILDS:
            return None
        pm = _faces(self.natural_bit, hand)
        dup = (v & _FACES) - pm
        if dup.bit_count() != len(hand) - wilds - pm.bit_count():
            return None
        return pm, dup, wilds, v >> _POINTS_AT

    def table_deadwood(self, hand: Sequence[int]) -> int | None:
        """The least deadwood of ``hand`` by the per-suit run tables, or None when the
        table path does not take it (see :meth:`table_profile`).

        Exact for 13 cards or fewer; for more, a lower bound (wild cards beyond a
        meld's 13 places are taken as placed).
        """
        found = self.table_profile(hand)
        if found is None:
            return None
        return self.table_value(hand, *found)

    def table_value(self, hand: Sequence[int], pm: int, dup: int, wilds: int,
                    total: int) -> int:
        """:meth:`table_best`'s least deadwood alone."""
        return self.table_best(hand, pm, dup, wilds, total)[0]

    def table_value_less(self, kept: Sequence[int], pm: int, dup: int, *, face: int,
                         wilds: int, total: int) -> int:
        """:meth:`table_value` of ``kept``, a hand of naturals ``pm`` (``dup`` twice,
        ``total`` points) and ``wilds`` wild cards less one natural of ``face``."""
        bit = 1 << face
        total -= self.face_points[face]
        if dup & bit:
            return self.table_value(kept, pm, dup ^ bit, wilds, total)
        return self.table_value(kept, pm ^ bit, dup, wilds, total)

    def table_best(self, hand: Sequence[int], pm: int, dup: int, wilds: int,
                   total: int) -> tuple[int, tuple[int, int, int]]:
        """The least deadwood of the naturals ``pm`` (``dup`` held twice, ``total``
        points in all) and ``wilds`` wild cards (sets without a maximum).

        Sets go by rank: a rank of two naturals or more (three without wild cards) is
        melded in one set or not at all (two sets of one rank would do better as one;
        one natural with two wild cards is a run of the suit tables). A natural no run
        of its suit can hold with the wild cards at hand ("uncontested") goes into its
        rank's set whenever there is one; the others are tried in and out. Each choice
        leaves four suits to :class:`SuitRuns`, the wild cards left shared among them.
        Every natural is worth a point: when nothing is melded there is no meld to take
        the wild cards, and they are left to :meth:`leaf`; otherwise they all find a
        place (no meld exceeds 13 cards in a hand of 13). Returns the deadwood and the
        best set choice (faces taken, second copies taken, wild cards needed).
        """
        ranks, suits = self.set_ranks(pm, dup, wilds)
        suits_dead = self.suits_dead
        plan = (0, 0, 0)
        if not ranks:
            best = suits_dead(pm, dup, wilds)
        else:
            best = total
            for rm1, rm2, cost in self.set_plans(pm, dup, wilds, ranks, suits)[0]:
                dead = suits_dead(pm & ~rm1, dup & ~rm2, wilds - cost)
                if dead < best:
                    best, plan = dead, (rm1, rm2, cost)
        if best < total or not wilds:
            return best, plan
        return total + self.wild_leaf(hand, wilds), plan

    def wild_leaf(self, hand: Sequence[int], wilds: int) -> int:
        """The deadwood of ``wilds`` wild cards (those of ``hand``) when nothing else
        is melded: :meth:`leaf`'s all-wild melds and the cheapest rest unmelded."""
        jokers = sum(1 for card in hand if not card & 15)
        return self.leaf(wilds - jokers, jokers, 0, 0)[0]

    @staticmethod
    def set_ranks(pm: int, dup: int, wilds: int) -> tuple[int, tuple[int, int, int, int]]:
        """The ranks :meth:`table_best` tries sets of (bit ``rank``), and the four suits'
        natural patterns."""
        a, b, c, d = pm & _SUIT, pm >> 16 & _SUIT, pm >> 32 & _SUIT, pm >> 48 & _SUIT
        da = (dup | dup >> 16 | dup >> 32 | dup >> 48) & _SUIT
        two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        if wilds:
            return (two | da) & _SUIT, (a, b, c, d)
        return ((a & b & (c | d)) | (c & d & (a | b)) | (da & two)) & _SUIT, (a, b, c, d)

    def set_plans(self, pm: int, dup: int, wilds: int, ranks: int,
                  suits: tuple[int, int, int, int]) -> tuple[list[tuple[int, int, int]], int]:
        """The set choices worth trying for ``ranks``: (faces taken, faces whose second
        copy is taken, wild cards needed), "no set at all" first; and the faces of the
        ranks whose uncontested naturals are exactly three (their "no set" is not tried,
        but it may be once one of them is gone: see :func:`_table_discards`)."""
        a, b, c, d = suits
        if wilds:
            near = self.partner_masks[wilds]
            contested_all = near[a] | near[b] << 16 | near[c] << 32 | near[d] << 48
        else:
            contested_all = self.runs_of(pm)
        plans = [(0, 0, 0)]
        fragile = 0
        for r in _bits(ranks):
            present = pm >> r & _SPREAD
            twice = dup >> r & _SPREAD
            contested = contested_all >> r & present
            free = present & ~contested
            if free.bit_count() + (free & twice).bit_count() == 3:
                fragile |= free << r
            options = _set_options(r, present, twice, contested, wilds)
            if len(options) == 1 and not options[0][2]:
                o1, o2, _ = options[0]
                plans = [(p1 | o1, p2 | o2, pc) for p1, p2, pc in plans]
            else:
                plans = [(p1 | o1, p2 | o2, pc + oc) for p1, p2, pc in plans
                         for o1, o2, oc in options if pc + oc <= wilds]
        return plans, fragile

    def suits_dead(self, m1: int, m2: int, wilds: int) -> int:
        """The least deadwood of four suits' naturals (``m1``, ``m2`` held twice) in
        runs only, ``wilds`` wild cards shared among them (:class:`SuitRuns`)."""
        return _entries_dead(self.suit_entries(m1, m2), wilds)

    def suit_entries(self, m1: int, m2: int) -> list[tuple[int, ...]]:
        """The four suits' :class:`SuitRuns` entries of naturals ``m1`` (``m2`` held
        twice), for :func:`_entries_dead`."""
        runs = self.suit_runs
        table = runs.table
        k0 = m1 & _SUIT | (m2 & _SUIT) << 16
        k1 = m1 >> 16 & _SUIT | (m2 >> 16 & _SUIT) << 16
        k2 = m1 >> 32 & _SUIT | (m2 >> 32 & _SUIT) << 16
        k3 = m1 >> 48 & _SUIT | (m2 >> 48 & _SUIT) << 16
        return [table.get(k0) or runs.get(k0), table.get(k1) or runs.get(k1),
                table.get(k2) or runs.get(k2), table.get(k3) or runs.get(k3)]

    def entries_less(self, entries: list[tuple[int, ...]], m1: int, m2: int,
                     face: int) -> list[tuple[int, ...]]:
        """:meth:`suit_entries` of ``m1``, ``m2`` less one natural of ``face`` (a copy
        they hold), from their ``entries``: only that suit's is looked up again."""
        shift = face & 48
        rank = face & 15
        k = m1 >> shift & _SUIT | (m2 >> shift & _SUIT) << 16
        k ^= 1 << (rank + 16) if m2 >> face & 1 else 1 << rank
        runs = self.suit_runs
        out = list(entries)
        out[shift >> 4] = runs.table.get(k) or runs.get(k)
        return out

    # -- general path ---------------------------------------------------------------

    def classify(self, hand: Sequence[int]) -> tuple[int, int, list[int], list[int], list[int]]:
        """Split a hand for the general path.

        Returns the natural multiset (5-bit count per face), the presence mask of its
        faces, the wild-rank cards, the jokers, and the naturals that no meld can hold.
        """
        if len(set(hand)) != len(hand):
            raise CardError(f"a card appears twice in {format_cards(hand)}")
        wild_rank = self.rules.wild_rank
        nb = self.natural_bit
        pm = _faces(nb, hand)
        n = sum(map(self.natural_field, hand))
        wilds = [c for c in hand if c & 15 == wild_rank] if wild_rank else []
        jokers = [c for c in hand if not c & 15]
        nwild = len(wilds) + len(jokers)
        dead: list[int] = []
        if nwild <= 1:
            naturals = [c for c in hand if nb(c)]
            keep = 0
            if self.set_sizes:
                need = 3 - nwild
                by_rank = [0] * 16
                for card in naturals:
                    by_rank[card & 15] += 1
                for r, count in enumerate(by_rank):
                    if count >= need:
                        keep |= (pm >> r & _SPREAD) << r
            table = self.run_mask if nwild == 0 else self.near_mask
            for s in range(4):
                p = pm >> (16 * s) & _SUIT
                if p:
                    keep |= table[p] << (16 * s)
                    if nwild:
                        keep |= self.run_mask[p] << (16 * s)
            dead = [card for card in naturals if not keep >> (card & 63) & 1]
            for card in dead:
                face = card & 63
                n -= 1 << (_FIELD * face)
                if not n >> (_FIELD * face) & _COUNT:
                    pm ^= 1 << face
        return n, pm, wilds, jokers, dead

    def cache_size(self) -> int:
        """Entries held by the general path's caches."""
        return (len(self.memo) + len(self.set_cache) + len(self.run_cache)
                + len(self.leaf_cache) + len(self.fail_memo))

    def clear_general(self) -> None:
        """Drop the general path's caches (its closures keep working: they share the memo)."""
        for cache in (self.memo, self.set_cache, self.run_cache, self.leaf_cache,
                      self.fail_memo):
            cache.clear()

    def set_candidates(self, n: int, rank: int, suit: int, w: int) -> _SetCands:
        """Sets whose lowest natural is the face (``suit``, ``rank``), using <= w wilds."""
        # The key: the counts of the rank's faces (those of the suits below are 0: the
        # face is the lowest natural) and the wild cards.
        key = (n & _RANK_FIELDS[rank]) << _FIELD | w
        found = self.set_cache.get(key)
        if found is not None:
            return found
        counts = tuple(n >> (_FIELD * (t * 16 + rank)) & _COUNT for t in range(suit, 4))
        smax = self.rules.max_set_size
        out: _SetCands = []
        ranges = [range(1, counts[0] + 1)] + [range(c + 1) for c in counts[1:]]
        for takes in product(*ranges):
            size = sum(takes)
            if size > 5 or (smax and size > smax):
                continue  # sets of six or more naturals split into two sets
            need = max(0, 3 - size)
            if need > w or (smax and size + need > smax):
                continue
            capacity = smax - size - need if smax else _NO_LIMIT
            if size == 1:
                capacity = max(capacity, MAX_RUN - 3)  # one natural and wilds: also a run
            delta = 0
            faces = []
            for t, take in enumerate(takes):
                if take:
                    face = (suit + t) * 16 + rank
                    delta += take << (_FIELD * face)
                    faces.append(face)
            out.append((delta, tuple(faces), need, capacity))
        self.set_cache[key] = out
        return out

    def run_candidates(self, pm: int, suit: int, w: int) -> _SetCands:
        """Runs (two naturals or more) whose lowest natural is the suit's lowest present."""
        p = pm >> (16 * suit) & _SUIT
        key = (p << 2 | suit) << _FIELD | w
        found = self.run_cache.get(key)
        if found is not None:
            return found
        out: _SetCands = []
        low = p & -p
        first = low.bit_length() - 1
        rest = p ^ low
        sub = rest
        while sub:
            ranks = [first, *_bits(sub)]
            length = max(3, run_span(ranks, self.rules))
            need = length - len(ranks)
            if length <= MAX_RUN and need <= w:
                faces = tuple(suit * 16 + r for r in ranks)
                delta = sum(1 << (_FIELD * f) for f in faces)
                out.append((delta, faces, need, MAX_RUN - length))
            sub = (sub - 1) & rest
        out.sort(key=lambda cand: (len(cand[1]), cand[1]))
        self.run_cache[key] = out
        return out

    def _groupable(self, g: int) -> bool:
        """Can ``g`` leftover wild cards form all-wild melds (not counting jokers' rule)?"""
        if g == 0:
            return True
        if g < 3:
            return False
        smax = self.rules.max_set_size
        if self.rules.all_wild_melds or smax == 0:
            return True
        parts = -(-g // smax)
        return 3 * parts <= g

    def leaf(self, a: int, j: int, need: int, capacity: int) -> tuple[int, int, int, int]:
        """Place the wild cards once the naturals are settled.

        ``a`` wild-rank cards and ``j`` jokers; the melds need ``need`` of them and can
        absorb ``capacity`` more. Returns (deadwood points, jokers left unmelded,
        wild-rank cards left unmelded, wild cards in all-wild melds).
        """
        key = (a, j, need, capacity)
        found = self.leaf_cache.get(key)
        if found is not None:
            return found
        rules = self.rules
        pj = self.face_points[JOKER_RANK]
        pa = self.rank_points[rules.wild_rank] if rules.wild_rank else 0
        best: tuple[int, int, int, int] | None = None
        for x in range(j + 1):
            for y in range(a + 1):
                placed = j - x + a - y
                if placed < need:
                    continue
                spare = placed - need
                pool = placed if rules.all_wild_melds else a - y
                for g in range(max(0, spare - capacity), min(spare, pool) + 1):
                    if self._groupable(g):
                        cand = (x * pj + y * pa, g, x, y)
                        if best is None or cand < best:
                            best = cand
                        break
        assert best is not None  # leaving every spare wild unmelded is always possible
        cost, g, x, y = best
        self.leaf_cache[key] = result = (cost, x, y, g)
        return result

    def recursion(self, a: int, j: int) -> Callable[[int, int, int, int], int]:
        """The memoised search ``rec(naturals, presence, wilds left, capacity)``."""
        found = self.recursions.get((a, j))
        if found is not None:
            return found
        total_wilds = a + j
        tag = a << _FIELD | j
        memo = self.memo
        fpts = self.face_points
        mask_deadwood = self.mask_deadwood
        leaf = self.leaf
        set_cands = self.set_candidates
        run_cands = self.run_candidates

        def rec(n: int, pm: int, w: int, cap: int) -> int:
            if not n:
                return leaf(a, j, total_wilds - w, cap)[0]
            if not w and not n & _TWICE:  # every wild card placed, no face twice
                return mask_deadwood(pm)
            key = (((n << _FIELD | w) << _FIELD | cap) << (2 * _FIELD)) | tag
            value = memo.get(key)
            if value is not None:
                return value
            low = n & -n
            face = (low.bit_length() - 1) // _FIELD
            shift = _FIELD * face
            n1 = n - (1 << shift)
            best = fpts[face] + rec(n1, pm if n1 >> shift & _COUNT else pm ^ 1 << face, w, cap)
            suit = face >> 4
            for cands in (set_cands(n, face & 15, suit, w), run_cands(pm, suit, w)):
                for delta, faces, need, capacity in cands:
                    n2 = n - delta
                    pm2 = pm
                    for f in faces:
                        if not n2 >> (_FIELD * f) & _COUNT:
                            pm2 ^= 1 << f
                    w2 = w - need
                    best = min(best, rec(n2, pm2, w2, min(cap + capacity, w2)))
            memo[key] = best
            return best

        self.recursions[(a, j)] = rec
        return rec

    def general_deadwood(self, hand: Sequence[int], limit: int | None = None) -> int:
        """Least deadwood of a hand with wild or identical cards.

        With ``limit``, a count above it may be returned as soon as it is known to
        exceed it: the naturals no meld can hold are counted before the search.
        """
        if len(hand) <= _TABLE_CARDS and (found := self.table_profile(hand)) is not None:
            if len(set(hand)) != len(hand):
                raise CardError(f"a card appears twice in {format_cards(hand)}")
            return self.table_value(hand, *found)
        n, pm, wilds, jokers, dead = self.classify(hand)
        points = self.rules.points
        certain = sum(points(c) for c in dead)
        if limit is not None and certain > limit:
            return certain
        _trim_caches()
        rec = self.recursion(len(wilds), len(jokers))
        return certain + rec(n, pm, len(wilds) + len(jokers), 0)

    def general_at_most(self, hand: Sequence[int], limit: int, *, spare: bool = False) -> bool:
        """``general_deadwood(hand) <= limit``, by a search bounded by ``limit``.

        The search of :meth:`recursion`, but each natural left as deadwood spends its
        points from what ``limit`` allows, melds are tried first and the first
        arrangement within the bound ends it: a small bound leaves few branches. A
        state's exact value, when the full search knows it, answers at once; a bound
        found too small for a state is remembered (``fail_memo``: the largest such).

        With ``spare``: whether the hand without one of its naturals (some discard)
        keeps at most ``limit``; the search sets one natural aside for nothing.
        """
        n, pm, wilds, jokers, dead = self.classify(hand)
        points = self.face_points
        budget = limit - sum(points[c & 63] for c in dead)
        fits = self.bounded(len(wilds), len(jokers))
        w = len(wilds) + len(jokers)
        _trim_caches()
        if spare and dead:  # the spare natural is one no meld holds: the dearest
            wider = budget + max(points[c & 63] for c in dead)
            if wider >= 0 and fits(n, pm, w, 0, 2 * wider):
                return True
        return budget >= 0 and fits(n, pm, w, 0, 2 * budget + spare)

    def bounded(self, a: int, j: int) -> Callable[[int, int, int, int, int], bool]:
        """The search ``fits(naturals, presence, wilds left, capacity, room)``: room is
        the points allowed unmelded times two, plus one for a spare discard."""
        found = self.bounded_searches.get((a, j))
        if found is not None:
            return found
        total_wilds = a + j
        tag = a << _FIELD | j
        memo, fails = self.memo, self.fail_memo
        fpts = self.face_points
        settled = self.settled
        leaf = self.leaf
        set_cands = self.set_candidates
        run_cands = self.run_candidates

        def fits(n: int, pm: int, w: int, cap: int, room: int) -> bool:
            # room: the points still allowed unmelded, times two, plus one while a
            # natural may still be set aside for nothing (the spare discard).
            if not n:
                return not room & 1 and leaf(a, j, total_wilds - w, cap)[0] <= room >> 1
            if not w and not n & _TWICE and (known := settled(pm, room)) is not None:
                return known
            key = (((n << _FIELD | w) << _FIELD | cap) << (2 * _FIELD)) | tag
            if not room & 1:
                value = memo.get(key)
                if value is not None:
                    return value <= room >> 1
            key = key << 1 | room & 1
            if fails.get(key, -1) >= room:
                return False
            low = n & -n
            face = (low.bit_length() - 1) // _FIELD
            suit = face >> 4
            for cands in (set_cands(n, face & 15, suit, w), run_cands(pm, suit, w)):
                for delta, faces, need, capacity in cands:
                    n2 = n - delta
                    pm2 = pm
                    for f in faces:
                        if not n2 >> (_FIELD * f) & _COUNT:
                            pm2 ^= 1 << f
                    w2 = w - need
                    if fits(n2, pm2, w2, min(cap + capacity, w2), room):
                        return True
            # The lowest natural unmelded, or set aside.
            shift = _FIELD * face
            n1 = n - (1 << shift)
            pm1 = pm if n1 >> shift & _COUNT else pm ^ 1 << face
            spent = 2 * fpts[face]
            if (room & 1 and fits(n1, pm1, w, cap, room - 1)) or (
                    spent <= room and fits(n1, pm1, w, cap, room - spent)):
                return True
            fails[key] = room
            return False

        self.bounded_searches[(a, j)] = fits
        return fits

    def general_arrangement(self, hand: Sequence[int]) -> tuple[list[list[Card]], list[Card]]:
        """A best arrangement (melds, deadwood) of a hand with wild or identical cards.

        Built meld by meld from the lowest natural: the first of its set and run
        candidates that keeps the least deadwood, else that natural stays deadwood.
        The least deadwood (``target``) is known once, from the table path when it takes
        the hand: a candidate keeps it exactly when its remaining cards keep at most it
        (none keeps less), which the search bounded by it (:meth:`bounded`) answers
        sooner than the full search's value of each. The same arrangement either way.
        """
        n, pm, wilds, jokers, dead = self.classify(hand)
        _trim_caches()
        a, j = len(wilds), len(jokers)
        fits = self.bounded(a, j)
        w, cap = a + j, 0
        fpts = self.face_points
        if len(hand) <= _TABLE_CARDS and (found := self.table_profile(hand)) is not None:
            target = self.table_value(hand, *found) - sum(fpts[c & 63] for c in dead)
        else:
            target = self.recursion(a, j)(n, pm, w, cap)
        plan: list[_Meld] = []
        dead_faces: list[int] = []
        while n:
            face = ((n & -n).bit_length() - 1) // _FIELD
            suit = face >> 4
            step: tuple[int, int, int, int, _Meld | None] | None = None
            for cands in (self.set_candidates(n, face & 15, suit, w),
                          self.run_candidates(pm, suit, w)):
                for delta, faces, need, capacity in cands:
                    n2 = n - delta
                    pm2 = pm
                    for f in faces:
                        if not n2 >> (_FIELD * f) & _COUNT:
                            pm2 ^= 1 << f
                    w2 = w - need
                    cap2 = min(cap + capacity, w2)
                    if fits(n2, pm2, w2, cap2, 2 * target):
                        natural = tuple(f for f in faces
                                        for _ in range(delta >> (_FIELD * f) & _COUNT))
                        step = (n2, pm2, w2, cap2, (natural, need, capacity))
                        break
                if step is not None:
                    break
            if step is None:  # the lowest natural stays deadwood
                shift = _FIELD * face
                n2 = n - (1 << shift)
                step = (n2, pm if n2 >> shift & _COUNT else pm ^ 1 << face, w, cap, None)
                dead_faces.append(face)
                target -= fpts[face]
            n, pm, w, cap, meld = step
            if meld is not None:
                plan.append(meld)
        return self._place(hand, plan, dead_faces=dead_faces, wilds=wilds, jokers=jokers,
                           dead=dead, need=a + j - w, capacity=cap)

    def table_arrangement(self, hand: Sequence[int]
                          ) -> tuple[list[list[Card]], list[Card]] | None:
        """A best arrangement (melds, deadwood) of a hand the table path takes (13
        cards at most: :meth:`table_profile`); None when it does not, or when the hand
        holds wild cards and no natural card is melded (the wild cards' own melds are
        the general path's). Raises :class:`CardError` on a card held twice.

        :meth:`table_best`'s set choice, then each suit's runs as its table entry was
        reached (:meth:`SuitRuns.trace`), with the wild cards split among the suits as
        :meth:`_suit_split` says. Wild cards no meld needs go to the first set, or else
        to the first run (with 13 cards at most, a meld beside them has room: every
        natural is worth a point, so they never stay unmelded beside a meld)."""
        if len(hand) > _TABLE_CARDS:
            return None
        found = self.table_profile(hand)
        if found is None:
            return None
        if len(set(hand)) != len(hand):
            raise CardError(f"a card appears twice in {format_cards(hand)}")
        pm, dup, wilds, total = found
        best, (rm1, rm2, cost) = self.table_best(hand, pm, dup, wilds, total)
        if best >= total and wilds:
            return None  # nothing natural melded: the wild cards' own melds (the leaf)
        wild_one = self.wild_one
        spare: list[Card] = []
        by_face: dict[int, list[Card]] = {}
        for card in sorted(hand):
            if wild_one(card):
                spare.append(Card(card))
            else:
                by_face.setdefault(card & 63, []).append(Card(card))
        sets: list[tuple[list[Card], int]] = []
        if rm1 | rm2:
            for r in _bits(_rank_bits(rm1 | rm2)):
                meld = [by_face[f].pop(0) for f in (r, r + 16, r + 32, r + 48)
                        for taken in (rm1, rm2) if taken >> f & 1]
                sets.append((meld, max(0, 3 - len(meld))))
        runs: list[tuple[list[Card], int]] = []
        deadwood: list[Card] = []
        left1, left2 = pm & ~rm1, dup & ~rm2
        trace = self.suit_runs.trace
        split = self._suit_split(left1, left2, wilds - cost)
        for shift, w in zip((0, 16, 32, 48), split, strict=True):
            key = left1 >> shift & _SUIT | (left2 >> shift & _SUIT) << 16
            if not key:
                continue
            suit_runs, dead, _ = trace(key, w)
            for positions, need in suit_runs:
                runs.append(([by_face[shift + (1 if p == 14 else p)].pop(0)
                              for p in positions], need))
            deadwood += [by_face[shift + r].pop(0) for r in dead]
        melds: list[list[Card]] = []
        for meld, need in sets + runs:
            melds.append(meld + spare[:need])
            del spare[:need]
        if spare:
            melds[0] += spare  # (the sets come first)
        return melds, deadwood

    def _suit_split(self, m1: int, m2: int, wilds: int) -> tuple[int, int, int, int]:
        """A split of ``wilds`` wild cards among the four suits of naturals ``m1``
        (``m2`` held twice) that reaches :meth:`suits_dead`'s least deadwood: the first
        in the order of the wild cards of the first suit, then the second, then the
        third (the fourth takes the rest)."""
        if not wilds:
            return 0, 0, 0, 0
        e0, e1, e2, e3 = self.suit_entries(m1, m2)
        best, split = _NO_BOUND, (0, 0, 0, 0)
        for w0 in range(wilds + 1):
            for w1 in range(wilds - w0 + 1):
                for w2 in range(wilds - w0 - w1 + 1):
                    w3 = wilds - w0 - w1 - w2
                    dead = e0[w0] + e1[w1] + e2[w2] + e3[w3]
                    if dead < best:
                        best, split = dead, (w0, w1, w2, w3)
        return split

    def _place(self, hand: Sequence[int], plan: list[_Meld], *, dead_faces: list[int],
               wilds: list[int], jokers: list[int], dead: list[int], need: int,
               capacity: int) -> tuple[list[list[Card]], list[Card]]:
        """Turn a plan over faces and wild counts into physical cards."""
        by_face: dict[int, list[Card]] = {}
        for card in sorted(hand):
            by_face.setdefault(card & 63, []).append(Card(card))
        _, x, y, g = self.leaf(len(wilds), len(jokers), need, capacity)
        wild_cards = [Card(c) for c in sorted(wilds)]
        joker_cards = [Card(c) for c in sorted(jokers)]
        deadwood = [Card(c) for c in dead]
        deadwood += [by_face[f].pop(0) for f in dead_faces]
        deadwood += joker_cards[len(joker_cards) - x:] + wild_cards[len(wild_cards) - y:]
        joker_cards = joker_cards[:len(joker_cards) - x]
        wild_cards = wild_cards[:len(wild_cards) - y]
        groups: list[list[Card]] = []
        if g:
            group_pool = wild_cards + joker_cards
            grouped, rest = group_pool[:g], group_pool[g:]
            wild_cards = [c for c in rest if c in wild_cards]
            joker_cards = [c for c in rest if c in joker_cards]
            smax = self.rules.max_set_size
            parts = 1 if smax == 0 or self.rules.all_wild_melds else -(-g // smax)
            for i in range(parts):
                groups.append(grouped[i * g // parts:(i + 1) * g // parts])
        pool = joker_cards + wild_cards
        melds: list[list[Card]] = []
        for natural, wanted, _ in plan:
            melds.append([by_face[f].pop(0) for f in natural] + pool[:wanted])
            pool = pool[wanted:]
        for meld, (_, _, room) in zip(melds, plan, strict=True):
            take = min(room, len(pool))
            meld += pool[:take]
            pool = pool[take:]
        assert not pool, "the leaf placed every wild card"
        return melds + groups, deadwood


class _Registry:
    """The contexts by rules, and the last one used (most calls repeat the rules)."""

    __slots__ = ("contexts", "last", "searches")

    def __init__(self) -> None:
        rules = MeldRules()
        self.last = (rules, _Context(rules))
        self.contexts: dict[MeldRules, _Context] = {rules: self.last[1]}
        self.searches = 0


def _trim_caches() -> None:
    """Keep the general path's caches, all rules together, near ``_MEMO_LIMIT`` entries.

    Summing the sizes costs a little, so it happens every ``_TRIM_EVERY`` searches.
    """
    _REGISTRY.searches += 1
    if _REGISTRY.searches % _TRIM_EVERY:
        return
    contexts = [*_REGISTRY.contexts.values(), _REGISTRY.last[1]]
    if sum(ctx.cache_size() for ctx in contexts) > _MEMO_LIMIT:
        for ctx in contexts:
            ctx.clear_general()


def clear_caches() -> None:
    """Drop every cache of the solver (results never depend on them; for benchmarks).

    The fast path's pattern tables stay: they hold no result of a hand.
    """
    _REGISTRY.contexts.clear()
    rules = MeldRules()
    _REGISTRY.last = (rules, _Context(rules))
    _REGISTRY.contexts[rules] = _REGISTRY.last[1]


_REGISTRY: Final = _Registry()


def _context(rules: MeldRules) -> _Context:
    last = _REGISTRY.last
    if last[0] is rules:
        return last[1]
    ctx = _REGISTRY.contexts.get(rules)
    if ctx is None:
        if len(_REGISTRY.contexts) >= _MAX_CONTEXTS:
            _REGISTRY.contexts.clear()
        ctx = _REGISTRY.contexts[rules] = _Context(rules)
    _REGISTRY.last = (rules, ctx)
    return ctx


def _scan(ctx: _Context, hand: Sequence[int]) -> tuple[int, int]:
    """The hand's face mask and total points; raises :class:`CardError` on a non-card.

    Identical faces carry into other bits: :func:`_is_fast` then fails. Raises
    ``ValueError`` beyond ``_MAX_HAND`` cards: the set choices grow exponentially with
    the ranks that can form a set (a whole deck would have 6**13 of them).
    """
    if len(hand) > _MAX_HAND:
        raise ValueError(f"the meld solver takes at most {_MAX_HAND} cards, got {len(hand)}")
    try:
        v = sum(map(ctx.code_value, hand))
    except KeyError as exc:
        raise CardError(f"not a card code: {exc.args[0]!r}") from None
    return v & _FACES, v >> _POINTS_AT


def _is_fast(ctx: _Context, hand: Sequence[int], m: int) -> bool:
    return m.bit_count() == len(hand) and not m & ctx.wild_bits


# --- arrangements ----------------------------------------------------------------------


def deadwood_points(cards: Iterable[int], rules: MeldRules) -> int:
    """The least deadwood count of ``cards`` (docs/rules.md 1), without building melds.

    Raises :class:`CardError` for a number that is not a card or a repeated card.

    >>> from rummyhall.rules.cards import parse_cards
    >>> deadwood_points(parse_cards("4h 5h 6h 7h 7s 7d 8c 9c 10c 3s"), MeldRules())
    3
    """
    # The fast path inline: bots and the games call this for nearly every decision, and
    # a random hand's answer is a few table lookups, so the call's own steps count.
    last = _REGISTRY.last
    ctx = last[1] if last[0] is rules else _context(rules)
    hand = cards if isinstance(cards, _SEQUENCES) else tuple(cards)
    n = len(hand)
    if n > _MAX_HAND:
        raise ValueError(f"the meld solver takes at most {_MAX_HAND} cards, got {n}")
    face_bit, dw, rm, set_three, set_four = ctx.fast
    try:  # (``bytes`` gives small ints, which index a list faster than Cards a dict)
        m = sum(map(face_bit, bytes(hand)))
    except (TypeError, ValueError):  # a number beyond 255 or no number: checked below
        m = 0
    if m.bit_count() != n:  # identical faces carry, a wild card or a non-card adds none
        m = _face_mask(ctx, hand)
        if m < 0:
            return ctx.general_deadwood(hand)
    a = m & _SUIT
    b = m >> 16 & _SUIT
    c = m >> 32 & _SUIT
    d = m >> 48
    three = (a & b & (c | d)) | (c & d & (a | b))  # ranks present in three suits or four
    if three:
        if (rm[a] | rm[b] | rm[c] | rm[d]) & three:  # a card of theirs may sit in a run
            return ctx.mask_deadwood(m)
        # Else each such rank melds what a set of it holds (:meth:`_Context.free_sets`),
        # and the suits keep their own deadwood.
        return dw[a] + dw[b] + dw[c] + dw[d] - set_three[three] - set_four[a & b & c & d]
    return dw[a] + dw[b] + dw[c] + dw[d]


def _face_mask(ctx: _Context, hand: Sequence[int]) -> int:
    """The face mask of a hand of distinct natural faces, or -1 when it holds a wild card
    or identical faces; raises :class:`CardError` on a number that is not a card."""
    bits = ctx.bits
    m = 0
    try:
        for card in hand:
            m += bits[card]
    except KeyError as exc:
        raise CardError(f"not a card code: {exc.args[0]!r}") from None
    if m.bit_count() != len(hand) or m & ctx.wild_bits:
        return -1
    return m


def deadwood_at_most(cards: Iterable[int], rules: MeldRules, limit: int) -> bool:
    """True if the least deadwood count of ``cards`` is at most ``limit``.

    The answer of ``deadwood_points(cards, rules) <= limit``, often sooner when it is
    no: with wild or identical cards, the cards no meld can hold are counted before
    any search. Raises as :func:`deadwood_points` does.
    """
    hand = cards if isinstance(cards, _SEQUENCES) else tuple(cards)
    if not _may_keep(hand, rules, limit, spare=False):
        return False
    ctx = _context(rules)
    m, _ = _scan(ctx, hand)
    if _is_fast(ctx, hand, m):
        return deadwood_points(hand, rules) <= limit
    if len(set(hand)) != len(hand):
        raise CardError(f"a card appears twice in {format_cards(hand)}")
    if limit < 0:
        return False
    if len(hand) <= _TABLE_CARDS and (value := ctx.table_deadwood(hand)) is not None:
        return value <= limit
    if not limit and len(hand) <= _ONE_MELD and min(_points(ctx, list(hand))) > 0:
        return not hand or meld_kind(hand, rules) is not None  # one meld, or none
    return _bound(ctx, hand, limit) <= limit and ctx.general_at_most(hand, limit)


def _bound(ctx: _Context, hand: Sequence[int], limit: int) -> int:
    """A lower bound of the least deadwood of a hand with wild or identical cards
    (at times a weaker one when that is still within ``limit``)."""
    bound = ctx.needy_bound(hand, limit)
    return _lonely_bound(ctx, ctx.unsupported(hand)) if bound is None else bound


def _lonely_bound(ctx: _Context, found: _Lonely) -> int:
    """A lower bound of the least deadwood: the naturals no meld with another natural
    holds stay unmelded, but those the wild cards meld two by two (the dearest) or, with
    one wild card, those its one meld holds."""
    wilds = found.wilds
    if wilds < 2:
        bound = ctx.lonely_points(found.lonely, found.dup)
        if wilds:
            bound = max(bound, ctx.lonely_points(found.fewer, found.dup) - ctx.wild_cover(found))
        return bound
    return sum(ctx.lonely_list(found.lonely, found.dup)[wilds // 2:])


def best_arrangement(cards: Iterable[int], rules: MeldRules) -> Arrangement:
    """A minimum-deadwood arrangement of ``cards``; the same one for the same cards.

    Each meld is in reading order (:func:`order_meld`), melds are listed by their first
    card, the deadwood in display order. Raises :class:`CardError` on bad cards.
    """
    ctx = _context(rules)
    hand = tuple(cards)
    m, _ = _scan(ctx, hand)
    if _is_fast(ctx, hand, m):
        return _fast_arrangement(ctx, hand, m)
    found = ctx.table_arrangement(hand)
    melds, deadwood = ctx.general_arrangement(hand) if found is None else found
    return _arrangement(_merge(melds, rules), deadwood, rules)


def _fast_arrangement(ctx: _Context, hand: tuple[int, ...], m: int) -> Arrangement:
    """:func:`best_arrangement` of a hand of distinct natural faces (``m``).

    Its melds come in reading order as built: a set's cards by suit (ascending faces),
    a run's as :meth:`_Context.run_segments` lists them. With one card per face, the
    display order is the faces' order: the melds are sorted by their first card's face,
    the deadwood is its faces ascending.
    """
    card_of = {c & 63: c for c in hand}
    _, used = ctx.fast_best(m)
    melds: list[tuple[Card, ...]] = []
    for r in _bits(_rank_bits(used)):
        melds.append(tuple([Card(card_of[f]) for f in _bits(used & (_SPREAD << r))]))
    rest = m ^ used
    segments = ctx.segments
    for shift in (0, 16, 32, 48):
        p = rest >> shift & _SUIT
        if p & p >> 1:  # (every run holds two neighbouring positions, Q-K-A and K-A-2 too)
            for seg, mask in segments[p]:
                melds.append(tuple([Card(card_of[shift + r]) for r in seg]))
                rest ^= mask << shift
    if len(melds) > 1:
        melds.sort(key=lambda meld: meld[0] & 63)
    points = ctx.face_points
    dead = list(_bits(rest))
    return Arrangement(tuple(melds), tuple([Card(card_of[f]) for f in dead]),
                       sum([points[f] for f in dead]))


def _rank_bits(used: int) -> int:
    """Ranks (as bits 1..13) having a card in ``used``."""
    return (used | used >> 16 | used >> 32 | used >> 48) & _SUIT


def _merge(melds: list[list[Card]], rules: MeldRules) -> list[list[Card]]:
    """Join melds of one kind that remain a valid meld of that kind together."""
    melds = [list(m) for m in melds]
    merged = True
    while merged:
        merged = False
        for i, j in combinations(range(len(melds)), 2):
            kind = meld_kind(melds[i], rules)
            if kind == meld_kind(melds[j], rules) and meld_kind(melds[i] + melds[j], rules) == kind:
                melds[i] += melds.pop(j)
                merged = True
                break
    return melds


def _arrangement(melds: Iterable[Sequence[int]], deadwood: Iterable[int],
                 rules: MeldRules) -> Arrangement:
    # (The display numbers order codes as sort_key does: the cards were checked.)
    order = _DISPLAY_ORDER.__getitem__
    ordered = sorted((order_meld(m, rules) for m in melds),
                     key=lambda meld: list(map(order, meld)))
    dead = tuple(sorted(map(Card, deadwood), key=order))
    return Arrangement(tuple(ordered), dead, sum(rules.points(c) for c in dead))


# --- discards ----------------------------------------------------------------------------


def _discard_list(ctx: _Context, hand: tuple[int, ...]) -> list[int]:
    m, total = _scan(ctx, hand)
    if _is_fast(ctx, hand, m):
        return ctx.fast_discards(hand, m, total)
    if len(set(hand)) != len(hand):
        raise CardError(f"a card appears twice in {format_cards(hand)}")
    # Identical faces and the wild cards of one kind give the same answer: solve once.
    by_key: dict[int, int] = {}
    out = []
    wild_rank = ctx.rules.wild_rank
    for i, card in enumerate(hand):
        face = card & 63
        key = -1 if face & 15 == wild_rank else face
        if key not in by_key:
            by_key[key] = deadwood_points(hand[:i] + hand[i + 1:], ctx.rules)
        out.append(by_key[key])
    return out


def _display_number(code: int) -> int:
    """:func:`sort_key` of a card code as one number (0 for a code that is no card)."""
    if code & 15 > 13:
        return 0
    suit, rank, copy = sort_key(code)
    return (suit * 16 + rank) * MAX_COPIES + copy


# By card code (a hand is checked before it is looked up here).
_DISPLAY_ORDER: Final = tuple(_display_number(code) for code in range(MAX_COPIES * 64))


def discard_deadwoods(cards: Sequence[int], rules: MeldRules) -> dict[Card, int]:
    """For each card, the least deadwood of the hand without it (the "after discarding" count).

    Raises :class:`CardError` on bad or repeated cards.
    """
    hand = tuple(cards)
    values = _discard_list(_context(rules), hand)
    return {Card(c): v for c, v in zip(hand, values, strict=True)}


def discards_at_most(cards: Sequence[int], rules: MeldRules, limit: int) -> list[Card]:
    """The cards whose discard leaves a least deadwood of at most ``limit``, in hand order.

    The cards ``c`` with ``discard_deadwoods(cards, rules)[c] <= limit`` (who may knock
    or go out, and with what), sooner. Without wild or identical cards, one solve of the
    whole hand bounds every discard (the kept cards' best arrangement plus the discard
    is one of the whole hand's). With them, a bound by :meth:`_Context.unsupported`,
    then one search bounded by ``limit`` for "some natural's discard" (usually no), and
    only then the search for each discard left, once per face (wild-rank cards are all
    alike, and jokers). Raises :class:`CardError` on bad or repeated cards.
    """
    hand = tuple(cards)
    if not _may_keep(hand, rules, limit, spare=True):
        return []
    ctx = _context(rules)
    m, total = _scan(ctx, hand)
    if _is_fast(ctx, hand, m):
        if not hand or ctx.mask_deadwood(m) - ctx.dearest(m) > limit:
            return []
        values = ctx.fast_discards(hand, m, total)
        return [Card(c) for c, v in zip(hand, values, strict=True) if v <= limit]
    if len(set(hand)) != len(hand):
        raise CardError(f"a card appears twice in {format_cards(hand)}")
    if limit < 0:
        return []
    if len(hand) <= _TABLE_CARDS + 1 and (found := ctx.table_profile(hand)) is not None:
        if limit and len(hand) > _BOUNDS_FIRST:
            naturals_may, wilds_may = _discard_bounds(ctx, hand, limit)
            if not (naturals_may or wilds_may):
                return []
        if not limit and found[0].bit_count() + found[1].bit_count() > 1:
            return _table_out(ctx, hand, found)
        return _table_discards(ctx, hand, limit, found)
    if not limit and len(hand) <= _ONE_MELD + 1 and min(_points(ctx, list(hand))) > 0:
        # Nothing unmelded, fewer than six cards kept: they are one meld (past the bounds).
        naturals, wilds = _discard_bounds(ctx, hand, limit)
        if not (naturals or wilds):
            return []
        return [Card(c) for i, c in enumerate(hand)
                if (wilds if rules.is_wild(c) else naturals)
                and (not hand[:i] + hand[i + 1:] or meld_kind(hand[:i] + hand[i + 1:], rules))]
    return _general_discards(ctx, hand, limit)


def _set_options(r: int, present: int, twice: int, contested: int,
                 wilds: int) -> list[tuple[int, int, int]]:
    """The set choices of rank ``r`` (:meth:`_Context.set_plans`): its suits held
    (``present``, as a spread), held twice, and those whose card a run may want."""
    free = present & ~contested
    free_copies = free.bit_count() + (free & twice).bit_count()
    options = [] if free_copies >= 3 else [(0, 0, 0)]  # (three free: a set at no cost)
    free1, free2 = free << r, (free & twice) << r
    if not contested & twice:  # each contested card held once: its subsets
        sub = contested
        while True:
            k = free_copies + sub.bit_count()
            if k >= 2 and 3 - k <= wilds:
                options.append((free1 | sub << r, free2, max(0, 3 - k)))
            if not sub:
                break
            sub = (sub - 1) & contested
        return options
    faces = [(1 << (16 * s + r), 1 + (twice >> (16 * s) & 1))
             for s in range(4) if contested >> (16 * s) & 1]
    for takes in product(*[range(copies + 1) for _, copies in faces]):
        k = free_copies + sum(takes)
        if k < 2 or 3 - k > wilds:
            continue
        rm1, rm2 = free1, free2
        for (face, copies), t in zip(faces, takes, strict=True):
            if t == 2 or (t == 1 and copies == 1):
                rm1 |= face
            if t and copies == 2:
                rm2 |= face
        options.append((rm1, rm2, max(0, 3 - k)))
    return options


def _table_discards(ctx: _Context, hand: tuple[int, ...], limit: int,
                    found: tuple[int, int, int, int]) -> list[Card]:
    """:func:`discards_at_most` by the table path (:meth:`_Context.table_best`).

    One solve of the whole hand bounds every discard: the kept cards' best arrangement
    plus the discard is one of the whole hand's, so a card worth less than the whole
    hand's deadwood less ``limit`` cannot do. The discards left are settled once per
    face (the wild-rank cards are all alike, and the jokers). A natural's by the whole
    hand's own set choices less that card (:func:`_kept_deadwood`), which are exact; a
    wild card's by the best choice less one wild card, else a solve of the kept cards.
    """
    pm, dup, wilds, total = found
    ranks, suits = ctx.set_ranks(pm, dup, wilds)
    entries_of = ctx.suit_entries
    # table_best's search, its choices kept: (deadwood of the naturals, choice, the
    # suits' table entries).
    if ranks:
        plans, fragile = ctx.set_plans(pm, dup, wilds, ranks, suits)
    else:
        plans, fragile = [(0, 0, 0)], 0
    scored: list[_Scored] = []
    whole, chosen = total, 0
    for rm1, rm2, cost in plans:
        entries = entries_of(pm & ~rm1, dup & ~rm2)
        dead = _entries_dead(entries, wilds - cost)
        if dead < whole:
            whole, chosen = dead, len(scored)
        scored.append((dead, rm1, rm2, cost, entries))
    _, rm1, rm2, cost, entries = scored[chosen]
    if whole >= total and wilds:  # nothing melded (a lower bound beyond 13 cards)
        whole = total + ctx.wild_leaf(hand, wilds)
    need = whole - limit
    points = ctx.face_points
    if need > ctx.dearest(pm) and (not wilds or need > _dearest_wild(ctx, hand)):
        return []
    # The whole hand's best set choice, less a wild card, is an arrangement of the kept
    # cards: when it keeps at most ``limit``, or no more than the bound, it settles them.
    left1, left2 = pm & ~rm1, dup & ~rm2
    if whole == total and wilds:
        left1 = left2 = -1  # nothing melded: the wild cards are not placed
    left = (left1, left2, bool(rm1 | rm2), entries)
    wild_rank = ctx.rules.wild_rank
    by_key: dict[int, bool] = {}
    out: list[Card] = []
    for i, card in enumerate(hand):
        face = card & 63
        worth = points[face]
        if worth < need:
            continue
        rank = face & 15
        key = -1 if rank == wild_rank else face  # (jokers are all of face 0)
        fits = by_key.get(key)
        if fits is None:
            kept = hand[:i] + hand[i + 1:]  # (13 cards at most: exact)
            wild = rank in (JOKER_RANK, wild_rank)
            upper = _plan_upper(ctx, left, wilds, cost, face=face, wild=wild)
            if upper <= limit or upper == whole - worth:
                fits = upper <= limit
            elif wild:
                fits = ctx.table_value(kept, pm, dup, wilds - 1, total) <= limit
            else:
                bit = 1 << face
                value = -1 if bit & fragile else _kept_deadwood(
                    ctx, scored, pm=pm, dup=dup, face=face, wilds=wilds, total=total - worth,
                    kept=kept, limit=limit)
                if value < 0:  # the natural's face loses one copy
                    value = ctx.table_value_less(kept, pm, dup, face=face,
                                                 wilds=wilds, total=total)
                fits = value <= limit
            by_key[key] = fits
        if fits:
            out.append(Card(card))
    return out


def _table_out(ctx: _Context, hand: tuple[int, ...],
               found: tuple[int, int, int, int]) -> list[Card]:
    """:func:`discards_at_most` at a limit of 0 by the table path (the hand holds two
    naturals or more): the discards that leave every card melded.

    The same set choices as :func:`_table_discards`, each counted in wild cards rather
    than points: a choice melds everything when its sets' wild cards and the fewest
    each suit's runs need (``suit_wilds``) are at most the hand's. A card's discard
    changes one term: a natural leaves its suit (that suit's need, looked up again) or
    its set (which needs one wild card more at two naturals, and is no set at one: that
    choice less the set is among the others); a wild card leaves one wild card fewer.
    So only the choices needing at most two wild cards more than the hand holds can
    take a natural's discard (a card alone in its suit's runs costs two at most), and
    those needing fewer than it holds a wild card's. The kept cards' choices are among
    the whole hand's but for the ranks of :meth:`_Context.set_plans`'s ``fragile``
    faces, whose discards are solved alone, as there.
    """
    pm, dup, wilds, total = found
    ranks, suits = ctx.set_ranks(pm, dup, wilds)
    if ranks:
        plans, fragile = ctx.set_plans(pm, dup, wilds, ranks, suits)
    else:
        plans, fragile = [(0, 0, 0)], 0
    need_of = ctx.suit_wilds
    # The choices within reach: (suits' naturals, second copies, sets' faces, second
    # copies, wild cards over the hand's, each suit's key and need).
    near: list[tuple[int, int, int, int, int, tuple[int, ...], tuple[int, ...]]] = []
    wild_out = False
    for rm1, rm2, cost in plans:
        left1, left2 = pm & ~rm1, dup & ~rm2
        keys = (left1 & _SUIT | (left2 & _SUIT) << 16,
                left1 >> 16 & _SUIT | (left2 >> 16 & _SUIT) << 16,
                left1 >> 32 & _SUIT | (left2 >> 32 & _SUIT) << 16,
                left1 >> 48 & _SUIT | (left2 >> 48 & _SUIT) << 16)
        needs = (need_of[keys[0]], need_of[keys[1]], need_of[keys[2]], need_of[keys[3]])
        over = cost + sum(needs) - wilds
        if over <= 2:
            near.append((left1, left2, rm1, rm2, over, keys, needs))
            wild_out = wild_out or over < 0
    if not near and not fragile:
        return []
    wild_rank = ctx.rules.wild_rank
    by_key: dict[int, bool] = {}
    out: list[Card] = []
    for i, card in enumerate(hand):
        face = card & 63
        rank = face & 15
        wild = rank in (JOKER_RANK, wild_rank)
        key = -1 if rank == wild_rank else face  # (jokers are all of face 0)
        fits = by_key.get(key)
        if fits is None:
            bit = 1 << face
            if wild:
                fits = wild_out
            elif bit & fragile:
                fits = not ctx.table_value_less(hand[:i] + hand[i + 1:], pm, dup,
                                                face=face, wilds=wilds, total=total)
            else:
                fits = _out_without(near, need_of, face)
            by_key[key] = fits
        if fits:
            out.append(Card(card))
    return out


def _out_without(near: list[tuple[int, int, int, int, int, tuple[int, ...], tuple[int, ...]]],
                 need_of: _Lazy[int], face: int) -> bool:
    """Whether one of the set choices ``near`` (:func:`_table_out`) melds everything
    once a natural of ``face`` is discarded."""
    bit = 1 << face
    rank = face & 15
    suit = face >> 4
    for left1, left2, rm1, rm2, over, keys, needs in near:
        if (left1 | left2) & bit:  # it leaves its suit
            key = keys[suit] ^ (1 << (rank + 16) if left2 & bit else 1 << rank)
            if over - needs[suit] + need_of[key] <= 0:
                return True
            continue
        k = (rm1 >> rank & _SPREAD).bit_count() + (rm2 >> rank & _SPREAD).bit_count() - 1
        if k >= 2 and over + (k == 2) <= 0:  # it leaves its set
            return True
    return False


def _kept_deadwood(ctx: _Context, scored: list[_Scored], *, pm: int,
                   dup: int, face: int, wilds: int, total: int, kept: Sequence[int],
                   limit: int) -> int:
    """The least deadwood of the whole hand (naturals ``pm``, ``dup`` held twice) less
    one natural of ``face`` (``kept``, ``total`` points), from the whole hand's set
    choices ``scored``, or the first at most ``limit`` found; -1 when no choice applies.

    Each choice less that card is a choice of the kept cards: the card leaves the suits
    if they hold a copy of its face, else its set (which then needs one wild card more
    at two naturals, and is no set at one). And the kept cards' best choice is one of
    them: a natural the kept cards' runs could hold, the whole hand's could too (the
    suits only lost a card), so the kept cards' choice of each rank is a choice of the
    whole hand's (its uncontested naturals are among the kept cards'), with the card
    put back where it was; "no set" of the card's rank is the one choice that may be
    missing, when its uncontested naturals were exactly three, and the caller solves
    those hands (:meth:`_Context.set_plans`'s ``fragile``). So the least over the
    choices is the kept cards' least deadwood (with nothing melded, :meth:`wild_leaf`).
    """
    bit = 1 << face
    rank = face & 15
    less = ctx.entries_less
    best = _NO_BOUND
    for _, rm1, rm2, cost, entries in scored:
        left1, left2 = pm & ~rm1, dup & ~rm2
        if (left1 | left2) & bit:
            entries = less(entries, left1, left2, face)
        else:  # the card's copies are all in its rank's set: it leaves the set
            if rm2 & bit:
                rm2 ^= bit
            else:
                rm1 ^= bit
            k = (rm1 >> rank & _SPREAD).bit_count() + (rm2 >> rank & _SPREAD).bit_count()
            if k < 2:
                continue  # (the choice without this set is among the others)
            if k == 2:
                cost += 1
                if cost > wilds:
                    continue
        dead = _entries_dead(entries, wilds - cost)
        if dead <= limit and (dead < total or not wilds):
            return dead  # (something melded, or no wild card: the kept cards' count)
        best = min(best, dead)
    if best == _NO_BOUND:
        return -1
    if best >= total and wilds:
        return total + ctx.wild_leaf(kept, wilds)
    return best


def _plan_upper(ctx: _Context, left: tuple[int, int, bool, list[tuple[int, ...]]],
                wilds: int, cost: int, *, face: int, wild: bool) -> int:
    """The naturals' deadwood of the whole hand's best set choice less one card (a
    natural of ``face`` left to the suits, or a wild card): at least the kept cards'
    least deadwood when something stays melded. A large number when it does not
    apply (the card is in a set, or no wild card is spare)."""
    left1, left2, sets, entries = left
    if left1 < 0:
        return _NO_BOUND
    kept_wilds = wilds - 1 if wild else wilds
    if cost > kept_wilds:
        return _NO_BOUND
    if not wild:
        bit = 1 << face
        if not (left1 | left2) & bit:
            return _NO_BOUND
        entries = ctx.entries_less(entries, left1, left2, face)
        if left2 & bit:
            left2 ^= bit
        else:
            left1 ^= bit
    dead = _entries_dead(entries, kept_wilds - cost)
    if not sets and kept_wilds and dead == ctx.lonely_points(left1, left2):
        return _NO_BOUND  # nothing melded: the wild cards would not be placed
    return dead


def _dearest_wild(ctx: _Context, hand: Sequence[int]) -> int:
    """The points of the hand's dearest wild card."""
    points = ctx.face_points
    return max(points[c & 63] for c in hand if ctx.wild_one(c))


def _points(ctx: _Context, cards: list[int]) -> list[int]:
    points = ctx.face_points
    return [points[c & 63] for c in cards]


def _general_discards(ctx: _Context, hand: tuple[int, ...], limit: int) -> list[Card]:
    """:func:`discards_at_most` of a hand with wild or identical cards."""
    naturals_may, wilds_may = _discard_bounds(ctx, hand, limit)
    if not (naturals_may or wilds_may):
        return []
    # One search tells whether any natural's discard does (most hands answer no).
    naturals_may = naturals_may and ctx.general_at_most(hand, limit, spare=True)
    if not (naturals_may or wilds_may):
        return []
    wild_rank = ctx.rules.wild_rank
    by_key: dict[int, bool] = {}
    out = []
    for i, card in enumerate(hand):
        face = card & 63
        rank = face & 15
        key = -1 if rank == wild_rank else face  # (jokers are all of face 0)
        fits = by_key.get(key)
        if fits is None:
            may = wilds_may if rank in (JOKER_RANK, wild_rank) else naturals_may
            kept = hand[:i] + hand[i + 1:]
            fits = by_key[key] = may and ctx.general_at_most(kept, limit)
        if fits:
            out.append(Card(card))
    return out


def _discard_bounds(ctx: _Context, hand: tuple[int, ...], limit: int) -> tuple[bool, bool]:
    """Whether a natural's discard, and a wild card's, may keep at most ``limit`` (bounds).

    The needy naturals of the whole hand are needy in the hand without any card: a
    natural discarded takes away at most the dearest of them, a wild card discarded
    leaves one wild card fewer to :meth:`_Context.cover` them. Beyond three wild cards
    or with a face held three times, :meth:`_Context.unsupported` bounds it instead.
    """
    found = ctx.needy(hand)
    if found is not None and found[0] <= _COVER_WILDS:
        wilds, pm, dup, pairs, needy = found
        dead = ctx.lonely_points(needy, dup)
        if dead <= limit:
            return len(hand) > wilds, wilds > 0
        dearest = ctx.dearest(needy)
        if dead - dearest - wilds * ctx.group_most(dup, pairs, needy) > limit:
            return False, False  # (one wild card fewer covers less still)
        every, fewer = ctx.cover(pm, dup, pairs, needy, wilds)
        return (len(hand) > wilds and dead - dearest - every <= limit,
                wilds > 0 and dead - fewer <= limit)
    lonely = ctx.unsupported(hand)
    wilds = lonely.wilds
    # (:func:`_lonely_bound`): a natural discarded takes one lonely card away at most.
    bound = _lonely_bound(ctx, lonely)
    if bound > limit:  # less the dearest lonely card
        bound -= max(ctx.lonely_list(lonely.fewer if wilds else lonely.lonely, lonely.dup),
                     default=0)
    fewer = (ctx.lonely_points(lonely.fewer, lonely.dup) if wilds < 3 else
             sum(ctx.lonely_list(lonely.fewer, lonely.dup)[(wilds - 1) // 2:]))
    return len(hand) > wilds and bound <= limit, wilds > 0 and fewer <= limit


class _Screen:
    """The tables of :func:`_may_keep`, for one :class:`MeldRules` (its context's)."""

    __slots__ = ("ace_low", "code", "counts_out", "ctx", "natural_bit", "one_wild",
                 "pattern_max", "pattern_points", "rank_points", "run_mask", "sets")

    def __init__(self, ctx: _Context) -> None:
        wild = ctx.rules.wild_rank
        # A natural's face bit, and 1 << _SCREEN_WILDS for a wild card: one sum gives the
        # faces (distinct when it has a bit per natural) and the wild cards, which no
        # carry of 20 face bits (2**66 at most) reaches.
        self.code = {code: 1 << _SCREEN_WILDS if code & 15 in (JOKER_RANK, wild) else bit
                     for code, bit in ctx.bits.items()}.__getitem__
        self.natural_bit = ctx.natural_bit
        self.run_mask = ctx.run_mask
        self.pattern_points = ctx.pattern_points
        self.pattern_max = ctx.pattern_max
        self.rank_points = ctx.rank_points
        self.sets = bool(ctx.set_sizes)
        self.ctx = ctx
        self.ace_low = ctx.rules.ace_mode == "low"
        # Going out melds every natural only when each is worth a point (a natural worth
        # 0 may stay unmelded): then the count of _may_meld_all applies.
        self.counts_out = min(ctx.rank_points[1:14]) > 0
        # By suit pattern: the most points of its needy naturals (by its own runs) that
        # one run with one wild card holds, filled as patterns come (2**14 at most).
        windows, rm, pts = ctx.windows[1], ctx.run_mask, ctx.pattern_points
        self.one_wild = _Lazy(lambda p: max((pts[p & ~rm[p] & w] for w in windows[p]),
                                            default=0))


_SCREEN_WILDS: Final = 72
_SCREENS: Final[dict[MeldRules, _Screen]] = {}
_LAST_SCREEN: Final[list[tuple[MeldRules, _Screen]]] = []  # most calls repeat the rules


def _screen(rules: MeldRules) -> _Screen:
    found = _SCREENS.get(rules)
    if found is None:
        if len(_SCREENS) >= _MAX_CONTEXTS:
            _SCREENS.clear()
        found = _SCREENS[rules] = _Screen(_context(rules))
    _LAST_SCREEN[:] = [(rules, found)]
    return found


def _may_keep(hand: Sequence[int], rules: MeldRules, limit: int, *, spare: bool) -> bool:
    """False only when the least deadwood of ``hand`` (with ``spare``: of ``hand``
    without some card, any) is certainly above ``limit``; True when it may not be.

    The needy bound of :meth:`_Context.needy` and :meth:`_Context.group_most`, in one
    sum over the hand and a few table lookups: the listing of legal knocks and ways to
    go out asks it at every turn, and it settles most hands (those far from going out)
    before any search. A needy natural (no run of three present positions of its suit,
    no three naturals of its rank) is melded only with a wild card, so at most ``w``
    melds (``w`` wild cards) hold needy naturals, each of one suit or one rank: the
    needy points less ``w`` times the most of one suit's or rank's bound the deadwood;
    a discard takes off at most the dearest needy natural (a wild card discarded
    leaves one wild card fewer: a higher bound). Hands it cannot profile so (a face
    held three times or more, a code that is no card, too many cards, a card named
    twice) get True, and the solver's own checks.
    """
    n = len(hand)
    if n > _MAX_HAND:
        return True
    last = _LAST_SCREEN[0] if _LAST_SCREEN else None
    screen = last[1] if last is not None and last[0] is rules else _screen(rules)
    try:
        s = sum(map(screen.code, hand))
    except KeyError:
        return True
    wilds = s >> _SCREEN_WILDS
    pm = s & _FACES
    dup = 0
    if pm.bit_count() != n - wilds:  # a face twice (or more): the sum carried
        if len(set(hand)) != n:
            return True
        m = pm
        pm = _faces(screen.natural_bit, hand)
        dup = m - pm  # the faces held twice, unless one is held three times
        if dup.bit_count() != n - wilds - pm.bit_count():
            return True
    a, b, c, d = pm & _SUIT, pm >> 16 & _SUIT, pm >> 32 & _SUIT, pm >> 48
    rm = screen.run_mask
    na, nb, nc, nd = a & ~rm[a], b & ~rm[b], c & ~rm[c], d & ~rm[d]
    two = three = 0
    if screen.sets:
        two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        three = (a & b & (c | d)) | (c & d & (a | b))
        if dup:
            da = (dup | dup >> 16 | dup >> 32 | dup >> 48) & _SUIT
            three |= da & two
            two |= da
        if three:
            na, nb, nc, nd = na & ~three, nb & ~three, nc & ~three, nd & ~three
    pts = screen.pattern_points
    pa, pb, pc, pd = pts[na], pts[nb], pts[nc], pts[nd]
    if dup:
        pa += pts[na & dup]
        pb += pts[nb & dup >> 16]
        pc += pts[nc & dup >> 32]
        pd += pts[nd & dup >> 48]
    dead = pa + pb + pc + pd
    if dead <= limit:
        return True
    if spare:
        top = screen.pattern_max
        dead -= max(top[na], top[nb], top[nc], top[nd])
    if not wilds:
        return dead <= limit
    if dead - _wild_cover(screen, (a, b, c, d), (na, nb, nc, nd), (pa, pb, pc, pd),
                          two=two, three=three, dup=dup, wilds=wilds,
                          want=dead - limit) > limit:
        return False
    return limit != 0 or not screen.counts_out or _may_meld_all(
        screen, (a, b, c, d), (na, nb, nc, nd), dup=dup, ranks=two, wilds=wilds, spare=spare)


def _may_meld_all(screen: _Screen, suits: tuple[int, int, int, int],
                  needy: tuple[int, int, int, int], *, dup: int, ranks: int, wilds: int,
                  spare: bool) -> bool:
    """False only when no arrangement melds every card of the hand (with ``spare``: of
    the hand without some card, any): a count of the wild cards its needy naturals need
    (:func:`_may_keep`, at a limit of 0).

    Every meld holding a needy natural holds a wild card. A *lonely* one (no other
    natural of the hand can share a meld with it: :meth:`_Context.unsupported`) is the
    only natural of its meld, with two wild cards. Two needy naturals in one meld are of
    one rank, or of one suit with at most ``wilds`` positions between them held by no
    natural, so the other needy naturals, joined so (rank by rank, and each to the next
    of its suit), need a wild card per group at least. The kept hand's needy naturals
    include the whole hand's less the card discarded (a discard may make others needy,
    but a meld of the kept hand still holds needy naturals of one group of the whole
    hand at most: same rank, or a suit's window with no more positions missing), so each
    lonely one and each group still needs its own wild cards: the discard takes off two
    at most (a lonely one), one if it is a group alone, and none otherwise. A wild card
    discarded takes one wild card away instead: never fewer needed. Every natural must
    be melded only when each is worth a point: the caller skips this count otherwise.
    When the groups pass, with aces low, the needy naturals no two of which share a
    meld (:func:`_apart`) are counted too: a chain of joins can make one group of
    naturals no meld holds together.
    """
    partner = screen.ctx.partners(wilds)
    lone = 0
    rest: list[int] = []
    for shift, p, n in zip((0, 16, 32, 48), suits, needy, strict=True):
        if not n:
            rest.append(0)
            continue
        alone = n & ~partner(p) & ~ranks
        if alone:
            lone += alone.bit_count() + (alone & dup >> shift).bit_count()
        rest.append(n & ~alone)
    save = 2 if spare and lone else 0
    need = 2 * lone - save
    if need > wilds:
        return False
    groups = _needy_groups(screen, suits, rest, wilds)
    need += len(groups)
    if spare and not save:
        # (a group of one card: one natural, held once, of a rank no other group holds)
        once = [q & ~(dup >> shift) for q, shift in zip(rest, (0, 16, 32, 48), strict=True)]
        for g in groups:
            if g & (g - 1) == 0 and sum((q & g).bit_count() for q in rest) == 1 and any(
                    q & g for q in once):
                need -= 1
                break
    if need > wilds:
        return False
    if not screen.ace_low:
        return True
    apart = _apart(suits, rest, wilds)
    return 2 * lone + apart - (save or int(spare and apart > 0)) <= wilds


def _needy_groups(screen: _Screen, suits: tuple[int, int, int, int], needy: list[int],
                  wilds: int) -> list[int]:
    """The ``needy`` naturals (by suit) in groups, as masks of ranks (a rank's naturals
    may share a set): in each suit, a natural joins the next when a run with the wild
    cards may hold both; groups that share a rank are one (:func:`_may_meld_all`)."""
    groups: list[int] = []
    for p, q in zip(suits, needy, strict=True):
        while q:
            low = q & -q
            seg = low
            q ^= low
            while q:  # (the suit's next needy natural, and whether it joins this run)
                nxt = q & -q
                if screen.ace_low and _missing(p, low, nxt) > wilds:
                    break
                seg |= nxt
                low = nxt
                q ^= nxt
            kept = []
            for g in groups:
                if g & seg:
                    seg |= g
                else:
                    kept.append(g)
            kept.append(seg)
            groups = kept
    return groups


def _missing(p: int, low: int, high: int) -> int:
    """The positions of a suit's run from the bit ``low`` to the bit ``high`` that its
    naturals ``p`` do not hold: the wild cards one run holding both needs."""
    return high.bit_length() - low.bit_length() + 1 - (p & ((high << 1) - low)).bit_count()


def _apart(suits: tuple[int, int, int, int], needy: list[int], wilds: int) -> int:
    """How many of the ``needy`` naturals (by suit: :func:`_may_meld_all`'s, lonely ones
    left out) were picked so that no meld could hold two of them: each of their melds
    holds a wild card of its own, a count the groups of :func:`_may_meld_all` may miss
    (a natural sharing a rank with one group and a suit with another joins them all).

    Two naturals may share a meld when they are of one rank (a set), or of one suit
    with at most ``wilds`` positions between them held by no natural (a run, aces low).
    Picked greedily: by suit, from the lowest position, a natural whose rank no pick
    holds, and too far from the suit's last pick for one run with the wild cards (the
    positions missing between them only grow farther on). Any such pick is a bound; the
    greedy one is not always the largest.
    """
    ranks = picked = 0
    for p, q in zip(suits, needy, strict=True):
        last = 0
        while q:
            low = q & -q
            q ^= low
            if low & ranks or (last and _missing(p, last, low) <= wilds):
                continue
            ranks |= low
            last = low
            picked += 1
    return picked


def _wild_cover(screen: _Screen, suits: tuple[int, int, int, int],
                needy: tuple[int, int, int, int], points: tuple[int, int, int, int], *,
                two: int, three: int, dup: int, wilds: int, want: int) -> int:
    """At least the needy points ``wilds`` wild cards can meld (:func:`_may_keep`): at
    most ``wilds`` groups of one suit's or one rank's; with one wild card and a bound
    that does not reach ``want`` yet, the suits' best one-wild runs instead."""
    groups = 0  # the most needy points of one rank's set
    na, nb, nc, nd = needy
    ranks = (na | nb | nc | nd) & two
    if ranks:
        rp = screen.rank_points
        every = na | nb << 16 | nc << 32 | nd << 48
        twice = every & dup
        while ranks:  # (each rank of them, lowest first)
            low = ranks & -ranks
            r = low.bit_length() - 1
            ranks ^= low
            groups = max(groups, rp[r] * ((every >> r & _SPREAD).bit_count()
                                          + (twice >> r & _SPREAD).bit_count()))
    pa, pb, pc, pd = points
    most = wilds * max(groups, pa, pb, pc, pd)
    if wilds > 1 or most < want:
        return most
    # One wild card melds one group: a rank's set, or one run of a suit (a window of
    # its positions with one missing), which holds only part of a suit's needy naturals
    # (a suit sharing a rank's set, or holding a face twice, counts whole).
    one = screen.one_wild
    a, b, c, d = suits
    return max(groups,
               pa if a & three or dup & _SUIT else one[a],
               pb if b & three or dup >> 16 & _SUIT else one[b],
               pc if c & three or dup >> 32 & _SUIT else one[c],
               pd if d & three or dup >> 48 & _SUIT else one[d])


def best_discard(cards: Sequence[int], rules: MeldRules,
                 forbidden: int | None = None) -> tuple[Card, int]:
    """The discard leaving the least deadwood, and that deadwood.

    Among equal discards the dearest card goes (highest points), then the first in
    display order. ``forbidden`` (the card just taken from the discard pile) is never
    chosen. Raises :class:`IllegalDiscard` when no card can be discarded.
    """
    hand = tuple(cards)
    ctx = _context(rules)
    n = len(hand)
    try:  # the fast path's scan, as in :func:`deadwood_points`
        codes = bytes(hand)
        m = sum(map(ctx.fast[0], codes))
    except (TypeError, ValueError):
        m = 0
    if n <= _MAX_HAND and m.bit_count() == n:  # distinct natural faces
        face, value = ctx.fast_discard(m)
        if face >= 0:
            i = codes.find(face)  # its card, unless a copy of another deck
            card = hand[i] if i >= 0 else next(c for c in hand if c & 63 == face)
            if card != forbidden:  # (else the second best is wanted: the general way)
                return Card(card), value
    values = _discard_list(ctx, hand)
    if forbidden is not None and forbidden in hand:
        values = [_NO_BOUND if c == forbidden else v for c, v in zip(hand, values, strict=True)]
    low = min(values, default=_NO_BOUND)
    if low == _NO_BOUND:
        raise IllegalDiscard("no card can be discarded")
    if values.count(low) == 1:
        return Card(hand[values.index(low)]), low
    points_of = ctx.points_of
    choice = min((c for c, v in zip(hand, values, strict=True) if v == low),
                 key=lambda c: (-points_of(c), _DISPLAY_ORDER[c]))
    return Card(choice), low


# --- layoffs -------------------------------------------------------------------------------


def _layoff_family(target: Sequence[Card], hand: Sequence[Card],
                   rules: MeldRules) -> dict[int, tuple[int, int]]:
    """Subsets of ``hand`` (index masks) that can be laid off on ``target`` in some order.

    Maps each subset to (the subset before its last card, the index of that card).
    """
    kind = meld_kind(target, rules)
    family: dict[int, tuple[int, int]] = {0: (0, -1)}
    frontier = [0]
    while frontier:
        nxt = []
        for mask in frontier:
            current = list(target) + [hand[i] for i in _bits(mask)]
            for i, card in enumerate(hand):
                bigger = mask | 1 << i
                if bigger == mask or bigger in family:
                    continue
                if meld_kind([*current, card], rules) == kind:
                    family[bigger] = (mask, i)
                    nxt.append(bigger)
        frontier = nxt
    return family


def _check_hand(cards: Iterable[int]) -> tuple[Card, ...]:
    """The cards as :class:`Card`; raises :class:`CardError` on a non-card or a repeat."""
    hand = tuple(cards)
    bit_of = _REGISTRY.last[1].bit_of  # every context knows every card code
    for c in hand:
        try:
            bit_of(c)
        except KeyError:
            raise CardError(f"not a card code: {c!r}") from None
    if len(set(hand)) != len(hand):
        raise CardError(f"a card appears twice in {format_cards(hand)}")
    return tuple(Card(c) for c in hand)


def best_layoffs(cards: Iterable[int], target_melds: Sequence[Sequence[int]],
                 rules: MeldRules) -> LayoffResult:
    """The defender's least final deadwood after own melds and layoffs (docs/rules.md 3).

    Layoffs go on the knocker's ``target_melds`` (numbered from 0), chained, each step
    keeping the meld valid and of its kind. Among equal results the one with fewest
    layoffs is chosen, then a fixed order. Raises :class:`InvalidMeld` if a target is
    not a valid meld, :class:`CardError` on bad, repeated or shared cards.
    """
    hand = _check_hand(cards)
    targets = [_check_hand(t) for t in target_melds]
    for t in targets:
        if meld_kind(t, rules) is None:
            raise InvalidMeld(f"not a valid meld: {format_cards(t)}")
    table = {c for t in targets for c in t}
    if len(table) != sum(len(t) for t in targets) or table & set(hand):
        raise CardError("the defender's cards and the knocker's melds must be distinct cards")
    families = [_layoff_family(t, hand, rules) for t in targets]
    unions: dict[int, tuple[int, ...]] = {0: ()}
    for family in families:
        grown: dict[int, tuple[int, ...]] = {}
        for union, parts in unions.items():
            for subset in family:
                if not union & subset and union | subset not in grown:
                    grown[union | subset] = (*parts, subset)
        unions = grown
    best: tuple[int, int, int] | None = None
    for union in unions:
        rest = [c for i, c in enumerate(hand) if not union >> i & 1]
        key = (deadwood_points(rest, rules), union.bit_count(), union)
        if best is None or key < best:
            best = key
    assert best is not None
    union = best[2]
    layoffs: list[tuple[Card, int]] = []
    for index, (family, subset) in enumerate(zip(families, unions[union], strict=True)):
        chain = []
        while subset:
            subset, i = family[subset]
            chain.append(hand[i])
        layoffs += [(card, index) for card in reversed(chain)]
    own = best_arrangement([c for i, c in enumerate(hand) if not union >> i & 1], rules)
    return LayoffResult(own.melds, tuple(layoffs), own.deadwood, own.points)


def _melds_by_lowest_card(hand: tuple[Card, ...], rules: MeldRules) -> dict[int, list[int]]:
    """Every valid meld of ``hand`` as a bit mask of its positions, listed under the
    position of its lowest card, each list in increasing order of the masks."""
    candidates: set[int] = set()
    wild = [i for i, c in enumerate(hand) if rules.is_wild(c)]
    groups: dict[tuple[str, int], list[int]] = {}
    for i, c in enumerate(hand):
        if not rules.is_wild(c):
            groups.setdefault(("rank", c.rank), []).append(i)
            groups.setdefault(("suit", c.suit), []).append(i)
    pools = [members + wild for members in groups.values()] + [wild]
    for pool in pools:
        for k in range(3, len(pool) + 1):
            for combo in combinations(pool, k):
                mask = sum(1 << i for i in combo)
                if mask not in candidates and meld_kind([hand[i] for i in combo], rules):
                    candidates.add(mask)
    by_low: dict[int, list[int]] = {}
    for mask in sorted(candidates):
        by_low.setdefault((mask & -mask).bit_length() - 1, []).append(mask)
    return by_low


def _optimal_arrangements(hand: tuple[Card, ...], rules: MeldRules,
                          points: int) -> Iterator[Arrangement]:
    """Every arrangement of ``hand`` whose deadwood is ``points`` (the least), in a fixed order."""
    size = len(hand)
    by_low = _melds_by_lowest_card(hand, rules)
    least: dict[int, int] = {}

    def rest_deadwood(mask: int) -> int:
        if mask not in least:
            least[mask] = deadwood_points([hand[i] for i in _bits(mask)], rules)
        return least[mask]

    def walk(mask: int, spent: int, chosen: list[int]) -> Iterator[list[int]]:
        if not mask:
            yield chosen
            return
        low = (mask & -mask).bit_length() - 1
        for meld in by_low.get(low, []):
            if meld & mask == meld and spent + rest_deadwood(mask ^ meld) == points:
                yield from walk(mask ^ meld, spent, [*chosen, meld])
        cost = rules.points(hand[low])
        if spent + cost + rest_deadwood(mask ^ 1 << low) == points:
            yield from walk(mask ^ 1 << low, spent + cost, chosen)

    for chosen in walk((1 << size) - 1, 0, []):
        melded = sum(chosen)
        yield _arrangement([[hand[i] for i in _bits(m)] for m in chosen],
                           [c for i, c in enumerate(hand) if not melded >> i & 1], rules)


def knocker_arrangement(cards: Iterable[int], defender: Iterable[int], rules: MeldRules, *,
                        allow_layoffs: bool) -> tuple[Arrangement, LayoffResult]:
    """The knocker's arrangement at a Gin showdown (docs/rules.md 3), and the defender's.

    Among the knocker's minimum-deadwood arrangements, the one leaving the defender the
    fewest layoffs in its best result (:func:`best_layoffs`); among those, the one after
    which the defender keeps the most deadwood; among equals the one
    :func:`best_arrangement` shows, then a fixed order. Without layoffs (gin) the
    defender only melds his own cards. At most 1,000 optimal arrangements are compared.
    """
    hand = _check_hand(cards)
    other = _check_hand(defender)
    shown = best_arrangement(hand, rules)
    if not allow_layoffs:
        return shown, best_layoffs(other, (), rules)
    best = (shown, best_layoffs(other, shown.melds, rules))
    key = (len(best[1].layoffs), -best[1].points)
    seen = {frozenset(shown.melds)}
    for count, arrangement in enumerate(_optimal_arrangements(hand, rules, shown.points)):
        if count >= _ARRANGEMENT_LIMIT:
            break
        if frozenset(arrangement.melds) in seen:
            continue
        seen.add(frozenset(arrangement.melds))
        result = best_layoffs(other, arrangement.melds, rules)
        if (len(result.layoffs), -result.points) < key:
            best, key = (arrangement, result), (len(result.layoffs), -result.points)
    return best


def chosen_arrangement(cards: Iterable[int], melds: Sequence[Sequence[int]],
                       rules: MeldRules) -> Arrangement:
    """The arrangement of ``cards`` that lays exactly ``melds``; the rest is deadwood.

    This is how a Gin knocker lays his own melds (docs/rules.md, "The showdown").
    Raises :class:`InvalidMeld` if a meld is not a valid set or run, and
    :class:`CardError` if a card is named twice or is not among ``cards``.

    >>> from rummyhall.rules import meld_rules_for, parse_cards
    >>> hand = parse_cards("3c 4c 5c 3d 4d 5d 3h 4h 5h 2s")
    >>> print(chosen_arrangement(hand, [hand[0:3], hand[3:6], hand[6:9]], meld_rules_for("gin")))
    3c 4c 5c | 3d 4d 5d | 3h 4h 5h / deadwood 2s (2)
    """
    hand = _check_hand(cards)
    chosen = [_check_hand(m) for m in melds]
    named = [c for m in chosen for c in m]
    if len(set(named)) != len(named):
        raise CardError("a card is named in two melds")
    missing = set(named) - set(hand)
    if missing:
        raise CardError(f"{format_cards(sorted(missing, key=sort_key))} not among the cards kept")
    for meld in chosen:
        if meld_kind(meld, rules) is None:
            raise InvalidMeld(f"{format_cards(meld)} is not a valid set or run")
    used = set(named)
    return _arrangement(chosen, [c for c in hand if c not in used], rules)


def optimal_arrangements(cards: Iterable[int], rules: MeldRules, *,
                         limit: int = _ARRANGEMENT_LIMIT) -> list[Arrangement]:
    """Every distinct arrangement of ``cards`` with the least deadwood (at most ``limit``),
    :func:`best_arrangement`'s first: the choices of a Gin knocker who lays his own melds.

    >>> from rummyhall.rules import meld_rules_for, parse_cards
    >>> square = parse_cards("3c 4c 5c 3d 4d 5d 3h 4h 5h 2s")
    >>> [str(a) for a in optimal_arrangements(square, meld_rules_for("gin"))]
    ['3c 4c 5c | 3d 4d 5d | 3h 4h 5h / deadwood 2s (2)', \
'3c 3d 3h | 4c 4d 4h | 5c 5d 5h / deadwood 2s (2)']
    """
    hand = _check_hand(cards)
    shown = best_arrangement(hand, rules)
    found = [shown]
    seen = {frozenset(shown.melds)}
    for arrangement in _optimal_arrangements(hand, rules, shown.points):
        if len(found) >= limit:
            break
        if frozenset(arrangement.melds) not in seen:
            seen.add(frozenset(arrangement.melds))
            found.append(arrangement)
    return found
