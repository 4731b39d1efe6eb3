"""The strong bot: the meld solver, card tracking, and a simple evaluation for every choice.

Theory of operation
-------------------
The bot sees only its seat's view. :class:`~rummyhall.bots.tracking.Tracker` turns the
views it has seen this hand into knowledge: cards an opponent took from the pile, faces
it discarded or passed on, and so the cards still unseen. Every decision then compares
hands with one number in deadwood points (:mod:`rummyhall.bots.evaluation`):

``V(H) = dd(H) - beta * g(H)``: the exact deadwood of the kept hand, less a share of
the deadwood the next draw is expected to save (its *potential*). Lower is better.
``beta`` is ``StrongParams.beta`` in Basic Rummy and early in Gin (shrinking with the
stock); 0 in Chicago and Three Thirteen, where the arena measured no gain from it.

- **Draw.** Taking the top discard ``t`` yields the best kept hand ``H'`` of ``H + t``;
  drawing from the stock is worth, on average, ``dd(H) - g(H)`` now plus the same
  potential later. Take ``t`` when ``V(H') < dd(H) - (1 + beta) * g(H) - margin``: when it
  completes a meld, or swaps a high deadwood card for a low one, by more than a random
  card would on average. (Gin's upcard is the same choice; passing is the stock.)
- **Discard.** Minimise ``V(H - d) + w * danger(d)``: deadwood and potential of what is
  kept, plus the chance the next seat can meld ``d`` (it took a neighbour or a partner
  from the pile; the card's partners are live) times ``w`` points. Cards whose partners
  are dead have no potential and no danger, so they go first among equals.
- **The race** (Chicago, Three Thirteen, Basic Rummy). There whoever ends the hand
  scores little and the others their whole count, so a kept hand ``K`` is valued by
  ``h * dd(K) + (1 - h) * (E[dd after the next draw] + B * (1 - P(the next draw ends
  it)))`` (:meth:`~rummyhall.bots.evaluation.HandEvaluator.draw_chances`), ``h`` the
  chance that another seat ends the hand before our next turn (Chicago; 0 where going
  out leaves us a last turn), ``B`` the ``race_bonus*`` parameter. The race weighs the
  four best discards by deadwood and danger (two in Three Thirteen's rounds of more than
  eight kept cards, where wild cards make the solves dear). Chicago also takes a top card
  that lets it knock at once; Three Thirteen's draw weighs the race too: the top card
  by the race value of the hand it keeps, the stock by this draw's chance to go out
  now and, when it does not, a kept hand of the other draws' expected count whose next
  draw is taken as like this one.
- **Ending the hand.**
  Gin: gin at once; knock when the chance of an undercut is small (a plain knock lets
  the server lay the arrangement of least deadwood that takes the fewest layoffs; with
  ``own_melds`` the bot lays its own when one with more deadwood closes enough layoffs
  to lower the risk: :mod:`~rummyhall.bots.arrangements`); the opponent's
  deadwood after layoffs is modelled as normal around a mean that falls with the number
  of cards drawn (:data:`GIN_OPPONENT`, measured in self-play), and the bot knocks when
  ``P(opponent <= mine)`` is below ``knock_risk`` (2%: early in the hand any legal
  count, later only a low one; otherwise it plays on for gin or a lower count).
  ``gin_chase`` (off) would also refuse to knock a count that low while the stock is
  long.
  Chicago: rummy at once; knock when the chance that another seat has no more unmelded
  points (the 15-point penalty) is small, smaller still when the penalty would
  eliminate the bot. A seat that played since our last turn and did not knock most
  likely could not: the chance that its count is within its own knock limit is
  weighed down by how often a seat passes on a knock (``chicago_pass``).
  Three Thirteen: go out as soon as it is legal.
  Basic Rummy: lay off deadwood and meld the best arrangement's melds, except while
  going rummy is possible and worth it: with nothing melded yet, the bonus on, at most
  ``rummy_hold`` deadwood cards (``rummy_hold_two`` at two seats when the winner
  collects: any number while it holds a meld) and no opponent close to going out, it
  holds its melds to go out in one turn for the bonus. From ``hold_seats`` seats
  (three: deals of seven cards or fewer), when the hand's winner collects, it holds
  them whatever its loose cards and the others' hands, until the turn can empty the
  hand: a meld on the table is a place for every other seat to lay off, and the hand
  held to the end goes rummy.
  A turn that can empty the hand is played by its plan (:meth:`StrongTurn.out_plan`:
  the layoffs, the melds of the rest, the last discard).
  Every game: the card just taken from the pile is not thrown back (with the taken-card
  rule off that is a pass that cost the draw, and two seats doing it would cycle).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from rummyhall.rules import (
    Card,
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    GoOut,
    Knock,
    LayOff,
    Meld,
    MeldRules,
    PassUpcard,
    SeatAction,
    SeatView,
    best_arrangement,
    can_lay_off,
    deadwood_points,
    discard_deadwoods,
    view_meld_rules,
)

from .arrangements import arrangements_within, expected_layoffs
from .base import knock_with_melds
from .evaluation import HandEvaluator
from .tracking import HandMemory, Tracker, has_played, next_seat, unseen_faces

# Gin: the opponent's deadwood after layoffs, mean and spread, by cards drawn from the
# stock since the deal (both players). Measured in strong-against-strong play.
GIN_OPPONENT: tuple[tuple[int, float, float], ...] = (
    (0, 51.0, 16.0), (2, 43.0, 15.5), (4, 35.0, 14.6), (6, 29.0, 13.0), (8, 25.0, 11.0),
    (10, 22.5, 9.7), (12, 20.0, 9.0), (14, 17.5, 7.7), (16, 15.7, 7.5), (18, 13.3, 7.3),
    (20, 11.0, 6.5), (22, 9.0, 5.6), (24, 7.8, 5.5), (26, 6.0, 4.6), (28, 5.0, 4.3),
)

# Chicago: another seat's unmelded points (7 cards) by our own turns played this hand
# (the others have played about as many). Measured in strong-against-strong play, two
# and four players.
CHICAGO_OPPONENT: tuple[tuple[int, float, float], ...] = (
    (0, 32.0, 14.0), (2, 25.0, 12.0), (4, 20.0, 10.0), (6, 17.0, 8.5), (8, 13.0, 7.7),
    (10, 10.0, 6.5), (12, 8.5, 5.0),
)


@dataclass(frozen=True, slots=True)
class StrongParams:
    """The strong bot's tunable weights (deadwood points; probabilities)."""

    beta: float = 1.5  # weight of the draw potential in V(H) (Gin early, Basic Rummy)
    beta_wild: float = 0.0  # ... in Chicago and Three Thirteen
    wild_draw_potential: bool = True  # Chicago, Three Thirteen: the draw weighs g(H)
    danger_weight: float = 6.0  # points lost when the next seat can use our discard
    take_margin: float = 0.5  # taking the discard tells the others what we collect
    candidates: int = 3  # discards whose potential is computed (the best by deadwood)
    knock_risk: float = 0.02  # Gin: knock when P(undercut) is below this
    gin_chase: int = 0  # Gin: with deadwood at most this and a long stock, wait for gin
    chicago_risk: float = 0.3  # Chicago: knock when P(penalty) is below this
    chicago_risk_fatal: float = 0.08  # ... when the penalty would eliminate us
    chicago_pass: float = 0.1  # Chicago: the chance a seat passes on a knock it could make
    rummy_hold: int = 2  # Basic: hold melds for going rummy with this many loose cards
    rummy_hold_two: int = 9  # ... at two seats when the winner collects
    hold_seats: int = 3  # Basic, winner collects: from this many seats, hold every meld
    # until the turn can empty the hand (0: never)
    potential_cards: int = 11  # no potential beyond this hand size (the solver's cost)
    own_melds: bool = True  # Gin: lay our own melds when that lowers the undercut risk
    race_bonus: float = 20.0  # Chicago: points a kept hand loses when the next draw cannot end it
    race_bonus_tt: float = 10.0  # ... Three Thirteen: when the next draw cannot take it out
    race_bonus_basic: float = 15.0  # ... Basic Rummy: when the next draw cannot take it out
    race_cards_tt: int = 13  # ... for kept hands of at most this many cards (every round)
    race_candidates: int = 4  # discards weighed by the race (the best by deadwood and danger)
    race_candidates_large: int = 2  # ... Three Thirteen, kept hands of more than:
    race_large_cards: int = 8
    race_take_tt: bool = True  # Three Thirteen: the draw weighs the race too


def interpolate(table: Sequence[tuple[int, float, float]], x: float) -> tuple[float, float]:
    """Mean and spread at ``x`` by linear interpolation in ``table`` (clamped at its ends)."""
    if x <= table[0][0]:
        return table[0][1], table[0][2]
    for (x0, m0, s0), (x1, m1, s1) in itertools.pairwise(table):
        if x <= x1:
            f = (x - x0) / (x1 - x0)
            return m0 + f * (m1 - m0), s0 + f * (s1 - s0)
    return table[-1][1], table[-1][2]


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def prob_at_most(points: float, mean: float, spread: float) -> float:
    """P(X <= points) for a deadwood count modelled as normal (with a half-point correction)."""
    return _normal_cdf((points + 0.5 - mean) / spread)


def passed_at_most(points: float, limit: int, passes: float, mean: float,
                   spread: float) -> float:
    """P(X <= points) for a seat's count ``X`` (normal, as :func:`prob_at_most`) given
    that it did not knock: a count within its knock ``limit`` stays unknocked only when
    the seat passes, with probability ``passes``."""
    can = prob_at_most(limit, mean, spread)
    stays = 1.0 - (1.0 - passes) * can
    if stays <= 0.0:  # (the model cannot explain the pass: no evidence, then)
        return prob_at_most(points, mean, spread)
    low = prob_at_most(min(points, limit), mean, spread)
    above = max(0.0, prob_at_most(points, mean, spread) - can)
    return (passes * low + above) / stays


class StrongBot:
    """A strong player of all four games (see the module docstring).

    Keep one instance per seat and game: it remembers the current hand.
    """

    name = "strong"
    needs_view = True

    def __init__(self, params: StrongParams | None = None) -> None:
        self.params = params or StrongParams()
        self.tracker = Tracker()

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        if view is None:
            raise ValueError("the strong bot needs its seat's view")
        mem = self.tracker.observe(view)
        action = legal[0] if len(legal) == 1 else StrongTurn(self, view, legal, mem).decide()
        self.tracker.record(view, action)
        return action

    def recall(self, view: SeatView, action: SeatAction) -> None:
        """Learn from a decision of this seat made earlier, as if it had been ours (a
        table restored from its journal replays its hand through this): the memory is
        then what it would be had the bot sat there all along."""
        self.tracker.observe(view)
        self.tracker.record(view, action)


class StrongTurn:
    """One decision of the strong bot: the view, the legal actions, the evaluation tools
    (the expert bot asks it for its choice and its ranking of the discards)."""

    def __init__(self, bot: StrongBot, view: SeatView, legal: Sequence[SeatAction],
                 mem: HandMemory) -> None:
        self.view = view
        self.legal = legal
        self.mem = mem
        self.params = bot.params
        self.rules = view_meld_rules(view)
        self.game = view.game
        self.eval = HandEvaluator(self.rules, unseen_faces(view, mem), mem.gains)
        self.beta = self._beta()
        self.next = next_seat(view)
        self._plan: list[tuple[str, tuple[Card, ...], int]] | None = None
        self._planned = False

    def _beta(self) -> float:
        p, view = self.params, self.view
        if len(view.hand) > p.potential_cards:
            return 0.0
        if self.game == "gin":
            return p.beta * min(1.0, max(0.0, view.stock_count - 2) / 16)
        if self.game in ("chicago", "three_thirteen"):
            # Chicago: another seat may knock any time, the count now is what counts. Both:
            # with wild cards the potential measured no gain (arena against simple) and
            # costs a third of the speed.
            return p.beta_wild
        return p.beta

    # ------------------------------------------------------------------ dispatch

    def decide(self) -> SeatAction:
        legal = self.legal
        for action in legal:
            if isinstance(action, DeclareRummy):
                return action
        if self.view.phase in ("draw", "upcard"):
            return self.draw()
        if self.game == "basic":
            step = self.basic_step()
            if step is not None:
                return step
        ends = [a for a in legal if isinstance(a, (Knock, GoOut))]
        if ends:
            end = self.end_hand(ends)
            if end is not None:
                return end
        return self.discard()

    # ------------------------------------------------------------------ drawing

    def draw(self) -> SeatAction:
        take = next((a for a in self.legal if isinstance(a, DrawDiscard)), None)
        other = next((a for a in self.legal if isinstance(a, (DrawStock, PassUpcard))), None)
        if take is None or other is None:
            return take or other or self.legal[0]
        return take if self.should_take() else other

    def should_take(self) -> bool:
        view, ev, beta = self.view, self.eval, self.beta
        hand = view.hand
        top = view.discard_pile[-1]
        if self.game == "basic" and self.layable(top, own_turn=True):
            return True
        grown = (*hand, top)
        after = discard_deadwoods(grown, self.rules)
        # (the top card itself is never thrown back: with the rule off that is a pass
        # that costs the draw, and seats doing it to each other would cycle for ever)
        choices = sorted((v, -self.rules.points(c), c) for c, v in after.items() if c != top)
        if not choices:
            return False
        dd_now = deadwood_points(hand, self.rules)
        if (self.game == "chicago" and self.params.race_bonus > 0 and view.seat is not None
                and choices[0][0] <= view.knock_limits[view.seat] < dd_now):
            return True  # the top card lets us end the hand now
        race = (self.race_terms() if self.params.race_take_tt
                and self.game == "three_thirteen" else None)
        if race is not None:
            return self.race_take(grown, choices, race)
        if choices[0][0] >= dd_now and (beta <= 0 or not ev.related(top, hand)):
            return False  # it neither lowers the count nor pairs with anything
        best = min(ev.value(tuple(x for x in grown if x != c), beta, v)
                   for v, _, c in choices[:2])
        margin = self.params.take_margin
        if best >= dd_now - margin:
            return False  # the stock is worth dd_now - (1 + beta) * g_now <= dd_now
        g_now = 0.0
        if len(hand) <= self.params.potential_cards and (
                self.params.wild_draw_potential or self.game not in ("chicago", "three_thirteen")):
            g_now = ev.potential(hand)
        stock = dd_now - (1.0 + beta) * g_now
        return best < stock - self.params.take_margin

    def race_take(self, grown: tuple[Card, ...],
                  choices: list[tuple[int, int, Card]],
                  race: tuple[float, int, float]) -> bool:
        """The draw in the race: the top card against the stock, each valued as the
        discard values a kept hand (see :meth:`ranked_discards`).

        Taking ``top`` keeps ``K`` (the best of the two least-deadwood discards by the
        race value ``h * dd(K) + (1 - h) * (E[dd after the next draw] + B * (1 - P(the
        next draw ends it))``). The stock gives this turn's draw its chance ``p`` to end
        the hand (at the expected count of those draws), and otherwise a kept hand of the
        expected count of the other draws, whose own next draw is taken as like this
        one's (the same chance and saving)."""
        ev, hand = self.eval, self.view.hand
        h, limit, bonus = race
        take = math.inf
        for v, _, c in choices[:1 if self.race_large(len(grown) - 1) else 2]:  # (solves)
            take = min(take, self.race_value(tuple(x for x in grown if x != c), v, race))
        p, at_end, not_end = ev.draw_outcomes(hand, limit)
        g = ev.potential(hand)
        rest = h * not_end + (1.0 - h) * (not_end - g + bonus * (1.0 - p))
        stock = p * at_end + (1.0 - p) * rest
        return take < stock - self.params.take_margin

    # ------------------------------------------------------------------ discarding

    def feeds_table(self, card: Card) -> bool:
        """True if the next seat can lay ``card`` off on a table meld (Basic Rummy): the
        surest danger, and one the expert's sampled worlds do not model."""
        seat = self.next
        return (self.game == "basic" and seat is not None and seat != self.view.out_seat
                and self.layable(card, own_turn=False))

    def danger(self, card: Card) -> float:
        seat = self.next
        if seat is None or seat == self.view.out_seat:
            return 0.0  # (Three Thirteen: after our last turn the round is over)
        view, mem = self.view, self.mem
        known = mem.known.get(seat, set())
        if self.feeds_table(card):
            return 1.0
        holds = max(0, view.hand_sizes[seat] - len(known))
        return self.eval.danger(card, holds=holds, known=known,
                                shunned=mem.shunned.get(seat, set()))

    def ranked_discards(self, cards: Sequence[Card]) -> list[tuple[float, Card]]:
        """``cards`` (the legal discards) with their cost, best first."""
        hand = self.view.hand
        after = discard_deadwoods(hand, self.rules)
        w = self.params.danger_weight
        first = sorted((after[c] + w * self.danger(c), -self.rules.points(c), c) for c in cards)
        ranked: list[tuple[float, int, Card]] = []
        race = self.race_terms()
        race_candidates = self.params.race_candidates
        if self.race_large(len(hand) - 1):
            race_candidates = self.params.race_candidates_large  # (the solver's cost)
        for i, (pre, neg_points, c) in enumerate(first):
            if race is not None:
                if i < race_candidates:
                    value = self.race_value(tuple(x for x in hand if x != c), after[c], race)
                else:
                    h, _, bonus = race
                    value = h * after[c] + (1.0 - h) * (after[c] + bonus)
                cost = value + (pre - after[c])
            elif i < self.params.candidates and self.beta > 0:
                kept = tuple(x for x in hand if x != c)
                cost = self.eval.value(kept, self.beta, after[c]) + (pre - after[c])
            else:
                cost = pre + 0.001 * i
            ranked.append((cost, neg_points, c))
        ranked.sort()
        return [(cost, c) for cost, _, c in ranked]

    def race_value(self, kept: tuple[Card, ...], dd: float,
                   race: tuple[float, int, float]) -> float:
        """The race value of keeping ``kept`` (``dd`` its deadwood), lower is better:
        ``h * dd + (1 - h) * (E[dd after the next draw] + B * (1 - P(the next draw ends
        it)))``, ``race`` being :meth:`race_terms`'s ``(h, limit, B)``."""
        h, limit, bonus = race
        chance, later = self.eval.draw_chances(kept, limit)
        return h * dd + (1.0 - h) * (later + bonus * (1.0 - chance))

    def race_large(self, kept: int) -> bool:
        """A Three Thirteen kept hand of more than ``race_large_cards`` cards, where the
        race weighs fewer hands (wild cards make the solves dear)."""
        return self.game == "three_thirteen" and kept > self.params.race_large_cards

    def race_terms(self) -> tuple[float, int, float] | None:
        """Chicago's race to end the hand: whoever ends it scores a few points and the
        others their whole count. Returns ``(h, limit, bonus)``: ``h`` the chance that
        another seat ends the hand before our next turn (we then pay the deadwood we
        keep), our knock limit, and the points a kept hand loses when the next draw
        cannot bring it within the limit. None outside Chicago."""
        view, p = self.view, self.params
        if view.seat is None:
            return None
        if self.game == "basic":
            if p.race_bonus_basic <= 0:
                return None
            return 0.0, 0, p.race_bonus_basic
        if self.game == "three_thirteen":
            # Going out leaves every other seat one last turn: our count is then what the
            # kept hand and one more draw make of it, so no share for the kept count.
            if (p.race_bonus_tt <= 0 or view.out_seat is not None
                    or len(view.hand) > p.race_cards_tt + 1):
                return None
            return 0.0, 0, p.race_bonus_tt
        if self.game != "chicago" or p.race_bonus <= 0:
            return None
        seat = view.seat
        mean, spread = interpolate(CHICAGO_OPPONENT, self.mem.turns)
        safe = 1.0
        for s in range(view.players):
            if s != seat and view.active[s]:
                took = len(self.mem.known.get(s, ()))
                safe *= 1.0 - prob_at_most(view.knock_limits[s], max(0.0, mean - 4.0 * took),
                                           spread)
        return 1.0 - safe, view.knock_limits[seat], p.race_bonus

    def discards(self) -> dict[Card, Discard]:
        """The legal discards by card, less the card just taken from the pile while
        another may go (with ``forbid_discarding_taken_card`` off, throwing it back is a
        pass that cost the draw; two seats doing it to each other would never end)."""
        discards = {a.card: a for a in self.legal if isinstance(a, Discard)}
        taken = self.view.taken
        if taken is not None and taken in discards and len(discards) > 1:
            del discards[taken]
        return discards

    def discard(self) -> SeatAction:
        discards = self.discards()
        if not discards:
            return self.legal[0]
        return discards[self.ranked_discards(list(discards))[0][1]]

    # ------------------------------------------------------------------ ending the hand

    def end_hand(self, ends: list[Knock | GoOut]) -> SeatAction | None:
        view = self.view
        if any(a.card is None for a in ends):
            return next(a for a in ends if a.card is None)  # big gin: all eleven melded
        after = discard_deadwoods(view.hand, self.rules)
        low = min(after[a.card] for a in ends if a.card is not None)
        best = [a for a in ends if a.card is not None and after[a.card] == low]
        safest = min(best, key=lambda a: (self.danger(a.card) if a.card is not None else 0.0,
                                          a.card))
        if self.game == "three_thirteen" or low == 0:
            return safest  # go out, gin, rummy: at once
        if self.game == "gin":
            return self.gin_knock(safest, low) if isinstance(safest, Knock) else None
        if self.game == "chicago":
            return safest if self.chicago_knock(low) else None
        return safest

    def gin_knock(self, knock: Knock, deadwood: int) -> SeatAction | None:
        """Gin: knock (plainly, or laying our own melds) or play on (None).

        The chance of an undercut is modelled as ``P(D <= k)``, ``D`` the defender's count
        after layoffs (normal, :data:`GIN_OPPONENT`, lower by 4 points for each card he
        took from the pile). With ``own_melds`` every arrangement within the knock limit
        is weighed (:mod:`~rummyhall.bots.arrangements`): one that lays more deadwood
        but closes the melds the defender would lay off on moves ``D`` up by the layoffs
        it saves; the bot lays the arrangement of least risk if it beats the plain knock
        (the server's own choice, among the arrangements of least deadwood), and knocks
        only when the least risk is below ``knock_risk``.
        """
        view, p = self.view, self.params
        if deadwood <= p.gin_chase and view.stock_count > 16:
            return None
        mean, spread = interpolate(GIN_OPPONENT, 31 - view.stock_count)
        known = self.mem.known.get(self.next, set()) if self.next is not None else set()
        mean = max(0.0, mean - 4.0 * len(known))
        plain = prob_at_most(deadwood, mean, spread)
        own: tuple[float, tuple[tuple[Card, ...], ...]] | None = None
        if p.own_melds and knock.card is not None:
            own = self.own_arrangement(knock.card, deadwood, mean, spread, known)
        if own is not None and own[0] < plain and own[0] < p.knock_risk:
            return knock_with_melds(knock, own[1])
        return knock if plain < p.knock_risk else None

    def own_arrangement(self, card: Card, deadwood: int, mean: float, spread: float,
                        known: set[Card]) -> tuple[float, tuple[tuple[Card, ...], ...]] | None:
        """The least undercut risk of laying our own melds (knocking with ``card``), and
        those melds; None when no arrangement lays more deadwood than the least."""
        view, rules = self.view, self.rules
        limit = int(view.options.get("knock_limit", 10))
        kept = [c for c in view.hand if c != card]
        plans = arrangements_within(kept, rules, limit)
        if not any(a.deadwood > deadwood for a in plans):
            return None
        unseen = unseen_faces(view, self.mem, (card,))
        total = sum(unseen)
        seat = self.next if self.next is not None else 0
        holds = max(0, view.hand_sizes[seat] - len(known))
        share = holds / total if total else 0.0
        layoffs = [expected_layoffs(a.melds, rules, unseen, share, known) for a in plans]
        least = min((x for a, x in zip(plans, layoffs, strict=True) if a.deadwood == deadwood),
                    default=None)
        if least is None:
            return None  # (past the arrangements compared)
        risk, melds = min((prob_at_most(a.deadwood + x - least, mean, spread), a.melds)
                          for a, x in zip(plans, layoffs, strict=True) if a.deadwood > deadwood)
        return risk, melds

    def chicago_knock(self, deadwood: int) -> bool:
        """Chicago: knock with ``deadwood`` kept, or play on (False).

        The risk is the chance that another active seat holds no more than we do (the
        penalty). A seat that played since our last turn (every other seat, but in our
        first turn of the hand only those between the dealer and us) did not end the
        hand: a seat whose count was within its own knock limit mostly knocks, so its not
        knocking is evidence. Each seat's count ``X`` is modelled as normal
        (:data:`CHICAGO_OPPONENT` by turns played, 4 points lower per card it took from
        the pile), and a seat that could knock passes with probability ``c``
        (``chicago_pass``): for our count ``k`` and its limit ``L``,
        ``P(X <= k | it did not knock) = (c * P(X <= min(k, L)) + P(L < X <= k)) /
        (1 - (1 - c) * P(X <= L))``.
        """
        view, p = self.view, self.params
        seat = view.seat if view.seat is not None else 0
        others = [s for s in range(view.players) if s != seat and view.active[s]]
        turns = max(0, self.mem.turns - 1)
        mean, spread = interpolate(CHICAGO_OPPONENT, turns)
        tie = bool(view.options.get("knock_penalty_on_tie", True))
        limit = deadwood if tie else deadwood - 1
        safe = 1.0
        for s in others:
            took = len(self.mem.known.get(s, ()))
            passes = p.chicago_pass if has_played(view, self.mem, s) else 1.0
            safe *= 1.0 - passed_at_most(limit, view.knock_limits[s], passes,
                                         max(0.0, mean - 4.0 * took), spread)
        risk = 1.0 - safe
        penalty = int(view.options.get("knock_penalty", 15))
        elimination = int(view.options.get("elimination_score", 100))
        fatal = view.scores[seat] + deadwood + penalty > elimination
        return risk < (p.chicago_risk_fatal if fatal else p.chicago_risk)

    # ------------------------------------------------------------------ Basic Rummy

    def table(self) -> list[tuple[Card, ...]]:
        return [cards for _, cards in self.view.melds]

    def may_lay_off(self, seat: int | None) -> bool:
        if seat is None:
            return False
        if not self.view.options.get("layoff_requires_own_meld", False):
            return True
        return any(owner == seat for owner, _ in self.view.melds)

    def layable(self, card: Card, *, own_turn: bool) -> bool:
        """True if ``card`` fits a meld on the table (for us, or for the next seat)."""
        seat = self.view.seat if own_turn else self.next
        if not self.may_lay_off(seat):
            return False
        return any(can_lay_off(m, (card,), self.rules) for m in self.table())

    def basic_step(self) -> SeatAction | None:
        """The next meld or layoff of the turn, or None to go on to the discard."""
        view, legal = self.view, self.legal
        melds = [a for a in legal if isinstance(a, Meld)]
        layoffs = [a for a in legal if isinstance(a, LayOff)]
        if not melds and not layoffs:
            return None
        plan = self.out_plan()
        if plan:  # this turn can empty the hand: its next step (the discard is the last)
            kind, cards, index = plan[0]
            if kind == "discard":
                return None
            found: SeatAction | None = next(
                (a for a in layoffs if a.cards == cards and a.meld == index), None
            ) if kind == "layoff" else next(
                (a for a in melds if sorted(a.cards) == sorted(cards)), None)
            if found is not None:
                return found  # (else the engine refuses that step: the usual play)
        hand = view.hand
        dd = deadwood_points(hand, self.rules)
        after = discard_deadwoods(hand, self.rules)
        if self.holding_for_rummy(hand, dd, after):
            return None
        # Lay off a card that is deadwood (its going costs no meld).
        loose = [a for a in layoffs if after[a.cards[0]] == dd - self.rules.points(a.cards[0])]
        if loose:
            return max(loose, key=lambda a: (self.rules.points(a.cards[0]), -a.meld))
        # Meld a meld of a best arrangement: the rest keeps the same deadwood.
        good = [m for m in melds
                if deadwood_points([c for c in hand if c not in m.cards], self.rules) == dd]
        if good:
            return max(good, key=lambda m: (len(m.cards), sorted(m.cards)))
        return None

    def holding_for_rummy(self, hand: Sequence[Card], dd: int, after: dict[Card, int]) -> bool:
        """True while we keep our melds in hand to go out in one turn (going rummy).

        From ``hold_seats`` seats, when the winner collects, always until this turn can
        empty the hand (with or without the bonus): measured against the simple and the
        strong bot, holding wins far more games there (docs/bot-design.md). Not with
        ``one_meld_per_turn`` (a hand of two melds could never go out in one turn) nor
        ``layoff_requires_own_meld`` (a bare hand cannot use the table): both measured
        losses. At two seats when the winner collects, while it holds a meld, whatever
        its loose cards (``rummy_hold_two``), until the opponent holds four cards or
        fewer; below ``hold_seats`` otherwise, and when each seat pays its own count
        (``low_score_wins``), only while few loose cards are left (``rummy_hold``) and no
        opponent is close to going out."""
        view, mem = self.view, self.mem
        if mem.melded or mem.melded_this_turn:
            return False  # (this turn: finish the turn's plan)
        hold_seats, options = self.params.hold_seats, view.options
        collects = options.get("scoring_mode", "winner_collects") == "winner_collects"
        hold_all = (collects and 0 < hold_seats <= view.players
                    and not options.get("layoff_requires_own_meld", False)
                    and not options.get("one_meld_per_turn", False))
        if not hold_all and options.get("rummy_bonus", "none") == "none":
            return False
        if self.can_go_out_now():
            return False
        if hold_all:
            return True
        seat = view.seat if view.seat is not None else 0
        others = [n for s, n in enumerate(view.hand_sizes) if s != seat and view.active[s]]
        if others and min(others) <= 4:
            return False  # an opponent is close to going out: bank the melds
        loose = _loose_cards(hand, self.rules, after)
        two = collects and view.players == 2
        hold = self.params.rummy_hold_two if two else self.params.rummy_hold
        return loose <= hold + 1  # one of them will be discarded

    def can_go_out_now(self) -> bool:
        """True if this turn's melds and layoffs can empty the hand (but one discard)."""
        return self.out_plan() is not None

    def out_plan(self) -> list[tuple[str, tuple[Card, ...], int]] | None:
        """The steps of a turn that empties the hand now, or None when none is seen:
        ``("layoff", (card,), meld)`` for each card laid off (what fits the table, one
        after another), then ``("meld", cards, -1)`` for each meld of the rest, then
        ``("discard", (card,), -1)`` unless the melds take every card. It keeps to the
        table's options: one meld a turn, the last card discarded, the card just taken
        not discarded."""
        if self._planned:
            return self._plan
        view, rules, options = self.view, self.rules, self.view.options
        rest = list(view.hand)
        steps: list[tuple[str, tuple[Card, ...], int]] = []
        table = list(self.table()) if self.may_lay_off(view.seat) else []
        now = deadwood_points(rest, rules)
        changed = True
        while changed:  # lay off what fits, repeatedly (chained layoffs)
            changed = False
            for c in list(rest):
                fits = next((i for i, m in enumerate(table) if can_lay_off(m, (c,), rules)),
                            None)
                if fits is None:
                    continue
                without = deadwood_points([x for x in rest if x != c], rules)
                if without <= now:  # (a card that serves a meld in hand stays)
                    table[fits] = (*table[fits], c)
                    rest.remove(c)
                    steps.append(("layoff", (c,), fits))
                    now, changed = without, True
        must_discard = bool(options.get("must_discard_to_go_out", False))
        one_meld = bool(options.get("one_meld_per_turn", False))
        forbid = bool(options.get("forbid_discarding_taken_card", True))
        plan = None
        if not rest:
            plan = None if must_discard else steps
        else:
            # (one solve says which discards leave every other card melded)
            after = discard_deadwoods(rest, rules)
            dearest: list[Card] = sorted(
                (c for c in rest if not after[c] and not (forbid and c == view.taken)),
                key=lambda c: (-rules.points(c), c))
            last: list[Card | None] = [] if must_discard else [None]
            last += dearest
            for d in last:
                kept = [c for c in rest if c != d]
                melds = best_arrangement(kept, rules) if kept else None
                if melds is not None and (melds.points or (one_meld and len(melds.melds) > 1)):
                    continue
                plan = steps + [("meld", m, -1) for m in (melds.melds if melds else ())]
                if d is not None:
                    plan.append(("discard", (d,), -1))
                break
        self._plan, self._planned = plan, True
        return plan


def _loose_cards(hand: Sequence[Card], rules: MeldRules, after: dict[Card, int]) -> int:
    """How many cards of ``hand`` are deadwood in a best arrangement."""
    dd = deadwood_points(hand, rules)
    return sum(1 for c in hand if rules.points(c) and after[c] == dd - rules.points(c))
