"""Per-suit run tables that count wild cards: the least deadwood of one suit's naturals.

The meld solver's table path for wild and two-deck hands (:meth:`~rummyhall.rules.solver.
_Context.table_deadwood`) splits a hand into its sets (chosen by rank) and four suits
whose remaining naturals can only meld in runs. What a suit keeps unmelded depends only
on its cards and on how many wild cards it may spend, so one table answers it for every
hand: :class:`SuitRuns` maps a suit's naturals (``once | twice << 16``: bit ``rank`` of
``once`` for a rank held, of ``twice`` for a rank held twice) to the least deadwood
points for 0, 1, ... ``MAX_WILDS`` wild cards spent in that suit's runs.

A run here is one or more naturals of the suit, distinct ranks, fitting a window of at
most 13 allowed positions, with wild cards filling the window's missing positions up to
three cards at least (one natural and two wild cards count as a run: it is as good as a
set of one natural). The table is exact for the ace modes ``low`` and ``high_or_low``
(an ace at 1 or at 14, never both in one run); ``round_the_corner`` is left to the
general search.

Entries are filled as suits come, each solved by taking its lowest natural: left
unmelded, or the lowest card of a run whose other naturals are a choice of the higher
ranks held (at most ``MAX_WILDS`` positions of its window missing). The sub-suits it
leaves are entries of the same table. :meth:`SuitRuns.trace` walks the same choices
back from an entry to the runs and unmelded ranks that reach its value (an arrangement
without a search). Nothing in it depends on a hand or a seat: a suit pattern and the
card values are all it knows. At most ``MAX_ENTRIES`` entries; the
table is emptied when it would grow past them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Final

MAX_WILDS: Final = 3  # wild cards a hand may hold for the table path
MAX_ENTRIES: Final = 60_000  # suit patterns kept per table (each a short tuple)
_ACE_HIGH: Final = 14


class SuitRuns:
    """The least deadwood of each suit pattern by wild cards spent (0..``MAX_WILDS``)."""

    __slots__ = ("ace_high", "rank_points", "table", "zeros")

    def __init__(self, ace_high: bool, rank_points: tuple[int, ...]) -> None:
        self.ace_high = ace_high  # aces may sit at 14 too (high or low)
        self.rank_points = rank_points  # by rank 0..14
        self.zeros: tuple[int, ...] = (0,) * (MAX_WILDS + 1)
        self.table: dict[int, tuple[int, ...]] = {0: self.zeros}

    def get(self, key: int) -> tuple[int, ...]:
        """The entry of ``once | twice << 16`` (ranks at bits 1..13 of each)."""
        found = self.table.get(key)
        if found is None:
            if len(self.table) >= MAX_ENTRIES:
                self.table.clear()
                self.table[0] = self.zeros
            found = self._solve(key & 0xFFFF, key >> 16)
        return found

    def _solve(self, once: int, twice: int) -> tuple[int, ...]:
        key = once | twice << 16
        found = self.table.get(key)
        if found is not None:
            return found
        low = once & -once
        rank = low.bit_length() - 1
        rest1, rest2 = _less(once, twice, low)
        sub = self._solve(rest1, rest2)
        best = [self.rank_points[rank] + v for v in sub]  # the lowest natural unmelded
        self._relax(best, sub, 2)  # alone with two wild cards
        for need, r1, r2, _ in self._runs_from(rank, once, rest1, rest2, MAX_WILDS):
            self._relax(best, self._solve(r1, r2), need)
        for w in range(1, MAX_WILDS + 1):
            best[w] = min(best[w], best[w - 1])
        result = tuple(best)
        self.table[key] = result
        return result

    def _runs_from(self, rank: int, once: int, rest1: int, rest2: int,
                   wilds: int) -> Iterator[tuple[int, int, int, tuple[int, ...]]]:
        """The runs holding the suit's lowest natural (``rank``; ``rest1``, ``rest2``:
        the pattern without it) and a choice of the higher ranks held, needing at most
        ``wilds`` wild cards, each as four values: the wild cards it needs, the pattern
        it leaves (once, twice) and its naturals' positions (the lowest natural's first,
        then the farthest, then those between; an ace high at 14)."""
        others = [r for r in range(rank + 1, 14) if once >> r & 1]
        places = (rank, _ACE_HIGH) if rank == 1 and self.ace_high else (rank,)
        for place in places:
            reach = sorted((r for r in others if r != place), key=lambda r: abs(r - place))
            for i, far in enumerate(reach):
                span = abs(far - place) + 1
                if span > 13:
                    break
                between = [r for r in reach[:i] if (r - place) * (far - place) > 0]
                length = max(3, span)
                for taken in range(len(between), -1, -1):
                    need = length - 2 - taken
                    if need > wilds:
                        break
                    for chosen in combinations(between, taken):
                        r1, r2 = rest1, rest2
                        for r in (far, *chosen):
                            r1, r2 = _less(r1, r2, 1 << r)
                        yield need, r1, r2, (place, far, *chosen)

    def trace(self, key: int, wilds: int) -> tuple[list[tuple[tuple[int, ...], int]],
                                                    list[int], int]:
        """How a suit pattern keeps its least deadwood with ``wilds`` wild cards
        (``get(key)[wilds]``): its runs (the naturals' positions, an ace high at 14, and
        the wild cards each needs; a natural alone needs two), the ranks it leaves
        unmelded and the wild cards it does not need. At each natural, from the lowest:
        first the wild cards that would save nothing more are set aside, then the first
        choice that reaches the entry's value, in the order the table is filled."""
        runs: list[tuple[tuple[int, ...], int]] = []
        dead: list[int] = []
        unused = 0
        once, twice = key & 0xFFFF, key >> 16
        while once:
            entry = self.get(once | twice << 16)
            target = entry[wilds]
            while wilds and entry[wilds - 1] == target:
                wilds -= 1  # (one more wild card would save nothing here)
                unused += 1
            low = once & -once
            rank = low.bit_length() - 1
            rest1, rest2 = _less(once, twice, low)
            sub = self.get(rest1 | rest2 << 16)
            if self.rank_points[rank] + sub[wilds] == target:
                dead.append(rank)
            elif wilds >= 2 and sub[wilds - 2] == target:
                runs.append(((rank,), 2))
                wilds -= 2
            else:
                for need, r1, r2, positions in self._runs_from(rank, once, rest1, rest2,
                                                               wilds):
                    if self.get(r1 | r2 << 16)[wilds - need] == target:
                        runs.append((positions, need))
                        wilds -= need
                        rest1, rest2 = r1, r2
                        break
                else:
                    raise AssertionError(f"no way to suit pattern {key:#x}'s value")
            once, twice = rest1, rest2
        return runs, dead, unused + wilds

    @staticmethod
    def _relax(best: list[int], sub: tuple[int, ...], need: int) -> None:
        """``best[w] = min(best[w], sub[w - need])`` for every ``w`` from ``need``."""
        for w in range(need, MAX_WILDS + 1):
            best[w] = min(best[w], sub[w - need])


def _less(once: int, twice: int, bit: int) -> tuple[int, int]:
    """A suit pattern (``once``, ``twice``) less one natural of the rank ``bit``."""
    if twice & bit:
        return once, twice ^ bit
    return once ^ bit, twice
