"""The ``rummyhall`` command and its subcommands."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import textwrap
import time
from collections.abc import Sequence

from rummyhall import __version__
from rummyhall.bots import STRATEGIES, make_strategy
from rummyhall.bots.selfplay import play_game
from rummyhall.rules import GAMES, OptionError, RulesError, new_game, option_specs


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
        print(f"{g}: {cls.title}, {cls.min_players} to {cls.max_players} players")
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
    print(f"{args.games} games of {args.game}, {players} players "
          f"({', '.join(s.name for s in strategies)}), options {options or 'default'}")
    print(f"  deals: {deals} ({hands_scored} scored), {deals / args.games:.1f} per game")
    print(f"  turns: {turns / max(deals, 1):.1f} per deal on average")
    if totals:
        q = statistics.quantiles(totals, n=4) if len(totals) > 1 else [totals[0]] * 3
        print(f"  final scores: min {min(totals)}, quartiles {q[0]:.0f} / {q[1]:.0f} / "
              f"{q[2]:.0f}, max {max(totals)}, mean {statistics.fmean(totals):.1f}")
    print("  wins by seat: " + ", ".join(f"{s}: {w:g}" for s, w in enumerate(wins)))
    print(f"  {args.games / elapsed:.1f} games/s ({elapsed:.2f} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummyhall", description="Rummy Hall: a LAN server "
                                     "for Basic Rummy, Gin, Chicago and Three Thirteen.")
    parser.add_argument("--version", action="version", version=f"rummyhall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rules = sub.add_parser("rules", help="list the games and every table option")
    rules.add_argument("game", nargs="?", choices=list(GAMES))
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.set_defaults(func=cmd_rules)

    selfplay = sub.add_parser("selfplay", help="play games between built-in players")
    selfplay.add_argument("--game", choices=list(GAMES), default="gin")
    selfplay.add_argument("--games", type=int, default=100, help="number of games (100)")
    selfplay.add_argument("--players", type=int, help="seats (the game's minimum)")
    selfplay.add_argument("--player", action="append", choices=list(STRATEGIES),
                          help="strategy per seat, repeated in turn (simple)")
    selfplay.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                          help="a table option (see `rummyhall rules`)")
    selfplay.add_argument("--seed", type=int, help="seed for reproducible games")
    selfplay.set_defaults(func=cmd_selfplay, player=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
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
