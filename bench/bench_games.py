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

With the optional compiled build in use (``rummyhall compile``; README.md, "The compiled
build"), the hand lines have both paths: this process plays on the compiled modules, a
child process started with ``RUMMYHALL_COMPILED=off`` plays hands of its own (same seed,
  its own draws) on the pure
ones, taking turns in the same rounds (bench/paths.py), and each game's line gives the
compiled path's speed over the pure one's; the whole games use this process's path.
The first line printed says which path is in use.

``--baseline TREE`` (another source tree of the project, a checkout of main say) adds a
line per game for that tree: its own copy of this file runs as a child process on the
pure path (``RUMMYHALL_COMPILED=off``, the tree first on ``PYTHONPATH``, laid out as its
``pyproject.toml`` installs it), taking turns with this process in the same rounds, and
each line of this tree gives its actions per second over the baseline's.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import paths

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


def hand_works(rng: random.Random) -> dict[str, Callable[[], int]]:
    """The hand lines' work, by line: one hand of each game, and Three Thirteen's game."""
    works: dict[str, Callable[[], int]] = {}
    for name in GAMES:
        def hand(name: str = name) -> int:
            return one_hand(new_game(name, players=PLAYERS[name]), rng)
        works[name] = hand
    # One hand of Three Thirteen is its first round (3 cards): its eleven rounds (3 to 13
    # cards, a new wild rank each) are the game a table plays.
    works[WHOLE_3_13] = lambda: one_game(new_game("three_thirteen", players=3), rng)
    return works


SPIEL = "OpenSpiel gin_rummy"
PURE = ", pure"  # the pure path's lines, when this process runs the compiled one
BASE = ", baseline"  # the baseline tree's lines (--baseline)


def start_baseline(tree: str, tmp: str, argv: Sequence[str]) -> paths.ChildRounds:
    """The baseline tree's copy of this bench, on the pure path, timing its rounds when
    asked."""
    script = Path(tree).resolve() / "bench" / "bench_games.py"
    env = {**os.environ, "PYTHONPATH": paths.tree_links(tree, tmp), "RUMMYHALL_COMPILED": "off"}
    return paths.ChildRounds(str(script), argv, env, "baseline")


def hands(seconds: float, rounds: int, rng: random.Random,
          pure: paths.ChildRounds | None, base: paths.ChildRounds | None = None) -> None:
    works = hand_works(rng)
    ours = list(works)
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        print("(OpenSpiel is not importable: its column is left out; see this file's "
              "docstring)")
    else:
        works[SPIEL] = spiel_hand(pyspiel.load_game("gin_rummy").new_initial_state(), rng)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in works}
    if pure is not None:
        figures.update({name + PURE: [] for name in ours})
    if base is not None:
        figures.update({name + BASE: [] for name in ours})
    for _ in range(rounds):
        for name, work in works.items():
            figures[name].append(run_round(work, seconds / rounds))
            if pure is not None and name in ours:
                rate, moves = pure.run(name, seconds / rounds)
                figures[name + PURE].append((rate, moves))
            if base is not None and name in ours:
                rate, moves = base.run(name, seconds / rounds)
                figures[name + BASE].append((rate, moves))
    print(f"one hand, uniform random legal actions (this process: the {paths.label()} path)")
    for name, runs in figures.items():
        print(hand_line(name, runs, figures))


def ratio(ours: list[tuple[float, float]], theirs: list[tuple[float, float]], i: int) -> str:
    """The rounds' ratios of figure ``i`` (0: hands/s, 1: actions/s), as :func:`spread`."""
    return spread([a[i] / b[i] for a, b in zip(ours, theirs, strict=True)])


def hand_line(name: str, runs: list[tuple[float, float]],
              figures: dict[str, list[tuple[float, float]]]) -> str:
    """One line of the hand table: the medians, beside Gin (of the same path) or
    OpenSpiel, and the compiled path beside the pure one."""
    game = name.removesuffix(PURE).removesuffix(BASE)
    path = name[len(game):]
    rate = statistics.median(r for r, _ in runs)
    if game == WHOLE_3_13:
        rate *= 11  # rounds per game: hands/s like the other lines
    moves = statistics.median(m for _, m in runs)
    label = (f"{game} ({PLAYERS[game]} players)" if game in PLAYERS else game) + path
    line = f"  {label:<37} {rate:>9.1f} hands/s {moves:>10,.0f} actions/s"
    if name == SPIEL:
        line += f"   Gin hands {ratio(figures['gin'], runs, 0)}"
        if "gin" + PURE in figures:
            line += f", pure {ratio(figures['gin' + PURE], runs, 0)}"
    elif game != "gin":
        line += f"   actions vs Gin {ratio(runs, figures['gin' + path], 1)}"
    if name + PURE in figures:
        line += f"   compiled/pure {ratio(runs, figures[name + PURE], 0)}"
    if name + BASE in figures:
        line += f"   actions vs baseline {ratio(runs, figures[name + BASE], 1)}"
    return line


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
    parser.add_argument("--baseline", default=None, metavar="TREE",
                        help="another source tree of the project: its hand lines beside "
                             "this tree's, in the same rounds (pure path)")
    parser.add_argument(paths.SERVE_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rng = random.Random(7)
    if args.serve_pure_path:  # the pure path's child: its stdout is the parent's pipe
        works = hand_works(rng)

        def served(work: Callable[[], int]) -> Callable[[float], tuple[float, float]]:
            return lambda seconds: run_round(work, seconds)

        paths.serve({name: served(work) for name, work in works.items()})
        return
    print(paths.note())
    pure = paths.start(__file__, sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        base = None
        if args.baseline:
            argv = ["--seconds", str(args.seconds), "--rounds", str(args.rounds)]
            base = start_baseline(args.baseline, tmp, argv)
            print(f"(baseline: {args.baseline}, pure path, in a child process)")
        hands(args.seconds, max(1, args.rounds), rng, pure, base)
        if base is not None:
            base.close()
    if pure is not None:
        pure.close()
    if not args.hands_only:
        games(args.seconds, rng)


if __name__ == "__main__":
    main()
