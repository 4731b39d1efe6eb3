"""Table options: every house rule of docs/rules.md, one typed dataclass per game.

The dataclasses below are the single source of truth: ``rummyhall rules`` prints them,
:func:`parse_options` validates a client's mapping against them, and the engine reads
their typed fields. Each field's metadata holds its meaning and its allowed values.

    >>> parse_options("gin", {"knock_limit": 7}).knock_limit
    7
    >>> parse_options("gin", {"knock_limit": 11})
    Traceback (most recent call last):
    ...
    rummyhall.rules.errors.OptionError: option 'knock_limit' of gin: 11 is out of range; \
allowed: an integer from 0 to 10
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import OptionError

StockRebuild = Literal["shuffle", "turn_over"]
RummyBonus = Literal["none", "double", "plus_10"]
BasicAceMode = Literal["low", "high_or_low", "round_the_corner"]
ThirteenAceMode = Literal["low", "high_or_low"]
ScoringMode = Literal["winner_collects", "low_score_wins"]
DealerRotation = Literal["left", "winner_deals"]
NextDealer = Literal["loser", "winner", "alternate"]
RummyTiming = Literal["start_of_turn", "after_discard", "both"]
FacePoints = Literal["ten", "eleven_twelve_thirteen"]
Decks = int | Literal["auto"]

MAX_POINTS = 10_000


def _opt(default: Any, meaning: str, *, low: int | None = None, high: int | None = None,
         values: tuple[int, ...] | None = None) -> Any:
    """A dataclass field carrying the option's meaning and, for integers, its bounds."""
    return field(default=default,
                 metadata={"meaning": meaning, "low": low, "high": high, "values": values})


def _forbid_taken() -> Any:
    return _opt(True, "the card just taken from the discard pile may not be discarded "
                      "in the same turn (docs/rules.md 1)")


def _stock_rebuild() -> Any:
    return _opt("shuffle", "how an empty stock is rebuilt from the discard pile: shuffled, "
                           "or turned over so the oldest discard is drawn first (docs/rules.md 1)")


@dataclass(frozen=True, slots=True)
class BasicOptions:
    """House rules of Basic Rummy (docs/rules.md 2)."""

    layoff_requires_own_meld: bool = _opt(
        False, "a player may lay off only after melding at least once himself (a meld made "
               "earlier in the same turn counts)")
    one_meld_per_turn: bool = _opt(
        False, "at most one new meld per turn; layoffs are not limited")
    must_discard_to_go_out: bool = _opt(
        False, "the last card must be discarded; melding or laying off the last card is illegal")
    rummy_bonus: RummyBonus = _opt(
        "double", "bonus for going out in one turn with nothing melded before (going rummy): "
                  "none, double the hand's points, or 10 more")
    ace_mode: BasicAceMode = _opt(
        "low", "aces in runs: low only (A 2 3), high or low (Q K A too), or round the corner "
               "(K A 2 too)")
    ace_high_points: int = _opt(
        15, "value of an ace left in a hand when ace_mode is not low", low=1, high=50)
    stock_exhaustion_limit: int = _opt(
        0, "0 = rebuild the stock without limit; N = the hand ends when the stock runs out "
           "for the Nth time and the lowest count scores the differences", low=0, high=10)
    scoring_mode: ScoringMode = _opt(
        "winner_collects", "winner_collects: the player who goes out scores everyone's cards, "
                           "highest total wins; low_score_wins: each player adds his own "
                           "cards, lowest total wins")
    target_score: int = _opt(
        150, "the game ends when a total reaches this score (0 = no target)",
        low=0, high=MAX_POINTS)
    max_hands: int = _opt(
        0, "the game ends after this many hands (0 = unlimited)", low=0, high=1000)
    stock_rebuild: StockRebuild = _stock_rebuild()
    dealer_rotation: DealerRotation = _opt(
        "left", "who deals the next hand: the next player to the left, or the winner of the hand")
    forbid_discarding_taken_card: bool = _forbid_taken()


@dataclass(frozen=True, slots=True)
class GinOptions:
    """House rules of Gin Rummy (docs/rules.md 3)."""

    knock_limit: int = _opt(
        10, "highest deadwood that may knock (0 = only gin ends a hand)", low=0, high=10)
    gin_bonus: int = _opt(25, "bonus for going gin", low=0, high=MAX_POINTS)
    undercut_bonus: int = _opt(
        25, "bonus to the defender who undercuts the knocker", low=0, high=MAX_POINTS)
    undercut_on_tie: bool = _opt(
        True, "a defender whose deadwood equals the knocker's undercuts (false: nobody scores)")
    big_gin_bonus: int = _opt(
        0, "bonus for big gin, all 11 cards melded without a discard (0 = big gin not allowed)",
        low=0, high=MAX_POINTS)
    target_score: int = _opt(
        100, "the first player whose total reaches this score wins", low=1, high=MAX_POINTS)
    game_bonus: int = _opt(0, "bonus to the winner of the game", low=0, high=MAX_POINTS)
    box_bonus: int = _opt(
        0, "bonus per hand won, added at the end of the game (never counts toward the target)",
        low=0, high=MAX_POINTS)
    shutout_bonus: int = _opt(
        0, "extra bonus to the winner when the loser scored nothing", low=0, high=MAX_POINTS)
    layoff_on_gin: bool = _opt(
        False, "the defender may lay off against gin (non-standard)")
    dead_hand_stock_size: int = _opt(
        2, "the hand is dead when a plain discard leaves this many stock cards or fewer",
        low=0, high=20)
    next_dealer: NextDealer = _opt(
        "loser", "who deals after a scored hand: the loser, the winner, or the players in turn")
    forbid_discarding_taken_card: bool = _forbid_taken()


@dataclass(frozen=True, slots=True)
class ChicagoOptions:
    """House rules of Chicago Rummy (docs/rules.md 4)."""

    knock_base_limit: int = _opt(
        9, "highest unmelded count that may knock, before the score limit", low=0, high=100)
    elimination_score: int = _opt(
        100, "a player whose total passes this score is eliminated", low=1, high=MAX_POINTS)
    eliminate_at_equal: bool = _opt(
        False, "a total equal to elimination_score eliminates too")
    knock_penalty: int = _opt(
        15, "penalty for a knocker who does not have the lowest count", low=0, high=MAX_POINTS)
    knock_penalty_on_tie: bool = _opt(
        True, "a knocker tied for the lowest count pays the penalty")
    rummy_timing: RummyTiming = _opt(
        "both", "when rummy may be declared: at the start of the turn (7 cards), after the "
                "discard (7 kept), or both")
    seven_twos_wins: bool = _opt(
        True, "declaring rummy with seven 2s wins the game at once")
    stock_rebuild: StockRebuild = _stock_rebuild()
    forbid_discarding_taken_card: bool = _forbid_taken()


@dataclass(frozen=True, slots=True)
class ThirteenOptions:
    """House rules of Three Thirteen (docs/rules.md 5)."""

    ace_mode: ThirteenAceMode = _opt(
        "low", "aces in runs: low only, or high or low (Q K A, never K A 2)")
    ace_high_points: int = _opt(
        15, "value of an ace left unmelded when ace_mode is high_or_low", low=1, high=50)
    face_points: FacePoints = _opt(
        "ten", "value of J Q K: 10 each, or 11 12 13")
    jokers_per_deck: int = _opt(
        0, "jokers added to each deck, wild in every round", values=(0, 2))
    joker_points: int = _opt(20, "value of a joker left unmelded", low=0, high=100)
    decks: Decks = _opt(
        "auto", "decks shuffled together: auto = one deck per two players, or 1 to 8",
        low=1, high=8)
    all_wild_sets: bool = _opt(
        True, "a meld of only wild cards is valid (false: only if valid at natural values)")
    deuces_arent_wild: bool = _opt(
        False, "Deuces Aren't Wild: 2-3 players, one deck with two jokers, a 12th round of "
               "14 cards with aces wild, and 14-card bonus rounds while the lowest total ties")
    stock_rebuild: StockRebuild = _stock_rebuild()
    forbid_discarding_taken_card: bool = _forbid_taken()


GameOptions = BasicOptions | GinOptions | ChicagoOptions | ThirteenOptions

OPTION_CLASSES: dict[str, type[GameOptions]] = {
    "basic": BasicOptions,
    "gin": GinOptions,
    "chicago": ChicagoOptions,
    "three_thirteen": ThirteenOptions,
}


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option as ``rummyhall rules`` and the protocol describe it."""

    name: str
    type: str  # "bool", "int", "enum" or "int_or_auto"
    default: bool | int | str
    meaning: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    values: tuple[int, ...] | None = None

    def allowed(self) -> str:
        """The allowed values, in words."""
        if self.type == "bool":
            return "true or false"
        if self.type == "enum":
            return ", ".join(self.choices)
        if self.values is not None:
            return " or ".join(map(str, self.values))
        ints = f"an integer from {self.low} to {self.high}"
        return f"'auto' or {ints}" if self.type == "int_or_auto" else ints


@functools.cache
def option_specs(game: str) -> tuple[OptionSpec, ...]:
    """Every option of ``game`` with its type, default, meaning and allowed values."""
    cls = _option_class(game)
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        meta = f.metadata
        if hint is bool:
            kind, choices = "bool", ()
        elif hint is int:
            kind, choices = "int", ()
        elif typing.get_origin(hint) is Literal:
            kind, choices = "enum", tuple(typing.get_args(hint))
        else:
            kind, choices = "int_or_auto", ()
        specs.append(OptionSpec(f.name, kind, f.default, meta["meaning"], choices,  # type: ignore[arg-type]
                                meta["low"], meta["high"], meta["values"]))
    return tuple(specs)


def _option_class(game: str) -> type[GameOptions]:
    try:
        return OPTION_CLASSES[game]
    except KeyError:
        raise OptionError(f"unknown game {game!r}; games: {', '.join(OPTION_CLASSES)}") from None


def parse_options(game: str, raw: Mapping[str, object] | None = None) -> GameOptions:
    """Validate a mapping of option names to values and fill in the defaults.

    Raises :class:`OptionError` naming the option and its allowed values for an unknown
    option, a value of the wrong type or a value out of range.
    """
    cls = _option_class(game)
    specs = {s.name: s for s in option_specs(game)}
    values: dict[str, object] = {}
    for name, value in (raw or {}).items():
        spec = specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise OptionError(f"unknown option {name!r} for {game}; options: {', '.join(specs)}")
        values[name] = _check(game, spec, value)
    options = cls(**values)  # type: ignore[arg-type]
    _check_combination(game, options)
    return options


def _check(game: str, spec: OptionSpec, value: object) -> object:
    where = f"option {spec.name!r} of {game}"
    if spec.type == "bool":
        if not isinstance(value, bool):
            raise OptionError(f"{where}: {value!r} is not a boolean; allowed: true or false")
        return value
    if spec.type == "enum":
        if value not in spec.choices:
            raise OptionError(f"{where}: {value!r} is not allowed; allowed: {spec.allowed()}")
        return value
    if spec.type == "int_or_auto" and value == "auto":
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise OptionError(f"{where}: {value!r} is not an integer; allowed: {spec.allowed()}")
    if spec.values is not None and value not in spec.values:
        raise OptionError(f"{where}: {value} is not allowed; allowed: {spec.allowed()}")
    if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
        raise OptionError(f"{where}: {value} is out of range; allowed: {spec.allowed()}")
    return value


def _check_combination(game: str, options: GameOptions) -> None:
    if isinstance(options, BasicOptions) and options.target_score == 0 and options.max_hands == 0:
        raise OptionError("options 'target_score' and 'max_hands' of basic: at least one must be "
                          "non-zero, or the game never ends")


def options_to_dict(options: GameOptions) -> dict[str, bool | int | str]:
    """The options as a plain mapping (for records and the wire)."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
