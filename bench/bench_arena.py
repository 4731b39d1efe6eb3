"""The arena's strength table: every level against the one below it, in every game.

    python bench/bench_arena.py [--games gin,basic,...] [--seats 2,max] [--jobs 2]
                                [--strong-games 2000] [--expert-games 1000]
                                [--think-ms 20] [--clock cpu|wall] [--expert-worlds N]
                                [--seed 1]

For each game, at 2 seats and at the game's largest seat count (Gin has only 2):

- **strong vs simple**: one strong bot, the other seats simple;
- **expert vs strong**: one expert bot (``--think-ms`` per decision), the others strong.

Each line gives the leading bot's win rate with two 95% intervals (Wilson's over games,
and the paired one over deal sets, which the paired deals tighten: see docs/bots.md),
its fair share (1/seats) and the goal, then every bot's decision time (median, p99 and
max in milliseconds of wall time; and the median and p99 of the CPU time the thread
spent in the decision, which a loaded machine does not inflate), the expert's worlds (the
share of its decisions that searched, and the worlds each searched: its strength grows
with them, and a budget of CPU time buys fewer on a slower machine), games per second
and the wall time. Games are spread over
``--jobs`` processes; the schedule and every game's chance are fixed by ``--seed`` (see
:mod:`rummyhall.bots.arena`), so the same seed gives the same games, whatever the number
of processes, for every bot that does not read the clock. The expert's budget
(``--think-ms``) counts ``--clock``: ``cpu`` (the default), the deciding thread's CPU
time, so that the figures measure the same search however loaded the machine is (a
wall-time cap of five times the budget still holds), or ``wall``, as a server's house
bot counts it. Either way a clock decides where the search stops, so two runs may differ
by a world here and there; ``--expert-worlds N`` gives it a fixed number of worlds per
decision instead (no clock: reproducible, whatever the processes).

Each result is printed as soon as it is measured (``--every N``: also the figures so
far every ``N`` games, whole deal sets in schedule order, so that a long run stopped
early still says something); ``--strong-games`` and ``--expert-games`` set the sizes
(the goals are judged at 2,000 and 1,000).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rummyhall.bots import ExpertBot, ExpertParams, SimpleBot, Strategy, StrongBot
from rummyhall.bots.arena import (
    ArenaConfig,
    Entrant,
    GameOutcome,
    paired_interval,
    play_one,
    schedule,
    summarize,
)
from rummyhall.rules import GAMES, SeatAction, SeatView

MAX_SEATS = {name: cls.max_players for name, cls in GAMES.items()}
# The goals: the win rate at 2 seats (the lower bound of the interval, for the expert),
# and the multiple of the fair share at more seats.
GOALS = {("strong", "simple"): (0.70, 2.0), ("expert", "strong"): (0.50, 1.0)}
EXPERT_GIN_GOAL = 0.55

# Decision times of the bots built in this process (a worker sends them back per game):
# wall time, and the deciding thread's CPU time (what the bot itself spent: on a loaded
# machine the wall time also counts the waits for a core).
_TIMES: dict[str, list[float]] = {}
_CPU: dict[str, list[float]] = {}
# The worlds the expert searched at each decision (its strength grows with them).
_WORLDS: dict[str, list[int]] = {}


class Timed:
    """A strategy that records how long each of its decisions takes."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.needs_view = inner.needs_view

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        start, cpu = time.perf_counter(), time.thread_time()
        action = self.inner.choose(view, legal)
        _TIMES.setdefault(self.name, []).append(time.perf_counter() - start)
        _CPU.setdefault(self.name, []).append(time.thread_time() - cpu)
        worlds = getattr(self.inner, "last_worlds", None)
        if worlds is not None:
            _WORLDS.setdefault(self.name, []).append(worlds)
        return action


@dataclass(frozen=True)
class Factory:
    """A picklable bot factory (the worker processes build the bots)."""

    name: str
    think_ms: float = 20.0
    worlds: int | None = None
    clock: str = "cpu"

    def __call__(self, rng: random.Random) -> Strategy:
        if self.name == "simple":
            return Timed(SimpleBot())
        if self.name == "strong":
            return Timed(StrongBot())
        if self.worlds is not None:
            params = ExpertParams(budget_ms=None, max_worlds=self.worlds)
        else:
            params = ExpertParams(budget_ms=self.think_ms, clock=self.clock)
        return Timed(ExpertBot(params, rng))


# per bot: wall and CPU seconds, and the worlds searched (the expert's)
Times = dict[str, tuple[list[float], list[float], list[int]]]


def _play(task: tuple[ArenaConfig, int, int]) -> tuple[GameOutcome, Times]:
    config, deal_set, rotation = task
    _TIMES.clear()
    _CPU.clear()
    _WORLDS.clear()
    outcome = play_one(config, deal_set, rotation)
    return outcome, {k: (list(v), list(_CPU.get(k, ())), list(_WORLDS.get(k, ())))
                     for k, v in _TIMES.items()}


def lineup(game: str, seats: int, top: Factory, rest: Factory, *, games: int,
           seed: int) -> ArenaConfig:
    """One ``top`` bot against ``seats - 1`` of ``rest``, every seat in turn (paired deals)."""
    entrants = (Entrant(top.name, top),
                *(Entrant(f"{rest.name}#{i}", rest) for i in range(1, seats)))
    return ArenaConfig(game, entrants, games=games, seed=seed, players=seats)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def _collect(results: Sequence[tuple[GameOutcome, Times]]) -> tuple[list[GameOutcome], Times]:
    times: Times = {}
    for _, got in results:
        for name, (wall, cpu, worlds) in got.items():
            acc = times.setdefault(name, ([], [], []))
            acc[0].extend(wall)
            acc[1].extend(cpu)
            acc[2].extend(worlds)
    return [o for o, _ in results], times


def measure(config: ArenaConfig, jobs: int, every: int = 0,
            partial: Callable[[list[GameOutcome], Times, float], None] | None = None,
            ) -> tuple[list[GameOutcome], Times, float]:
    """Play the schedule over ``jobs`` processes; every ``every`` games (whole deal sets,
    in schedule order) ``partial`` hears the figures so far."""
    tasks = [(config, d, r) for d, r in schedule(config)]
    start = time.perf_counter()
    results: list[tuple[GameOutcome, Times]] = []

    def heard(result: tuple[GameOutcome, Times]) -> None:
        results.append(result)
        n = len(results)
        if partial is not None and every and n % every == 0 and n % config.seats == 0 \
                and n < len(tasks):
            partial(*_collect(results), time.perf_counter() - start)

    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for result in pool.imap(_play, tasks, chunksize=1):
                heard(result)
    else:
        for task in tasks:
            heard(_play(task))
    outcomes, times = _collect(results)
    return outcomes, times, time.perf_counter() - start


def report(config: ArenaConfig, outcomes: list[GameOutcome], times: Times,
           elapsed: float, goal: tuple[float, float | None]) -> str:
    top = summarize(config, outcomes)[0]
    _, low, high = paired_interval(config, outcomes, 0)
    seats = config.seats
    fair = 1 / seats
    target = goal[0] if seats == 2 else (goal[1] or 1.0) * fair
    if config.game == "gin" and top.label == "expert":
        target = EXPERT_GIN_GOAL
    errors = sum(1 for o in outcomes if o.error is not None)
    lines = [f"    {top.label} wins {top.win_rate:6.1%}  Wilson [{top.win_low:.1%}, "
             f"{top.win_high:.1%}]  paired [{low:.1%}, {high:.1%}]  of {top.games} games"
             f"  (fair share {fair:.1%}, goal {target:.1%}; points/hand "
             f"{top.points_per_hand:.2f}){f'  {errors} errors' if errors else ''}"]
    for name in sorted(times):
        values, cpu, worlds = times[name]
        if values:
            median = statistics.median(values) * 1e3
            lines.append(f"      {name:<7} decision ms: median {median:6.2f}"
                         f"  p99 {percentile(values, 0.99) * 1e3:6.2f}  max "
                         f"{max(values) * 1e3:7.2f}  (CPU: median "
                         f"{statistics.median(cpu) * 1e3:6.2f}  p99 "
                         f"{percentile(cpu, 0.99) * 1e3:6.2f})  ({len(values)} decisions)")
        searched = [w for w in worlds if w]
        if searched:
            lines.append(f"      {name:<7} worlds: {len(searched) / len(worlds):.0%} of the "
                         f"decisions searched, median {statistics.median(searched):.0f}, p90 "
                         f"{percentile(searched, 0.9):.0f} worlds each")
    lines.append(f"      {len(outcomes) / elapsed:.2f} games/s, {elapsed:.0f} s")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES), help="games to measure")
    parser.add_argument("--seats", default="2,max", help="seat counts: numbers or 'max'")
    parser.add_argument("--strong-games", type=int, default=2000, help="strong vs simple")
    parser.add_argument("--expert-games", type=int, default=1000, help="expert vs strong")
    parser.add_argument("--think-ms", type=float, default=20.0, help="the expert's budget")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="what the expert's budget counts (cpu: the thread's CPU time)")
    parser.add_argument("--expert-worlds", type=int, default=None,
                        help="fixed worlds per expert decision instead of a time budget")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=0, metavar="N",
                        help="also print the figures so far every N games (0: at the end)")
    args = parser.parse_args()
    simple, strong = Factory("simple"), Factory("strong")
    expert = Factory("expert", args.think_ms, args.expert_worlds, args.clock)
    budget = (f"{args.expert_worlds} worlds" if args.expert_worlds is not None
              else f"{args.think_ms:g} ms of {args.clock} time")
    for game in args.games.split(","):
        counts = sorted({MAX_SEATS[game] if s == "max" else int(s)
                         for s in args.seats.split(",")})
        for seats in counts:
            for top, rest, n in ((strong, simple, args.strong_games),
                                 (expert, strong, args.expert_games)):
                if n <= 0:
                    continue
                label = f"{top.name} vs {rest.name}"
                if top is expert:
                    label += f" ({budget})"
                print(f"{game}, {seats} seats: {label}", flush=True)
                config = lineup(game, seats, top, rest, games=n, seed=args.seed)
                goal = GOALS[top.name, rest.name]

                def partial(outcomes: list[GameOutcome], times: Times, elapsed: float,
                            config: ArenaConfig = config,
                            goal: tuple[float, float | None] = goal) -> None:
                    print(f"  (so far, {len(outcomes)} games)\n"
                          + report(config, outcomes, times, elapsed, goal), flush=True)

                outcomes, times, elapsed = measure(config, args.jobs, args.every, partial)
                print(report(config, outcomes, times, elapsed, goal), flush=True)


if __name__ == "__main__":
    main()
