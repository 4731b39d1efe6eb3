"""Melds: what a game counts as a set or a run, and what cards are worth.

:class:`MeldRules` is everything about cards that differs between games (and between
rounds of Three Thirteen): how aces sit in runs, the largest set, which cards are wild,
whether a meld may be all wild, and each card's point value. The meld solver and the
state machine both take their card rules from it.

Validation follows docs/rules.md 1, "Melds" (normative): a list of three or more cards is a *set*
if its natural (non-wild) cards share one rank, and a *run* if they share one suit,
have pairwise different ranks, and fit inside one window of ``len(cards)`` consecutive
allowed positions (an ace at 1, or at 14 too when aces are high or low; windows wrap
round the corner only under ``round_the_corner``). Wild cards fill the other places.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .cards import JOKER_RANK, Card, sort_key
from .errors import InvalidMeld

AceMode = Literal["low", "high_or_low", "round_the_corner"]
MeldKind = Literal["set", "run"]
ACE_MODES: tuple[AceMode, ...] = ("low", "high_or_low", "round_the_corner")
MAX_RUN = 13
_C = TypeVar("_C", bound=int)


@dataclass(frozen=True, slots=True)
class MeldRules:
    """The card rules of one game (or one Three Thirteen round).

    ``wild_rank`` 0 means no natural card is wild; jokers, when present, are always wild.
    ``max_set_size`` 0 means no maximum. ``all_wild_melds`` false means a meld of only
    wild cards is valid only if it is valid at natural values (so never with a joker).
    """

    ace_mode: AceMode = "low"
    max_set_size: int = 4
    wild_rank: int = 0
    all_wild_melds: bool = True
    ace_points: int = 1
    jack_points: int = 10
    queen_points: int = 10
    king_points: int = 10
    joker_points: int = 20
    points_by_face: tuple[int, ...] = field(init=False, repr=False, compare=False)
    max_points: int = field(init=False, repr=False, compare=False)  # of the dearest card

    def __post_init__(self) -> None:
        table = [0] * 64
        for suit in range(4):
            for rank in range(1, 14):
                table[suit * 16 + rank] = self._rank_points(rank)
        table[JOKER_RANK] = self.joker_points
        object.__setattr__(self, "points_by_face", tuple(table))
        object.__setattr__(self, "max_points", max(table))

    def __copy__(self) -> MeldRules:
        return self  # an immutable value (and the solver's caches know it by identity)

    def __deepcopy__(self, memo: dict[int, object]) -> MeldRules:
        return self  # (also: the compiled build's copy could not rebuild it field by field)

    def _rank_points(self, rank: int) -> int:
        if rank == 1:
            return self.ace_points
        if rank <= 10:
            return rank
        return (self.jack_points, self.queen_points, self.king_points)[rank - 11]

    @property
    def has_wilds(self) -> bool:
        """True when some card can be wild under these rules (a wild rank is set).

        Jokers are wild too, but a deck only holds them when the game's options add them;
        the solver looks at the cards themselves for those.
        """
        return self.wild_rank != 0

    def points(self, card: int) -> int:
        """The card's value when it is left unmelded (deadwood, penalty, score)."""
        return self.points_by_face[card & 63]

    def is_wild(self, card: int) -> bool:
        """True for a joker, and for a card of the wild rank."""
        rank = card & 15
        return rank in (JOKER_RANK, self.wild_rank)

    def ace_positions(self) -> tuple[int, ...]:
        """The run positions an ace may take."""
        return (1,) if self.ace_mode != "high_or_low" else (1, 14)


@functools.lru_cache(maxsize=64)
def shared_rules(**fields: Any) -> MeldRules:
    """The :class:`MeldRules` of ``fields``, one object for equal fields (a game asks for
    its hand's rules at every deal; the solver finds the one it saw last by identity)."""
    return MeldRules(**fields)


def meld_kind(cards: Sequence[int], rules: MeldRules) -> MeldKind | None:
    """``"set"`` or ``"run"`` if ``cards`` is a valid meld under ``rules``, else ``None``.

    A list valid as both (only possible with wild cards) is reported as a set.
    """
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return None
    naturals = [c for c in cards if not rules.is_wild(c)]
    if not naturals:
        if not _all_wild_ok(cards, rules):
            return None
        if rules.max_set_size == 0 or len(cards) <= rules.max_set_size:
            return "set"
        return "run" if len(cards) <= MAX_RUN and rules.all_wild_melds else None
    if _is_set(cards, naturals, rules):
        return "set"
    if _is_run(len(cards), naturals, rules):
        return "run"
    return None


def _all_wild_ok(cards: Sequence[int], rules: MeldRules) -> bool:
    if rules.all_wild_melds:
        return True
    # Valid at natural values: a set of the wild rank itself, with no joker.
    return not any(c & 15 == JOKER_RANK for c in cards)


def _is_set(cards: Sequence[int], naturals: list[int], rules: MeldRules) -> bool:
    rank = naturals[0] & 15
    if any(c & 15 != rank for c in naturals):
        return False
    return rules.max_set_size == 0 or len(cards) <= rules.max_set_size


def _is_run(length: int, naturals: list[int], rules: MeldRules) -> bool:
    if length > MAX_RUN:
        return False
    suit = naturals[0] & 48
    ranks = [c & 15 for c in naturals]
    if any(c & 48 != suit for c in naturals) or len(set(ranks)) != len(ranks):
        return False
    return run_span(ranks, rules) <= length


def run_span(ranks: Sequence[int], rules: MeldRules) -> int:
    """The fewest consecutive allowed positions that hold all ``ranks`` (distinct, one suit).

    Returns a number above 13 when no window can hold them.
    """
    if rules.ace_mode == "round_the_corner":
        positions = sorted(ranks)
        gaps = [b - a for a, b in itertools.pairwise(positions)]
        gaps.append(positions[0] + 13 - positions[-1])
        return 13 - max(gaps) + 1
    if rules.ace_mode == "high_or_low" and 1 in ranks:
        others = [r for r in ranks if r != 1]
        if not others:
            return 1
        low = max(others)  # ace at 1: window 1..max
        high = 14 - min(others) + 1  # ace at 14: window min..14
        return min(low, high)
    return max(ranks) - min(ranks) + 1


def order_meld(given: Iterable[int], rules: MeldRules) -> tuple[Card, ...]:
    """The cards of a valid meld in reading order; raises :class:`InvalidMeld` otherwise.

    A set lists its natural cards by suit, then its wild cards. A run lists its cards by
    position, wild cards standing in the gaps first, then above the top, then below.
    """
    cards = [Card(c) for c in given]
    kind = meld_kind(cards, rules)
    if kind is None:
        raise InvalidMeld(f"not a valid meld: {' '.join(map(str, cards))}")
    naturals = sorted((c for c in cards if not rules.is_wild(c)), key=sort_key)
    wilds = sorted((c for c in cards if rules.is_wild(c)), key=sort_key)
    if kind == "set" or not naturals:  # an all-wild run reads like a set
        return tuple(naturals + wilds)
    positions = _run_positions([c.rank for c in naturals], rules)
    by_pos = dict(zip(positions, naturals, strict=True))
    start = _window_start(positions, len(cards), rules)
    ordered: list[Card] = []
    spare = list(wilds)
    for i in range(len(cards)):
        pos = _wrap(start + i, rules)
        ordered.append(by_pos[pos] if pos in by_pos else spare.pop(0))
    return tuple(ordered)


def _wrap(pos: int, rules: MeldRules) -> int:
    if rules.ace_mode == "round_the_corner":
        return (pos - 1) % 13 + 1
    return pos


def _run_positions(ranks: list[int], rules: MeldRules) -> list[int]:
    """Positions of the natural ranks, with the ace placed high when that is the fit."""
    if rules.ace_mode == "high_or_low" and 1 in ranks:
        others = [r for r in ranks if r != 1]
        low_span = max(others, default=1)
        high_span = 14 - min(others, default=14) + 1
        if high_span < low_span:
            return [14 if r == 1 else r for r in ranks]
    return list(ranks)


def _window_start(positions: list[int], length: int, rules: MeldRules) -> int:
    """First position of the window: gaps inside are filled first, then above, then below."""
    if rules.ace_mode == "round_the_corner":
        # Start just after the widest gap; any spare wild cards extend the arc upward.
        ordered = sorted(positions)
        gaps = [(b - a, b) for a, b in itertools.pairwise(ordered)]
        gaps.append((ordered[0] + 13 - ordered[-1], ordered[0]))
        return max(gaps, key=lambda gap: (gap[0], -gap[1]))[1]
    low, high = min(positions), max(positions)
    limit = 14 if rules.ace_mode == "high_or_low" else 13
    extra = length - (high - low + 1)
    up = min(extra, limit - high)
    return low - (extra - up)


def can_lay_off(meld: Sequence[int], cards: Sequence[int], rules: MeldRules) -> bool:
    """True if ``cards`` added to the table meld ``meld`` leave it a valid meld of its kind."""
    kind = meld_kind(meld, rules)
    return kind is not None and meld_kind([*meld, *cards], rules) == kind


def layoff_cards(meld: Sequence[int], cards: Iterable[_C], rules: MeldRules, *,
                 kind: MeldKind | None = None) -> list[_C]:
    """The cards of ``cards`` that can each be laid off alone on the table meld ``meld``.

    Exactly those ``c`` for which ``can_lay_off(meld, [c], rules)`` holds (in the order
    given), without running every card through the validator: a natural card can only
    join a set of its rank or a run of its suit, and only a wild card is checked in
    full. ``meld`` is validated once, or not at all when the caller gives ``kind``,
    which must then be ``meld_kind(meld, rules)``.
    """
    if kind is None:
        kind = meld_kind(meld, rules)
    if kind is None:
        return []
    wild_rank = rules.wild_rank
    naturals = [c for c in meld if c & 15 not in (JOKER_RANK, wild_rank)]
    if not naturals:  # an all-wild meld: anything may fit
        return [c for c in cards if meld_kind([*meld, c], rules) == kind]
    if kind == "set":
        if rules.max_set_size and len(meld) >= rules.max_set_size:
            return []
        rank = naturals[0] & 15
        return [c for c in cards
                if (c & 15 == rank or c & 15 in (JOKER_RANK, wild_rank)) and c not in meld]
    suit = naturals[0] & 48
    length = len(meld) + 1
    ranks = [c & 15 for c in naturals]
    out: list[_C] = []
    for c in cards:
        r = c & 15
        if r in (JOKER_RANK, wild_rank):
            if meld_kind([*meld, c], rules) == kind:
                out.append(c)
        elif (c & 48 == suit and r not in ranks and length <= MAX_RUN
              and run_span([*ranks, r], rules) <= length):
            out.append(c)
    return out
