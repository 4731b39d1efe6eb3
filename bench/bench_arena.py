"""Arena speed: whole games per second between strategies (prints figures, asserts nothing).

    python bench/bench_arena.py [--seconds 3] [--games gin,chicago]

For each game (players as in bench_games.py: Basic 2, Gin 2, Chicago 4, Three Thirteen
3) and each pairing (strong vs strong, strong vs random, random vs random), the arena's
own loop (duplicate deals, seat rotation) plays whole games for about ``--seconds``
seconds. A game past ``--max-moves`` counts as capped: two random players rarely end a
Basic Rummy hand (nobody goes out) or a late Three Thirteen round.
"""

from __future__ import annotations

import argparse
import random
import time

from rummyhall.bots import Strategy, make_strategy
from rummyhall.bots.arena import ArenaConfig, Entrant, play_one, schedule

PLAYERS = {"basic": 2, "gin": 2, "chicago": 4, "three_thirteen": 3}
PAIRINGS = (("strong", "strong"), ("strong", "random"), ("random", "random"))


def entrant(name: str) -> Entrant:
    def factory(rng: random.Random) -> Strategy:
        return make_strategy(name, rng)

    return Entrant(name, factory)


def measure(game: str, names: tuple[str, str], seconds: float, max_moves: int) -> str:
    config = ArenaConfig(game, (entrant(names[0]), entrant(names[1])), games=10_000,
                         seed=1, players=PLAYERS[game], max_moves=max_moves)
    games = capped = moves = 0
    start = time.perf_counter()
    for deal_set, rotation in schedule(config):
        outcome = play_one(config, deal_set, rotation)
        games += 1
        capped += outcome.error is not None
        moves += outcome.moves
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    note = f", {capped} capped at {max_moves} moves" if capped else ""
    return (f"{games / elapsed:>8.1f} games/s  {games / elapsed * 60:>8.0f} games/min  "
            f"({games} games in {elapsed:.1f} s, {moves / max(games - capped, 1):.0f} "
            f"moves/game{note})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement (3)")
    parser.add_argument("--games", default=",".join(PLAYERS), help="games to measure")
    parser.add_argument("--max-moves", type=int, default=30_000, help="move cap per game")
    args = parser.parse_args()
    for game in args.games.split(","):
        print(f"{game} ({PLAYERS[game]} players)")
        for names in PAIRINGS:
            label = f"{names[0]} vs {names[1]}"
            print(f"  {label:<20} {measure(game, names, args.seconds, args.max_moves)}",
                  flush=True)


if __name__ == "__main__":
    main()
