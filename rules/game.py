"""The state machine of a whole game, common to the four games.

Theory of operation
-------------------
A :class:`Game` is a mutable state driven only by :meth:`Game.apply`. Chance enters as
an action too: when the phase is ``deal`` or ``rebuild`` the game waits for a
:class:`~rummyhall.rules.actions.Shuffle` giving the order of :meth:`Game.shuffle_cards`.
So a game is fully determined by its options, its first dealer, and its list of
actions; replaying that list rebuilds it exactly (the journal, reconnection and replays
all rest on this).

Every action has three faces (STYLE 2): :meth:`Game.verify` raises a precise
:class:`~rummyhall.rules.errors.IllegalAction` saying why it is illegal, :meth:`Game.can`
answers a bool, and :meth:`Game.apply` verifies, then changes the state and returns the
events. A refused action leaves the state untouched. :meth:`Game.legal_actions` lists the
actions of the seat to move (a Basic Rummy layoff of several cards at once is legal but
listed card by card).

The phases and the actions each allows are the table :data:`PHASE_ACTIONS`::

    deal     --shuffle-->                         upcard (Gin) | draw
    upcard   --draw_discard--> play;  --pass-->   upcard | draw (stock only)
    draw     --draw_stock | draw_discard--> play;  --declare_rummy (Chicago)--> hand end
    play     --meld | layoff (Basic)--> play;  --discard--> draw (next seat) | hand end
             --knock (Gin, Chicago) | go_out (3-13)--> hand end | draw
    rebuild  --shuffle-->                         draw (the stock was empty)
    hand end --> deal (next hand) | game_over

Each game (:mod:`rummyhall.rules.variants`) is a subclass that sets a few class
attributes and overrides the hooks at the bottom of :class:`Game`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import ClassVar, Self

from .actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    PassUpcard,
    SeatAction,
    Shuffle,
)
from .cards import Card, make_deck
from .errors import (
    BadShuffle,
    CardNotHeld,
    IllegalAction,
    IllegalDiscard,
    IllegalDraw,
    NotYourTurn,
    WrongPhase,
)
from .events import (
    Discarded,
    Drew,
    Event,
    GameOver,
    HandDealt,
    HandScored,
    Reveal,
    Showdown,
    StockRebuilt,
)
from .melds import MeldRules, shared_rules
from .options import GameOptions
from .solver import discards_at_most

# Engineering caps (docs/rules.md 1, "No hand and no game goes on forever"), so that
# whatever its players do a hand and a game end, and a game's journal stays bounded:
#: A hand whose stock runs out more often than this is void.
MAX_STOCK_EXHAUSTIONS = 10
#: A hand still going when this many turns are over is void (seats that only ever take
#: the discard pile never run the stock out).
MAX_HAND_TURNS = 10_000
#: When a hand ends and the game has taken this many moves (every action, shuffles
#: too), the game ends as it stands (:meth:`Game.leaders` win).
MAX_GAME_MOVES = 5_000_000
#: The most moves any game takes: the cap, then the rest of one hand (each of its turns
#: a draw, at most 14 melds and layoffs and a discard; its deal and ten rebuilds).
MOST_GAME_MOVES = MAX_GAME_MOVES + 16 * MAX_HAND_TURNS + 11


class Phase(StrEnum):
    """Where a game stands; :data:`PHASE_ACTIONS` says which actions each phase takes."""

    DEAL = "deal"
    UPCARD = "upcard"
    DRAW = "draw"
    PLAY = "play"
    REBUILD = "rebuild"
    GAME_OVER = "game_over"


PHASE_ACTIONS: dict[Phase, frozenset[str]] = {
    Phase.DEAL: frozenset({"shuffle"}),
    Phase.UPCARD: frozenset({"draw_discard", "pass"}),
    Phase.DRAW: frozenset({"draw_stock", "draw_discard", "declare_rummy"}),
    Phase.PLAY: frozenset({"discard", "meld", "layoff", "knock", "go_out"}),
    Phase.REBUILD: frozenset({"shuffle"}),
    Phase.GAME_OVER: frozenset(),
}


#: What each phase means, for docs/protocol.md ("Enumerated values").
PHASE_MEANINGS: dict[Phase, str] = {
    Phase.DEAL: "no hand is in play: before the first deal, or between two hands (see "
                "hand_ended); the server deals next",
    Phase.UPCARD: "Gin's first turn: the seat to move takes the upcard (draw_discard) or "
                  "passes",
    Phase.DRAW: "the seat to move draws, from the stock or the discard pile (Chicago: or "
                "declares rummy)",
    Phase.PLAY: "the seat to move has drawn: it melds, lays off, discards, knocks or goes out",
    Phase.REBUILD: "the stock ran out and the server is shuffling the discard pile into a "
                   "new stock; the same seat then draws",
    Phase.GAME_OVER: "the game has ended; winners and the final scores are in the view",
}

#: Actions and phases in the words of a refusal (a player reads them).
ACTION_WORDS: dict[str, str] = {
    "shuffle": "shuffling", "draw_stock": "drawing from the stock",
    "draw_discard": "taking the discard", "pass": "passing on the upcard",
    "discard": "discarding", "meld": "melding", "layoff": "laying off",
    "knock": "knocking", "go_out": "going out", "declare_rummy": "declaring rummy",
}
PHASE_WORDS: dict[Phase, str] = {
    Phase.DEAL: "the cards are being dealt",
    Phase.UPCARD: "the upcard is offered: take it or pass",
    Phase.DRAW: "draw first, from the stock or the discard pile",
    Phase.PLAY: "this turn's draw is done: discard (or meld, lay off, knock, go out)",
    Phase.REBUILD: "the stock is being rebuilt",
    Phase.GAME_OVER: "the game is over",
}


def state_names(game: Game) -> tuple[str, ...]:
    """The names of the attributes that hold ``game``'s state.

    A compiled build (``rummyhall compile``) makes the classes of this module and of
    :mod:`~rummyhall.rules.variants` native: their instances have no ``__dict__``, and the
    class lists its attributes in ``__mypyc_attrs__`` instead (each name once here)."""
    native: tuple[str, ...] | None = getattr(type(game), "__mypyc_attrs__", None)
    return tuple(dict.fromkeys(native)) if native is not None else tuple(vars(game))


# Actions are immutable values, so the legal-action lists (built on every turn of every
# game) share them: at most one per seat and kind, and one Discard per seat and card
# code, so bounded by the seats times the cards in play.
class _Discards(dict[int, Discard]):
    """The Discard of each card code for one seat, made on first use."""

    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        super().__init__()
        self.seat = seat

    def __missing__(self, card: int) -> Discard:
        action = self[card] = Discard(self.seat, Card(card))
        return action


_DISCARDS: dict[int, _Discards] = {}
_DRAWS: dict[int, tuple[DrawStock, DrawDiscard, PassUpcard]] = {}


def _draws(seat: int) -> tuple[DrawStock, DrawDiscard, PassUpcard]:
    draws = _DRAWS.get(seat)
    if draws is None:
        draws = _DRAWS[seat] = (DrawStock(seat), DrawDiscard(seat), PassUpcard(seat))
    return draws

COMMON_ACTIONS = frozenset({"shuffle", "draw_stock", "draw_discard", "discard"})


# The phases as module constants: an attribute of an Enum class costs a slow lookup
# (EnumType has a __getattr__), and the state machine tests its phase at every action.
_DEAL, _UPCARD, _DRAW, _PLAY, _REBUILD, _GAME_OVER = (
    Phase.DEAL, Phase.UPCARD, Phase.DRAW, Phase.PLAY, Phase.REBUILD, Phase.GAME_OVER)
_IDLE = frozenset({_DEAL, _REBUILD, _GAME_OVER})  # nobody is to move


class TableMeld:
    """A meld on the table (Basic Rummy): who laid it and its cards in reading order."""

    __slots__ = ("cards", "owner")

    def __init__(self, owner: int, cards: tuple[Card, ...]) -> None:
        self.owner = owner
        self.cards = cards

    def __repr__(self) -> str:
        return f"TableMeld({self.owner}, {' '.join(map(str, self.cards))})"

    def __deepcopy__(self, memo: dict[int, object]) -> TableMeld:
        # (a native class in the compiled build: the default copy would skip __init__)
        return TableMeld(self.owner, self.cards)


class Game:
    """A whole game of one of the four rummies. Build it with :func:`~rummyhall.rules.new_game`."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    #: The action kinds this game knows besides the common draw, discard and shuffle.
    extra_actions: ClassVar[frozenset[str]] = frozenset()
    _handlers: ClassVar[dict[str, tuple[Callable[..., None], Callable[..., list[Event]]]]] = {}

    options: GameOptions

    def __init__(self, options: GameOptions, players: int, first_dealer: int = 0) -> None:
        self.players = players
        self.phase = _DEAL
        self.dealer = first_dealer
        self.hand_no = 0
        self.move_number = 0
        self.scores = [0] * players
        self.active = [True] * players
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.stock: list[Card] = []  # the top card is the last one
        self.discard: list[Card] = []  # the top card is the last one
        self.melds: list[TableMeld] = []
        self.turn: int | None = None
        self.taken: Card | None = None  # the card taken from the discard pile this turn
        self.stock_only = False  # Gin: both players passed the upcard
        self.exhaustions = 0
        self.hand_turns = 0  # the turns begun in this hand
        self.winners: tuple[int, ...] = ()
        self.results: list[HandScored] = []
        self.meld_rules = self.hand_meld_rules()
        self.knock_limits = [0] * players
        self._rebuild_cards: tuple[Card, ...] = ()
        self.last_showdown: Showdown | None = None  # public until the next deal
        # The dealer and round of the hand dealt last: between two hands ``dealer`` is
        # already the next hand's, and a view shows the finished hand's (docs/rules.md).
        self.hand_dealer = first_dealer
        self.hand_round = 0

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        """A deep copy (a bot's what-if, a bench's replay of a position).

        Spelled out because the compiled build (``rummyhall compile``) makes the games
        native classes: they have no ``__dict__``, and one cannot be made without its
        constructor, which the default copy skips. A fresh game of the same class gets a
        copy of every attribute, whichever build runs."""
        clone = type(self)(self.options, self.players, self.dealer)
        memo[id(self)] = clone
        for name in state_names(self):
            setattr(clone, name, copy.deepcopy(getattr(self, name), memo))
        return clone

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int | None:
        """The seat whose decision the game waits for, or None (chance or game over)."""
        return None if self.phase in _IDLE else self.turn

    @property
    def is_over(self) -> bool:
        return self.phase is _GAME_OVER

    def shuffle_cards(self) -> tuple[Card, ...]:
        """The cards a :class:`Shuffle` must order now, in canonical order (empty if none)."""
        if self.phase is _DEAL:
            return self.deck()
        if self.phase is _REBUILD:
            return self._rebuild_cards
        return ()

    def legal_actions(self) -> list[SeatAction]:
        """Every legal action of the seat to move (empty when chance or nobody is to move)."""
        seat = self.turn
        if seat is None or self.phase in _IDLE:
            return []
        if self.phase is _UPCARD:
            _, take, refuse = _draws(seat)
            return [take, refuse]
        if self.phase is _DRAW:
            stock, take, _ = _draws(seat)
            actions: list[SeatAction] = []
            if self.stock:
                actions.append(stock)
            if self.discard and not self.stock_only:
                actions.append(take)
            actions.extend(self.draw_phase_extras(seat))
            return actions
        return self.play_actions(seat)

    def can(self, action: Action) -> bool:
        """True if :meth:`apply` would accept ``action``."""
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        kinds = COMMON_ACTIONS | cls.extra_actions
        cls._handlers = {k: (getattr(cls, "_verify_" + k), getattr(cls, "_apply_" + k))
                         for k in kinds}

    def verify(self, action: Action) -> None:
        """Raise the precise :class:`IllegalAction` that :meth:`apply` would raise, or return."""
        self._handler(action)[0](self, action)

    def _handler(self, action: Action) -> tuple[Callable[..., None], Callable[..., list[Event]]]:
        """The checks common to every action; returns the action's (verify, apply) pair."""
        kind = action.kind
        handler = self._handlers.get(kind)
        if handler is None:
            raise WrongPhase(f"{ACTION_WORDS.get(kind, kind)} is not an action of "
                             f"{self.title}")
        to_move = self.to_move  # (None while dealing, rebuilding or over: the phase says)
        if to_move is not None and action.seat != to_move and kind != "shuffle":
            raise NotYourTurn(f"it is seat {to_move}'s turn, not seat {action.seat}'s")
        if kind not in PHASE_ACTIONS[self.phase]:
            raise WrongPhase(f"{ACTION_WORDS[kind]} is not allowed now: "
                             f"{PHASE_WORDS[self.phase]}")
        return handler

    def apply(self, action: Action) -> list[Event]:
        """Check ``action``, play it and return the events it caused.

        Raises an :class:`IllegalAction` subclass (and changes nothing) when it is illegal.
        """
        check, play = self._handler(action)
        check(self, action)
        self.move_number += 1
        return play(self, action)

    # ------------------------------------------------------------------ chance

    def _verify_shuffle(self, action: Shuffle) -> None:
        expected = self.shuffle_cards()
        order = action.order
        # The cards in play are distinct codes: the same set, without repeats, is a shuffle.
        if len(order) != len(expected) or len(distinct := set(order)) != len(order) or (
                distinct != set(expected)):
            raise BadShuffle(f"a shuffle must order exactly the {len(expected)} cards in play")

    def _apply_shuffle(self, action: Shuffle) -> list[Event]:
        if self.phase is _REBUILD:
            self.stock = list(reversed(action.order))
            self.phase = _DRAW
            return [StockRebuilt(len(self.stock), self.discard[-1], self.exhaustions)]
        return self._deal(action.order)

    def _deal(self, order: Sequence[Card]) -> list[Event]:
        self.hand_no += 1
        self.meld_rules = self.hand_meld_rules()
        n = self.players
        seats = [s for s in ((self.dealer + i) % n for i in range(1, n + 1)) if self.active[s]]
        size = self.hand_size()
        hands: list[list[Card]] = [[] for _ in range(n)]
        k = 0
        for _ in range(size):
            for seat in seats:
                hands[seat].append(order[k])
                k += 1
        self.hands = hands
        self.discard = [order[k]]
        self.stock = list(reversed(order[k + 1:]))
        self.melds = []
        self.exhaustions = 0
        self.hand_turns = 0
        self.stock_only = False
        self.last_showdown = None
        self.knock_limits = self.hand_knock_limits()
        self.hand_dealer, self.hand_round = self.dealer, self.round_number()
        self.on_deal()
        events: list[Event] = [HandDealt(
            self.hand_no, self.round_number(), self.dealer, tuple(tuple(h) for h in hands),
            tuple(len(h) for h in hands), self.discard[-1], len(self.stock),
            self.meld_rules.wild_rank, tuple(self.knock_limits))]
        first = self.next_seat(self.dealer)
        if self.upcard_offer():  # (the offer is the hand's first turn)
            self.turn, self.taken, self.phase = first, None, _UPCARD
            self.hand_turns = 1
            return events
        return events + self._start_turn(first)

    # ------------------------------------------------------------------ turns

    def next_seat(self, seat: int) -> int:
        """The next seat to the left that is still in the hand."""
        n = self.players
        for i in range(1, n + 1):
            s = (seat + i) % n
            if self.active[s]:
                return s
        return seat

    def _start_turn(self, seat: int) -> list[Event]:
        """Give the turn to ``seat``, rebuilding an empty stock first (docs/rules.md 1)."""
        self.hand_turns += 1
        if self.hand_turns > MAX_HAND_TURNS:
            return self._end_void(f"the hand has lasted {MAX_HAND_TURNS:,} turns")
        self.turn, self.taken, self.phase = seat, None, _DRAW
        if self.stock:
            return []
        limit = self.exhaustion_limit()
        if limit and self.exhaustions >= limit - 1:
            return self.end_by_exhaustion()
        if self.exhaustions >= MAX_STOCK_EXHAUSTIONS or not self.discard:
            return self._end_void("the stock ran out too often")
        self.exhaustions += 1
        if len(self.discard) == 1:
            return []  # the only legal draw is the single discard
        rebuilt = tuple(self.discard[:-1])
        self.discard = self.discard[-1:]
        if self.options.stock_rebuild == "turn_over":  # type: ignore[union-attr]
            self.stock = list(reversed(rebuilt))
            return [StockRebuilt(len(self.stock), self.discard[-1], self.exhaustions)]
        self._rebuild_cards = tuple(sorted(rebuilt))
        self.phase = _REBUILD
        return []

    def _end_void(self, why: str) -> list[Event]:
        return self.finish_hand([], "void", (), [0] * self.players,
                                [f"the hand is void: {why}; the same dealer deals again"])

    def _verify_draw_stock(self, action: DrawStock) -> None:
        if not self.stock:
            raise IllegalDraw("the stock is empty: take the discard")

    def _apply_draw_stock(self, action: DrawStock) -> list[Event]:
        self.stock_only = False
        card = self.stock.pop()
        self.hands[action.seat].append(card)
        self.phase = _PLAY
        return [Drew(action.seat, "stock", card, len(self.stock))]

    def _verify_draw_discard(self, action: DrawDiscard) -> None:
        if not self.discard:
            raise IllegalDraw("the discard pile is empty")
        if self.stock_only:
            raise IllegalDraw("both players passed the upcard: draw from the stock")

    def _apply_draw_discard(self, action: DrawDiscard) -> list[Event]:
        card = self.discard.pop()
        self.hands[action.seat].append(card)
        self.taken = card
        self.phase = _PLAY
        return [Drew(action.seat, "discard", card, len(self.stock))]

    def _check_held(self, seat: int, cards: Sequence[Card]) -> None:
        hand = self.hands[seat]
        if len(set(cards)) != len(cards):
            raise CardNotHeld("a card is named twice")
        for card in cards:
            if card not in hand:
                raise CardNotHeld(f"{Card(card)} is not in your hand")

    def _check_discard(self, seat: int, card: Card) -> None:
        if card not in self.hands[seat]:
            raise CardNotHeld(f"{Card(card)} is not in your hand")
        if card == self.taken and self.options.forbid_discarding_taken_card:
            raise IllegalDiscard(f"{card} was just taken from the discard pile; "
                                 "it may be discarded on a later turn")

    def discardable(self, seat: int) -> list[Card]:
        """The cards ``seat`` may discard now."""
        hand = self.hands[seat]
        if self.taken is not None and self.options.forbid_discarding_taken_card:
            return [c for c in hand if c != self.taken]
        return list(hand)

    def _discardable_within(self, seat: int, limit: int) -> list[Card]:
        """The cards ``seat`` may discard now keeping a least deadwood of at most ``limit``."""
        taken = self.taken if self.options.forbid_discarding_taken_card else None
        return [c for c in discards_at_most(self.hands[seat], self.meld_rules, limit)
                if c != taken]

    def discard_actions(self, seat: int) -> list[SeatAction]:
        """A :class:`Discard` for every card ``seat`` may discard now.

        Actions are immutable values, so the objects are shared (legal-action lists are
        built on every turn of every game).
        """
        made = _DISCARDS.get(seat)
        if made is None:
            made = _DISCARDS[seat] = _Discards(seat)
        hand = self.hands[seat]
        taken = self.taken
        if taken is not None and self.options.forbid_discarding_taken_card:
            return [made[c] for c in hand if c != taken]
        return list(map(made.__getitem__, hand))

    def _verify_discard(self, action: Discard) -> None:
        self._check_discard(action.seat, action.card)

    def _apply_discard(self, action: Discard) -> list[Event]:
        self.hands[action.seat].remove(action.card)
        self.discard.append(action.card)
        events: list[Event] = [Discarded(action.seat, action.card)]
        return events + self.after_discard(action.seat)

    def end_turn(self, seat: int) -> list[Event]:
        """The turn of ``seat`` is over: the next seat plays."""
        return self._start_turn(self.next_seat(seat))

    # ------------------------------------------------------------------ hand and game end

    def finish_hand(self, reveals: list[Showdown], outcome: str, winners: tuple[int, ...],
                    points: Sequence[int], notes: list[str]) -> list[Event]:
        """Score the hand, then deal again or end the game (hooks decide).

        A void or dead hand scores nothing and the same dealer deals again; its showdown
        lists every seat with its cards hidden (``state="hidden"``).
        """
        for seat, gained in enumerate(points):
            self.scores[seat] += gained
        if not reveals:  # a dead or void hand: every seat is listed, no card is shown
            reveals = [Showdown(tuple(Reveal(s, (), (), (), 0, "hidden")
                                      for s in range(self.players)))]
        result = HandScored(self.hand_no, outcome, winners, tuple(points), tuple(self.scores),
                            tuple(notes))
        self.last_showdown = reveals[0] if reveals else None
        events: list[Event] = [*reveals, result]
        self.turn, self.taken = None, None
        self.phase = _DEAL
        if outcome not in ("void", "dead"):
            self.results.append(result)
            events.extend(self.after_hand(result))
            if self.phase is not _GAME_OVER:
                self.dealer = self.choose_next_dealer(result)
        if self.phase is not _GAME_OVER and self.move_number >= MAX_GAME_MOVES:
            events.extend(self.end_game(self.leaders(), [
                f"the game has taken {self.move_number:,} moves, the most a game may "
                f"take is {MAX_GAME_MOVES:,}: it ends as it stands"]))
        return events

    def end_game(self, winners: tuple[int, ...], notes: Sequence[str] = ()) -> list[Event]:
        """Mark the game over with ``winners`` (several when they share the win)."""
        self.winners = tuple(sorted(winners))
        self.phase = _GAME_OVER
        self.turn = None
        return [GameOver(self.winners, tuple(self.scores), tuple(notes))]

    # ------------------------------------------------------------------ hooks

    def deck(self) -> tuple[Card, ...]:
        """Every card of the next deal, in canonical order."""
        return make_deck()

    def hand_size(self) -> int:
        raise NotImplementedError

    def round_number(self) -> int:
        """Three Thirteen's round (1..); 0 in the other games."""
        return 0

    def hand_meld_rules(self) -> MeldRules:
        """The card rules of the next (or current) hand."""
        return shared_rules()

    def hand_knock_limits(self) -> list[int]:
        """Chicago's knock limit per seat for this hand (0 in the other games)."""
        return [0] * self.players

    def on_deal(self) -> None:
        """Reset the per-hand state of a game after a deal."""

    def upcard_offer(self) -> bool:
        """True when the hand opens with Gin's upcard offer."""
        return False

    def exhaustion_limit(self) -> int:
        """Basic Rummy's stock_exhaustion_limit (0 = unlimited)."""
        return 0

    def end_by_exhaustion(self) -> list[Event]:
        raise NotImplementedError

    def draw_phase_extras(self, seat: int) -> list[SeatAction]:
        """Actions legal before the draw besides drawing (Chicago's start-of-turn rummy)."""
        return []

    def play_actions(self, seat: int) -> list[SeatAction]:
        """Every legal action after the draw."""
        return self.discard_actions(seat)

    def after_discard(self, seat: int) -> list[Event]:
        """What follows a plain discard: by default the next seat's turn."""
        return self.end_turn(seat)

    def after_hand(self, result: HandScored) -> list[Event]:
        """Decide whether the game is over after a hand; return its events."""
        raise NotImplementedError

    def choose_next_dealer(self, result: HandScored) -> int:
        """Who deals after a scored hand: by default the next seat to the left."""
        return self.next_seat(self.dealer)

    def leaders(self) -> tuple[int, ...]:
        """The seats (still in the game) whose total is best now: who would win if the
        game ended as it stands."""
        raise NotImplementedError

