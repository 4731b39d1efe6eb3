"""The expert bot: the strong bot's judgement, checked by a search over sampled deals.

Theory of operation
-------------------
At each decision the expert first asks the strong bot (:mod:`rummyhall.bots.strong_bot`)
what it would do: that answer is the fallback, ready before any search starts. Then,
while its thinking budget lasts, it draws *worlds* (:mod:`rummyhall.bots.sampling`):
deals of the cards it cannot see that agree with everything its seat has seen, the
opponents' pile pickups in their hands and their discards weighing against hands that
would have kept them. Every candidate is judged on the same worlds, so that their
differences are not drowned in the deals' luck.

- **The discard.** The candidates are the strong bot's best few by its own ranking
  (deadwood and draw potential of the kept hand, plus a modelled danger). On each world
  the expert replaces the modelled danger by what the discard actually gives the next
  seat there: that seat, playing the simple policy on its sampled cards, takes the card
  when it lowers its deadwood; the deadwood it saves against drawing the world's next
  stock card counts against us (``feed_weight`` points per point; ``out_weight`` would
  add a share of our kept deadwood when the card lets that seat end the hand, which
  lost in the arena, so it is 0). The expert keeps the strong bot's choice unless
  another candidate's mean cost is lower by ``switch_margin`` and by ``switch_z``
  standard errors of their paired difference (a few worlds are noisy: switching on a
  bare mean lost in the arena); it answers at once when the strong bot's ranking has a
  clear winner (a gap of ``clear_cost``), and stops searching once the best two differ
  by ``clear_z`` standard errors of their paired differences after ``min_worlds``.
- **Gin's knock.** When the strong bot would knock, the defender's deadwood after laying
  off on our melds is computed exactly on every world (on the melds the strong bot
  chose to lay, or the engine's showdown arrangement when it names none): the strong
  bot's table cannot see that these melds take the layoffs of the cards this opponent
  collects. If the sampled chance of an undercut reaches
  ``knock_risk`` the expert plays on with the best discard instead. Gin is always
  called. (Knocking where the strong bot would not, on a sampled risk alone, lost in
  the arena at every threshold tried: the strong bot's table rule plays for gin late
  on purpose.)
- **Gin's draw: playouts.** Two seats of Gin, when the top discard could meld with the
  hand (or the strong bot would take it): taking it and drawing from the stock are each
  played to the end of the hand on every world by a fast policy for both seats
  (:mod:`rummyhall.bots.playouts`, scored exactly as the rules score), on the same
  worlds; the strong bot's choice stands unless the other gains ``playout_margin``
  points per hand and ``switch_z`` standard errors of the paired difference.
- **Gin's knock: playouts, early in the hand.** Two seats of Gin, while the stock holds
  ``knock_playout_stock`` cards or more, the lowest legal knock is weighed against the
  discard the strong bot would make: the knock by its showdown on each world, the
  discard by a playout. Later the playouts knock too often (valued on the true cards,
  those late knocks lost points), and the strong bot's knock with the check above rules.
- The discard can be played out too (``playouts``), but the playout policy is weaker
  than the strong bot, and judging every decision by it lost clearly in the arena (35%
  of 40 games at 16 worlds), so by default it is not.
- **Two-seat Chicago's draw and knock: playouts, as an option** (``chicago_playouts``,
  off by default). The same comparison on Chicago's own playouts
  (:class:`~rummyhall.bots.playouts.ChicagoPlayout`): the top discard against the stock,
  and the lowest knock (its showdown on each world) against the strong bot's choice.
  Measured against the strong bot they gained nothing (docs/bot-design.md), and they cost the
  budget at every draw, so the strong bot's rules stand unless a caller names them.
- **Two-seat Basic Rummy's draw and discard: playouts** (``basic_playouts``, both by
  default). The top discard against the stock, when the top card could meld with the
  hand or lay off on the table (or the strong bot would take it), and the strong bot's
  best few discards (``playout_candidates``, unless its ranking is clear), each played
  to the end of the hand on every world by Basic Rummy's playouts
  (:class:`~rummyhall.bots.playouts.BasicPlayout`: the table's melds and layoffs as
  they change, going rummy scored), compared as Gin's draw is. Valued on the true
  cards, the draw's departures gain about a point each and the discard's about
  nothing, as the sampled feed's did (docs/bot-design.md); with ``basic_playouts=("draw",)``
  the discard is the sampled feed's. A playout ends at 0 when the stock runs out; with
  ``basic_rebuild`` (off: valued on the true cards, it gained nothing) it rebuilds the
  stock from the pile the seat sees, as the table does, knowing the rebuilds the seat
  has seen this hand.
- **Two-seat Three Thirteen's draw and discard: playouts, as an option**
  (``thirteen_playouts``, off by default). The same comparisons on Three Thirteen's
  playouts (:class:`~rummyhall.bots.playouts.ThirteenPlayout`: the round to its end,
  the other seat's last turn after a seat goes out, each paying its count), the
  viewer's own last turn included. Valued on the true cards both lost points against
  the strong bot's own draw and discard (docs/bot-design.md): its draw weighs the race and
  the hand's potential, which the playouts' greedy policy does not.
- The other games' draws, Chicago's knock, Three Thirteen's going out and Basic Rummy's
  melding are the strong bot's rules. So is Basic Rummy's discard from three seats
  (``basic_feed_seats``): there the strong bot holds its melds for one going-out turn,
  and beside that hold the sampled feed lost (docs/bot-design.md), so the expert there plays
  as the strong bot does.

Time: the budget (``budget_ms``, default 100 ms) counts ``clock``: ``"wall"`` time (a
server's house bots: they must answer in time) or ``"cpu"``, the deciding thread's CPU
time (the arena: the same search however loaded the machine is), still capped at
``wall_cap_ms`` of wall time (five times the budget by default) so that the bot answers
even when it gets no core. Both clocks are arguments (``clock``, ``cpu_clock``), so that
tests pass counting clocks and never depend on speed. The budget starts before the
strong bot's own answer; the search checks it before each world and starts one only if
the time left exceeds what the dearest world of this decision took (a world costs about
a millisecond, a playout world a few), so the answer comes within the budget, past it
only by what a world costs beyond every one before it; with no time at all it is the
strong bot's. With
``budget_ms=None`` only ``max_worlds`` bounds the work, and the same seed gives the same
decisions whatever the machine's speed (the arena's reproducible mode).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rummyhall.rules import (
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    SeatAction,
    SeatView,
    best_layoffs,
    knocker_arrangement,
)

from .playouts import BasicPlayout, ChicagoPlayout, GinPlayout, SolverMemo, ThirteenPlayout
from .sampling import World, dealt_size, deck_cards, sample_world, unseen_pool
from .strong_bot import (
    CHICAGO_OPPONENT,
    StrongBot,
    StrongParams,
    StrongTurn,
    interpolate,
)
from .tracking import HandMemory

#: Gin: the deadwood of the opponent's hand (before layoffs) by cards drawn from the stock
#: since the deal, mean and spread, measured in strong-against-strong play: what the
#: sampler builds the opponent's hand to (the strong bot's GIN_OPPONENT is the count after
#: layoffs of a defender, and runs twice as high in the middle of the hand).
GIN_HELD: tuple[tuple[int, float, float], ...] = (
    (2, 39.6, 17.0), (8, 18.3, 12.4), (14, 9.3, 8.4), (20, 6.4, 4.9), (26, 4.5, 2.0),
)

#: The clocks a budget may count (see :class:`ExpertParams`): wall time, or the CPU time
#: of the thread that decides (what the bot itself spent, whatever the machine's load).
CLOCKS = ("wall", "cpu")
#: Gin's decisions the expert may judge by playouts (:class:`ExpertParams` ``playouts``).
PLAYOUTS = ("draw", "discard", "knock")
#: Two-seat Chicago's (``chicago_playouts``).
CHICAGO_PLAYOUTS = ("draw", "knock")
#: Two-seat Basic Rummy's (``basic_playouts``).
BASIC_PLAYOUTS = ("draw", "discard")
#: Two-seat Three Thirteen's (``thirteen_playouts``).
THIRTEEN_PLAYOUTS = ("draw", "discard")
#: The playouts of a decision, by game.
Playout = GinPlayout | ChicagoPlayout | BasicPlayout | ThirteenPlayout


@dataclass(frozen=True, slots=True)
class ExpertParams:
    """The expert's budget and search settings (milliseconds, worlds, deadwood points)."""

    budget_ms: float | None = 100.0  # thinking time per decision; None: max_worlds only
    max_worlds: int = 300  # worlds per decision at most
    min_worlds: int = 8  # worlds before an early stop on a clear leader
    candidates: int = 4  # discards searched: the strong bot's best by its own ranking
    clear_cost: float = 6.0  # the strong bot's ranking gap that needs no search
    switch_margin: float = 0.25  # an alternative must beat the strong choice by this
    switch_z: float = 2.0  # ... and by this many standard errors of the paired difference
    feed_weight: float = 1.0  # points lost per point of deadwood our discard saves the next seat
    out_weight: float = 0.0  # share of our deadwood lost when our discard lets it go out
    clear_z: float = 3.0  # early stop: the leader's paired advantage in standard errors
    knock_risk: float = 0.30  # Gin: the strong bot's knock stands below this undercut chance
    knock_worlds: int = 24  # worlds sampled for a knock decision at most
    tries: int = 6  # hands drawn per opponent and world (the best fit is kept)
    model: bool = True  # fit the opponents' deadwood to the measured tables
    shunned_points: float = 4.0  # Gin: a sampled hand's contradiction weighs this miss
    clock: str = "wall"  # what the budget counts: "wall" time or the thread's "cpu" time
    wall_cap_ms: float | None = None  # with the cpu clock, a wall-time cap (None: 5 x budget)
    playouts: tuple[str, ...] = ("draw", "knock")  # Gin's decisions judged by playouts (PLAYOUTS)
    playout_candidates: int = 3  # Gin: discards played out, the strong bot's best
    playout_margin: float = 0.5  # points per hand an alternative must gain over the strong choice
    playout_knock_risk: float = 0.02  # the playout policy's knock threshold (undercut chance)
    knock_playout_stock: int = 25  # Gin: the knock is played out only with this many stock cards
    chicago_playouts: tuple[str, ...] = ()  # two-seat Chicago's, off: no gain measured
    basic_playouts: tuple[str, ...] = ("draw", "discard")  # two-seat Basic's (BASIC_PLAYOUTS)
    thirteen_playouts: tuple[str, ...] = ()  # two-seat Three Thirteen's, off: a loss measured
    basic_rebuild: bool = False  # Basic's playouts rebuild an empty stock (off: valued, no gain)
    basic_feed_seats: int = 2  # Basic: the sampled feed of the discard up to this many seats
    # (beyond, the strong bot's discard: beside the strong bot's hold the feed lost)

    def __post_init__(self) -> None:
        if not set(self.playouts) <= set(PLAYOUTS):
            raise ValueError(f"the expert plays out {', '.join(PLAYOUTS)}, not {self.playouts}")
        if not set(self.chicago_playouts) <= set(CHICAGO_PLAYOUTS):
            raise ValueError(f"the expert plays out {', '.join(CHICAGO_PLAYOUTS)} in Chicago, "
                             f"not {self.chicago_playouts}")
        if not set(self.basic_playouts) <= set(BASIC_PLAYOUTS):
            raise ValueError(f"the expert plays out {', '.join(BASIC_PLAYOUTS)} in Basic "
                             f"Rummy, not {self.basic_playouts}")
        if not set(self.thirteen_playouts) <= set(THIRTEEN_PLAYOUTS):
            raise ValueError(f"the expert plays out {', '.join(THIRTEEN_PLAYOUTS)} in Three "
                             f"Thirteen, not {self.thirteen_playouts}")
        if self.clock not in CLOCKS:
            raise ValueError(f"the expert's clock is one of {', '.join(CLOCKS)}, "
                             f"not {self.clock!r}")



class ExpertBot:
    """Determinized search over the strong bot's candidates (see the module docstring).

    Keep one instance per seat and game, like the strong bot. ``rng`` drives the
    sampling; ``clock`` returns seconds (default :func:`time.perf_counter`).
    """

    name = "expert"
    needs_view = True

    def __init__(self, params: ExpertParams | None = None, rng: random.Random | None = None,
                 *, clock: Callable[[], float] | None = None,
                 cpu_clock: Callable[[], float] | None = None,
                 strong: StrongParams | None = None) -> None:
        self.params = params or ExpertParams()
        self.rng = rng or random.Random()
        self.clock = clock or time.perf_counter
        self.cpu_clock = cpu_clock or time.thread_time
        self.strong = StrongBot(strong)
        #: Worlds searched at the last decision (0: the strong bot's answer stood alone).
        self.last_worlds = 0

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        if view is None:
            raise ValueError("the expert bot needs its seat's view")
        deadline = self.deadline()
        tracker = self.strong.tracker
        mem = tracker.observe(view)
        self.last_worlds = 0
        if len(legal) == 1:
            action = legal[0]
        else:
            turn = StrongTurn(self.strong, view, legal, mem)
            fallback = turn.decide()
            search = _Search(self, turn, mem, deadline)
            action = search.run(fallback)
            self.last_worlds = search.worlds
        tracker.record(view, action)
        return action

    def deadline(self) -> Callable[[], float]:
        """The seconds this decision's budget has left, read before each world.

        The wall clock: ``budget_ms`` of wall time from now. The cpu clock: ``budget_ms``
        of this thread's CPU time, and at most ``wall_cap_ms`` of wall time (so that the
        bot answers in time however loaded the machine is): the lesser of the two.
        """
        p = self.params
        if p.budget_ms is None:
            return lambda: math.inf
        wall, budget = self.clock, p.budget_ms / 1000.0
        if p.clock == "wall":
            end = wall() + budget
            return lambda: end - wall()
        cap = (p.wall_cap_ms if p.wall_cap_ms is not None else 5 * p.budget_ms) / 1000.0
        cpu = self.cpu_clock
        wall_end, cpu_end = wall() + cap, cpu() + budget
        return lambda: min(cpu_end - cpu(), wall_end - wall())

    def recall(self, view: SeatView, action: SeatAction) -> None:
        """Learn from an earlier decision of this seat (see :meth:`StrongBot.recall`)."""
        self.strong.recall(view, action)


class WorldBudget:
    """Whether one more world fits in a decision's budget, asked before each world.

    ``deadline()`` returns the seconds left (``math.inf``: no budget). A world is
    started only while the time left exceeds the dearest world of this decision so far
    (the time between two checks): the answer then comes within the budget, past it
    only by what a world costs beyond every one before it. The last world's cost alone
    was not enough: worlds differ (a playout runs longer, the garbage collector takes
    its turn inside one), and a cheap world followed by a dear one ran past the budget
    by the dear one's cost.
    """

    __slots__ = ("deadline", "dearest", "last_left")

    def __init__(self, deadline: Callable[[], float]) -> None:
        self.deadline = deadline
        self.last_left: float | None = None  # the time left at the last check
        self.dearest = 0.0  # the most a world of this decision took

    def fits(self) -> bool:
        left = self.deadline()
        if left == math.inf:
            return True  # no budget: max_worlds alone bounds the search
        if self.last_left is not None:
            self.dearest = max(self.dearest, self.last_left - left)
        self.last_left = left
        return left > self.dearest


class _Search:
    """One decision's search: candidates, worlds, the sampled terms and the verdict."""

    def __init__(self, bot: ExpertBot, turn: StrongTurn, mem: HandMemory,
                 deadline: Callable[[], float]) -> None:
        self.bot = bot
        self.params = bot.params
        self.turn = turn
        self.view = turn.view
        self.legal = turn.legal
        self.mem = mem
        self.rules = turn.rules
        self.cache = SolverMemo(self.rules)
        self.budget = WorldBudget(deadline)
        self.unseen: list[Card] | None = None  # the sampler's pool, once per decision
        self.worlds = 0
        self.model = self.opponent_model() if bot.params.model else None
        view = self.view
        seat = view.seat if view.seat is not None else 0
        self.seat = seat
        self.others = [s for s in ((seat + i) % view.players for i in range(1, view.players))
                       if view.active[s]]

    def time_left(self) -> bool:
        """True if another world fits in the budget (:class:`WorldBudget`)."""
        return self.budget.fits()

    def world(self) -> World:
        self.worlds += 1
        rng = self.bot.rng
        targets = None
        if self.model is not None:
            mean, spread = self.model
            targets = {s: max(0.0, rng.gauss(mean, spread)) for s in self.others}
        gin = self.view.game == "gin"
        if self.unseen is None:
            self.unseen = unseen_pool(self.view, self.mem)
        return sample_world(self.view, self.mem, rng, self.rules, tries=self.params.tries,
                            targets=targets,
                            shunned_points=self.params.shunned_points if gin else None,
                            unseen=self.unseen)

    def opponent_model(self) -> tuple[float, float] | None:
        """Mean and spread of an opponent's deadwood now (Gin and Chicago's tables)."""
        view = self.view
        if view.game == "gin":
            return interpolate(GIN_HELD, 31 - view.stock_count)
        if view.game == "chicago":
            return interpolate(CHICAGO_OPPONENT, max(0, self.mem.turns - 1))
        return None

    # ------------------------------------------------------------------ dispatch

    def run(self, fallback: SeatAction) -> SeatAction:
        if not self.others:
            return fallback
        if len(self.others) == 1 and (chosen := self.two_seat_playouts(fallback)) is not None:
            return chosen
        plays = self.params.playouts if self.view.game == "gin" and len(self.others) == 1 else ()
        if self.view.phase == "draw" and "draw" in plays:
            return self.draw_by_playouts(fallback, self.playout())
        if self.view.phase != "play":
            return fallback  # drawing: the strong bot's rule (see the module docstring)
        if "discard" in plays or ("knock" in plays and self.plays_knock()
                                 and self.lowest_knock() is not None):
            return self.gin_play(fallback)
        if self.view.game == "gin" and isinstance(fallback, Knock):
            return self.run_knock(fallback)
        if isinstance(fallback, Discard):
            if self.view.game == "basic" and self.view.players > self.params.basic_feed_seats:
                return fallback
            return self.discard(fallback)
        return fallback

    def two_seat_playouts(self, fallback: SeatAction) -> SeatAction | None:
        """Chicago's, Basic Rummy's and Three Thirteen's decisions judged by playouts (the
        ones their settings name), or None when this one is not."""
        view, game = self.view, self.view.game
        draw, play = view.phase == "draw", view.phase == "play"
        if game == "chicago":
            chicago = self.params.chicago_playouts
            if draw and "draw" in chicago:
                return self.draw_by_playouts(fallback, self.chicago_playout())
            if play and "knock" in chicago and any(isinstance(a, Knock) for a in self.legal):
                return self.chicago_play(fallback)
        elif game == "basic":
            basic = self.params.basic_playouts
            if draw and "draw" in basic:
                return self.draw_by_playouts(fallback, self.basic_playout())
            if play and "discard" in basic and isinstance(fallback, Discard):
                return self.discard_by_playouts(fallback, self.basic_playout())
        elif game == "three_thirteen":
            thirteen = self.params.thirteen_playouts
            if draw and "draw" in thirteen:
                return self.draw_by_playouts(fallback, self.thirteen_playout())
            if (play and "discard" in thirteen and isinstance(fallback, Discard)
                    and view.out_seat is None):
                return self.discard_by_playouts(fallback, self.thirteen_playout())
        return None

    def run_knock(self, fallback: Knock) -> SeatAction:
        """The strong bot's knock (with the melds it chose to lay, if any) stands: big gin
        and gin at once, a knock unless the worlds say undercut."""
        if fallback.card is None or self.cache.dd(_without(self.view.hand, fallback.card)) == 0:
            return fallback
        if self.knock_is_safe(fallback):
            return fallback
        return self.discard(None)

    # ------------------------------------------------------------------ Gin: playouts

    def plays_knock(self) -> bool:
        """Whether Gin's knock is judged by playouts now: ``playouts`` names it and the stock
        still holds ``knock_playout_stock`` cards (later the playouts knock too often)."""
        return ("knock" in self.params.playouts
                and self.view.stock_count >= self.params.knock_playout_stock)

    def playout(self) -> GinPlayout:
        return GinPlayout(self.rules, self.view.options,
                          knock_risk=self.params.playout_knock_risk, memo=self.cache)

    def draw_by_playouts(self, fallback: SeatAction,
                         playout: Playout) -> SeatAction:
        """The draw (two seats): the top discard or the stock, judged by ``playout``
        (the game's own). A top card that could meld with nothing is left, as the
        playouts would leave it; any other choice of the strong bot (Chicago's rummy)
        stands at once."""
        view, legal = self.view, self.legal
        take = next((a for a in legal if isinstance(a, DrawDiscard)), None)
        stock = next((a for a in legal if isinstance(a, DrawStock)), None)
        if take is None or stock is None or not view.discard_pile or fallback not in (
                take, stock):
            return fallback
        hand, top, other = view.hand, view.discard_pile[-1], self.others[0]
        if fallback == stock and not playout.may_meld(top, hand):
            return fallback
        return self.compare([
            (take, lambda w: playout.from_draw(hand, w.hands[other], w.stock, top, True)),
            (stock, lambda w: playout.from_draw(hand, w.hands[other], w.stock, top, False)),
        ], fallback)

    def gin_play(self, fallback: SeatAction) -> SeatAction:
        """Gin's discard and knock, judged by playouts (the ones ``playouts`` names)."""
        view = self.view
        playout = self.playout()
        hand = view.hand
        plays = self.params.playouts
        if isinstance(fallback, Knock) and (
                fallback.card is None or self.cache.dd(_without(hand, fallback.card)) == 0):
            return fallback  # big gin, gin: at once
        discards = self.turn.discards()
        if not discards:
            return fallback
        ranked = self.turn.ranked_discards(list(discards))
        knock = None
        if self.plays_knock():
            knock = fallback if isinstance(fallback, Knock) else self.lowest_knock()
        elif isinstance(fallback, Knock):
            return self.run_knock(fallback)
        home = fallback.card if isinstance(fallback, Discard) else ranked[0][1]
        if knock is None and self.clear_ranking(ranked, home):
            return fallback  # a clear discard, nothing to knock with
        width = self.params.playout_candidates if "discard" in plays else 1
        cards = [c for _, c in ranked[:width]]
        if home not in cards:
            cards.insert(0, home)
        cands: list[tuple[SeatAction, Callable[[World], float]]] = []
        if knock is not None:
            cands.append((knock, self.knock_evaluator(knock, playout)))
        for card in cards:
            cands.append((discards[card], self.discard_evaluator(card, playout)))
        if isinstance(fallback, Knock):
            return self.compare(cands, fallback)
        return self.compare(cands, discards[home])

    def clear_ranking(self, ranked: Sequence[tuple[float, Card]], home: Card) -> bool:
        """True if the strong bot's discard ``home`` needs no search: the only one, or
        first in its ranking by ``clear_cost`` points."""
        return len(ranked) == 1 or (ranked[1][0] - ranked[0][0] >= self.params.clear_cost
                                    and home == ranked[0][1])

    def discard_evaluator(self, card: Card, playout: Playout) -> Callable[[World], float]:
        """The playout of the hand after discarding ``card``, on a world."""
        kept = _without(self.view.hand, card)
        other = self.others[0]

        def value(w: World) -> float:
            return playout.after_discard(kept, w.hands[other], w.stock, card)
        return value

    def lowest_knock(self) -> Knock | None:
        """The legal knock leaving the least deadwood (the dearest card among equals)."""
        knocks = [a for a in self.legal if isinstance(a, Knock) and a.card is not None]
        if not knocks:
            return None
        after = self.cache.after(self.view.hand)
        points = self.rules.points
        return min(knocks, key=lambda a: (after[a.card], -points(a.card), a.card)
                   if a.card is not None else (0, 0, 0))

    def knock_evaluator(self, knock: Knock, playout: GinPlayout) -> Callable[[World], float]:
        """The showdown of ``knock`` on a world, exactly as the server would score it."""
        assert knock.card is not None
        kept = _without(self.view.hand, knock.card)
        melds = knock.melds
        other = self.others[0]
        if melds is None:
            left = self.cache.dd(kept)

            def plain(w: World) -> float:
                _, defence = knocker_arrangement(kept, w.hands[other], self.rules,
                                                 allow_layoffs=True)
                return playout.score(left, defence.points)
            return plain
        laid = {c for m in melds for c in m}
        mine = sum(self.rules.points(c) for c in kept if c not in laid)

        def own(w: World) -> float:
            return playout.score(mine, best_layoffs(w.hands[other], melds, self.rules).points)
        return own

    # ------------------------------------------------------------------ Basic: playouts

    def basic_playout(self) -> BasicPlayout:
        """Two-seat Basic Rummy's playouts from the table as it stands: whether each seat
        has melded or laid off before (no more rummy: our memory, this turn's plays
        included; the other's hand below the deal's size, since a turn without a play
        leaves it as it was) and may lay off now."""
        view, other, turn, mem = self.view, self.others[0], self.turn, self.mem
        deck = deck_cards(view)
        dealt = dealt_size(view)
        rebuild = self.bot.params.basic_rebuild  # (the pile, and the rebuilds seen)
        return BasicPlayout(self.rules, view.options, [m for _, m in view.melds], deck,
                            melded=(mem.melded or mem.melded_this_turn,
                                    view.hand_sizes[other] < dealt),
                            may_lay_off=(turn.may_lay_off(self.seat), turn.may_lay_off(other)),
                            memo=self.cache, pile=view.discard_pile if rebuild else None,
                            exhaustions=mem.rebuilds)

    def discard_by_playouts(self, fallback: Discard,
                            playout: BasicPlayout | ThirteenPlayout) -> SeatAction:
        """The strong bot's best few discards, each played out on the same worlds; its
        choice stands unless another gains (:meth:`compare`). A clear ranking is kept."""
        discards = self.turn.discards()
        ranked = self.turn.ranked_discards(list(discards))
        if self.clear_ranking(ranked, fallback.card):
            return fallback
        cards = [c for _, c in ranked[:self.params.playout_candidates]]
        if fallback.card not in cards:
            cards.insert(0, fallback.card)
        return self.compare([(discards[c], self.discard_evaluator(c, playout)) for c in cards],
                            fallback)

    # ------------------------------------------------------------------ Three Thirteen
    def thirteen_playout(self) -> ThirteenPlayout:
        """Two-seat Three Thirteen's playouts: the viewer's turn is its last once the
        other seat has gone out."""
        return ThirteenPlayout(self.rules, self.view.options,
                               out=self.view.out_seat is not None, memo=self.cache)

    # ------------------------------------------------------------------ Chicago: playouts

    def chicago_playout(self) -> ChicagoPlayout:
        limits = self.view.knock_limits
        return ChicagoPlayout(self.rules, self.view.options,
                              (limits[self.seat], limits[self.others[0]]), memo=self.cache)

    def chicago_play(self, fallback: SeatAction) -> SeatAction:
        """Two-seat Chicago with a knock in hand: the lowest knock against the strong bot's
        choice (a knock, or its discard), each judged on the same worlds (the knock by its
        showdown, a discard by a playout)."""
        discards = self.turn.discards()
        knock = self.lowest_knock()
        if knock is None or not discards or (
                isinstance(fallback, Knock) and fallback.card is not None
                and self.cache.dd(_without(self.view.hand, fallback.card)) == 0):
            return fallback  # rummy at once
        playout, other = self.chicago_playout(), self.others[0]
        if isinstance(fallback, Knock):
            card = self.turn.ranked_discards(list(discards))[0][1]
            home: SeatAction = fallback
        elif isinstance(fallback, Discard):
            card, home = fallback.card, fallback
        else:
            return fallback

        def showdown(k: Knock) -> Callable[[World], float]:
            assert k.card is not None
            left = self.cache.dd(_without(self.view.hand, k.card))
            return lambda w: playout.showdown(left, w.hands[other])

        cands: list[tuple[SeatAction, Callable[[World], float]]] = [
            (knock, showdown(knock)), (discards[card], self.discard_evaluator(card, playout))]
        if isinstance(home, Knock) and home != knock:
            cands.append((home, showdown(home)))
        return self.compare(cands, home)

    def paired_worlds(self, n: int, values: Callable[[World], list[float]],
                      clear: Callable[[list[float], list[list[float]], int], bool]
                      ) -> tuple[list[float], list[list[float]], int]:
        """Judge ``n`` candidates on common worlds while the budget lasts (at most
        ``max_worlds``; stopped early once ``clear(totals, squares, played)`` says so,
        after ``min_worlds``): each candidate's total value, the sums of the squared
        paired differences (``squares[i][j]``, i < j) and the number of worlds."""
        p = self.params
        totals = [0.0] * n
        squares = [[0.0] * n for _ in range(n)]
        played = 0
        while played < p.max_worlds and self.time_left():
            got = values(self.world())
            for i in range(n):
                totals[i] += got[i]
                for j in range(i + 1, n):
                    d = got[i] - got[j]
                    squares[i][j] += d * d
            played += 1
            if played >= p.min_worlds and clear(totals, squares, played):
                break
        return totals, squares, played

    def compare(self, cands: Sequence[tuple[SeatAction, Callable[[World], float]]],
                fallback: SeatAction) -> SeatAction:
        """The candidate of the best mean playout value over common worlds.

        ``fallback`` (the strong bot's choice, one of the candidates) stands unless
        another beats it by ``playout_margin`` points and by ``switch_z`` standard errors
        of their paired difference; the search stops early once the best two differ by
        ``clear_z`` standard errors (after ``min_worlds``).
        """
        p = self.params
        n = len(cands)
        home = next(i for i, (a, _) in enumerate(cands) if a == fallback)

        def clear(totals: list[float], squares: list[list[float]], played: int) -> bool:
            a, b = sorted(range(n), key=lambda i: -totals[i])[:2]
            return _paired_z(totals, squares, a, b, played) > p.clear_z

        totals, squares, played = self.paired_worlds(
            n, lambda world: [f(world) for _, f in cands], clear)
        if not played:
            return fallback
        best = max(range(n), key=lambda i: (totals[i], i == home))
        if best == home:
            return fallback
        gain = (totals[best] - totals[home]) / played
        se = _paired_se(totals, squares, best, home, played)
        if gain > max(p.playout_margin, p.switch_z * se):
            return cands[best][0]
        return fallback

    # ------------------------------------------------------------------ the discard

    def discard(self, fallback: Discard | None) -> SeatAction:
        """The strong bot's shortlist, its danger term replaced by the sampled feed."""
        discards = self.turn.discards()
        if not discards:
            return fallback or self.legal[0]
        if fallback is not None and self.turn.next in (None, self.view.out_seat):
            return fallback  # nobody takes it (Three Thirteen's last turn): no danger, no race
        ranked = self.turn.ranked_discards(list(discards))
        if fallback is None:
            fallback = discards[ranked[0][1]]
        if self.clear_ranking(ranked, fallback.card):
            return fallback
        w = self.turn.params.danger_weight
        short = ranked[:self.params.candidates]
        if all(c != fallback.card for _, c in short):
            short.insert(0, next(x for x in ranked if x[1] == fallback.card))
        # The worlds replace the danger of what the next seat's hand makes of a card; a
        # card it can lay off on the table (Basic Rummy) keeps the strong bot's danger,
        # which no world models (without it the expert fed those layoffs: 46.0% of 300
        # Basic Rummy games against the strong bot, paired [42.5, 49.5]).
        base = [cost - (0.0 if self.turn.feeds_table(c) else w * self.turn.danger(c))
                for cost, c in short]
        cards = [c for _, c in short]
        kept = [_without(self.view.hand, c) for c in cards]
        n = len(cards)
        p = self.params
        totals, squares, played = self.paired_worlds(
            n, lambda world: self.feeds(world, cards, kept),
            lambda totals, squares, played: self.clear_leader(base, totals, squares, played))
        if not played:
            return fallback
        cost = [base[i] + p.feed_weight * totals[i] / played for i in range(n)]
        home = cards.index(fallback.card)
        best = min(range(n), key=lambda i: (cost[i], i != home))
        if best == home:
            return fallback
        a, b = sorted((home, best))
        diff = (totals[a] - totals[b]) / played
        var = max(squares[a][b] / played - diff * diff, 0.0)
        noise = p.switch_z * p.feed_weight * math.sqrt(var / played)
        if cost[home] - cost[best] > max(p.switch_margin, noise):
            return discards[cards[best]]
        return fallback

    def feeds(self, world: World, cards: Sequence[Card],
              kept: Sequence[tuple[Card, ...]]) -> list[float]:
        """What each of ``cards`` gives the next seat on ``world``, in our deadwood points
        (``kept``: our hand after each).

        The next seat plays the simple policy: it takes the card when that lowers its
        deadwood. Its gain is the deadwood it saves against drawing the world's next
        stock card instead; if the card lets it end the hand when the stock card would
        not have, we also lose what our kept hand counts then.
        """
        seat = self.others[0]
        hand = world.hands[seat]
        cache = self.cache
        now = cache.dd(hand)
        forbid = bool(self.view.options.get("forbid_discarding_taken_card", True))
        drew: int | None = None  # (the stock's card: the same for every candidate)
        gains = []
        for card, ours in zip(cards, kept, strict=True):
            _, took = cache.best_discard((*hand, card), card if forbid else None)
            if took >= now:
                gains.append(0.0)
                continue
            if drew is None:
                drew = cache.best_discard((*hand, world.stock[-1]), None)[1] if world.stock else now
            gain = max(0.0, float(drew - took))
            if self.goes_out(seat, took) and not self.goes_out(seat, drew):
                gain += self.params.out_weight * cache.dd(ours)
            gains.append(gain)
        return gains

    def goes_out(self, seat: int, left: int) -> bool:
        """True if a seat left with ``left`` deadwood after its discard may end the hand."""
        game, view = self.view.game, self.view
        if game == "gin":
            return left <= int(view.options.get("knock_limit", 10))
        if game == "chicago":
            return left <= (view.knock_limits[seat] if seat < len(view.knock_limits) else 0)
        return left == 0

    def clear_leader(self, base: list[float], totals: list[float],
                     squares: list[list[float]], n: int) -> bool:
        """True once the best two candidates differ by more than ``clear_z`` standard errors."""
        k = self.params.feed_weight
        cost = [base[i] + k * totals[i] / n for i in range(len(base))]
        a, b = sorted(sorted(range(len(cost)), key=lambda i: cost[i])[:2])
        mean = cost[a] - cost[b]
        diff = (totals[a] - totals[b]) / n
        var = max(squares[a][b] / n - diff * diff, 1e-9) * k * k
        return abs(mean) > self.params.clear_z * math.sqrt(var / n)

    # ------------------------------------------------------------------ Gin's knock

    def knock_is_safe(self, knock: Knock) -> bool:
        """True if the sampled chance of an undercut is below ``knock_risk``."""
        assert knock.card is not None
        kept = _without(self.view.hand, knock.card)
        melds = knock.melds
        if melds is None:
            mine = self.cache.dd(kept)
        else:  # the knocker's own melds: the rest is his deadwood
            laid = {c for m in melds for c in m}
            mine = sum(self.rules.points(c) for c in kept if c not in laid)
        undercut = samples = 0
        other = self.others[0]
        while samples < self.params.knock_worlds and self.time_left():
            w = self.world()
            if melds is None:
                _, defence = knocker_arrangement(kept, w.hands[other], self.rules,
                                                 allow_layoffs=True)
            else:
                defence = best_layoffs(w.hands[other], melds, self.rules)
            samples += 1
            if defence.points <= mine:
                undercut += 1
        if not samples:
            return True  # no time: the strong bot's knock stands
        return undercut / samples < self.params.knock_risk


def _paired_se(totals: Sequence[float], squares: Sequence[Sequence[float]], a: int, b: int,
               n: int) -> float:
    """The standard error of the mean paired difference of candidates ``a`` and ``b``."""
    i, j = sorted((a, b))
    diff = (totals[i] - totals[j]) / n
    var = max(squares[i][j] / n - diff * diff, 1e-9)
    return math.sqrt(var / n)


def _paired_z(totals: Sequence[float], squares: Sequence[Sequence[float]], a: int, b: int,
              n: int) -> float:
    """How many standard errors apart the means of ``a`` and ``b`` are."""
    return abs(totals[a] - totals[b]) / n / _paired_se(totals, squares, a, b, n)


def _without(hand: Sequence[Card], card: Card) -> tuple[Card, ...]:
    out = list(hand)
    out.remove(card)
    return tuple(out)
