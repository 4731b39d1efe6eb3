"""Play whole games in one process between strategies, without a network.

The shuffles come from the ``rng`` given (or from a ``shuffle`` function), so a game is
reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rummyhall.rules import (
    MOST_GAME_MOVES,
    Action,
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    GoOut,
    HandScored,
    IllegalAction,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    Phase,
    Shuffle,
    seat_view,
)

from .base import Strategy

_SEAT_ACTIONS = (DrawStock, DrawDiscard, PassUpcard, Discard, Meld, LayOff, Knock, GoOut,
                 DeclareRummy)


def shuffle_for(game: Game, rng: random.Random) -> Shuffle:
    """A random order of the cards the game waits to have shuffled."""
    cards = list(game.shuffle_cards())
    rng.shuffle(cards)
    return Shuffle(tuple(cards))


class GameTooLong(RuntimeError):
    """A game went past the move cap given to :func:`play_game` (a bug or a pathological table)."""


class StrategyError(RuntimeError):
    """A strategy raised, or returned something that is not a legal action.

    ``seat`` is the seat it played; the original exception, if any, is the cause.
    """

    def __init__(self, seat: int, message: str) -> None:
        super().__init__(f"seat {seat}: {message}")
        self.seat = seat


@dataclass
class GameRecord:
    """What happened in one game: every action, and its results.

    ``hand_seats[i]`` lists the seats dealt into the hand of ``results[i]`` (Chicago
    leaves eliminated seats out).
    """

    game: str
    players: int
    actions: list[Action] = field(default_factory=list)
    results: list[HandScored] = field(default_factory=list)
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    deals: int = 0
    turns: int = 0
    hand_seats: list[tuple[int, ...]] = field(default_factory=list)


def play_game(game: Game, strategies: Sequence[Strategy], rng: random.Random, *,
              max_moves: int = MOST_GAME_MOVES, max_hands: int | None = None,
              shuffle: Callable[[Game], Shuffle] | None = None) -> GameRecord:
    """Play ``game`` to its end (or ``max_hands`` deals) with one strategy per seat.

    Chance comes from ``shuffle(game)`` when given, else from ``rng``. Raises
    :class:`GameTooLong` past ``max_moves`` actions and :class:`StrategyError` when a
    strategy raises or answers with an illegal action.
    """
    record = GameRecord(game.name, game.players)
    dealt: tuple[int, ...] = ()
    for _ in range(max_moves):
        if game.is_over:
            break
        seat = game.to_move
        if seat is None:
            if max_hands is not None and game.phase is Phase.DEAL and game.hand_no >= max_hands:
                break
            if game.phase is Phase.DEAL:
                dealt = tuple(s for s in range(game.players) if game.active[s])
            action: Action = shuffle(game) if shuffle is not None else shuffle_for(game, rng)
        else:
            action = _ask(game, strategies[seat], seat)
            if isinstance(action, (DrawStock, DrawDiscard)):
                record.turns += 1
        scored = len(game.results)
        try:
            game.apply(action)
        except IllegalAction as exc:
            if seat is None:
                raise
            raise StrategyError(seat, f"illegal action {action}: {exc}") from exc
        record.actions.append(action)
        if len(game.results) > scored:
            record.hand_seats.append(dealt)
    else:
        raise GameTooLong(f"{game.name}: no end after {max_moves} moves")
    record.results = list(game.results)
    record.winners = game.winners
    record.scores = tuple(game.scores)
    record.deals = game.hand_no
    return record


def _ask(game: Game, strategy: Strategy, seat: int) -> Action:
    """The strategy's answer, checked to be an action of this seat."""
    view = seat_view(game, seat) if strategy.needs_view else None
    try:
        action = strategy.choose(view, game.legal_actions())
    except Exception as exc:
        raise StrategyError(seat, f"{type(exc).__name__} in choose(): {exc}") from exc
    if not isinstance(action, _SEAT_ACTIONS):
        raise StrategyError(seat, f"choose() returned {action!r}, not an action")
    if action.seat != seat:
        raise StrategyError(seat, f"choose() returned an action of seat {action.seat}")
    return action
