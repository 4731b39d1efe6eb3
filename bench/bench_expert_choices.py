"""Where the expert departs from the strong bot (two seats), and what each departure is worth.

    python bench/bench_expert_choices.py [--game gin|chicago|basic|three_thirteen]
                                         [--sets 40] [--rollouts 8]
                                         [--think-ms 20]
                                         [--expert-worlds N] [--off draw,discard,knock]
                                         [--knock-stock N] [--chicago-playouts draw,knock]
                                         [--basic-playouts draw,discard]
                                         [--thirteen-playouts draw,discard]
                                         [--param NAME=VALUE ...]
                                         [--jobs 2] [--seed 1] [--every N]

An arena game's win rate moves only where the expert's choice differs from the strong
bot's, and it moves slowly: a few hundred games say little. This bench looks at those
choices one by one. It plays the arena's paired deals (expert against strong, seats
swapped; see :mod:`rummyhall.bots.arena`); at every decision of the expert it also asks
a copy of the strong bot inside it (the same memory) what it would do, and where the
two differ it values both choices on the *true* cards: ``--rollouts`` copies of the game,
each with the stock reshuffled (the one thing neither seat knows), play the rest of the
hand with the strong bot at both seats after each choice, on the same shuffles. The
expert's gain is the mean difference of its seat's points minus the opponent's over the
hand (what the hand's result gives them; in Chicago and Three Thirteen, whose points
are a cost, the opponent's minus its own; in Basic Rummy the winner's points, plus or
minus; a hand of Three Thirteen is its round), the strong
bot's choice being the baseline (a
gain of 0 by construction). The figures are grouped by what the strong bot would have
done and what the expert did (draw, discard, knock), with the mean gain per departure
and its 95% interval over departures, and the gain per game (the sum over departures
divided by the games), the measure that adds up to a win rate.

``--off`` switches parts of the expert's search off, to see what each gives: ``draw``
(the draw's playouts), ``discard`` (the sampled feed of the discard), ``knock`` (the
knock's sampled undercut check). The games are those of the arena for the same seed
(the first ``--sets`` deal sets). The knock is among the expert's playouts by default
(``playouts=("draw", "knock")``), judged so while the stock holds at least
``knock_playout_stock`` cards (25); ``--knock-stock N`` sets that to N (0: always). In
Chicago the expert plays out what ``chicago_playouts`` names (nothing by default);
``--chicago-playouts draw,knock`` sets it; ``--basic-playouts`` and ``--thirteen-playouts``
set Basic Rummy's and Three Thirteen's (``draw,discard``, or fewer), and ``--off draw``
switches every playout off. ``--param NAME=VALUE`` (again for more) sets any other of
the expert's settings (:class:`~rummyhall.bots.ExpertParams`), after every other flag:
``--param playout_margin=0.25``, ``--param basic_playouts=draw``.
The departures are also counted by the stock at the decision (fewer than 10 cards, 10
to 19, 20 or more; all of them, then by what the strong bot would have done; those
about a knock by five stock cards). The expert's clock
(``--think-ms`` of CPU time, or ``--expert-worlds`` per decision and no clock) decides
as in the arena. It prints its figures at the end; ``--every N`` prints them so far every
``N`` games too (a long run stopped early still says what it found).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from rummyhall.bots import ExpertBot, ExpertParams, StrongBot
from rummyhall.bots.arena import duplicate_shuffler, stream
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    DrawDiscard,
    DrawStock,
    Game,
    Knock,
    PassUpcard,
    SeatAction,
    SeatView,
    new_game,
    seat_view,
)

PARTS = ("draw", "discard", "knock")


def kind(action: SeatAction) -> str:
    """The decision an action answers: draw, knock or discard."""
    if isinstance(action, (DrawDiscard, DrawStock, PassUpcard)):
        return "draw"
    return "knock" if isinstance(action, Knock) else "discard"


def expert_params(think_ms: float, worlds: int | None, off: frozenset[str],
                  knock_stock: int | None = None) -> ExpertParams:
    """The expert's settings with the parts in ``off`` switched off (and the knock played
    out from ``knock_stock`` stock cards up, if given)."""
    base = (ExpertParams(budget_ms=None, max_worlds=worlds) if worlds is not None
            else ExpertParams(budget_ms=think_ms, clock="cpu"))
    if knock_stock is not None:
        playouts = base.playouts if "knock" in base.playouts else (*base.playouts, "knock")
        base = dataclasses.replace(base, playouts=playouts, knock_playout_stock=knock_stock)
    if "draw" in off:
        base = dataclasses.replace(base, playouts=(), chicago_playouts=(), basic_playouts=(),
                                   thirteen_playouts=())
    if "discard" in off:  # every strong ranking is "clear": no search
        base = dataclasses.replace(base, clear_cost=-math.inf)
    if "knock" in off:  # no sampled risk refuses the strong bot's knock
        base = dataclasses.replace(base, knock_risk=math.inf)
    return base


def with_settings(params: ExpertParams, settings: list[str]) -> ExpertParams:
    """``params`` with each ``name=value`` of ``settings`` set, by the field's declared
    type: a whole number, a number, ``true`` or ``false``, names joined by commas (a
    tuple), a word; ``none`` where the field may be None. Raises ValueError naming the
    setting for a field the expert does not have or a value of the wrong kind."""
    kinds = {f.name: str(f.type) for f in dataclasses.fields(ExpertParams)}
    changes: dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        kind = kinds.get(name)
        if not sep or kind is None:
            raise ValueError(f"{setting!r}: not name=value for one of {', '.join(sorted(kinds))}")
        changes[name] = _setting_value(name, kind, text)
    return dataclasses.replace(params, **changes)  # (__post_init__ checks the tuples)


def _setting_value(name: str, kind: str, text: str) -> Any:
    """The value ``text`` gives a field of declared type ``kind`` (see :func:`with_settings`)."""
    if text == "none" and kind.endswith("| None"):
        return None
    base = kind.removesuffix(" | None")
    if base == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"{name} takes true or false, not {text!r}")
        return text == "true"
    if base.startswith("tuple"):
        return tuple(p for p in text.split(",") if p)
    try:
        if base == "int":
            return int(text)
        if base == "float":
            return float(text)
    except ValueError:
        raise ValueError(f"{name} takes {'a whole number' if base == 'int' else 'a number'}"
                         f"{' or none' if kind != base else ''}, not {text!r}") from None
    return text


GAME_TITLES = {"gin": "Gin", "chicago": "Chicago", "basic": "Basic Rummy",
               "three_thirteen": "Three Thirteen"}
#: The games whose points are a cost (the lower the better).
COST_GAMES = ("chicago", "three_thirteen")


def hand_value(game: Game, seat: int, action: SeatAction, bots: list[StrongBot],
               rng: random.Random) -> int:
    """What the rest of the hand after ``action`` gains ``seat`` against the other (its
    points minus the other's; in Chicago and Three Thirteen, where points are a cost, the
    other's minus its own; a hand of Three Thirteen is a round), the stock reshuffled by
    ``rng`` and the strong bot (copies of ``bots``) at both seats."""
    g = copy.deepcopy(game)
    rng.shuffle(g.stock)
    players = [copy.deepcopy(b) for b in bots]
    scored = len(g.results)
    g.apply(action)
    while len(g.results) == scored and not g.is_over:
        s = g.to_move
        if s is None:
            g.apply(shuffle_for(g, rng))
            continue
        g.apply(players[s].choose(seat_view(g, s), g.legal_actions()))
    if len(g.results) == scored:
        return 0
    points = g.results[-1].points
    gain = points[seat] - points[1 - seat]
    return -gain if g.name in COST_GAMES else gain


@dataclass
class Departure:
    strong: str  # what the strong bot would have done: draw, discard or knock
    expert: str  # what the expert did
    stock: int  # stock cards at the decision
    gain: float  # the expert's mean gain in points over the rollouts


@dataclass
class GameResult:
    won: bool
    departures: list[Departure] = field(default_factory=list)
    decisions: int = 0


@dataclass(frozen=True)
class Task:
    game: str
    params: ExpertParams
    seed: int
    deal_set: int
    rotation: int
    rollouts: int


def play(task: Task) -> GameResult:
    """One arena game, expert at seat ``rotation``, its departures valued."""
    dealer = stream(task.seed, task.deal_set, "dealer").randrange(2)
    game = new_game(task.game, {}, players=2, first_dealer=dealer)
    me = task.rotation
    expert = ExpertBot(task.params, stream(task.seed, task.deal_set, task.rotation, "seat", me))
    other = StrongBot()
    shuffle = duplicate_shuffler(task.seed, task.deal_set)
    result = GameResult(False)
    while not game.is_over:
        s = game.to_move
        if s is None:
            game.apply(shuffle(game))
            continue
        view, legal = seat_view(game, s), game.legal_actions()
        if s != me:
            game.apply(other.choose(view, legal))
            continue
        before = copy.deepcopy(expert.strong)
        strong = copy.deepcopy(before).choose(view, legal)
        action = expert.choose(view, legal)
        result.decisions += 1
        if action != strong and task.rollouts:
            gains = departure_gains(game, view, (strong, action), before=before, other=other,
                                    task=task, n=len(result.departures))
            result.departures.append(Departure(kind(strong), kind(action), view.stock_count,
                                               statistics.mean(gains)))
        game.apply(action)
    result.won = me in game.winners
    return result


def departure_gains(game: Game, view: SeatView, pair: tuple[SeatAction, SeatAction], *,
                    before: StrongBot, other: StrongBot, task: Task, n: int) -> list[float]:
    """The expert's choice minus the strong one, rollout by rollout (common shuffles)."""
    me = task.rotation
    values: list[list[int]] = []
    for action in pair:
        mine = copy.deepcopy(before)
        mine.tracker.observe(view)
        mine.tracker.record(view, action)
        bots = [mine, other] if me == 0 else [other, mine]
        values.append([hand_value(game, me, action, bots,
                                  random.Random(f"{task.seed}:{task.deal_set}:{me}:{n}:{i}"))
                       for i in range(task.rollouts)])
    return [float(e - s) for s, e in zip(*values, strict=True)]


def row(label: str, gains: list[float], games: int) -> None:
    """One line of the table: departures, mean gain [95%], gain per game."""
    if not gains:
        return
    mean = statistics.mean(gains)
    half = 1.96 * statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
    print(f"  {label:<22} {len(gains):>10} {mean:>+9.2f} "
          f"[{mean - half:+6.2f}, {mean + half:+6.2f}] {sum(gains) / games:>+10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=tuple(GAME_TITLES), default="gin")
    parser.add_argument("--sets", type=int, default=40, help="deal sets (2 games each)")
    parser.add_argument("--rollouts", type=int, default=8, help="rollouts per choice")
    parser.add_argument("--think-ms", type=float, default=20.0, help="the expert's CPU budget")
    parser.add_argument("--expert-worlds", type=int, default=None,
                        help="fixed worlds per decision instead of a budget")
    parser.add_argument("--off", default="", help=f"parts switched off: {','.join(PARTS)}")
    parser.add_argument("--knock-stock", type=int, default=None,
                        help="play the knock out from this many stock cards up")
    parser.add_argument("--chicago-playouts", default=None,
                        help="Chicago's decisions played out (draw,knock; default: the "
                             "expert's own)")
    parser.add_argument("--basic-playouts", default=None,
                        help="Basic Rummy's decisions played out (draw,discard; default: the "
                             "expert's own)")
    parser.add_argument("--thirteen-playouts", default=None,
                        help="Three Thirteen's decisions played out (draw,discard; default: "
                             "the expert's own)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="set one of the expert's settings (ExpertParams), again for more")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=0,
                        help="also print the figures so far every N games (0: at the end only)")
    args = parser.parse_args()
    off = frozenset(p for p in args.off.split(",") if p)
    if not off <= set(PARTS):
        parser.error(f"--off takes {', '.join(PARTS)}")
    params = expert_params(args.think_ms, args.expert_worlds, off, args.knock_stock)
    # (each game's --X-playouts flag is its setting, unless --off draw switched them off)
    playouts = {"chicago_playouts": args.chicago_playouts,
                "basic_playouts": args.basic_playouts,
                "thirteen_playouts": args.thirteen_playouts}
    flags = [f"{name}={value}" for name, value in playouts.items()
             if value is not None and "draw" not in off]
    try:
        params = with_settings(params, flags + args.param)
    except ValueError as exc:
        parser.error(str(exc))
    tasks = [Task(args.game, params, args.seed, d, r, args.rollouts)
             for d in range(args.sets) for r in range(2)]
    start = time.perf_counter()
    results: list[GameResult] = []
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for result in pool.imap(play, tasks, chunksize=1):
            results.append(result)
            if args.every and len(results) % args.every == 0 and len(results) < len(tasks):
                print(f"(so far, {len(results)} games)")
                report(results, args, params, off, start)
                sys.stdout.flush()  # (to a file, too, as it comes)
    report(results, args, params, off, start)


def searched(game: str, params: ExpertParams) -> str:
    """What the expert plays out in ``game``, in a few words."""
    plays = {"chicago": params.chicago_playouts, "basic": params.basic_playouts,
             "three_thirteen": params.thirteen_playouts}
    if game in plays:
        return f"playouts: {','.join(plays[game]) or 'none'}"
    if "knock" in params.playouts:
        return f"knock played out from {params.knock_playout_stock} stock cards"
    return "no knock playouts"


def report(results: list[GameResult], args: argparse.Namespace, params: ExpertParams,
           off: frozenset[str], start: float) -> None:
    """Print the figures of the games played so far."""
    games = len(results)
    budget = (f"{args.expert_worlds} worlds" if args.expert_worlds is not None
              else f"{args.think_ms:g} ms CPU")
    wins = sum(r.won for r in results)
    decisions = sum(r.decisions for r in results)
    knocks = searched(args.game, params)
    if args.param:
        knocks += f"; {', '.join(args.param)}"
    print(f"two-seat {GAME_TITLES[args.game]}, expert ({budget}; off: "
          f"{','.join(sorted(off)) or 'none'}; {knocks}) vs strong, "
          f"seed {args.seed}: {games} games, expert won {wins} ({wins / games:.1%}); "
          f"{decisions} expert decisions, {args.rollouts} rollouts per choice")
    groups: dict[tuple[str, str], list[float]] = {}
    for r in results:
        for d in r.departures:
            groups.setdefault((d.strong, d.expert), []).append(d.gain)
    print(f"  {'strong -> expert':<22} {'departures':>10} {'gain/departure [95%]':>26}"
          f" {'gain/game':>10}   (baseline: the strong choice, 0)")
    every = [g for gains in groups.values() for g in gains]
    for (strong, expert), gains in [*sorted(groups.items()), (("all", "all"), every)]:
        row(f"{strong} -> {expert}", gains, games)
    bands: dict[tuple[str, str], list[float]] = {}
    for r in results:
        for d in r.departures:
            band = "stock < 10" if d.stock < 10 else "stock 10-19" if d.stock < 20 else "stock 20+"
            bands.setdefault(("", band), []).append(d.gain)
            bands.setdefault((d.strong, band), []).append(d.gain)
    for group in ("", *sorted({s for s, _ in groups})):
        for band in ("stock 20+", "stock 10-19", "stock < 10"):
            row(f"{group}{', ' if group else ''}{band}", bands.get((group, band), []), games)
    by_stock: dict[int, list[float]] = {}  # a knock where the other plays on, by 5 stock cards
    for r in results:
        for d in r.departures:
            if "knock" in (d.strong, d.expert):
                by_stock.setdefault(d.stock // 5 * 5, []).append(d.gain)
    for low in sorted(by_stock, reverse=True):
        row(f"knock, stock {low}-{low + 4}", by_stock[low], games)
    print(f"  {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
