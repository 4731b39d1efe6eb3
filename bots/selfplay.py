"""Play whole games in one process between strategies, without a network.

The shuffles come from the ``rng`` given, so a game is reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from rummyhall.rules import (
    Action,
    DrawDiscard,
    DrawStock,
    Game,
    HandScored,
    Phase,
    Shuffle,
    seat_view,
)

from .base import Strategy


def shuffle_for(game: Game, rng: random.Random) -> Shuffle:
    """A random order of the cards the game waits to have shuffled."""
    cards = list(game.shuffle_cards())
    rng.shuffle(cards)
    return Shuffle(tuple(cards))


class GameTooLong(RuntimeError):
    """A game went past the move cap given to :func:`play_game` (a bug or a pathological table)."""


@dataclass
class GameRecord:
    """What happened in one game: every action, and its results."""

    game: str
    players: int
    actions: list[Action] = field(default_factory=list)
    results: list[HandScored] = field(default_factory=list)
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    deals: int = 0
    turns: int = 0


def play_game(game: Game, strategies: Sequence[Strategy], rng: random.Random, *,
              max_moves: int = 1_000_000, max_hands: int | None = None) -> GameRecord:
    """Play ``game`` to its end (or ``max_hands`` deals) with one strategy per seat.

    Raises :class:`GameTooLong` past ``max_moves`` actions.
    """
    record = GameRecord(game.name, game.players)
    for _ in range(max_moves):
        if game.is_over:
            break
        seat = game.to_move
        if seat is None:
            if max_hands is not None and game.phase is Phase.DEAL and game.hand_no >= max_hands:
                break
            action: Action = shuffle_for(game, rng)
        else:
            strategy = strategies[seat]
            view = seat_view(game, seat) if strategy.needs_view else None
            action = strategy.choose(view, game.legal_actions())
            if isinstance(action, (DrawStock, DrawDiscard)):
                record.turns += 1
        game.apply(action)
        record.actions.append(action)
    else:
        raise GameTooLong(f"{game.name}: no end after {max_moves} moves")
    record.results = list(game.results)
    record.winners = game.winners
    record.scores = tuple(game.scores)
    record.deals = game.hand_no
    return record
