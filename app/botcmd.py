"""``rummyhall bot``: run a bot against a server (create or join a table, play N games)."""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable, Sequence

import trio

from rummyhall.bots import STRATEGIES, make_strategy
from rummyhall.client import Bot, ClientError, GameResult, Session, StrategyBot, run_bot
from rummyhall.client.wording import event_words
from rummyhall.protocol import DEFAULT_PORT
from rummyhall.rules import GAMES, Event, HandDealt, HandScored, SeatAction, SeatView

from .arena import ArenaUsageError, load_strategy_class, positive_int
from .arena_net import parse_server
from .failures import reported_error
from .tlsflags import add_tls_arguments, trust_from_args


class NarratedBot(Bot):
    """A bot that also tells what happens at its table: where it sits, each hand's
    result and each game's end (the words of the console's log)."""

    def __init__(self, bot: Bot, tell: Callable[[str], object]) -> None:
        self.bot, self.tell = bot, tell
        self.name, self.needs_view = bot.name, bot.needs_view
        self.session: Session | None = None
        self.told: dict[int, int] = {}  # table -> the last hand told

    def seated(self, session: Session, table: int, seat: int) -> None:
        self.session = session
        state = session.tables.get(table)
        info = state.info if state is not None else session.lobby.get(table)
        game = GAMES[info.game].title if info is not None else "a game"
        others = ", ".join(self._name(table, s.seat) for s in info.seats
                           if s.seat != seat) if info is not None else ""
        self.tell(f"connected to {session.server_name} as {session.name}; seat {seat} at "
                  f"table {table} ({game}" + (f", with {others})" if others else ")"))

    def _name(self, table: int, seat: int) -> str:
        state = self.session.tables.get(table) if self.session is not None else None
        info = state.info if state is not None else None
        if info is not None and 0 <= seat < len(info.seats):
            s = info.seats[seat]
            if s.name:
                return s.name
            if s.kind == "house":
                return f"{s.bot or 'house'} bot"
        return f"seat {seat}"

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        return self.bot.choose(view, legal)

    def on_event(self, table: int, event: Event, view: SeatView | None) -> None:
        self.bot.on_event(table, event, view)
        if isinstance(event, HandScored):
            self._hand(table, event)
        elif isinstance(event, HandDealt) and event.hand_no == 1:
            self.told[table] = 0  # a new game (events come in order: the last one's are in)

    def on_game_over(self, table: int, view: SeatView) -> None:
        for result in view.results:  # (the last hand's event may come after the game's end)
            self._hand(table, result)
        self.bot.on_game_over(table, view)

    def _hand(self, table: int, result: HandScored) -> None:
        if result.hand_no <= self.told.get(table, 0):
            return
        self.told[table] = result.hand_no

        def who(seat: int) -> str:
            return self._name(table, seat)

        totals = ", ".join(f"{who(s)} {t}" for s, t in enumerate(result.totals))
        self.tell(f"table {table}: {event_words(result, who)}; totals {totals}")


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
    parser.add_argument("--game", choices=list(GAMES), default="gin",
                        help="the game of a new table (default gin)")
    parser.add_argument("--players", type=int, help="seats of a new table (the game's least)")
    parser.add_argument("--house-bots", help="strategy of the house bots filling a new table")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                        help="a table option of a new table (see `rummyhall rules`)")
    parser.add_argument("--games", type=positive_int, default=1,
                        help="games to play (default 1)")
    parser.add_argument("--seed", type=int, help="seed of the bot's own chance, if any")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print nothing but errors (not the table, the hands, the games "
                             "and the summary)")
    add_tls_arguments(parser)


def cmd_bot(args: argparse.Namespace, options: dict[str, object]) -> int:
    try:
        bot = make_bot(args)
    except ArenaUsageError as exc:
        print(f"rummyhall bot: {exc}", file=sys.stderr)
        return 2
    host, port = args.server
    played = 0

    def tell(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    narrated = NarratedBot(bot, tell)

    def report(result: GameResult) -> None:  # each game as it ends: they take a while
        nonlocal played
        played += 1
        outcome = "won" if result.won else "lost"
        scores = ", ".join(f"{narrated._name(result.table, s)} {t}"
                           for s, t in enumerate(result.scores))
        tell(f"game {played} over at table {result.table}: seat {result.seat} {outcome}; "
             f"scores {scores}")

    try:
        results = trio.run(lambda: run_bot(
            narrated, host, port, name=args.name, table=args.table, seat=args.seat,
            game=args.game, players=args.players, options=options,  # type: ignore[arg-type]
            house_bots=args.house_bots, games=args.games, on_result=report,
            tls=trust_from_args(args), on_seated=narrated.seated,
            password=args.password if args.password is not None
            else os.environ.get("RUMMYHALL_PASSWORD") or None, code=args.code))
    except BaseException as exc:  # (a refusal comes inside the session's exception groups)
        refused = reported_error(exc, (ClientError, OSError))
        if refused is None:
            raise  # Ctrl-C, or a bug: in the bot (its traceback helps its author), or here
        print(f"rummyhall bot: {refused}", file=sys.stderr)
        return 1
    wins = sum(r.won for r in results)
    tell(f"{bot.name}: {wins} of {len(results)} games won")
    return 0
