"""``rummyhall arena``: the process side of the arena (loading bots, progress, table, files).

The games themselves are played by the pure core :mod:`rummyhall.bots.arena`.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import importlib.util
import json
import math
import multiprocessing
import random
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from rummyhall.bots import STRATEGIES, Strategy, make_strategy
from rummyhall.bots.arena import (
    ArenaConfig,
    Entrant,
    EntrantStats,
    GameOutcome,
    play_one,
    run_arena,
    schedule,
    summarize,
)
from rummyhall.rules import GAMES, MOST_GAME_MOVES, new_game

from .arena_net import parse_server, run_over_server
from .tlsflags import add_tls_arguments, trust_from_args

#: The columns of ``--csv`` (and of each entry of the JSON file's ``"strategies"``).
CSV_COLUMNS = ("strategy", "games", "wins", "win_rate", "win_rate_low", "win_rate_high",
               "hands", "points_per_hand", "points_low", "points_high", "errors")


class ArenaUsageError(ValueError):
    """A command line the arena cannot run (reported, exit status 2)."""


class BotLoadError(ArenaUsageError):
    """A ``--bot`` specification that does not name a usable strategy class."""


# ---------------------------------------------------------------------------- loading bots


def load_strategy_class(spec: str) -> type[Any]:
    """The class named by ``path/to/file.py:ClassName`` or ``package.module:ClassName``.

    The class must follow the Strategy protocol: built with no arguments, its instances
    have a ``name`` (str), ``needs_view`` (bool) and a ``choose(view, legal)`` method.
    Raises :class:`BotLoadError` saying what is wrong.
    """
    where, sep, class_name = spec.rpartition(":")
    if not sep or not where or not class_name:
        raise BotLoadError(f"bot {spec!r}: expected FILE.py:ClassName or package.module:ClassName")
    if where.endswith(".py"):
        module = _load_file(Path(where), spec)
    else:
        try:
            module = importlib.import_module(where)
        except Exception as exc:
            raise BotLoadError(f"bot {spec!r}: cannot import module {where!r}: "
                               f"{type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise BotLoadError(f"bot {spec!r}: {where} has no {class_name!r}")
    if not isinstance(cls, type):
        raise BotLoadError(f"bot {spec!r}: {class_name!r} is not a class")
    check_strategy(_instantiate(cls, spec), spec)
    return cls


def _load_file(path: Path, spec: str) -> Any:
    if not path.is_file():
        raise BotLoadError(f"bot {spec!r}: no such file {str(path)!r}")
    name = f"rummyhall_bot_{abs(hash(str(path.resolve())))}"
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise BotLoadError(f"bot {spec!r}: cannot load {str(path)!r} as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up here
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise BotLoadError(f"bot {spec!r}: {str(path)!r} failed to load: "
                           f"{type(exc).__name__}: {exc}") from exc
    return module


def _instantiate(cls: type[Any], spec: str) -> Any:
    try:
        return cls()
    except Exception as exc:
        raise BotLoadError(f"bot {spec!r}: {cls.__name__}() failed: "
                           f"{type(exc).__name__}: {exc} (a bot class is built with no "
                           "arguments)") from exc


def check_strategy(bot: object, spec: str) -> None:
    """Raise :class:`BotLoadError` unless ``bot`` follows the Strategy protocol."""
    problems = []
    if not isinstance(getattr(bot, "name", None), str):
        problems.append("a 'name' string")
    if not isinstance(getattr(bot, "needs_view", None), bool):
        problems.append("a 'needs_view' bool")
    if not callable(getattr(bot, "choose", None)):
        problems.append("a 'choose(view, legal)' method")
    if problems:
        raise BotLoadError(f"bot {spec!r} does not follow the Strategy protocol: it lacks "
                           + ", ".join(problems))


def entrant_for(spec: str, think_ms: float | None = None, *, clock: str = "cpu",
                worlds: int | None = None) -> Entrant:
    """A built-in strategy name, or a ``--bot`` specification, as an arena entrant.

    ``think_ms`` is the expert's budget per decision (None: its default), counted by
    ``clock`` (the arena's default: the deciding thread's CPU time); ``worlds`` bounds
    it by sampled worlds instead (reproducible: see :func:`rummyhall.bots.make_strategy`).
    """
    if ":" not in spec:
        if spec not in STRATEGIES:
            raise BotLoadError(f"unknown strategy {spec!r}; built-in strategies: "
                               f"{', '.join(STRATEGIES)} (or FILE.py:Class, module:Class)")

        def builtin(rng: random.Random, name: str = spec) -> Strategy:
            return make_strategy(name, rng, think_ms=think_ms, clock=clock, worlds=worlds)

        return Entrant(spec, builtin)
    cls = load_strategy_class(spec)

    def loaded(rng: random.Random) -> Strategy:
        bot: Strategy = cls()
        return bot

    label = getattr(_instantiate(cls, spec), "name", cls.__name__)
    return Entrant(str(label), loaded)


def unique_labels(entrants: Sequence[Entrant]) -> tuple[Entrant, ...]:
    """The entrants, with ``#1``, ``#2``... added to labels that appear more than once."""
    totals: dict[str, int] = {}
    for e in entrants:
        totals[e.label] = totals.get(e.label, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for e in entrants:
        if totals[e.label] == 1:
            out.append(e)
            continue
        seen[e.label] = seen.get(e.label, 0) + 1
        out.append(dataclasses.replace(e, label=f"{e.label}#{seen[e.label]}"))
    return tuple(out)


# ---------------------------------------------------------------------------- output


class Progress:
    """A one-line progress bar on a terminal (updated at most ten times a second)."""

    def __init__(self, total: int, stream: IO[str], *, enabled: bool) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self.errors = 0
        self.started = time.perf_counter()
        self.shown = 0.0

    def update(self, outcome: GameOutcome) -> None:
        self.done += 1
        self.errors += outcome.error is not None
        now = time.perf_counter()
        if self.enabled and (now - self.shown >= 0.1 or self.done == self.total):
            self.shown = now
            self.stream.write("\r" + self.line(now - self.started))
            self.stream.flush()

    def line(self, elapsed: float) -> str:
        width = 30
        filled = width * self.done // max(self.total, 1)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else math.inf
        eta = f"{left:.0f}s" if math.isfinite(left) else "?"
        errors = f", {self.errors} errors" if self.errors else ""
        return (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} games, "
                f"{rate:.1f}/s, {eta} left{errors}  ")

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def format_table(stats: Sequence[EntrantStats]) -> str:
    """The per-strategy table printed at the end of a run."""
    header = ("strategy", "games", "wins", "win rate [95% CI]", "hands",
              "points/hand [95% CI]", "errors")
    rows = [(s.label, str(s.games), f"{s.wins:g}",
             f"{_pct(s.win_rate)} [{_pct(s.win_low)}, {_pct(s.win_high)}]", str(s.hands),
             f"{_num(s.points_per_hand)} [{_num(s.points_low)}, {_num(s.points_high)}]",
             str(s.errors)) for s in stats]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    lines = []
    for r in (header, *rows):
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:],
                                                                      strict=True)]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def stats_rows(stats: Sequence[EntrantStats]) -> list[dict[str, object]]:
    """One mapping per strategy, with the keys of :data:`CSV_COLUMNS` (NaN becomes None)."""
    rows = []
    for s in stats:
        values = (s.label, s.games, s.wins, s.win_rate, s.win_low, s.win_high, s.hands,
                  s.points_per_hand, s.points_low, s.points_high, s.errors)
        rows.append({k: (None if isinstance(v, float) and math.isnan(v) else v)
                     for k, v in zip(CSV_COLUMNS, values, strict=True)})
    return rows


def write_csv(path: Path, stats: Sequence[EntrantStats]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for row in stats_rows(stats):
            writer.writerow({k: "" if v is None else v for k, v in row.items()})


def write_json(path: Path, config: ArenaConfig, stats: Sequence[EntrantStats],
               outcomes: Sequence[GameOutcome], elapsed: float) -> None:
    labels = [e.label for e in config.entrants]
    data = {
        "game": config.game,
        "options": dict(config.options),
        "players": config.seats,
        "seed": config.seed,
        "games": len(outcomes),
        "deal_sets": config.deal_sets,
        "elapsed_seconds": round(elapsed, 3),
        "games_per_second": round(len(outcomes) / elapsed, 2) if elapsed > 0 else None,
        "strategies": stats_rows(stats),
        "results": [{
            "deal_set": o.deal_set, "rotation": o.rotation,
            "seats": [labels[e] for e in o.lineup], "first_dealer": o.first_dealer,
            "winners": list(o.winners), "scores": list(o.scores), "hands": o.hands,
            "points": [p for p, _ in o.hand_points], "moves": o.moves, "error": o.error,
        } for o in outcomes],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------- the command


def build_config(args: argparse.Namespace,
                 parse_options: Callable[[Sequence[str]], dict[str, object]]) -> ArenaConfig:
    """The arena configuration from the command line; raises BotLoadError, OptionError."""
    specs = [s.strip() for item in (args.bots or []) for s in item.split(",") if s.strip()]
    specs += list(args.bot or [])
    if not specs:
        specs = ["strong", "random"]
    if args.think_ms is not None and not args.think_ms > 0:
        raise ArenaUsageError(f"--think-ms must be a positive number, not {args.think_ms}")
    if args.think_worlds is not None and args.think_worlds < 1:
        raise ArenaUsageError(f"--think-worlds must be at least 1, not {args.think_worlds}")
    entrants = unique_labels([entrant_for(s, args.think_ms, clock=args.think_clock,
                                          worlds=args.think_worlds) for s in specs])
    options = parse_options(args.option)
    players = args.players or max(len(entrants), GAMES[args.game].min_players)
    if len(entrants) > players:
        raise ArenaUsageError(f"{len(entrants)} strategies for {players} seats: give each "
                              "strategy a seat (--players)")
    new_game(args.game, options, players=players)  # checks the options and the seats
    return ArenaConfig(args.game, entrants, args.games, args.seed, options, players,
                       args.max_moves)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=list(GAMES), default="gin",
                        help="the game played (default gin)")
    parser.add_argument("--games", type=positive_int, default=100,
                        help="number of games, rounded up to whole deal sets (100)")
    parser.add_argument("--bots", action="append", metavar="LIST",
                        help="comma-separated strategies, one per seat in the first "
                             f"rotation: built-in ({', '.join(STRATEGIES)}) or "
                             "FILE.py:Class / module:Class (default strong,random)")
    parser.add_argument("--bot", action="append", metavar="SPEC",
                        help="add a bot loaded from FILE.py:Class or package.module:Class")
    parser.add_argument("--players", type=positive_int,
                        help="seats (default: one per strategy, at least the game's minimum)")
    parser.add_argument("--jobs", "-j", type=positive_int, default=1,
                        help="worker processes playing the games (same results; 1)")
    parser.add_argument("--think-ms", type=float, metavar="MS",
                        help="the expert's thinking budget per decision (default 100)")
    parser.add_argument("--think-clock", choices=["cpu", "wall"], default="cpu",
                        help="what the expert's budget counts: the deciding thread's CPU "
                             "time, capped at 5x the budget of wall time (cpu, the default:"
                             " the figures do not depend on the machine's load), or wall time")
    parser.add_argument("--think-worlds", type=int, metavar="N",
                        help="bound each expert decision by N sampled worlds instead of a "
                             "clock (the same seed then gives the same games on any machine)")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                        help="a table option (see `rummyhall rules`)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every deal (0)")
    parser.add_argument("--max-moves", type=positive_int, default=MOST_GAME_MOVES,
                        help="move cap per game; a game past it is an error (default: "
                             "past the rules' own caps, which end every game)")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write the table as CSV")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="write the table and every game as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.add_argument("--server", type=parse_server, metavar="HOST:PORT",
                        help="play every game over this server, each seat a network bot "
                             "client (the server's shuffles: duplicate deals only when it "
                             "runs with --seed)")
    add_tls_arguments(parser)  # (for --server)


# The configuration the worker processes of run_parallel play (inherited by fork: the
# entrants' factories need not pickle).
_WORKER: dict[str, ArenaConfig] = {}


def _play_task(task: tuple[int, int]) -> GameOutcome:
    return play_one(_WORKER["config"], *task)


def run_parallel(config: ArenaConfig, jobs: int,
                 on_game: Callable[[GameOutcome], None] | None = None) -> list[GameOutcome]:
    """:func:`~rummyhall.bots.arena.run_arena` over ``jobs`` worker processes.

    Every game's chance comes from the seed and its place in the schedule, never from
    the process that plays it, so the outcomes are those of ``run_arena`` (for bots that
    do not read the clock), in the schedule's order.
    """
    if not config.entrants:
        raise ValueError("the arena needs at least one strategy")
    if config.games < 1:
        raise ValueError("the arena needs at least one game")
    _WORKER["config"] = config
    outcomes = []
    try:
        # (the workers leave Ctrl-C to this process, which stops them: no traceback each)
        with multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_sigint) as pool:
            for outcome in pool.imap(_play_task, schedule(config)):
                outcomes.append(outcome)
                if on_game is not None:
                    on_game(outcome)
    finally:
        _WORKER.clear()
    return outcomes


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run(args: argparse.Namespace,
        parse_options: Callable[[Sequence[str]], dict[str, object]]) -> int:
    """Run the arena for ``rummyhall arena``; returns the exit status."""
    try:
        config = build_config(args, parse_options)
    except ArenaUsageError as exc:
        print(f"rummyhall arena: {exc}", file=sys.stderr)
        return 2
    if args.server:  # one clear line for a server not there, not an error per game
        try:
            socket.create_connection(args.server, timeout=5).close()
        except OSError as exc:
            print(f"rummyhall arena: cannot reach {args.server[0]}:{args.server[1]}: {exc}",
                  file=sys.stderr)
            return 1
    total = config.deal_sets * config.seats
    progress = Progress(total, sys.stderr, enabled=not args.quiet and sys.stderr.isatty())
    outcomes: list[GameOutcome] = []

    def done(outcome: GameOutcome) -> None:
        outcomes.append(outcome)
        progress.update(outcome)

    options = ", ".join(f"{k}={v}" for k, v in config.options.items()) or "default options"
    started = time.perf_counter()
    seeded: set[bool] = set()  # over a server: were its shuffles seeded?
    interrupted = False
    try:
        # what is played, first (flushed): the games may take a while
        print(f"{config.game}, {config.seats} players, {options}: {total} games "
              f"({config.deal_sets} deal set{'' if config.deal_sets == 1 else 's'} x "
              f"{config.seats} seatings), "
              f"{_seed_words(config.seed, args.server is not None)}", flush=True)
        if args.server:
            host, port = args.server
            run_over_server(config, host, port, done, seeded, tls=trust_from_args(args))
        elif args.jobs > 1:
            run_parallel(config, args.jobs, done)
        else:
            run_arena(config, done)
    except KeyboardInterrupt:
        interrupted = True
        progress.close()
        print(f"rummyhall arena: interrupted; the figures cover the {len(outcomes)} games "
              "played", file=sys.stderr)
    else:
        progress.close()
    elapsed = time.perf_counter() - started
    total = len(outcomes)
    stats = summarize(config, outcomes)
    sets = len({o.deal_set for o in outcomes})
    shuffles = f"; {_shuffle_words(seeded)}" if args.server else ""
    print(f"{total} games played ({sets} deal set{'' if sets == 1 else 's'}) in "
          f"{elapsed:.1f} s, {total / elapsed if elapsed > 0 else 0:.1f} games/s{shuffles}")
    print(format_table(stats))
    if config.game in ("chicago", "three_thirteen"):
        print("points are penalties in this game: fewer is better")
    errors = [o for o in outcomes if o.error is not None]
    for o in errors[:10]:
        print(f"error in deal set {o.deal_set}, rotation {o.rotation}: {o.error}")
    if len(errors) > 10:
        print(f"... and {len(errors) - 10} more errors")
    if args.csv:
        write_csv(args.csv, stats)
    if args.json:
        write_json(args.json, config, stats, outcomes, elapsed)
    if interrupted:
        return 130  # (as a shell reports a Ctrl-C)
    return 1 if errors else 0


def _seed_words(seed: int, over_server: bool) -> str:
    """Where the deals come from: the arena's seed, or over a server its own shuffles
    (the arena's seed then gives the bots' own chance only)."""
    if not over_server:
        return f"seed {seed}"
    return f"deals shuffled by the server (seed {seed} for the bots' own chance only)"


def _shuffle_words(seeded: set[bool]) -> str:
    """What the server said of its shuffles (``TableInfo.seeded`` of each table)."""
    if seeded == {True}:
        return "the server's shuffles were seeded (it runs with --seed)"
    if seeded == {False}:
        return "the server's shuffles were random (not repeatable)"
    return "the server's shuffles were seeded at some tables only" if seeded else ""
