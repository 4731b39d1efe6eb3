"""Gin Rummy playouts: the rest of a hand played out on one sampled world, in points.

Theory of operation
-------------------
The expert (:mod:`rummyhall.bots.expert_bot`) judges a Gin decision by playing the rest
of the hand on each sampled world (:mod:`rummyhall.bots.sampling`) with a fast policy for
both seats, and scoring the end exactly as the rules do. A :class:`GinPlayout` holds what
does not change between the playouts of one decision: the meld rules, the table's
options, the knock threshold by stock size, and a memo of the solver's answers (the
worlds of one decision share most of their hands: every candidate is played on the same
worlds, common random numbers).

The policy (the same for both seats, a quick sketch of the strong bot):

- *draw*: take the top discard when it can meld with the hand (a card of its rank, or
  of its suit within two ranks: :func:`related`) and the best hand it gives after a
  discard has less deadwood than the hand now, else draw the stock's top card (an
  unrelated card is never taken, as the strong bot seldom does: this also spares a
  solve at most turns);
- *discard*: the card leaving the least deadwood, the dearest among equals (never the
  card just taken, when the table forbids it);
- *knock*: gin at once; knock when the deadwood left is at most the knock threshold of
  this stock size: the largest count whose chance of an undercut, by the strong bot's
  table of the defender's deadwood (:data:`~rummyhall.bots.strong_bot.GIN_OPPONENT`), is
  below the strong bot's ``knock_risk``; the hand is dead when a discard leaves the
  stock at ``dead_hand_stock_size``.

The knocker lays a best arrangement of its hand (the server's own choice among several
equal ones may differ by a layoff: the playout does not search them, for speed) and the
defender lays off on it (:func:`~rummyhall.rules.best_layoffs`). Scores are the
rules': the difference, the gin bonus plus the defender's count, or the undercut bonus
plus the difference to the defender. A playout returns the viewer's points, positive
when the viewer scores and negative when the opponent does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from rummyhall.rules import (
    Card,
    MeldRules,
    best_arrangement,
    best_layoffs,
    deadwood_points,
    discard_deadwoods,
)

from .strong_bot import GIN_OPPONENT, interpolate, prob_at_most


class SolverMemo:
    """Solver answers memoised for one decision (the worlds share most hands)."""

    def __init__(self, rules: MeldRules) -> None:
        self.rules = rules
        self._dd: dict[tuple[Card, ...], int] = {}
        self._after: dict[tuple[Card, ...], dict[Card, int]] = {}

    def dd(self, hand: Sequence[Card]) -> int:
        key = tuple(sorted(hand))
        got = self._dd.get(key)
        if got is None:
            got = self._dd[key] = deadwood_points(key, self.rules)
        return got

    def after(self, hand: Sequence[Card]) -> dict[Card, int]:
        key = tuple(sorted(hand))
        got = self._after.get(key)
        if got is None:
            got = self._after[key] = discard_deadwoods(key, self.rules)
        return got

    def best_discard(self, hand: Sequence[Card], forbidden: Card | None) -> tuple[Card, int]:
        """The discard leaving the least deadwood (the dearest card among equals)."""
        after = self.after(hand)
        points = self.rules.points
        card = min((c for c in after if c != forbidden),
                   key=lambda c: (after[c], -points(c), c))
        return card, after[card]


def related(card: Card, hand: Sequence[Card]) -> bool:
    """True if ``card`` could meld with a card of ``hand``: its rank, or its suit within two."""
    rank, suit = card & 15, card & 48
    return any((c & 15) == rank or ((c & 48) == suit and abs((c & 15) - rank) <= 2)
               for c in hand)


@lru_cache(maxsize=64)
def knock_thresholds(limit: int, risk: float, deck: int = 52, dealt: int = 21) -> tuple[int, ...]:
    """The highest deadwood the playout policy knocks with, by stock size (0: gin only).

    Index ``s`` is the stock size after the knocker's draw; ``31 - s`` cards have been
    drawn from a 52-card deck's stock of 31 (as the strong bot counts them). Memoised:
    every decision's playouts ask for the same table, and it costs a few hundred normal
    tail probabilities.
    """
    out = []
    drawn_base = deck - dealt
    for s in range(deck - dealt + 1):
        mean, spread = interpolate(GIN_OPPONENT, drawn_base - s)
        top = 0  # gin at once
        for k in range(1, limit + 1):
            if prob_at_most(k, mean, spread) < risk:
                top = k
        out.append(top)
    return tuple(out)


class GinPlayout:
    """The playouts of one Gin decision (see the module docstring)."""

    def __init__(self, rules: MeldRules, options: Mapping[str, bool | int | str], *,
                 knock_risk: float, memo: SolverMemo | None = None,
                 max_turns: int = 80) -> None:
        self.rules = rules
        self.memo = memo or SolverMemo(rules)
        self.limit = int(options.get("knock_limit", 10))
        self.gin_bonus = int(options.get("gin_bonus", 25))
        self.undercut_bonus = int(options.get("undercut_bonus", 25))
        self.undercut_on_tie = bool(options.get("undercut_on_tie", True))
        self.layoff_on_gin = bool(options.get("layoff_on_gin", False))
        self.dead = int(options.get("dead_hand_stock_size", 2))
        self.forbid = bool(options.get("forbid_discarding_taken_card", True))
        self.thresholds = knock_thresholds(self.limit, knock_risk)
        self.max_turns = max_turns

    def threshold(self, stock: int) -> int:
        return self.thresholds[min(stock, len(self.thresholds) - 1)]

    def showdown(self, kept: Sequence[Card], left: int, defender: Sequence[Card]) -> int:
        """The knocker's points (negative: the defender's) for ``kept`` against ``defender``."""
        if left == 0 and not self.layoff_on_gin:
            return self.gin_bonus + self.memo.dd(defender)
        melds = best_arrangement(kept, self.rules).melds
        return self.score(left, best_layoffs(defender, melds, self.rules).points)

    def score(self, left: int, d: int) -> int:
        """The knocker's points (negative: the defender's): ``left`` against ``d``."""
        if left == 0:
            return self.gin_bonus + d
        if left < d:
            return d - left
        if d < left or self.undercut_on_tie:
            return -(self.undercut_bonus + left - d)
        return 0

    def after_discard(self, mine: Sequence[Card], theirs: Sequence[Card],
                      stock: Sequence[Card], top: Card) -> int:
        """The viewer has just discarded ``top`` keeping ``mine``: the opponent moves next."""
        if len(stock) <= self.dead:
            return 0
        return self.play(list(theirs), list(mine), list(stock), top, sign=-1)

    def from_draw(self, mine: Sequence[Card], theirs: Sequence[Card],
                  stock: Sequence[Card], top: Card | None, take: bool) -> int:
        """The viewer draws (``take``: the top discard, else the stock), then plays on."""
        hand = list(mine)
        stock_left = list(stock)
        if take and top is not None:
            drawn, forbidden = top, (top if self.forbid else None)
        else:
            if not stock_left:
                return 0
            drawn, forbidden = stock_left.pop(), None
        return self.play(hand, list(theirs), stock_left, drawn, sign=1, drawn=drawn,
                         forbidden=forbidden)

    def takes(self, hand: Sequence[Card], top: Card) -> bool:
        """The policy's draw: True to take ``top`` (see the module docstring)."""
        if not related(top, hand):
            return False
        after = self.memo.after((*hand, top))
        best = min((v for c, v in after.items() if not (self.forbid and c == top)),
                   default=None)
        return best is not None and best < self.memo.dd(hand)

    def play(self, mover: list[Card], waiting: list[Card], stock: list[Card],
             top: Card, sign: int, *, drawn: Card | None = None,
             forbidden: Card | None = None) -> int:
        """Alternate turns from ``mover``'s draw; ``sign`` is +1 when ``mover`` is the viewer.
        With ``drawn``, ``mover`` has drawn it already (``forbidden``: the card it may not
        discard): the first turn goes on from its discard, a turn beyond ``max_turns``."""
        memo = self.memo
        for _ in range(self.max_turns + (drawn is not None)):
            if drawn is None:
                if self.takes(mover, top):
                    drawn, forbidden = top, (top if self.forbid else None)
                else:
                    if not stock:
                        return 0
                    drawn, forbidden = stock.pop(), None
            full = (*mover, drawn)
            card, left = memo.best_discard(full, forbidden)
            kept = list(full)
            kept.remove(card)
            if left <= self.threshold(len(stock)):
                return sign * self.showdown(kept, left, waiting)
            if len(stock) <= self.dead:
                return 0
            mover, waiting, top, sign, drawn = waiting, kept, card, -sign, None
        return 0
