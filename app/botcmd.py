"""``rummyhall bot``: run a bot against a server (create or join a table, play N games)."""

from __future__ import annotations

import argparse
import os
import random
import sys

import trio

from rummyhall.bots import STRATEGIES, make_strategy
from rummyhall.client import Bot, ClientError, GameResult, StrategyBot, run_bot
from rummyhall.protocol import DEFAULT_PORT
from rummyhall.rules import GAMES

from .arena import ArenaUsageError, load_strategy_class, positive_int
from .arena_net import parse_server
from .failures import find_error
from .tlsflags import add_tls_arguments, trust_from_args


def make_bot(args: argparse.Namespace) -> Bot:
    if args.bot:
        loaded = load_strategy_class(args.bot)()
        return loaded if isinstance(loaded, Bot) else StrategyBot(loaded)
    return StrategyBot(make_strategy(args.strategy, random.Random(args.seed)))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", type=parse_server, default=("127.0.0.1", DEFAULT_PORT),
                        metavar="HOST:PORT", help="the server (default 127.0.0.1:7654)")
    parser.add_argument("--name", help="the bot's player name (default: its strategy)")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--strategy", choices=STRATEGIES, default="simple",
                     help="a built-in strategy (default simple)")
    who.add_argument("--bot", metavar="FILE.py:Class|module:Class",
                     help="your own bot class (a rummyhall.client.Bot or a Strategy)")
    parser.add_argument("--table", type=int, help="join this table instead of creating one")
    parser.add_argument("--seat", type=int, help="the seat to take at --table")
    parser.add_argument("--password", default=None,
                        help="the hall's password, for a hall that has one (default: the "
                             "environment's RUMMYHALL_PASSWORD)")
    parser.add_argument("--code", default=None,
                        help="the password or invite code of a private --table")
    parser.add_argument("--game", choices=list(GAMES), default="gin")
    parser.add_argument("--players", type=int, help="seats of a new table (the game's least)")
    parser.add_argument("--house-bots", help="strategy of the house bots filling a new table")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                        help="a table option of a new table (see `rummyhall rules`)")
    parser.add_argument("--games", type=positive_int, default=1,
                        help="games to play (default 1)")
    parser.add_argument("--seed", type=int, help="seed of the bot's own chance, if any")
    add_tls_arguments(parser)


def cmd_bot(args: argparse.Namespace, options: dict[str, object]) -> int:
    try:
        bot = make_bot(args)
    except ArenaUsageError as exc:
        print(f"rummyhall bot: {exc}", file=sys.stderr)
        return 2
    host, port = args.server
    played = 0

    def report(result: GameResult) -> None:  # each game as it ends: they take a while
        nonlocal played
        played += 1
        outcome = "won" if result.won else "lost"
        print(f"game {played} at table {result.table}: seat {result.seat} {outcome}; "
              f"scores {list(result.scores)}", flush=True)

    try:
        results = trio.run(lambda: run_bot(
            bot, host, port, name=args.name, table=args.table, seat=args.seat,
            game=args.game, players=args.players, options=options,  # type: ignore[arg-type]
            house_bots=args.house_bots, games=args.games, on_result=report,
            tls=trust_from_args(args),
            password=args.password if args.password is not None
            else os.environ.get("RUMMYHALL_PASSWORD") or None, code=args.code))
    except BaseException as exc:  # (a refusal comes inside the session's exception groups)
        refused = find_error(exc, (ClientError, OSError))
        if refused is None:
            raise  # a bug, in the bot (its own traceback helps its author) or here
        print(f"rummyhall bot: {refused}", file=sys.stderr)
        return 1
    wins = sum(r.won for r in results)
    print(f"{bot.name}: {wins} of {len(results)} games won")
    return 0
