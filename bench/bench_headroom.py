"""What knowing hidden cards would be worth to the strong bot, one kind of decision at a time.

    python bench/bench_headroom.py [--games chicago,three_thirteen,basic] [--seats 2,max]
                                   [--games-per-line 600] [--jobs 2] [--seed 1]

The strong bot's goals against the simple one (docs/bots.md) are not met in Chicago and
Three Thirteen, nor at six seats of Basic Rummy (``--games basic``, not played by
default). This bench asks where the missing points are: it gives the strong bot,
for one kind of decision, what no seat may know, and measures what that buys. Each line
plays one seat of its bot against simple bots on the arena's paired deals (the same deal
sets, dealers and rotations for every line: :mod:`rummyhall.bots.arena`):

- **strong**: the strong bot as it ships, the baseline;
- **knock oracle** (Chicago): the strong bot, but when it may knock it reads every
  hand, and knocks exactly when no other seat's count would make it pay the penalty;
- **feed oracle**: the strong bot, but its discard reads the next seat's hand: of the
  strong bot's four best discards by its own ranking (within ``SLACK`` points of the
  best), it plays the first that does not let that seat take it and end the hand at
  once (the next seat plays the simple policy: it takes a card that lowers its count;
  Chicago: a count then within its knock limit, or rummy where rummy may follow a
  discard; Three Thirteen: nothing left unmelded, while nobody has gone out; Basic
  Rummy, where going out turns on the table's melds and layoffs: the next seat's turn
  played out by the simple bot on a copy of the game, fed when it goes out);
- **both** (Chicago): the two oracles together;
- **draw oracle**: the strong bot, but when it chooses between the top discard and the
  stock it knows the stock's top card, and takes whichever leaves the lower count after
  its best discard (the stock among equals; this greedy rule drops the race value the
  strong bot's draw weighs in Three Thirteen, so it can also lose points).

Each oracle is one heuristic on top of the strong bot, every other decision unchanged:
its gain is what that piece of hidden information buys this bot, not an upper bound on
what it is worth to any bot. Each line gives the win rate with the paired 95% interval
over deal sets (docs/bots.md, "Method") and the paired difference from the strong line's
games of the same deals (its interval padded as the arena pads its own, with two
imagined sets of differences -1 and +1: identical games would otherwise give an interval
of no width; the lines are not corrected for being compared with one baseline several
times). A game that fails (too long, or a bot's error) is left out of its line and
counted. The oracles read the game directly: they live in this file only, and nothing
in :mod:`rummyhall.bots` can (a bot decides from its seat's view alone).
"""

from __future__ import annotations

import argparse
import copy
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rummyhall.bots import SimpleBot, Strategy, StrongBot
from rummyhall.bots.arena import (
    ArenaConfig,
    Entrant,
    paired_interval,
    play_one,
    schedule,
)
from rummyhall.bots.arena import GameOutcome as Outcome
from rummyhall.bots.strong_bot import StrongTurn
from rummyhall.rules import (
    GAMES,
    Card,
    Discard,
    DrawDiscard,
    Game,
    SeatAction,
    SeatView,
    deadwood_points,
    discard_deadwoods,
    seat_view,
)

SLACK = 15.0  # the feed oracle's reach below the strong bot's best discard, in its cost
SHORTLIST = 4  # ... and the discards it looks at, the strong bot's best first
LINES = {"chicago": ("strong", "knock oracle", "feed oracle", "both", "draw oracle"),
         "three_thirteen": ("strong", "feed oracle", "draw oracle"),
         "basic": ("strong", "feed oracle", "draw oracle")}
TURN_ACTIONS = 30  # a Basic Rummy turn played out on a copy: its actions at most


@dataclass(frozen=True)
class Oracles:
    """Which decisions of the strong bot read the game (see the module docstring)."""

    knock: bool = False
    feed: bool = False
    draw: bool = False


class _OracleTurn(StrongTurn):
    """One decision of the strong bot with the oracles its line names."""

    seen: Game  # the game itself, which the oracles read
    oracles: Oracles

    def should_take(self) -> bool:
        game = self.seen
        if not self.oracles.draw or not game.stock:
            return super().should_take()
        hand, top = self.view.hand, self.view.discard_pile[-1]
        forbid = bool(getattr(game.options, "forbid_discarding_taken_card", True))
        taken = discard_deadwoods((*hand, top), self.rules)
        drawn = discard_deadwoods((*hand, game.stock[-1]), self.rules)
        return min(v for c, v in taken.items() if not (forbid and c == top)) < min(drawn.values())

    def chicago_knock(self, deadwood: int) -> bool:
        if not self.oracles.knock:
            return super().chicago_knock(deadwood)
        game, me = self.seen, self.view.seat
        on_tie = bool(getattr(game.options, "knock_penalty_on_tie", True))
        for s in range(game.players):
            if s != me and game.active[s]:
                theirs = deadwood_points(game.hands[s], self.rules)
                if theirs < deadwood or (theirs == deadwood and on_tie):
                    return False
        return True

    def discard(self) -> SeatAction:
        discards = {a.card: a for a in self.legal if isinstance(a, Discard)}
        nxt = self.next
        if not self.oracles.feed or not discards or nxt is None or nxt == self.view.out_seat:
            return super().discard()
        ranked = self.ranked_discards(list(discards))
        for cost, card in ranked[:SHORTLIST]:
            if cost <= ranked[0][0] + SLACK and not self.feeds(nxt, card):
                return discards[card]
        return discards[ranked[0][1]]

    def feeds(self, seat: int, card: Card) -> bool:
        """Whether the next seat, playing the simple policy, takes ``card`` and ends the
        hand with it at once."""
        game = self.seen
        if game.name == "basic":
            return self.feeds_by_play(seat, card)
        if game.name == "chicago":
            limit = game.knock_limits[seat]
            if not limit and getattr(game.options, "rummy_timing", "both") == "start_of_turn":
                return False  # (rummy only, and not after a discard)
        elif getattr(game, "out_seat", None) is not None:
            return False  # (Three Thirteen: after someone went out nobody else does)
        else:
            limit = 0
        hand = game.hands[seat]
        now = deadwood_points(hand, self.rules)
        forbid = bool(getattr(game.options, "forbid_discarding_taken_card", True))
        after = discard_deadwoods((*hand, card), self.rules)
        least = min(v for c, v in after.items() if not (forbid and c == card))
        return least < now and least <= limit


    def feeds_by_play(self, seat: int, card: Card) -> bool:
        """Basic Rummy, where going out turns on the table's melds and layoffs: our discard
        and the next seat's turn played out on a copy of the game by the simple bot; fed
        when that seat takes ``card`` and goes out before its turn ends."""
        game = copy.deepcopy(self.seen)
        assert self.view.seat is not None
        game.apply(Discard(self.view.seat, card))
        if game.to_move != seat:
            return False  # (our discard ended the hand)
        bot, scored = SimpleBot(), len(game.results)
        first = bot.choose(seat_view(game, seat), game.legal_actions())
        if not isinstance(first, DrawDiscard):
            return False
        game.apply(first)
        for _ in range(TURN_ACTIONS):
            if len(game.results) > scored:
                return seat in game.results[-1].winners
            if game.to_move != seat:
                return False
            game.apply(bot.choose(seat_view(game, seat), game.legal_actions()))
        return False


class _OracleBot(StrongBot):
    """The strong bot with oracles (see :class:`_OracleTurn`): it reads ``game``."""

    def __init__(self, game: Game, oracles: Oracles) -> None:
        super().__init__()
        self.seen = game
        self.oracles = oracles

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None
        mem = self.tracker.observe(view)
        turn = _OracleTurn(self, view, legal, mem)
        turn.seen, turn.oracles = self.seen, self.oracles
        action = legal[0] if len(legal) == 1 else turn.decide()
        self.tracker.record(view, action)
        return action


@dataclass(frozen=True)
class Task:
    """One game of one line: the line's bot in the seats of entrant 0."""

    line: str
    config: ArenaConfig
    deal_set: int
    rotation: int


def _simple(rng: random.Random) -> Strategy:
    return SimpleBot()


def _top(line: str, game: Game) -> Strategy:
    if line == "strong":
        return StrongBot()
    return _OracleBot(game, Oracles(knock=line in ("knock oracle", "both"),
                                    feed=line in ("feed oracle", "both"),
                                    draw=line == "draw oracle"))


def play(task: Task) -> tuple[str, Outcome]:
    """Play one game as the arena does, the top seat's bot given the game (the oracles
    read it)."""
    def seat_bots(game: Game, lineup: tuple[int, ...]) -> list[Strategy]:
        return [_top(task.line, game) if e == 0 else SimpleBot() for e in lineup]

    return task.line, play_one(task.config, task.deal_set, task.rotation,
                               seat_bots=seat_bots)


def shares(outcomes: Sequence[Outcome]) -> dict[int, float]:
    """Entrant 0's share of the wins in each deal set (as :func:`paired_interval`)."""
    per: dict[int, list[float]] = {}
    for o in outcomes:
        if o.error is not None:
            continue
        acc = per.setdefault(o.deal_set, [0.0, 0.0])
        acc[1] += 1
        if o.winners:
            acc[0] += sum(1 for s, e in enumerate(o.lineup) if e == 0
                          and s in o.winners) / len(o.winners)
    return {d: w / n for d, (w, n) in per.items()}


def difference(ours: dict[int, float], base: dict[int, float]) -> tuple[float, float, float]:
    """The mean paired difference over the deal sets both played, with its 95% interval."""
    diffs = [ours[d] - base[d] for d in ours if d in base]
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return mean, math.nan, math.nan
    half = 1.96 * statistics.stdev([*diffs, -1.0, 1.0]) / math.sqrt(len(diffs))
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="chicago,three_thirteen")
    parser.add_argument("--seats", default="2,max")
    parser.add_argument("--games-per-line", type=int, default=600)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in args.games.split(","):
        if name not in LINES:
            parser.error(f"--games: one of {', '.join(LINES)}, not {name!r}")
        for seats_arg in args.seats.split(","):
            seats = GAMES[name].max_players if seats_arg == "max" else int(seats_arg)
            entrants = tuple(Entrant("top" if i == 0 else f"simple#{i}", _simple)
                             for i in range(seats))
            config = ArenaConfig(name, entrants, games=args.games_per_line, seed=args.seed,
                                 players=seats)
            tasks = [Task(line, config, d, r) for line in LINES[name]
                     for d, r in schedule(config)]
            start = time.perf_counter()
            with multiprocessing.Pool(args.jobs) as pool:
                results = pool.map(play, tasks, chunksize=4)
            by_line: dict[str, list[Outcome]] = {line: [] for line in LINES[name]}
            for line, outcome in results:
                by_line[line].append(outcome)
            top = GAMES[name].max_players
            goal = (", goal 70.0%" if seats == 2 else
                    f", goal {2 / seats:.1%}" if seats == top else ", no goal at this size")
            print(f"{name}, {seats} seats: one bot against simple, {len(schedule(config))} "
                  f"games a line on the same paired deals (seed {args.seed}; fair share "
                  f"{1 / seats:.1%}{goal}), {time.perf_counter() - start:.0f} s")
            base = shares(by_line["strong"])
            for line, outcomes in by_line.items():
                rate, low, high = paired_interval(config, outcomes, 0)
                text = f"  {line:<13} wins {rate:6.1%}  paired [{low:.1%}, {high:.1%}]"
                if line != "strong":
                    mean, d_low, d_high = difference(shares(outcomes), base)
                    text += (f"   against strong {100 * mean:+.1f} points "
                             f"[{100 * d_low:+.1f}, {100 * d_high:+.1f}]")
                failed = sum(1 for o in outcomes if o.error is not None)
                if failed:
                    text += f"   ({failed} games failed and are left out)"
                print(text, flush=True)


if __name__ == "__main__":
    main()
