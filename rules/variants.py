"""The four games as short subclasses of :class:`~rummyhall.rules.game.Game`.

Each sets its player range, deal, card rules and the hooks where its rules differ:
Basic Rummy melds and lays off on the table, Gin knocks after Gin's upcard offer,
Chicago knocks under a score-dependent limit with wild 2s, and Three Thirteen goes out
and gives everyone one last turn. docs/rules.md sections 2 to 5 are the specification; the
section numbers in comments point there.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import reduce
from operator import or_
from typing import Final

from .actions import (
    DeclareRummy,
    GoOut,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    SeatAction,
)
from .cards import MAX_COPIES, Card, make_deck, sort_key
from .errors import CannotGoOut, CardError, CardNotHeld, InvalidMeld, OptionError
from .events import (
    Discarded,
    Eliminated,
    Event,
    HandScored,
    Knocked,
    LaidOff,
    Melded,
    Passed,
    Reveal,
    Showdown,
    WentOut,
)
from .game import Game, Phase, TableMeld
from .melds import (
    MeldKind,
    MeldRules,
    can_lay_off,
    layoff_cards,
    meld_kind,
    order_meld,
    shared_rules,
)
from .options import (
    OPTION_CLASSES,
    BasicOptions,
    ChicagoOptions,
    GameOptions,
    GinOptions,
    ThirteenOptions,
    parse_options,
)
from .solver import (
    Arrangement,
    best_arrangement,
    best_layoffs,
    chosen_arrangement,
    deadwood_at_most,
    deadwood_points,
    discard_deadwoods,
    discards_at_most,
    knocker_arrangement,
)


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=sort_key))


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def _reveal_all(players: int, arrangements: dict[int, Arrangement]) -> Showdown:
    """The showdown of every seat: the arranged hands, and "out" for seats not dealt in."""
    return Showdown(tuple(
        Reveal(s, a.melds, (), a.deadwood, a.points) if (a := arrangements.get(s)) is not None
        else Reveal(s, (), (), (), 0, "out") for s in range(players)))


def _lowest(values: dict[int, int]) -> tuple[int, ...]:
    best = min(values.values())
    return tuple(s for s, v in values.items() if v == best)


def _highest(values: dict[int, int]) -> tuple[int, ...]:
    best = max(values.values())
    return tuple(s for s, v in values.items() if v == best)


def _active_lowest(game: Game) -> tuple[int, ...]:
    """The seats still in ``game`` with its lowest total (Chicago, Three Thirteen)."""
    return _lowest({s: game.scores[s] for s in range(game.players) if game.active[s]})


# ====================================================================== Basic Rummy


class BasicRummy(Game):
    """Basic Rummy (docs/rules.md 2): melds and layoffs on the table, go out to collect."""

    name = "basic"
    title = "Basic Rummy"
    min_players = 2
    max_players = 6
    extra_actions = frozenset({"meld", "layoff"})
    options: BasicOptions

    def __init__(self, options: BasicOptions, players: int, first_dealer: int = 0) -> None:
        self.options = options
        super().__init__(options, players, first_dealer)
        self.melded_before = [False] * players  # melded or laid off in an earlier turn
        self.played_this_turn = False
        self.melds_this_turn = 0
        # The kind of each table meld (by its cards) this hand: legal layoffs are listed
        # at every turn. At most one entry per meld and layoff of the hand.
        self._meld_kinds: dict[tuple[Card, ...], MeldKind | None] = {}
        # The table's melds and, by meld, the cards that can be laid off on it.
        self._targets: tuple[tuple[tuple[Card, ...], ...], list[frozenset[Card]],
                             frozenset[Card]] = ((), [], frozenset())

    def hand_size(self) -> int:
        return {2: 10, 3: 7, 4: 7}.get(self.players, 6)

    def hand_meld_rules(self) -> MeldRules:
        o = self.options
        return shared_rules(ace_mode=o.ace_mode, max_set_size=4,
                         ace_points=1 if o.ace_mode == "low" else o.ace_high_points)

    def on_deal(self) -> None:
        self.melded_before = [False] * self.players
        self.played_this_turn = False
        self.melds_this_turn = 0
        self._meld_kinds = {}
        self._targets = ((), [], frozenset())

    def exhaustion_limit(self) -> int:
        return self.options.stock_exhaustion_limit

    def end_turn(self, seat: int) -> list[Event]:
        if self.played_this_turn:
            self.melded_before[seat] = True
        self.played_this_turn = False
        self.melds_this_turn = 0
        return super().end_turn(seat)

    # -- melding and laying off (docs/rules.md 2, "A turn")

    def _turn_can_end(self, seat: int, remaining: Sequence[Card], melds: list[tuple[Card, ...]],
                      owns_meld: bool) -> bool:
        """After a meld or layoff leaving ``remaining``, can the turn still end legally?"""
        must_discard = self.options.must_discard_to_go_out
        if not remaining:
            return not must_discard
        if self.taken is None or not self.options.forbid_discarding_taken_card:
            return True
        if any(c != self.taken for c in remaining):
            return True
        # Only the card taken from the discard pile is left: it must be laid off.
        if must_discard or (self.options.layoff_requires_own_meld and not owns_meld):
            return False
        return any(can_lay_off(m, remaining, self.meld_rules) for m in melds)

    def _table(self) -> list[tuple[Card, ...]]:
        return [m.cards for m in self.melds]

    def _owns_meld(self, seat: int) -> bool:
        return any(m.owner == seat for m in self.melds)

    def _verify_meld(self, action: Meld) -> None:
        self._check_held(action.seat, action.cards)
        if meld_kind(action.cards, self.meld_rules) is None:
            raise InvalidMeld(f"{' '.join(map(str, action.cards))} is not a valid set or run")
        if self.options.one_meld_per_turn and self.melds_this_turn:
            raise InvalidMeld("only one new meld per turn at this table")
        remaining = [c for c in self.hands[action.seat] if c not in action.cards]
        if not self._turn_can_end(action.seat, remaining, [*self._table(), action.cards], True):
            raise InvalidMeld(self._stuck_reason(remaining))

    def _stuck_reason(self, remaining: Sequence[Card]) -> str:
        if not remaining:
            return "at this table the last card must be discarded"
        return f"that would leave only {self.taken}, which you may not discard this turn"

    def _apply_meld(self, action: Meld) -> list[Event]:
        seat = action.seat
        for card in action.cards:
            self.hands[seat].remove(card)
        cards = order_meld(action.cards, self.meld_rules)
        self.melds.append(TableMeld(seat, cards))
        self.melds_this_turn += 1
        self.played_this_turn = True
        events: list[Event] = [Melded(seat, len(self.melds) - 1, cards)]
        return events + self._after_play(seat)

    def _verify_layoff(self, action: LayOff) -> None:
        if not 0 <= action.meld < len(self.melds):
            raise InvalidMeld(f"there is no meld number {action.meld} on the table")
        if not action.cards:
            raise InvalidMeld("name at least one card to lay off")
        self._check_held(action.seat, action.cards)
        owns = self._owns_meld(action.seat)
        if self.options.layoff_requires_own_meld and not owns:
            raise InvalidMeld("at this table you must meld before you lay off")
        target = self.melds[action.meld].cards
        if not can_lay_off(target, action.cards, self.meld_rules):
            raise InvalidMeld(f"{' '.join(map(str, action.cards))} cannot be laid off on "
                              f"{' '.join(map(str, target))}")
        table = self._table()
        table[action.meld] = (*target, *action.cards)
        remaining = [c for c in self.hands[action.seat] if c not in action.cards]
        if not self._turn_can_end(action.seat, remaining, table, owns):
            raise InvalidMeld(self._stuck_reason(remaining))

    def _apply_layoff(self, action: LayOff) -> list[Event]:
        seat = action.seat
        for card in action.cards:
            self.hands[seat].remove(card)
        meld = self.melds[action.meld]
        meld.cards = order_meld((*meld.cards, *action.cards), self.meld_rules)
        self.played_this_turn = True
        events: list[Event] = [LaidOff(seat, action.meld, tuple(action.cards), meld.cards)]
        return events + self._after_play(seat)

    def _after_play(self, seat: int) -> list[Event]:
        return self._go_out(seat) if not self.hands[seat] else []

    def after_discard(self, seat: int) -> list[Event]:
        return self._go_out(seat) if not self.hands[seat] else self.end_turn(seat)

    def play_actions(self, seat: int) -> list[SeatAction]:
        # What _verify_meld and _verify_layoff would check, without running each
        # candidate through them: the candidates are held, valid and of their kind by
        # construction, and the turn can always end while two cards or more stay.
        hand = self.hands[seat]
        actions: list[SeatAction] = []
        if not (self.options.one_meld_per_turn and self.melds_this_turn):
            for meld in self._possible_melds(hand):
                if len(hand) - len(meld) >= 2 or self._turn_can_end(
                        seat, [c for c in hand if c not in meld], [*self._table(), meld], True):
                    actions.append(Meld(seat, meld))
        if self.melds:
            targets, anywhere = self._layoff_targets()
            if not anywhere.isdisjoint(hand):  # (most hands hold no card to lay off)
                actions += self._layoffs(seat, hand, targets)
        actions.extend(self.discard_actions(seat))
        return actions

    def _layoffs(self, seat: int, hand: Sequence[Card],
                 targets: list[frozenset[Card]]) -> list[SeatAction]:
        """A :class:`LayOff` for every card of ``hand`` that fits a table meld alone (by
        meld: ``targets``), where the table lets ``seat`` lay off."""
        owns = self._owns_meld(seat)
        if not owns and self.options.layoff_requires_own_meld:
            return []
        several = len(hand) >= 3
        actions: list[SeatAction] = []
        for i, fits in enumerate(targets):
            if fits.isdisjoint(hand):  # (most melds take none of the hand)
                continue
            for card in hand:
                if card in fits and (several or self._layoff_can_end(seat, card, i, owns)):
                    actions.append(LayOff(seat, (card,), i))
        return actions

    def _layoff_targets(self) -> tuple[list[frozenset[Card]], frozenset[Card]]:
        """By table meld, the cards of the deck that can be laid off on it alone; and
        all of them (most hands hold none).

        Kept while the table stays as it is (a meld or a layoff changes it): each turn
        then looks its hand up instead of checking each card against each meld.
        """
        table = tuple(self._table())
        if self._targets[0] != table:
            rules, deck = self.meld_rules, self.deck()
            kinds = self._meld_kinds
            targets = []
            for cards in table:
                kind = kinds.get(cards)
                if kind is None:
                    kind = kinds[cards] = meld_kind(cards, rules)
                targets.append(frozenset(layoff_cards(cards, deck, rules, kind=kind))
                               if kind is not None else frozenset())
            self._targets = (table, targets, frozenset().union(*targets))
        return self._targets[1], self._targets[2]

    def _layoff_can_end(self, seat: int, card: Card, index: int, owns: bool) -> bool:
        table = self._table()
        table[index] = (*table[index], card)
        return self._turn_can_end(seat, [c for c in self.hands[seat] if c != card], table, owns)

    def _possible_melds(self, hand: Sequence[Card]) -> list[tuple[Card, ...]]:
        """Every valid meld that can be made from ``hand`` (no wild cards in this game).

        Sets by rank, then runs by suit, each run by its first position and length.
        """
        melds: list[tuple[Card, ...]] = []
        if not _may_meld(hand, self.meld_rules):
            return melds
        by_rank: dict[int, list[Card]] = {}
        by_suit: dict[int, dict[int, Card]] = {}
        for card in sorted(hand):
            by_rank.setdefault(card & 15, []).append(card)
            by_suit.setdefault(card & 48, {})[card & 15] = card
        for cards in by_rank.values():
            for size in range(3, len(cards) + 1):
                melds.extend(itertools.combinations(cards, size))
        # Positions a run may reach: 13 (aces low), 14 (the ace again, high), or round
        # the corner (position p holds rank (p - 1) % 13 + 1, at most 13 in a run).
        mode = self.meld_rules.ace_mode
        last = 13 if mode == "low" else 14 if mode == "high_or_low" else 0
        for ranks in by_suit.values():
            if len(ranks) < 3:
                continue
            for start in sorted(ranks):
                run: list[Card] = []
                for pos in range(start, (last or start + 12) + 1):
                    at = ranks.get((pos - 1) % 13 + 1)
                    if at is None:
                        break
                    run.append(at)
                    if len(run) >= 3:
                        melds.append(tuple(run))
        return melds

    # -- scoring (docs/rules.md 2, "Scoring" to "The end")

    def _counts(self) -> dict[int, int]:
        points = self.meld_rules.points
        return {s: sum(points(c) for c in self.hands[s]) for s in range(self.players)}

    def _reveal(self, counts: dict[int, int]) -> Showdown:
        return Showdown(tuple(Reveal(s, (), (), _sorted(self.hands[s]), counts[s])
                              for s in range(self.players)))

    def _go_out(self, seat: int) -> list[Event]:
        o = self.options
        counts = self._counts()
        rummy = not self.melded_before[seat]
        bonus = o.rummy_bonus if rummy else "none"
        points = [0] * self.players
        notes = [f"seat {seat} went out" + (" in one turn: going rummy" if rummy else "")]
        others = {s: c for s, c in counts.items() if s != seat}
        if o.scoring_mode == "winner_collects":
            gain = sum(others.values())
            notes += [f"seat {s} holds {c}" for s, c in others.items()]
            if bonus == "double":
                gain *= 2
                notes.append("going rummy doubles the hand")
            elif bonus == "plus_10":
                gain += 10
                notes.append("going rummy adds 10")
            points[seat] = gain
            notes.append(f"seat {seat} scores {gain}")
        else:
            factor = 2 if bonus == "double" else 1
            for s, c in others.items():
                points[s] = c * factor
                notes.append(f"seat {s} adds {c}" + (" doubled" if factor == 2 else ""))
            if bonus == "plus_10":
                points[seat] = -10
                notes.append(f"going rummy takes 10 off seat {seat}")
        outcome = "rummy" if rummy else "out"
        return self.finish_hand([self._reveal(counts)], outcome, (seat,), points, notes)

    def end_by_exhaustion(self) -> list[Event]:
        counts = self._counts()
        low = _lowest(counts)
        points = [0] * self.players
        notes = [f"the stock ran out for the {self.exhaustions + 1}th time: the hand ends"]
        if self.options.scoring_mode == "winner_collects":
            gain = sum(c - counts[low[0]] for c in counts.values())
            for s in low:
                points[s] = gain
            notes.append(f"lowest count {counts[low[0]]}: seat(s) "
                         f"{', '.join(map(str, low))} score the differences, {gain}")
        else:
            points = [counts[s] for s in range(self.players)]
            notes.append("each player adds his own count")
        return self.finish_hand([self._reveal(counts)], "exhausted", low, points, notes)

    def after_hand(self, result: HandScored) -> list[Event]:
        o = self.options
        reached = o.target_score and max(self.scores) >= o.target_score
        if not reached and not (o.max_hands and len(self.results) >= o.max_hands):
            return []
        return self.end_game(self.leaders())

    def leaders(self) -> tuple[int, ...]:
        totals = dict(enumerate(self.scores))
        if self.options.scoring_mode == "winner_collects":
            return _highest(totals)
        return _lowest(totals)

    def choose_next_dealer(self, result: HandScored) -> int:
        if self.options.dealer_rotation == "winner_deals" and len(result.winners) == 1:
            return result.winners[0]
        return self.next_seat(self.dealer)


def _may_meld(hand: Sequence[Card], rules: MeldRules) -> bool:
    """False when ``hand`` (natural cards) holds no three of a rank and no three in a row.

    Most hands hold no meld: this looks at the hand as one mask of faces instead of
    listing candidates.
    """
    m = reduce(or_, map(_FACE_BITS.__getitem__, hand), 0)
    a, b, c, d = m & 0x3FFE, m >> 16 & 0x3FFE, m >> 32 & 0x3FFE, m >> 48 & 0x3FFE
    if (a & b & (c | d)) | (c & d & (a | b)):
        return True
    if rules.ace_mode != "low":  # the ace again above the king (and below the two)
        a, b, c, d = (p | (p & 2) << 13 | (p >> 13 & 1) for p in (a, b, c, d))
    return bool(a & a >> 1 & a >> 2 or b & b >> 1 & b >> 2 or c & c >> 1 & c >> 2
                or d & d >> 1 & d >> 2)


# By card code: the bit of its face (a hand of one deck has each face once).
_FACE_BITS: Final = tuple(1 << (code & 63) for code in range(MAX_COPIES * 64))


# ====================================================================== Gin Rummy


class GinRummy(Game):
    """Gin Rummy (docs/rules.md 3): the upcard offer, knocking, gin, layoffs and undercuts."""

    name = "gin"
    title = "Gin Rummy"
    min_players = 2
    max_players = 2
    extra_actions = frozenset({"pass", "knock"})
    options: GinOptions

    def __init__(self, options: GinOptions, players: int, first_dealer: int = 0) -> None:
        self.options = options
        super().__init__(options, players, first_dealer)
        self.passes = 0

    def hand_size(self) -> int:
        return 10

    def upcard_offer(self) -> bool:
        return True

    def on_deal(self) -> None:
        self.passes = 0

    # -- first turn (docs/rules.md 3, "The first turn")

    def _verify_pass(self, action: PassUpcard) -> None:
        """Passing is always allowed while the upcard is offered."""

    def _apply_pass(self, action: PassUpcard) -> list[Event]:
        self.passes += 1
        events: list[Event] = [Passed(action.seat)]
        other = self.next_seat(action.seat)
        if self.passes == 1:
            self.turn = other
        else:  # both passed: the non-dealer must draw from the stock
            self.turn, self.phase, self.stock_only = other, Phase.DRAW, True
        return events

    # -- after the draw (docs/rules.md 3, "A turn")

    def play_actions(self, seat: int) -> list[SeatAction]:
        actions = self.discard_actions(seat)
        hand = self.hands[seat]
        limit = self.options.knock_limit
        deadwood = deadwood_points(hand, self.meld_rules)
        if _may_knock(hand, self.meld_rules, limit, deadwood):
            after = discard_deadwoods(hand, self.meld_rules)
            actions.extend(Knock(seat, c) for c in self.discardable(seat) if after[c] <= limit)
        if self.options.big_gin_bonus and deadwood == 0:
            actions.append(Knock(seat, None))
        return actions

    def _verify_knock(self, action: Knock) -> None:
        hand = self.hands[action.seat]
        if action.card is None:
            if not self.options.big_gin_bonus:
                raise CannotGoOut("big gin is not played at this table: discard to knock")
            if self._knock_deadwood(hand, action.melds):
                raise CannotGoOut("big gin needs all eleven cards melded")
            return
        self._check_discard(action.seat, action.card)
        deadwood = self._knock_deadwood(_without(hand, action.card), action.melds)
        limit = self.options.knock_limit
        if deadwood > limit:
            mine = " with those melds" if action.melds is not None else ""
            raise CannotGoOut(f"your deadwood would be {deadwood}{mine}; the knock limit is "
                              f"{limit}" if limit else "only gin ends a hand at this table")

    def _knock_deadwood(self, kept: Sequence[Card],
                        melds: tuple[tuple[Card, ...], ...] | None) -> int:
        """The knocker's deadwood: of his own melds when he names them, else the least."""
        if melds is None:
            return deadwood_points(kept, self.meld_rules)
        named = [c for m in melds for c in m]
        if len(set(named)) != len(named):
            raise InvalidMeld("a card is named in two melds")
        for card in named:
            if card not in kept:
                raise CardNotHeld(f"{card} is not among the cards you keep")
        try:
            return chosen_arrangement(kept, melds, self.meld_rules).points
        except CardError as exc:  # (every card was checked above: a defence in depth)
            raise InvalidMeld(str(exc)) from None

    def _apply_knock(self, action: Knock) -> list[Event]:
        seat, o, rules = action.seat, self.options, self.meld_rules
        kept = self.hands[seat]
        if action.card is not None:
            kept.remove(action.card)
            self.discard.append(action.card)
        other = self.next_seat(seat)
        defender = self.hands[other]
        knocker_dw = self._knock_deadwood(kept, action.melds)
        call = "big_gin" if action.card is None else ("gin" if knocker_dw == 0 else "knock")
        layoffs = call == "knock" or (call == "gin" and o.layoff_on_gin)
        if action.melds is None:
            arrangement, defence = knocker_arrangement(kept, defender, rules,
                                                       allow_layoffs=layoffs)
        else:  # the knocker's own arrangement (docs/rules.md, "The showdown")
            arrangement = chosen_arrangement(kept, action.melds, rules)
            defence = best_layoffs(defender, arrangement.melds if layoffs else (), rules)
        reveals = Showdown(tuple(sorted((  # in seat order, as in every game
            Reveal(seat, arrangement.melds, (), arrangement.deadwood, arrangement.points),
            Reveal(other, defence.own_melds, defence.layoffs, defence.deadwood, defence.points)),
            key=lambda r: r.seat)))
        k, d = arrangement.points, defence.points
        points = [0] * self.players
        winners: tuple[int, ...]
        notes = [f"seat {seat} {'went ' + call.replace('_', ' ') if call != 'knock' else 'knocked'}"
                 f" with {k}; seat {other} has {d}"
                 + (" after laying off" if defence.layoffs else "")]
        if call in ("gin", "big_gin"):
            bonus = o.gin_bonus if call == "gin" else o.big_gin_bonus
            points[seat] = bonus + d
            notes.append(f"seat {seat} scores {bonus} for {call.replace('_', ' ')} + {d} = "
                         f"{bonus + d}")
            outcome, winners = call, (seat,)
        elif k < d:
            points[seat] = d - k
            notes.append(f"seat {seat} scores {d} - {k} = {d - k}")
            outcome, winners = "knock", (seat,)
        elif d < k or o.undercut_on_tie:
            points[other] = o.undercut_bonus + k - d
            notes.append(f"undercut: seat {other} scores {o.undercut_bonus} + {k - d} = "
                         f"{o.undercut_bonus + k - d}")
            outcome, winners = "undercut", (other,)
        else:
            notes.append("a tie: nobody scores at this table")
            outcome, winners = "tie", ()
        events: list[Event] = [Knocked(seat, call, action.card)]
        return events + self.finish_hand([reveals], outcome, winners, points, notes)

    def after_discard(self, seat: int) -> list[Event]:
        if len(self.stock) <= self.options.dead_hand_stock_size:  # docs/rules.md 3, "Dead hand"
            return self.finish_hand([], "dead", (), [0] * self.players, [
                f"the stock is down to {len(self.stock)} cards: the hand is dead; "
                "the same dealer deals again"])
        return self.end_turn(seat)

    # -- end of the game (docs/rules.md 3, "The end")

    def after_hand(self, result: HandScored) -> list[Event]:
        o = self.options
        leader = max(range(self.players), key=lambda s: self.scores[s])
        if self.scores[leader] < o.target_score:
            return []
        notes = [f"seat {leader} reached {self.scores[leader]}"]
        loser_total = min(self.scores[s] for s in range(self.players) if s != leader)
        if o.game_bonus:
            self.scores[leader] += o.game_bonus
            notes.append(f"game bonus {o.game_bonus} to seat {leader}")
        if o.shutout_bonus and loser_total == 0:
            self.scores[leader] += o.shutout_bonus
            notes.append(f"shutout bonus {o.shutout_bonus} to seat {leader}")
        if o.box_bonus:
            for s in range(self.players):
                won = sum(1 for r in self.results if r.winners == (s,))
                if won:
                    self.scores[s] += won * o.box_bonus
                    notes.append(f"seat {s}: {won} hands won x {o.box_bonus} box bonus")
        return self.end_game((leader,), notes)

    def leaders(self) -> tuple[int, ...]:
        return _highest(dict(enumerate(self.scores)))

    def choose_next_dealer(self, result: HandScored) -> int:
        other = self.next_seat(self.dealer)
        if not result.winners or self.options.next_dealer == "alternate":
            return other
        winner = result.winners[0]
        return winner if self.options.next_dealer == "winner" else self.next_seat(winner)


def _may_knock(hand: Sequence[Card], rules: MeldRules, limit: int,
               deadwood: int | None = None) -> bool:
    """A necessary condition for keeping at most ``limit`` after some discard.

    The best arrangement of the kept cards, plus the discard as deadwood, is an
    arrangement of the whole hand, so ``deadwood(hand - c) >= deadwood(hand) - points(c)``.
    One solve of the whole hand (``deadwood`` if the caller has it; else one that stops
    early when the cards no meld can hold already exceed the bound) spares the
    per-discard solves.
    """
    if deadwood is not None and deadwood - rules.max_points > limit:
        return False  # even the dearest card of any hand would not do
    points = rules.points_by_face
    dearest = max(points[c & 63] for c in hand)
    if deadwood is None:
        return deadwood_at_most(hand, rules, limit + dearest)
    return deadwood - dearest <= limit


# ====================================================================== Chicago Rummy


class ChicagoRummy(Game):
    """Chicago Rummy (docs/rules.md 4): two decks, wild 2s, shrinking knock limits, elimination."""

    name = "chicago"
    title = "Chicago Rummy"
    min_players = 2
    max_players = 8
    extra_actions = frozenset({"knock", "declare_rummy"})
    options: ChicagoOptions

    def __init__(self, options: ChicagoOptions, players: int, first_dealer: int = 0) -> None:
        self.options = options
        super().__init__(options, players, first_dealer)
        self.seven_twos: int | None = None
        # By seat: the cards it held after its last draw, their codes summed (the card
        # gone since is that sum less the hand's), and those of them whose discard kept a
        # least deadwood within its reach (see _may_declare).
        self._reached: list[tuple[frozenset[Card], int, list[Card]] | None] = [None] * players

    def deck(self) -> tuple[Card, ...]:
        return make_deck(2)

    def on_deal(self) -> None:
        self._reached = [None] * self.players

    def hand_size(self) -> int:
        return 7

    def hand_meld_rules(self) -> MeldRules:
        return shared_rules(max_set_size=0, wild_rank=2)

    def knock_limit(self, score: int) -> int:
        """The knock limit (docs/rules.md 4): max(0, min(base limit, elimination score - score))."""
        o = self.options
        return max(0, min(o.knock_base_limit, o.elimination_score - score))

    def hand_knock_limits(self) -> list[int]:
        return [self.knock_limit(s) if self.active[i] else 0 for i, s in enumerate(self.scores)]

    def draw_phase_extras(self, seat: int) -> list[SeatAction]:
        if self.options.rummy_timing != "after_discard" and self._may_declare(seat) and (
                deadwood_at_most(self.hands[seat], self.meld_rules, 0)):
            return [DeclareRummy(seat)]
        return []

    def _may_declare(self, seat: int) -> bool:
        """False when the seat's last play already showed its hand cannot be rummy.

        The hand at the start of a turn is the one kept after the last discard: when
        that discard was not among those keeping a least deadwood within the reach
        (at least 0) listed then, the hand keeps more than 0. A fact of the cards alone,
        checked as such (the hand is those cards less one), so it holds whatever came
        between.
        """
        reached = self._reached[seat]
        if reached is None:
            return True
        held, codes, fits = reached
        hand = self.hands[seat]
        if len(held) != len(hand) + 1 or not held.issuperset(hand):
            return True
        return codes - sum(hand) in fits  # (the card gone: a hand names a card once)

    def _verify_declare_rummy(self, action: DeclareRummy) -> None:
        if self.options.rummy_timing == "after_discard":
            raise CannotGoOut("at this table rummy is declared after the discard")
        deadwood = deadwood_points(self.hands[action.seat], self.meld_rules)
        if deadwood:
            raise CannotGoOut(f"rummy needs all 7 cards melded; {deadwood} points are unmelded")

    def _apply_declare_rummy(self, action: DeclareRummy) -> list[Event]:
        return self._showdown(action.seat, "rummy", None)

    def play_actions(self, seat: int) -> list[SeatAction]:
        actions = self.discard_actions(seat)
        limit = self.knock_limits[seat]
        rummy_ok = self.options.rummy_timing != "start_of_turn"
        reach = limit if limit else (0 if rummy_ok else -1)
        if reach >= 0:  # a kept count within reach is a knock, or rummy (see _call)
            hand = self.hands[seat]
            fits = discards_at_most(hand, self.meld_rules, reach)
            self._reached[seat] = (frozenset(hand), sum(hand), fits)
            taken = self.taken if self.options.forbid_discarding_taken_card else None
            actions.extend(Knock(seat, c) for c in fits if c != taken)
        return actions

    def _call(self, seat: int, deadwood: int) -> str | None:
        """What going out with ``deadwood`` kept points is: rummy, knock, or not allowed."""
        if deadwood == 0 and self.options.rummy_timing != "start_of_turn":
            return "rummy"
        limit = self.knock_limits[seat]
        return "knock" if limit >= 1 and deadwood <= limit else None

    def _verify_knock(self, action: Knock) -> None:
        if action.card is None:
            raise CannotGoOut("name the card to discard when you knock")
        if action.melds is not None:
            raise InvalidMeld("in Chicago Rummy every hand is shown in its best arrangement: "
                              "knock without naming melds")
        self._check_discard(action.seat, action.card)
        deadwood = deadwood_points(_without(self.hands[action.seat], action.card),
                                   self.meld_rules)
        if self._call(action.seat, deadwood) is None:
            limit = self.knock_limits[action.seat]
            raise CannotGoOut(f"{deadwood} points would stay unmelded; your knock limit is "
                              f"{limit}" + (" (rummy only)" if not limit else ""))

    def _apply_knock(self, action: Knock) -> list[Event]:
        assert action.card is not None
        seat = action.seat
        self.hands[seat].remove(action.card)
        self.discard.append(action.card)
        return self._showdown(seat, None, action.card)

    def _showdown(self, seat: int, call: str | None, card: Card | None) -> list[Event]:
        """Show every hand; ``call`` None: a knock's, rummy or knock by the kept count."""
        o = self.options
        seats = [s for s in range(self.players) if self.active[s]]
        arrangements = {s: best_arrangement(self.hands[s], self.meld_rules) for s in seats}
        if call is None:  # (the knocker's arrangement keeps the least deadwood: his count)
            call = self._call(seat, arrangements[seat].points)
            assert call is not None
        events: list[Event] = [Knocked(seat, call, card)]
        reveal = _reveal_all(self.players, arrangements)
        if call == "rummy" and o.seven_twos_wins and all(
                c.rank == 2 for c in self.hands[seat]):
            self.seven_twos = seat
            return events + self.finish_hand([reveal], "seven_twos", (seat,),
                                             [0] * self.players,
                                             [f"seat {seat} declared rummy with seven 2s"])
        points = [0] * self.players
        notes = []
        for s, a in arrangements.items():
            points[s] = a.points
            notes.append(f"seat {s} adds {a.points} unmelded")
        if call == "knock":
            mine = points[seat]
            beaten = any(points[s] < mine or (points[s] == mine and o.knock_penalty_on_tie)
                         for s in seats if s != seat)
            if beaten:
                points[seat] += o.knock_penalty
                notes.append(f"seat {seat} knocked without the lowest count: "
                             f"+{o.knock_penalty} penalty")
        winners = _lowest({s: points[s] for s in seats})
        return events + self.finish_hand([reveal], call, winners, points, notes)

    def after_hand(self, result: HandScored) -> list[Event]:
        if self.seven_twos is not None:
            return self.end_game((self.seven_twos,), ["seven 2s win the game"])
        o = self.options
        out = tuple(s for s in range(self.players) if self.active[s] and (
            self.scores[s] > o.elimination_score
            or (o.eliminate_at_equal and self.scores[s] == o.elimination_score)))
        events: list[Event] = []
        if out:
            for s in out:
                self.active[s] = False
            events.append(Eliminated(out))
        alive = [s for s in range(self.players) if self.active[s]]
        if len(alive) == 1:
            return events + self.end_game((alive[0],), [f"seat {alive[0]} is the last player"])
        if not alive:
            winners = _lowest({s: self.scores[s] for s in out})
            return events + self.end_game(winners, ["every remaining player was eliminated: "
                                                    "the lowest total wins"])
        return events

    def leaders(self) -> tuple[int, ...]:
        return _active_lowest(self)


# ====================================================================== Three Thirteen


class ThreeThirteen(Game):
    """Three Thirteen (docs/rules.md 5): eleven rounds of 3 to 13 cards, a new wild rank each."""

    name = "three_thirteen"
    title = "Three Thirteen"
    min_players = 2
    max_players = 8
    extra_actions = frozenset({"go_out"})
    options: ThirteenOptions

    def __init__(self, options: ThirteenOptions, players: int, first_dealer: int = 0) -> None:
        self.options = options
        self.round = 1
        super().__init__(options, players, first_dealer)
        self.out_seat: int | None = None
        self.bonus_scores: dict[int, int] = {}

    @property
    def last_round(self) -> int:
        return 12 if self.options.deuces_arent_wild else 11

    def decks(self) -> int:
        """The number of decks in play."""
        if self.options.deuces_arent_wild:
            return 1
        d = self.options.decks
        return math.ceil(self.players / 2) if d == "auto" else d

    def jokers_per_deck(self) -> int:
        return 2 if self.options.deuces_arent_wild else self.options.jokers_per_deck

    def deck(self) -> tuple[Card, ...]:
        return make_deck(self.decks(), self.jokers_per_deck())

    def round_number(self) -> int:
        return self.round

    def hand_size_max(self) -> int:
        """The most cards any round deals (13, or 14 under Deuces Aren't Wild)."""
        return 14 if self.options.deuces_arent_wild else 13

    def hand_size(self) -> int:
        return min(self.round, 12) + 2

    def hand_meld_rules(self) -> MeldRules:
        o = self.options
        high = o.ace_mode == "high_or_low"
        faces = (11, 12, 13) if o.face_points == "eleven_twelve_thirteen" else (10, 10, 10)
        wild = self.round + 2 if self.round <= 11 else 1  # round 12 and bonus rounds: aces
        return shared_rules(ace_mode=o.ace_mode, max_set_size=0, wild_rank=wild,
                         all_wild_melds=o.all_wild_sets,
                         ace_points=o.ace_high_points if high else 1,
                         jack_points=faces[0], queen_points=faces[1], king_points=faces[2],
                         joker_points=o.joker_points)

    def on_deal(self) -> None:
        self.out_seat = None

    def play_actions(self, seat: int) -> list[SeatAction]:
        actions = self.discard_actions(seat)
        if self.out_seat is None:
            actions.extend(GoOut(seat, c) for c in self._discardable_within(seat, 0))
        return actions

    def _verify_go_out(self, action: GoOut) -> None:
        if self.out_seat is not None:
            raise CannotGoOut(f"seat {self.out_seat} already went out: discard to end your turn")
        self._check_discard(action.seat, action.card)
        deadwood = deadwood_points(_without(self.hands[action.seat], action.card),
                                   self.meld_rules)
        if deadwood:
            raise CannotGoOut(f"every kept card must be melded; {deadwood} points are not")

    def _apply_go_out(self, action: GoOut) -> list[Event]:
        seat = action.seat
        self.hands[seat].remove(action.card)
        self.discard.append(action.card)
        self.out_seat = seat
        events: list[Event] = [Discarded(seat, action.card), WentOut(seat, action.card)]
        return events + self.end_turn(seat)

    def after_discard(self, seat: int) -> list[Event]:
        if self.out_seat is not None and self.next_seat(seat) == self.out_seat:
            return self._score_round()
        return self.end_turn(seat)

    def _score_round(self) -> list[Event]:
        seats = [s for s in range(self.players) if self.active[s]]
        arrangements = {s: best_arrangement(self.hands[s], self.meld_rules) for s in seats}
        reveal = _reveal_all(self.players, arrangements)
        bonus = self.round > self.last_round
        points = [0] * self.players
        notes = [f"seat {self.out_seat} went out"]
        round_scores = {s: a.points for s, a in arrangements.items()}
        for s, p in round_scores.items():
            notes.append(f"seat {s} has {p} unmelded")
            if not bonus:
                points[s] = p
        if bonus:
            self.bonus_scores = round_scores
            notes.append("a bonus round: totals stay as they were")
        label = "bonus" if bonus else "round"
        return self.finish_hand([reveal], label, _lowest(round_scores), points, notes)

    def after_hand(self, result: HandScored) -> list[Event]:
        self.round += 1
        if self.round <= self.last_round:
            return []
        if self.round == self.last_round + 1:
            tied = _lowest(dict(enumerate(self.scores)))
        else:
            tied = _lowest(self.bonus_scores)
        if len(tied) == 1 or not self.options.deuces_arent_wild:
            return self.end_game(tied)
        self.active = [s in tied for s in range(self.players)]
        return []

    def leaders(self) -> tuple[int, ...]:
        return _active_lowest(self)


# ====================================================================== registry

GAMES: dict[str, type[Game]] = {
    cls.name: cls for cls in (BasicRummy, GinRummy, ChicagoRummy, ThreeThirteen)
}


def new_game(game: str, options: GameOptions | dict[str, object] | None = None, *,
             players: int, first_dealer: int = 0) -> Game:
    """Start a game of ``game`` (basic, gin, chicago, three_thirteen) at its first deal.

    ``options`` is a validated options object or a mapping checked with
    :func:`~rummyhall.rules.options.parse_options`. The game waits for a
    :class:`~rummyhall.rules.actions.Shuffle` of :meth:`Game.shuffle_cards`.
    Raises :class:`OptionError` for bad options or a player count the game does not take.
    """
    if not isinstance(options, (BasicOptions, GinOptions, ChicagoOptions, ThirteenOptions)):
        options = parse_options(game, options)
    cls = GAMES[game]
    if type(options) is not OPTION_CLASSES[game]:
        raise OptionError(f"those options are not options of {game}")
    low, high = cls.min_players, cls.max_players
    if isinstance(options, ThirteenOptions) and options.deuces_arent_wild:
        high = 3
    if not low <= players <= high:
        seats = f"{low}" if low == high else f"{low} to {high}"
        raise OptionError(f"{cls.title} takes {seats} players, not {players}")
    if not 0 <= first_dealer < players:
        raise OptionError(f"first_dealer must be a seat from 0 to {players - 1}")
    game_obj = cls(options, players, first_dealer)
    if isinstance(game_obj, ThreeThirteen):
        needed = players * game_obj.hand_size_max() + 11
        have = len(game_obj.deck())
        if have < needed:
            raise OptionError(f"option 'decks' of three_thirteen: {have} cards cannot deal "
                              f"{players} players (need {needed}); use more decks or 'auto'")
    return game_obj


def meld_rules_for(game: str, options: GameOptions | dict[str, object] | None = None,
                   *, round: int = 1) -> MeldRules:
    """The card rules of ``game`` under ``options`` (for Three Thirteen, of ``round``).

    >>> meld_rules_for("chicago").wild_rank
    2
    >>> meld_rules_for("three_thirteen", round=11).wild_rank
    13
    """
    players = 3 if game == "three_thirteen" else 2
    state = new_game(game, options, players=players)
    if isinstance(state, ThreeThirteen):
        state.round = round
    return state.hand_meld_rules()
