"""The rules engine of Rummy Hall: pure, deterministic, no I/O.

Start with :func:`new_game`, feed it a :class:`Shuffle` when :meth:`Game.shuffle_cards`
asks for one, then apply the seats' actions; :func:`seat_view` and :func:`event_for` say
what each seat may see. Bot authors mostly need :func:`best_arrangement` and its kin,
:func:`meld_rules_for` and the card notation.
"""

from .actions import (
    ACTION_KINDS,
    Action,
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    GoOut,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    SeatAction,
    Shuffle,
)
from .cards import Card, format_cards, make_deck, parse_cards, sort_key
from .errors import (
    BadShuffle,
    CannotGoOut,
    CardError,
    CardNotHeld,
    IllegalAction,
    IllegalDiscard,
    IllegalDraw,
    InvalidMeld,
    NotYourTurn,
    OptionError,
    RulesError,
    WrongPhase,
)
from .events import (
    CALLS,
    DRAW_SOURCES,
    OUTCOMES,
    REVEAL_STATES,
    Discarded,
    Drew,
    Eliminated,
    Event,
    GameOver,
    HandDealt,
    HandScored,
    Knocked,
    LaidOff,
    Melded,
    Passed,
    Reveal,
    Showdown,
    StockRebuilt,
    WentOut,
)
from .game import (
    MAX_GAME_MOVES,
    MAX_HAND_TURNS,
    MAX_STOCK_EXHAUSTIONS,
    MOST_GAME_MOVES,
    PHASE_ACTIONS,
    PHASE_MEANINGS,
    Game,
    Phase,
    TableMeld,
)
from .melds import MeldRules, can_lay_off, layoff_cards, meld_kind, order_meld
from .options import (
    GameOptions,
    OptionSpec,
    option_specs,
    options_to_dict,
    parse_options,
)
from .solver import (
    Arrangement,
    LayoffResult,
    best_arrangement,
    best_discard,
    best_layoffs,
    chosen_arrangement,
    deadwood_at_most,
    deadwood_points,
    discard_deadwoods,
    discards_at_most,
    knocker_arrangement,
    optimal_arrangements,
)
from .variants import (
    GAMES,
    BasicRummy,
    ChicagoRummy,
    GinRummy,
    ThreeThirteen,
    meld_rules_for,
    new_game,
)
from .views import SeatView, event_for, seat_view, view_meld_rules, visible_cards

__all__ = [
    "ACTION_KINDS", "CALLS", "DRAW_SOURCES", "GAMES", "MAX_GAME_MOVES", "MAX_HAND_TURNS",
    "MAX_STOCK_EXHAUSTIONS", "MOST_GAME_MOVES", "OUTCOMES",
    "PHASE_ACTIONS",
    "PHASE_MEANINGS", "REVEAL_STATES", "Action", "Arrangement", "BadShuffle",
    "BasicRummy", "CannotGoOut", "Card", "CardError", "CardNotHeld", "ChicagoRummy",
    "DeclareRummy", "Discard", "Discarded", "DrawDiscard", "DrawStock", "Drew", "Eliminated",
    "Event", "Game", "GameOptions", "GameOver", "GinRummy", "GoOut", "HandDealt", "HandScored",
    "IllegalAction", "IllegalDiscard", "IllegalDraw", "InvalidMeld", "Knock", "Knocked",
    "LaidOff", "LayOff", "LayoffResult", "Meld", "MeldRules", "Melded", "NotYourTurn",
    "OptionError", "OptionSpec", "PassUpcard", "Passed", "Phase", "Reveal", "RulesError",
    "SeatAction", "SeatView", "Showdown", "Shuffle", "StockRebuilt", "TableMeld",
    "ThreeThirteen", "WentOut", "WrongPhase", "best_arrangement", "best_discard",
    "best_layoffs", "can_lay_off", "chosen_arrangement", "deadwood_at_most",
    "deadwood_points", "discard_deadwoods", "discards_at_most", "event_for", "format_cards",
    "knocker_arrangement", "layoff_cards", "make_deck", "meld_kind", "meld_rules_for",
    "new_game", "optimal_arrangements", "option_specs", "options_to_dict", "order_meld",
    "parse_cards", "parse_options", "seat_view", "sort_key", "view_meld_rules",
    "visible_cards",
]
