"""Gin Rummy, Chicago, Basic Rummy and Three Thirteen playouts: the rest of a hand played
out on one sampled world.

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

Chicago (two seats, :class:`ChicagoPlayout`) is played the same way with its own end:
a seat ends the hand as soon as its discard leaves a count within its knock limit (rummy
at 0), as the simple bot and, early in a hand, the strong bot do; a wild card is always
worth a look when drawing. Every seat then pays its own least deadwood, and the knocker
the knock penalty when the other's count is lower (or equal, with
``knock_penalty_on_tie``). Chicago's points are a cost, so the playout returns the
opponent's count less the viewer's: what the hand gains the viewer against the other.
An empty stock ends the playout at 0 (the engine would rebuild it; a hand that long is
rare, and its end is no one's edge).

Basic Rummy (two seats, :class:`BasicPlayout`) is played on the table as it changes,
since there a hand is won on the table: each turn the mover draws (the top discard when
it lays off on a table meld, or as above), lays off every card that fits a table meld
and is deadwood (one at a time, the first meld it fits, so that a run's new ends take
the next ones), lays down the melds of a best arrangement of what is left (one a turn
where the table says so), and discards the card leaving the least deadwood. Melds laid
in the playout take layoffs like the table's own. An empty hand goes out: the other
seat pays every card it holds, doubled (or 10 more) when the winner goes rummy, having
melded and laid off nothing in an earlier turn, as the table's ``rummy_bonus`` says;
``must_discard_to_go_out`` and the taken card that may not be discarded bind the policy
as they bind a player. The engine playing this policy scores exactly what the playout
scores (tested; with ``scoring_mode`` ``low_score_wins`` the engine's points are a cost,
and the playout's value is the other's cost less ours, the same number). An empty stock
ends the playout at 0, as in Chicago, unless the playout is given the discard pile: then
it goes on as the engine does (tested, shuffles included): at the table's
``stock_exhaustion_limit`` the hand ends on the counts (the playout's value is the
other's count less ours, under either scoring); a stock that runs out after ten
rebuilds (``MAX_STOCK_EXHAUSTIONS``), or an empty pile, makes the hand void (0); else
the pile under its top card becomes the stock, turned over (the oldest discard drawn
first) or shuffled, as the table's ``stock_rebuild`` says, and with nothing under the
top card that card is the only draw.

Three Thirteen (two seats, :class:`ThirteenPlayout`) is played to the end of the round:
each turn the mover draws and discards as in Chicago; a discard that leaves every card
melded goes out, and the other seat then plays its last turn (a draw and a discard: it
may not go out). Each seat pays its least deadwood, so the playout returns, as in
Chicago, the other's count less the viewer's. The seat that went out pays nothing. An
empty stock ends the playout with the counts the seats hold then (the engine rebuilds
the stock and plays on, and both seats keep paying what they hold).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Protocol

from rummyhall.rules import (
    MAX_STOCK_EXHAUSTIONS,
    Card,
    MeldRules,
    best_arrangement,
    best_layoffs,
    deadwood_points,
    discard_deadwoods,
    layoff_cards,
)
from rummyhall.rules import best_discard as solver_best_discard

from .evaluation import face_mask, first_layoffs
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
        """The discard leaving the least deadwood (the dearest card among equals, then the
        lowest code)."""
        if not self.rules.wild_rank and min(hand) > 0 and max(hand) < 64:
            # One deck, no joker (a joker's code is a multiple of 64, a second deck's
            # cards are above 64): codes run in display order, so the solver's choice
            # among equals is ours, and its fast path is a table lookup.
            return solver_best_discard(hand, self.rules, forbidden)
        after = self.after(hand)
        low = min([v for c, v in after.items() if c != forbidden])
        ties = [c for c, v in after.items() if v == low and c != forbidden]
        if len(ties) == 1:
            return ties[0], low
        points = self.rules.points
        return min(ties, key=lambda c: (-points(c), c)), low


def related(card: Card, hand: Sequence[Card]) -> bool:
    """True if ``card`` could meld with a card of ``hand``: its rank, or its suit within two."""
    rank, suit = card & 15, card & 48
    return any((c & 15) == rank or ((c & 48) == suit and abs((c & 15) - rank) <= 2)
               for c in hand)


class _DrawnPlayout(Protocol):
    forbid: bool

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int: ...


def from_draw(playout: _DrawnPlayout, mine: Sequence[Card], theirs: Sequence[Card],
              stock: Sequence[Card], *, top: Card | None, take: bool) -> int:
    """A playout from the viewer's draw: the top discard (``take``; it may then not be
    discarded when the table forbids it) or the stock's top card (0 when the stock is
    empty), then the rest of the hand."""
    stock_left = list(stock)
    if take and top is not None:
        drawn, forbidden = top, (top if playout.forbid else None)
    elif stock_left:
        drawn, forbidden = stock_left.pop(), None
    else:
        return 0
    return playout.play_drawn(list(mine), list(theirs), stock_left, top=top, drawn=drawn,
                              forbidden=forbidden)


class _TakingPlayout(Protocol):
    memo: SolverMemo
    forbid: bool

    def may_meld(self, top: Card, hand: Sequence[Card]) -> bool: ...


def take_choice(playout: _TakingPlayout, hand: Sequence[Card], top: Card,
                count: int | None) -> tuple[Card, int] | None:
    """The policy's draw and the discard after it: when ``top`` could meld with ``hand``
    and taking it, then discarding the best card (not ``top`` when the table forbids it),
    leaves less deadwood than ``hand`` holds now (``count``, when the playout knows it),
    that discard and the deadwood it leaves; None to draw from the stock. (The discard is
    the playout's next step: it is worked out once.)"""
    if not playout.may_meld(top, hand):
        return None
    memo = playout.memo
    best = memo.best_discard((*hand, top), top if playout.forbid else None)
    return best if best[1] < (memo.dd(hand) if count is None else count) else None


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
        # Aces low and no wild rank: a natural layoff starts at a set's rank or a
        # run's end (jokers are checked at each showdown).
        self.plain = rules.ace_mode == "low" and not rules.wild_rank

    def threshold(self, stock: int) -> int:
        return self.thresholds[min(stock, len(self.thresholds) - 1)]

    def showdown(self, kept: Sequence[Card], left: int, defender: Sequence[Card]) -> int:
        """The knocker's points (negative: the defender's) for ``kept`` against ``defender``."""
        if left == 0 and not self.layoff_on_gin:
            return self.gin_bonus + self.memo.dd(defender)
        melds = best_arrangement(kept, self.rules).melds
        if self.plain:
            theirs = face_mask(defender)
            # (no joker on either side, whose face is 0: a joker lays off anywhere)
            if not (theirs | face_mask(kept)) & 1 and not first_layoffs(melds) & theirs:
                return self.score(left, self.memo.dd(defender))  # (nothing to lay off)
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
        return from_draw(self, mine, theirs, stock, top=top, take=take)

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int:
        """The viewer has drawn ``drawn``: the hand played on (see :func:`from_draw`)."""
        return self.play(mine, theirs, stock, drawn, sign=1, drawn=drawn, forbidden=forbidden)

    def may_meld(self, top: Card, hand: Sequence[Card]) -> bool:
        """Whether ``top`` could meld with ``hand`` (:func:`related`): else never taken."""
        return related(top, hand)

    def takes(self, hand: Sequence[Card], top: Card) -> bool:
        """The policy's draw: True to take ``top`` (see the module docstring)."""
        return take_choice(self, hand, top, None) is not None

    def play(self, mover: list[Card], waiting: list[Card], stock: list[Card],
             top: Card, sign: int, *, drawn: Card | None = None,
             forbidden: Card | None = None) -> int:
        """Alternate turns from ``mover``'s draw; ``sign`` is +1 when ``mover`` is the viewer.
        With ``drawn``, ``mover`` has drawn it already (``forbidden``: the card it may not
        discard): the first turn goes on from its discard, a turn beyond ``max_turns``."""
        memo = self.memo
        counts: tuple[int | None, int | None] = (None, None)  # the mover's, the other's
        for _ in range(self.max_turns + (drawn is not None)):
            choice = None
            if drawn is None:
                choice = take_choice(self, mover, top, counts[0])
                if choice is not None:
                    drawn, forbidden = top, (top if self.forbid else None)
                else:
                    if not stock:
                        return 0
                    drawn, forbidden = stock.pop(), None
            full = (*mover, drawn)
            card, left = choice if choice is not None else memo.best_discard(full, forbidden)
            kept = list(full)
            kept.remove(card)
            if left <= self.threshold(len(stock)):
                return sign * self.showdown(kept, left, waiting)
            if len(stock) <= self.dead:
                return 0
            mover, waiting, top, sign, drawn = waiting, kept, card, -sign, None
            counts = (counts[1], left)
        return 0


class _WildDraws:
    """The draw of Chicago's and Three Thirteen's playouts, where a wild card is always
    worth a look: the hand's count is all that is played for, no table."""

    def __init__(self, rules: MeldRules, options: Mapping[str, bool | int | str], *,
                 memo: SolverMemo | None, max_turns: int) -> None:
        self.rules = rules
        self.memo = memo or SolverMemo(rules)
        self.forbid = bool(options.get("forbid_discarding_taken_card", True))
        self.max_turns = max_turns

    def may_meld(self, top: Card, hand: Sequence[Card]) -> bool:
        """Whether ``top`` could meld with ``hand``: a wild card always may."""
        return self.rules.is_wild(top) or related(top, hand)

    def takes(self, hand: Sequence[Card], top: Card) -> bool:
        """The policy's draw: take ``top`` when it could meld and lowers the count."""
        return take_choice(self, hand, top, None) is not None

    def from_draw(self, mine: Sequence[Card], theirs: Sequence[Card],
                  stock: Sequence[Card], top: Card | None, take: bool) -> int:
        """The viewer draws (``take``: the top discard, else the stock), then plays on."""
        return from_draw(self, mine, theirs, stock, top=top, take=take)

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int:
        raise NotImplementedError

    def turn(self, mover: list[Card], stock: list[Card], top: Card | None,
             count: int | None, *, drawn: Card | None, forbidden: Card | None
             ) -> tuple[Card, int, list[Card]] | None:
        """One turn of the policy: unless ``mover`` has ``drawn`` already, the top
        discard (see :func:`take_choice`; ``count``, the mover's count when known) or
        the stock's top card, then the discard leaving the least deadwood. Returns the
        card discarded, the count left and the hand kept; None when the stock is empty."""
        choice = None
        if drawn is None:
            if top is not None and (choice := take_choice(self, mover, top, count)) is not None:
                drawn, forbidden = top, (top if self.forbid else None)
            elif stock:
                drawn, forbidden = stock.pop(), None
            else:
                return None
        card, left = (choice if choice is not None
                      else self.memo.best_discard((*mover, drawn), forbidden))
        kept = [*mover, drawn]
        kept.remove(card)
        return card, left, kept


class ChicagoPlayout(_WildDraws):
    """The playouts of one two-seat Chicago decision (see the module docstring).

    ``limits`` are the knock limits of the viewer and of the opponent (0: rummy only).
    """

    def __init__(self, rules: MeldRules, options: Mapping[str, bool | int | str],
                 limits: tuple[int, int], *, memo: SolverMemo | None = None,
                 max_turns: int = 60) -> None:
        super().__init__(rules, options, memo=memo, max_turns=max_turns)
        self.limits = limits
        self.penalty = int(options.get("knock_penalty", 15))
        self.on_tie = bool(options.get("knock_penalty_on_tie", True))

    def showdown(self, left: int, other: Sequence[Card]) -> int:
        """The knocker's gain: the other's count less its own (its penalty included)."""
        theirs = self.memo.dd(other)
        mine = left
        if left and (theirs < left or (theirs == left and self.on_tie)):
            mine += self.penalty
        return theirs - mine

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int:
        """The viewer has drawn ``drawn``: the hand played on (see :func:`from_draw`)."""
        return self.play(mine, theirs, stock, top, 0, drawn=drawn, forbidden=forbidden)

    def after_discard(self, mine: Sequence[Card], theirs: Sequence[Card],
                      stock: Sequence[Card], top: Card) -> int:
        """The viewer has just discarded ``top`` keeping ``mine``: the opponent moves next."""
        return -self.play(list(theirs), list(mine), list(stock), top, 1)

    def play(self, mover: list[Card], waiting: list[Card], stock: list[Card],
             top: Card | None, seat: int, *, drawn: Card | None = None,
             forbidden: Card | None = None) -> int:
        """Alternate turns from ``mover``'s draw (``seat`` 0: the viewer, 1: the other);
        returns the gain of ``mover``'s side. With ``drawn``, ``mover`` has drawn it."""
        sign = 1
        counts: tuple[int | None, int | None] = (None, None)  # the mover's, the other's
        for _ in range(self.max_turns + (drawn is not None)):
            step = self.turn(mover, stock, top, counts[0], drawn=drawn, forbidden=forbidden)
            if step is None:
                return 0
            card, left, kept = step
            if left <= self.limits[seat]:
                return sign * self.showdown(left, waiting)
            mover, waiting, top, seat, sign, drawn = waiting, kept, card, 1 - seat, -sign, None
            counts = (counts[1], left)
        return 0


class BasicPlayout:
    """The playouts of one two-seat Basic Rummy decision (see the module docstring).

    ``table`` is the table's melds as they stand; ``deck`` the deck's cards (what a meld
    may take); ``melded`` whether the viewer and the opponent have melded or laid off in
    an earlier turn (no more rummy for them); ``may_lay_off`` whether each may lay off
    now (a table may ask a seat to meld first).

    ``pile`` is the discard pile as the decision sees it (bottom to top): with it, an
    empty stock is rebuilt from the pile as the table rebuilds it (turned over, or
    shuffled), or ends the hand at the table's ``stock_exhaustion_limit``;
    ``exhaustions`` counts the rebuilds this hand has had. Without it (None) an empty
    stock ends the playout at 0. The shuffles come from ``rng`` when given; else each
    playout seeds its own from its world (the stock and the other seat's hand), so that
    the candidates of a decision, played out on one world, meet the same shuffles.
    """

    def __init__(self, rules: MeldRules, options: Mapping[str, bool | int | str],
                 table: Sequence[Sequence[Card]], deck: Sequence[Card], *,
                 melded: tuple[bool, bool] = (False, False),
                 may_lay_off: tuple[bool, bool] = (True, True),
                 memo: SolverMemo | None = None, max_turns: int = 60,
                 pile: Sequence[Card] | None = None, exhaustions: int = 0,
                 rng: random.Random | None = None) -> None:
        self.rules = rules
        self.memo = memo or SolverMemo(rules)
        self.deck = tuple(deck)
        self.forbid = bool(options.get("forbid_discarding_taken_card", True))
        self.must_discard = bool(options.get("must_discard_to_go_out", False))
        self.one_meld = bool(options.get("one_meld_per_turn", False))
        self.bonus = str(options.get("rummy_bonus", "double"))
        self.max_turns = max_turns
        self.start_table = [tuple(m) for m in table]
        self.start_fits = [frozenset(layoff_cards(m, self.deck, rules)) for m in self.start_table]
        self.start_layable = frozenset().union(*self.start_fits)
        self.melded = melded
        self.may_lay_off = may_lay_off
        self.pile = None if pile is None else tuple(pile)
        self.exhaustions = exhaustions
        self.turn_over = options.get("stock_rebuild", "shuffle") == "turn_over"
        self.exhaustion_limit = int(options.get("stock_exhaustion_limit", 0))
        self.rng = rng
        self.world: int = 0  # the seed of the world being played out (without ``rng``)

    def may_meld(self, top: Card, hand: Sequence[Card]) -> bool:
        """Whether the viewer could use ``top``: it lays off on the table, or it could
        meld with ``hand`` (:func:`related`)."""
        return (self.may_lay_off[0] and top in self.start_layable) or related(top, hand)

    def from_draw(self, mine: Sequence[Card], theirs: Sequence[Card],
                  stock: Sequence[Card], top: Card | None, take: bool) -> int:
        """The viewer draws (``take``: the top discard, else the stock), then plays on."""
        self.enter(theirs, stock)
        return from_draw(self, mine, theirs, stock, top=top, take=take)

    def enter(self, theirs: Sequence[Card], stock: Sequence[Card]) -> None:
        """A playout starts on the world of the other seat's hand ``theirs`` and
        ``stock``: the seed of its shuffles (with a pile and no ``rng``)."""
        if self.pile is not None:
            self.world = hash((tuple(stock), tuple(theirs)))

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int:
        """The viewer has drawn ``drawn``: the hand played on (see :func:`from_draw`)."""
        under = list(self.pile[:-1]) if self.pile else []  # (what lies under ``top``)
        return BasicHand(self, mine, theirs, stock, under).play(0, top, drawn, forbidden)

    def after_discard(self, mine: Sequence[Card], theirs: Sequence[Card],
                      stock: Sequence[Card], top: Card) -> int:
        """The viewer has just discarded ``top`` keeping ``mine``: the opponent moves next
        (unless that discard went out)."""
        if not mine:
            return self.score(theirs, not self.melded[0])
        self.enter(theirs, stock)
        under = list(self.pile or ())  # (the pile the decision saw lies under our discard)
        return BasicHand(self, list(mine), list(theirs), list(stock), under).play(
            1, top, None, None)

    def score(self, loser: Sequence[Card], rummy: bool) -> int:
        """What going out gains against ``loser``'s cards (all of them count), going
        rummy or not, as the table's bonus says."""
        points = self.rules.points
        count = sum(points(c) for c in loser)
        if rummy and self.bonus == "double":
            return 2 * count
        if rummy and self.bonus == "plus_10":
            return count + 10
        return count


class BasicHand:
    """One Basic Rummy playout: both hands, the stock and the table as they change.

    Each turn the mover draws (the top discard when it lays off on the table, or when it
    could meld and the best discard after it leaves less deadwood than the hand holds:
    :func:`take_choice`), lays off each card that fits the table and is deadwood (the
    first meld it fits, in table order, again while any fits), lays down the melds of a
    best arrangement of what is left, and discards the card leaving the least deadwood;
    an empty hand goes out, and the other seat pays every card it holds. ``under`` is the
    discard pile under the top card (what a rebuilt stock is made of).
    """

    def __init__(self, playout: BasicPlayout, mine: list[Card], theirs: list[Card],
                 stock: list[Card], under: list[Card] | None = None) -> None:
        self.p = playout
        self.hands = [mine, theirs]
        self.stock = stock
        self.under = under if under is not None else []
        self.exhaustions = playout.exhaustions
        self.rng = playout.rng  # (made from the world at the first shuffle, without one)
        self.table = list(playout.start_table)
        self.fits = list(playout.start_fits)
        self.melded = list(playout.melded)
        self.may_lay_off = list(playout.may_lay_off)
        self.melds_this_turn = 0

    def layable(self, card: Card, seat: int) -> int | None:
        """The first table meld ``seat`` may lay ``card`` off on, or None."""
        if not self.may_lay_off[seat]:
            return None
        for i, fits in enumerate(self.fits):
            if card in fits:
                return i
        return None

    def takes(self, hand: Sequence[Card], top: Card, seat: int) -> bool:
        if self.layable(top, seat) is not None:
            return True
        if not related(top, hand):
            return False
        memo, forbid = self.p.memo, self.p.forbid
        return memo.best_discard((*hand, top), top if forbid else None)[1] < memo.dd(hand)

    def may_leave(self, rest: Sequence[Card], forbidden: Card | None) -> bool:
        """Whether a turn may go on to a discard, or end, holding ``rest``."""
        if not rest:
            return not self.p.must_discard
        return not (len(rest) == 1 and rest[0] == forbidden)

    def lay_off(self, hand: list[Card], seat: int, forbidden: Card | None) -> bool:
        """Lay off one card of ``hand``'s deadwood that fits the table; True if one was."""
        p = self.p
        memo, points = p.memo, p.rules.points
        for card in hand:
            i = self.layable(card, seat)
            if i is None:
                continue
            rest = [c for c in hand if c != card]
            if not self.may_leave(rest, forbidden) or (
                    rest and memo.dd(rest) != memo.dd(hand) - points(card)):
                continue  # (it serves a meld in hand, or the turn could not end)
            hand.remove(card)
            meld = self.table[i] = (*self.table[i], card)
            self.fits[i] = frozenset(layoff_cards(meld, p.deck, p.rules))
            return True
        return False

    def meld(self, hand: list[Card], seat: int, forbidden: Card | None) -> bool:
        """Lay down one meld of a best arrangement of ``hand`` (none once the turn has
        melded, where the table allows one meld a turn); True if one was."""
        p = self.p
        points = p.rules.points
        if (p.one_meld and self.melds_this_turn) or p.memo.dd(hand) == sum(
                points(c) for c in hand):
            return False  # nothing melds
        for meld in best_arrangement(hand, p.rules).melds:
            rest = [c for c in hand if c not in meld]
            if not self.may_leave(rest, forbidden):
                continue
            hand[:] = rest
            self.table.append(tuple(meld))
            self.fits.append(frozenset(layoff_cards(meld, p.deck, p.rules)))
            self.may_lay_off[seat] = True
            self.melds_this_turn += 1
            return True
        return False

    def restock(self, top: Card | None) -> int | None:
        """A turn starts on an empty stock, as the table starts it: the hand ends (the
        viewer's points) at the table's ``stock_exhaustion_limit``, or void (0) after
        ``MAX_STOCK_EXHAUSTIONS`` rebuilds or with no discard left; else the pile under
        ``top`` becomes the stock (turned over, the oldest discard drawn first, or
        shuffled), and None. With nothing under ``top``, it is the only card to draw (the
        table's rule; in two-seat Basic Rummy a rebuilt stock always holds a card)."""
        p = self.p
        limit = p.exhaustion_limit
        if limit and self.exhaustions >= limit - 1:  # the counts decide: ours against theirs
            points = p.rules.points
            mine, theirs = (sum(map(points, hand)) for hand in self.hands)
            return theirs - mine
        if self.exhaustions >= MAX_STOCK_EXHAUSTIONS or top is None:
            return 0
        self.exhaustions += 1
        if self.under:
            if p.turn_over:
                self.stock = self.under[::-1]
            else:
                if self.rng is None:
                    self.rng = random.Random(p.world)
                order = sorted(self.under)
                self.rng.shuffle(order)
                self.stock = order[::-1]
            self.under = []
        return None

    def play(self, seat: int, top: Card | None, drawn: Card | None,
             forbidden: Card | None) -> int:
        """Alternate turns from ``seat``'s draw (0: the viewer) and return the viewer's
        points: what it gains going out, less what it pays when the other does; 0 after
        ``max_turns`` turns, and when the stock runs out without a pile to rebuild it
        from (:meth:`restock` otherwise). With ``drawn``, ``seat`` has drawn it
        (``forbidden``: the card it may not discard)."""
        p = self.p
        memo = p.memo
        rebuilds = p.pile is not None
        for _ in range(p.max_turns + (drawn is not None)):
            hand = self.hands[seat]
            if drawn is None:
                if rebuilds and not self.stock and (end := self.restock(top)) is not None:
                    return end
                if top is not None and (self.takes(hand, top, seat)
                                        or (rebuilds and not self.stock)):
                    drawn, forbidden, took = top, (top if p.forbid else None), True
                else:
                    if not self.stock:
                        return 0
                    drawn, forbidden, took = self.stock.pop(), None, False
            else:
                took = drawn == top
            hand.append(drawn)
            played = False
            self.melds_this_turn = 0
            while self.lay_off(hand, seat, forbidden) or self.meld(hand, seat, forbidden):
                played = True
            if hand:
                card, _ = memo.best_discard(hand, forbidden if forbidden in hand else None)
                hand.remove(card)
                if top is not None and not took:
                    self.under.append(top)
                top = card
            if not hand:
                gain = p.score(self.hands[1 - seat], not self.melded[seat])
                return gain if seat == 0 else -gain
            if played:
                self.melded[seat] = True
            seat, drawn = 1 - seat, None
        return 0


class ThirteenPlayout(_WildDraws):
    """The playouts of one two-seat Three Thirteen decision (see the module docstring).

    ``out``: the other seat has gone out this round, so the viewer's turn is its last.
    """

    def __init__(self, rules: MeldRules, options: Mapping[str, bool | int | str], *,
                 out: bool = False, memo: SolverMemo | None = None,
                 max_turns: int = 60) -> None:
        super().__init__(rules, options, memo=memo, max_turns=max_turns)
        self.out = out

    def from_draw(self, mine: Sequence[Card], theirs: Sequence[Card],
                  stock: Sequence[Card], top: Card | None, take: bool) -> int:
        """The viewer draws (``take``: the top discard, else the stock), then plays on;
        from an empty stock, the counts the seats hold now."""
        if not (take and top is not None) and not stock:
            return self.memo.dd(theirs) - self.memo.dd(mine)
        return from_draw(self, mine, theirs, stock, top=top, take=take)

    def play_drawn(self, mine: list[Card], theirs: list[Card], stock: list[Card], *,
                   top: Card | None, drawn: Card, forbidden: Card | None) -> int:
        """The viewer has drawn ``drawn``: the round played on (see :func:`from_draw`)."""
        return self.play(mine, theirs, stock, top, last=self.out, drawn=drawn,
                         forbidden=forbidden)

    def after_discard(self, mine: Sequence[Card], theirs: Sequence[Card],
                      stock: Sequence[Card], top: Card) -> int:
        """The viewer has just discarded ``top`` keeping ``mine``: the opponent moves
        next (the round is over if the viewer's turn was its last)."""
        if self.out:
            return -self.memo.dd(mine)
        return -self.play(list(theirs), list(mine), list(stock), top, last=False)

    def play(self, mover: list[Card], waiting: list[Card], stock: list[Card],
             top: Card | None, *, last: bool, drawn: Card | None = None,
             forbidden: Card | None = None) -> int:
        """Alternate turns from ``mover``'s draw; returns the other side's count less
        ``mover``'s at the round's end. ``last``: ``waiting`` has gone out, and this is
        ``mover``'s last turn. With ``drawn``, ``mover`` has drawn it."""
        memo = self.memo
        sign = 1
        counts: tuple[int | None, int | None] = (None, None)  # the mover's, the other's
        for _ in range(self.max_turns + (drawn is not None)):
            step = self.turn(mover, stock, top, counts[0], drawn=drawn, forbidden=forbidden)
            if step is None:
                break
            card, left, kept = step
            if last:  # the other went out: it pays nothing
                return -sign * left
            mover, waiting, top, sign, drawn = waiting, kept, card, -sign, None
            counts = (counts[1], left)
            last = left == 0  # gone out: the other's last turn
        mine, theirs = counts
        return sign * ((memo.dd(waiting) if theirs is None else theirs)
                       - (memo.dd(mover) if mine is None else mine))
