"""What a seat can know about the cards, from the views it has seen (no hidden information).

Theory of operation
-------------------
A bot sees a :class:`~rummyhall.rules.SeatView` only when it must decide. Between two of
its decisions the other seats played: each of them either took the top of the discard
pile or drew from the stock (unseen), then discarded one card on the pile. The tracker
keeps the pile as it was right after the bot's own last action and compares it with the
pile it sees now:

- the old pile is still the bottom of the new one: the next seat did not take the bot's
  discard (it *passed* on it), and the cards on top are new discards;
- the old pile minus its top card is the bottom of the new one: the next seat *took* the
  bot's discard (only the next seat can take it: the card is covered otherwise), so that
  card is known to be in its hand until it shows up again on the pile or the table;
- anything else (a stock rebuilt from the pile): nothing is inferred this time.

The newest visible discard always belongs to the seat just before the bot; when there is
one new discard per other seat, each one belongs to the seat in turn order. A discard
taken by a later seat before the bot's turn is never seen (a view is a snapshot), and is
simply not counted: the tracker only records what it can prove.

Gin's upcard: when the dealer decides in the ``upcard`` phase, the other seat has passed
on the upcard.

Memory is per hand: a new ``hand_no`` (or a new game: a smaller ``move_number``) starts
a fresh :class:`HandMemory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rummyhall.rules import Card, SeatAction, SeatView, new_game

# Deck composition per (game, options, players): the face counts of every card in play.
_TABLE_FACTS: dict[tuple[str, tuple[tuple[str, object], ...], int],
                   tuple[tuple[Card, ...], int, tuple[int, ...]]] = {}


def table_facts(view: SeatView) -> tuple[tuple[Card, ...], int, tuple[int, ...]]:
    """What the view's table deals, from one new game made once per game, options and
    seat count: the deck (canonical order), the deal's size (the first round's, in
    Three Thirteen) and how many cards of each face (``card & 63``) the deck holds (64
    entries)."""
    key = (view.game, tuple(sorted(view.options.items())), view.players)
    facts = _TABLE_FACTS.get(key)
    if facts is None:
        game = new_game(view.game, dict(view.options), players=view.players)
        deck = tuple(game.shuffle_cards())
        faces = [0] * 64
        for card in deck:
            faces[card & 63] += 1
        facts = _TABLE_FACTS[key] = (deck, game.hand_size(), tuple(faces))
    return facts


def deck_faces(view: SeatView) -> tuple[int, ...]:
    """How many cards of each face (``card & 63``) the game's deck holds (64 entries)."""
    return table_facts(view)[2]


@dataclass
class HandMemory:
    """What the bot has learnt during one hand."""

    hand_no: int
    #: Cards each seat took from the discard pile and has not shown since.
    known: dict[int, set[Card]] = field(default_factory=dict)
    #: Faces each seat discarded or declined to take (it probably does not collect them).
    shunned: dict[int, set[int]] = field(default_factory=dict)
    #: The pile right after our last action, and the move number then.
    pile: tuple[Card, ...] | None = None
    move: int = -1
    #: True once we melded or laid off in an earlier turn (Basic Rummy: no more rummy).
    melded: bool = False
    melded_this_turn: bool = False
    turns: int = 0
    #: What drawing each face saves each hand evaluated this hand (see HandEvaluator).
    gains: dict[tuple[Card, ...], dict[int, float]] = field(default_factory=dict)
    #: The stock's size at our last look or action, and the rebuilds seen this hand: a
    #: stock larger than that at the next look. A rebuild that leaves the stock no larger
    #: (two between two looks, or a pile of one or two cards) is missed, and a memory
    #: started in the middle of a hand counts from there.
    stock: int = -1
    rebuilds: int = 0

    def known_cards(self, seat: int) -> set[Card]:
        return self.known.setdefault(seat, set())

    def shunned_faces(self, seat: int) -> set[int]:
        return self.shunned.setdefault(seat, set())


class Tracker:
    """Keeps a :class:`HandMemory` up to date from successive views of one seat."""

    def __init__(self) -> None:
        self.memory: HandMemory | None = None

    def observe(self, view: SeatView) -> HandMemory:
        """Update the memory with ``view`` (before deciding) and return it."""
        mem = self.memory
        if mem is None or mem.hand_no != view.hand_no or view.move_number < mem.move:
            mem = self.memory = HandMemory(view.hand_no)
        if view.stock_count > mem.stock >= 0:
            mem.rebuilds += 1
        mem.stock = view.stock_count
        if mem.pile is not None and view.move_number > mem.move + 1:
            self._infer(view, mem, mem.pile)
        elif (mem.pile is None and view.phase == "upcard" and view.seat == view.dealer
              and view.discard_pile):
            # The dealer decides on Gin's upcard only after the other seat passed on it.
            other = _previous_seat(view, view.dealer)
            mem.shunned_faces(other).add(view.discard_pile[-1] & 63)
        if view.phase in ("draw", "upcard") and mem.move != view.move_number:
            mem.turns += 1
            if mem.melded_this_turn:
                mem.melded = True
            mem.melded_this_turn = False
        self._forget_shown(view, mem)
        return mem

    def record(self, view: SeatView, action: SeatAction) -> None:
        """Remember our own action: the pile it leaves, and whether it melded."""
        mem = self.memory
        if mem is None:
            return
        pile = view.discard_pile
        kind = action.kind
        if kind == "draw_discard":
            pile = pile[:-1]
        card = getattr(action, "card", None)
        if kind in ("discard", "knock", "go_out") and card is not None:
            pile = (*pile, card)
        if kind in ("meld", "layoff"):
            mem.melded_this_turn = True
        mem.pile = pile
        mem.move = view.move_number
        mem.stock = view.stock_count - (kind == "draw_stock")

    def _infer(self, view: SeatView, mem: HandMemory, before: tuple[Card, ...]) -> None:
        after = view.discard_pile
        seat = view.seat
        if seat is None:
            return
        others = _seats_between(view, seat)
        if not others:
            return
        n = len(before)
        if after[:n] == before:
            new = after[n:]
            if before:
                mem.shunned_faces(others[0]).add(before[-1] & 63)
        elif n and after[:n - 1] == before[:-1]:
            mem.known_cards(others[0]).add(before[-1])
            new = after[n - 1:]
        else:
            return  # the stock was rebuilt from the pile: nothing to prove
        if len(new) == len(others):
            for i, card in enumerate(new):
                mem.shunned_faces(others[i]).add(card & 63)
                if i + 1 < len(others):  # the next seat did not take it either
                    mem.shunned_faces(others[i + 1]).add(card & 63)
        elif new:
            mem.shunned_faces(others[-1]).add(new[-1] & 63)

    @staticmethod
    def _forget_shown(view: SeatView, mem: HandMemory) -> None:
        """A known card that is on the pile, on the table or back in our own hand (we took
        it after that seat let it go) is no longer in that hand."""
        if not any(mem.known.values()):
            return
        shown = set(view.discard_pile)
        shown.update(view.hand)
        for _, meld in view.melds:
            shown.update(meld)
        for held in mem.known.values():
            held.difference_update(shown)


def _seats_between(view: SeatView, seat: int) -> list[int]:
    """The active seats that play after ``seat`` and before its next turn, in order."""
    n = view.players
    return [s for s in ((seat + i) % n for i in range(1, n)) if view.active[s]]


def _previous_seat(view: SeatView, seat: int) -> int:
    between = _seats_between(view, seat)
    return between[-1] if between else seat


def next_seat(view: SeatView) -> int | None:
    """The active seat that plays right after the viewer (who may take its discard)."""
    if view.seat is None:
        return None
    between = _seats_between(view, view.seat)
    return between[0] if between else None


def has_played(view: SeatView, mem: HandMemory, seat: int) -> bool:
    """True if ``seat`` has had a turn this hand: every other seat has once we are past
    our first turn; during our first, only the seats between the dealer and us."""
    if mem.turns > 1 or view.seat is None:
        return True
    order = _seats_between(view, view.dealer)  # (the dealer plays last)
    if view.seat not in order:
        return True  # we deal: every other seat played before us
    return seat in order[:order.index(view.seat)]


def unseen_faces(view: SeatView, mem: HandMemory, extra_seen: Sequence[Card] = ()) -> list[int]:
    """Face counts of the cards the viewer cannot place: in the stock or in unknown hands.

    Cards in the viewer's hand, on the pile, on the table and known in another hand
    (taken from the pile) are placed; ``extra_seen`` are placed too.
    """
    counts = list(deck_faces(view))
    placed: list[int] = [*view.hand, *view.discard_pile, *extra_seen]
    for _, meld in view.melds:
        placed.extend(meld)
    for seat, held in mem.known.items():
        if seat != view.seat:
            placed.extend(held)
    for card in placed:
        face = card & 63
        if counts[face]:
            counts[face] -= 1
    return counts
