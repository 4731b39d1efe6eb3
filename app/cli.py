"""The ``rummyhall`` command and its subcommands."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import sys
import textwrap
import time
from collections.abc import Sequence

from rummyhall import __version__, compiled
from rummyhall import arena as arena_command
from rummyhall.bots import STRATEGIES, make_strategy
from rummyhall.bots.selfplay import play_game
from rummyhall.rules import GAMES, OptionError, RulesError, new_game, option_specs

from . import admin, backup, export, hallkey, history, ratings, replay  # the data file's commands
from .botcmd import add_arguments as add_bot_arguments
from .botcmd import cmd_bot
from .compilecmd import add_arguments as add_compile_arguments
from .compilecmd import cmd_compile
from .failures import find_error
from .play import add_arguments as add_play_arguments
from .play import cmd_play
from .serve import add_setting_flags, cmd_serve


def _parse_value(text: str) -> object:
    """An option value from the command line: true/false, an integer, or a word."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text


def parse_option_args(pairs: Sequence[str]) -> dict[str, object]:
    """``["knock_limit=7", "layoff_on_gin=true"]`` -> a mapping of typed values."""
    options: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise OptionError(f"expected NAME=VALUE, got {pair!r}")
        options[name.strip()] = _parse_value(value.strip())
    return options


def cmd_rules(args: argparse.Namespace) -> int:
    """List the games and every option with its type, default and meaning."""
    games = [args.game] if args.game else list(GAMES)
    if args.json:
        out = {g: {"title": GAMES[g].title, "players": [GAMES[g].min_players,
                                                      GAMES[g].max_players],
                   "options": [{"name": s.name, "type": s.type, "default": s.default,
                                "allowed": s.allowed(), "meaning": s.meaning}
                               for s in option_specs(g)]}
               for g in games}
        print(json.dumps(out, indent=2))
        return 0
    for g in games:
        cls = GAMES[g]
        seats = (f"{cls.min_players}" if cls.min_players == cls.max_players
                 else f"{cls.min_players} to {cls.max_players}")
        print(f"{g}: {cls.title}, {seats} players")
        for spec in option_specs(g):
            default = json.dumps(spec.default)
            print(f"  {spec.name} ({spec.type}, default {default}; {spec.allowed()})")
            for line in textwrap.wrap(spec.meaning, 76):
                print(f"      {line}")
        print()
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    """Play N games between simple or random players and print a summary."""
    options = parse_option_args(args.option)
    players = args.players or GAMES[args.game].min_players
    rng = random.Random(args.seed)
    strategies = [make_strategy(name, random.Random(rng.random()))
                  for name in (args.player * players)[:players]]
    deals, turns, hands_scored = 0, 0, 0
    totals: list[int] = []
    wins = [0.0] * players
    # what is played, first (flushed): the games may take a while
    print(f"{args.games} games of {args.game}, {players} players "
          f"({', '.join(s.name for s in strategies)}), options {options or 'default'}",
          flush=True)
    started = time.perf_counter()
    for _ in range(args.games):
        game = new_game(args.game, options, players=players, first_dealer=rng.randrange(players))
        record = play_game(game, strategies, rng)
        deals += record.deals
        turns += record.turns
        hands_scored += len(record.results)
        totals.extend(record.scores)
        for w in record.winners:
            wins[w] += 1 / len(record.winners)
    elapsed = time.perf_counter() - started
    print(f"  deals: {deals} ({hands_scored} scored), {deals / args.games:.1f} per game")
    print(f"  turns: {turns / max(deals, 1):.1f} per deal on average")
    if totals:
        q = statistics.quantiles(totals, n=4) if len(totals) > 1 else [totals[0]] * 3
        print(f"  final scores: min {min(totals)}, quartiles {q[0]:.0f} / {q[1]:.0f} / "
              f"{q[2]:.0f}, max {max(totals)}, mean {statistics.fmean(totals):.1f}")
    print("  wins by seat: " + ", ".join(f"{s}: {w:g}" for s, w in enumerate(wins)))
    print(f"  {args.games / elapsed:.1f} games/s ({elapsed:.2f} s)")
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    """Play many games between strategies with duplicate deals; print a table per strategy."""
    return arena_command.run(args, parse_option_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummyhall", description="Rummy Hall: a LAN server "
                                     "for Basic Rummy, Gin, Chicago and Three Thirteen.")
    parser.add_argument("--version", action="version",
                        version=f"rummyhall {__version__}; rules engine: "
                                f"{compiled.status().describe()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser(
        "serve", help="run the server",
        description="Run the Rummy Hall server. Every setting can also come from a TOML file "
                    "(--config, or RUMMYHALL_CONFIG) and from environment variables "
                    "RUMMYHALL_<SETTING> (e.g. RUMMYHALL_PORT=7654); flags win over the "
                    "environment, which wins over the file.")
    serve.add_argument("--config", help="a TOML file of settings")
    add_setting_flags(serve)
    serve.set_defaults(func=cmd_serve)

    rules = sub.add_parser("rules", help="list the games and every table option",
                           description="List the games, their player counts and every "
                                       "table option with its type, default, allowed "
                                       "values and meaning (docs/rules.md tells the rules).")
    rules.add_argument("game", nargs="?", choices=list(GAMES),
                       help="only this game (default: all four)")
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.set_defaults(func=cmd_rules)

    selfplay = sub.add_parser("selfplay", help="play games between built-in players",
                              description="Play N games in this process between built-in "
                                          "strategies (no server) and print deals, turns, "
                                          "final scores, wins by seat and the speed.")
    selfplay.add_argument("--game", choices=list(GAMES), default="gin",
                          help="the game played (default gin)")
    selfplay.add_argument("--games", type=arena_command.positive_int, default=100,
                          help="number of games (100)")
    selfplay.add_argument("--players", type=int, help="seats (the game's minimum)")
    selfplay.add_argument("--player", action="append", choices=list(STRATEGIES),
                          help="strategy per seat, repeated in turn (simple)")
    selfplay.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                          help="a table option (see `rummyhall rules`)")
    selfplay.add_argument("--seed", type=int, help="seed for reproducible games")
    selfplay.set_defaults(func=cmd_selfplay, player=None)

    arena = sub.add_parser(
        "arena", help="measure strategies against each other "
        "(duplicate deals, rotated seats, confidence intervals)",
        description="Play many games between strategies in one process: every deal is "
                    "played once per seating, so each strategy plays each seat with the "
                    "same cards; print games, wins and points per hand with 95% confidence "
                    "intervals per strategy. The method and the columns are in docs/bots.md.")
    arena_command.add_arguments(arena)
    arena.set_defaults(func=cmd_arena)

    bot = sub.add_parser("bot", help="run a bot against a server",
                         description="Connect to a server and play games with a built-in "
                                     "strategy or your own bot class: create a table (the "
                                     "other seats get house bots) or join one.")
    add_bot_arguments(bot)
    bot.set_defaults(func=lambda args: cmd_bot(args, parse_option_args(args.option)))

    play = sub.add_parser("play", help="play at a server (the console client)",
                          description="Find a Rummy Hall server (on the LAN, or --server), "
                                      "check that it answers, pick a name and play in the "
                                      "full-screen console; ? shows its keys. Your name and "
                                      "seat token are remembered per server.")
    add_play_arguments(play)
    play.set_defaults(func=cmd_play)

    build = sub.add_parser(
        "compile", help="build the optional compiled rules modules (mypyc)",
        description="Compile the rules engine's hot modules with mypyc (needs mypy: pip "
                    "install 'rummyhall[compiled]', and a C compiler). Later runs load them "
                    "while the installed sources and the Python match the build; otherwise, "
                    "or with RUMMYHALL_COMPILED=off, the pure Python modules load. "
                    "`rummyhall --version` says which.")
    add_compile_arguments(build)
    build.set_defaults(func=cmd_compile)

    hallkey.add_parser(sub)
    for data_command in (history, replay, export, ratings, backup, admin):
        data_command.add_parser(sub)
    return parser


#: The exit status of a command ended by Ctrl-C (SIGINT), as a shell reports it (128 + 2).
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # (a closed pipe shows here, not at exit)
    except BrokenPipeError:  # the reader went away (`rummyhall rules | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BaseException as exc:
        # Ctrl-C: one line and the shell's status, not a traceback (trio and asyncio may
        # hand the KeyboardInterrupt over inside exception groups)
        if find_error(exc, KeyboardInterrupt) is None:
            raise
        return interrupted(argv)


def interrupted(argv: Sequence[str] | None) -> int:
    """Say that the command was interrupted (one line on stderr); the exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a second Ctrl-C while we say so)
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), "")
    fresh_line = "\n" if sys.stderr.isatty() else ""  # (after the terminal's ^C)
    print(f"{fresh_line}rummyhall{' ' + command if command else ''}: interrupted",
          file=sys.stderr)
    return INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "player", "unset") is None:
        args.player = ["simple"]
    try:
        code: int = args.func(args)
    except RulesError as exc:
        print(f"rummyhall: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    raise SystemExit(main())
