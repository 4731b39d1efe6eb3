"""Whole-game speed of the rules engine, in one process (prints figures, asserts nothing).

    python bench/bench_games.py [--seconds 3]

- "hands/s, uniform random": deal to the end of one hand with uniformly random legal
  actions; this is what OpenSpiel calls a game of gin_rummy (one deal, scored).
- "games/s": whole games to the game's end, with random or simple players.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from rummyhall.bots import RandomBot, SimpleBot, Strategy
from rummyhall.bots.selfplay import play_game, shuffle_for
from rummyhall.rules import GAMES, Game, Phase, new_game

PLAYERS = {"basic": 2, "gin": 2, "chicago": 4, "three_thirteen": 3}


def one_hand(game: Game, rng: random.Random) -> int:
    """Play one deal to its end with uniformly random legal actions; return the moves."""
    moves = 0
    game.apply(shuffle_for(game, rng))
    while game.phase is not Phase.DEAL and not game.is_over:
        if game.to_move is None:
            game.apply(shuffle_for(game, rng))
        else:
            game.apply(rng.choice(game.legal_actions()))
        moves += 1
    return moves


def rate(label: str, seconds: float, work: Callable[[], int]) -> None:
    count, moves = 0, 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        moves += work()
        count += 1
    print(f"  {label:<44} {count / elapsed:>9.1f}/s   ({moves / elapsed:,.0f} actions/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    rng = random.Random(7)
    print("one hand, uniform random legal actions")
    for name in GAMES:
        def hand(name: str = name) -> int:
            return one_hand(new_game(name, players=PLAYERS[name]), rng)
        rate(f"{name} ({PLAYERS[name]} players) hands", args.seconds, hand)
    print("whole games")
    for name in GAMES:
        for label, factory in (("random", lambda: RandomBot(random.Random(rng.random()))),
                               ("simple", SimpleBot)):
            def game(name: str = name, factory: Callable[[], Strategy] = factory) -> int:
                g = new_game(name, players=PLAYERS[name], first_dealer=0)
                record = play_game(g, [factory() for _ in range(g.players)], rng,
                                   max_moves=200_000)
                return len(record.actions)
            if name == "basic" and label == "random":
                continue  # random Basic Rummy rarely goes out: a game takes minutes
            rate(f"{name} ({PLAYERS[name]} players) {label} games", args.seconds, game)


if __name__ == "__main__":
    main()
