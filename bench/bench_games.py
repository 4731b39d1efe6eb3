"""Whole-game speed of the rules engine, in one process (prints figures, asserts nothing).

    .venv/bin/python bench/bench_games.py [--seconds 3] [--rounds 5]

- "one hand, uniform random legal actions": deal, then play to the end of one hand with
  uniformly random legal actions; this is what OpenSpiel calls a game of gin_rummy (one
  deal, scored). Each game's actions per second are set beside Gin's, and Gin's hands
  per second beside OpenSpiel's C++ ``gin_rummy`` when ``pyspiel`` is importable
  (OpenSpiel's loop: clone its initial state, then apply a random legal action or, at a
  chance node, a random outcome, until the end). OpenSpiel is not a dependency of
  Rummy Hall; to see its column, install it beside Rummy Hall in a separate
  environment: ``python3 -m venv .venv-peers && .venv-peers/bin/pip install -e .
  open_spiel`` and run this file with ``.venv-peers/bin/python``.
  One hand of Three Thirteen is only its first round (3 cards each), so a line plays
  its whole games too (eleven rounds of 3 to 13 cards; hands/s counts rounds).
- "games/s": whole games to the game's end, with random or simple players.

Rates count CPU time (``time.process_time``): the machine may be shared. The hand
loops take turns, ``--rounds`` rounds of ``seconds / rounds`` each; each figure is the
median of its rounds, each ratio the median of the rounds' ratios with the lowest and
highest in brackets. OpenSpiel counts its chance moves (each card dealt or drawn) as
actions, so only its hands per second are compared.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from rummyhall.bots import RandomBot, SimpleBot, Strategy
from rummyhall.bots.selfplay import play_game, shuffle_for
from rummyhall.rules import GAMES, Game, Phase, new_game

PLAYERS = {"basic": 2, "gin": 2, "chicago": 4, "three_thirteen": 3}
WHOLE_3_13 = "three_thirteen, all 11 rounds"


def one_hand(game: Game, rng: random.Random) -> int:
    """Play one deal to its end with uniformly random legal actions; return the moves."""
    deal, apply, legal, choice = Phase.DEAL, game.apply, game.legal_actions, rng.choice
    moves = 0
    apply(shuffle_for(game, rng))
    while game.phase is not deal and not game.is_over:
        if game.to_move is None:
            apply(shuffle_for(game, rng))
        else:
            apply(choice(legal()))
        moves += 1
    return moves


def one_game(game: Game, rng: random.Random) -> int:
    """Play a whole game with uniformly random legal actions; return the moves."""
    moves = 0
    while not game.is_over:
        moves += one_hand(game, rng)
    return moves


def spiel_hand(initial: Any, rng: random.Random) -> Callable[[], int]:
    """OpenSpiel's loop: one gin_rummy game (one deal) from a clone of its first state."""
    choice = rng.choice

    def hand() -> int:
        state = initial.clone()
        apply, legal = state.apply_action, state.legal_actions
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                apply(choice(state.chance_outcomes())[0])
            else:
                apply(choice(legal()))
            moves += 1
        return moves
    return hand


def run_round(work: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Repeat ``work`` for ``seconds`` of CPU time; return (runs/s, moves/s)."""
    count = moves = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        moves += work()
        count += 1
    return count / elapsed, moves / elapsed


def spread(ratios: list[float]) -> str:
    ratios = sorted(ratios)
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)"


def hands(seconds: float, rounds: int, rng: random.Random) -> None:
    works: dict[str, Callable[[], int]] = {}
    for name in GAMES:
        def hand(name: str = name) -> int:
            return one_hand(new_game(name, players=PLAYERS[name]), rng)
        works[name] = hand
    # One hand of Three Thirteen is its first round (3 cards): its eleven rounds (3 to 13
    # cards, a new wild rank each) are the game a table plays.
    works[WHOLE_3_13] = lambda: one_game(new_game("three_thirteen", players=3), rng)
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        print("(OpenSpiel is not importable: its column is left out; see this file's "
              "docstring)")
    else:
        works["OpenSpiel gin_rummy"] = spiel_hand(
            pyspiel.load_game("gin_rummy").new_initial_state(), rng)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in works}
    for _ in range(rounds):
        for name, work in works.items():
            figures[name].append(run_round(work, seconds / rounds))
    gin = figures["gin"]
    print("one hand, uniform random legal actions")
    for name, runs in figures.items():
        rate = statistics.median(r for r, _ in runs)
        moves = statistics.median(m for _, m in runs)
        label = f"{name} ({PLAYERS[name]} players)" if name in PLAYERS else name
        if name == WHOLE_3_13:
            rate *= 11  # rounds per game: hands/s like the other lines
        line = f"  {label:<30} {rate:>9.1f} hands/s {moves:>10,.0f} actions/s"
        pairs = list(zip(gin, runs, strict=True))
        if name == "OpenSpiel gin_rummy":
            line += f"   Gin hands {spread([g[0] / r[0] for g, r in pairs])}"
        elif name != "gin":
            line += f"   actions vs Gin {spread([r[1] / g[1] for g, r in pairs])}"
        print(line)


def games(seconds: float, rng: random.Random) -> None:
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
            count, moves = run_round(game, seconds)
            print(f"  {name} ({PLAYERS[name]} players) {label} games{'':<14}"
                  f" {count:>9.1f}/s   ({moves:,.0f} actions/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="CPU seconds per figure (all rounds together)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hands-only", action="store_true", help="skip the whole games")
    args = parser.parse_args()
    rng = random.Random(7)
    hands(args.seconds, max(1, args.rounds), rng)
    if not args.hands_only:
        games(args.seconds, rng)


if __name__ == "__main__":
    main()
