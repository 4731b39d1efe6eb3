"""The arena's pure core: many games between strategies, with duplicate deals and statistics.

Theory of operation
-------------------
*Entrants.* A lineup names one strategy per seat (an :class:`Entrant`: a label and a
factory that builds a fresh bot for each game and seat).

*Deal sets and seat rotation.* Games come in deal sets of ``players`` games. In game
``r`` (the rotation, ``0 <= r < players``) of a set, seat ``s`` is played by entrant
``(s + r) % players``; so over a set every entrant plays every seat once, with the same
cards.

*Duplicate deals.* Every random choice of a game comes from its own stream, named by
the seed, the deal set and what it is for, never by the rotation nor by anything the
players did:

- the first dealer: ``random.Random(f"{seed}:{set}:dealer").randrange(players)``;
- the ``k``-th deal of the game (``hand_no`` ``k``, counted from 1): the deck in the
  engine's canonical order (:meth:`Game.shuffle_cards`) shuffled by
  ``random.Random(f"{seed}:{set}:deal:{k}")``. Its first ``hand size`` cards go to the
  first active seat in seat order (seat 0 when it plays), the next ``hand size`` to the
  next active seat, and so on; then comes the upcard, then the stock (top first). The
  arena orders the :class:`~rummyhall.rules.Shuffle` so that the engine's deal (one card
  at a time from the dealer's left) gives each seat exactly its slice, whoever deals;
- the ``e``-th rebuild of an empty stock in deal ``k``: the cards to rebuild, in the
  engine's canonical order, shuffled by ``random.Random(f"{seed}:{set}:rebuild:{k}:{e}")``;
- a strategy that uses chance: ``random.Random(f"{seed}:{set}:{r}:seat:{s}")``.

``random.Random`` seeded with a string is stable across runs and platforms, so a seed
reproduces every game. Within a deal set the first deal is therefore the same, card for
card, with the seats' players rotated; later deals give each seat the same cards too,
but the games drift apart as the dealers and the hands played differ.

*Statistics* (:func:`summarize`). Per entrant: the games it finished, its wins (a win
shared by ``k`` seats counts ``1/k``), the win rate with a 95% Wilson score interval over
the games, and the mean points per hand (what ``HandScored.points`` gave its seat, over
the scored hands it was dealt into) with a 95% interval from the normal approximation,
its standard error computed over deal sets (the independent units: the games of one set
share their cards). Games that end in an error (a move cap reached, a bot that raised or
played an illegal action) are counted apart and left out of the figures.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rummyhall.rules import MOST_GAME_MOVES, Card, Game, Phase, Shuffle, new_game

from .base import Strategy
from .selfplay import GameTooLong, StrategyError, play_game

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Entrant:
    """A strategy in the arena: its label and a factory of fresh bots (given an rng)."""

    label: str
    factory: Callable[[random.Random], Strategy]


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: the game, its options and seats, the lineup, how many games, the seed."""

    game: str
    entrants: tuple[Entrant, ...]
    games: int
    seed: int = 0
    options: Mapping[str, object] = field(default_factory=dict)
    players: int | None = None  # default: the lineup's length
    max_moves: int = MOST_GAME_MOVES  # (past the rules' caps: a bug)

    @property
    def seats(self) -> int:
        return self.players or len(self.entrants)

    @property
    def deal_sets(self) -> int:
        """Deal sets played: ``games`` rounded up to whole sets of ``seats`` games."""
        return -(-self.games // self.seats)

    def lineup(self, rotation: int) -> tuple[int, ...]:
        """The entrant index of each seat in rotation ``rotation``.

        With fewer entrants than seats the lineup repeats (``a,b`` at four seats is
        ``a,b,a,b``).
        """
        n = self.seats
        base = [i % len(self.entrants) for i in range(n)]
        return tuple(base[(s + rotation) % n] for s in range(n))


@dataclass(frozen=True)
class GameOutcome:
    """One arena game: where it sat in the schedule, and what came of it."""

    deal_set: int
    rotation: int
    lineup: tuple[int, ...]  # entrant index per seat
    first_dealer: int
    winners: tuple[int, ...] = ()  # seats
    scores: tuple[int, ...] = ()
    hands: int = 0  # scored hands
    hand_points: tuple[tuple[int, int], ...] = ()  # per seat: (points, hands dealt into)
    moves: int = 0
    error: str | None = None
    error_seat: int | None = None


@dataclass(frozen=True)
class EntrantStats:
    """An entrant's figures over the arena (see the module docstring)."""

    label: str
    games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    hands: int
    points_per_hand: float
    points_low: float
    points_high: float
    errors: int


# ---------------------------------------------------------------------------- dealing


def stream(seed: int, *parts: object) -> random.Random:
    """The named random stream ``f"{seed}:{part}:{part}..."`` (see the module docstring)."""
    return random.Random(":".join(str(p) for p in (seed, *parts)))


def first_dealer(config: ArenaConfig, deal_set: int) -> int:
    return stream(config.seed, deal_set, "dealer").randrange(config.seats)


def deal_slices(game: Game, rng: random.Random) -> dict[int, tuple[Card, ...]]:
    """Shuffle the next deal's deck and cut each active seat's slice, in seat order.

    Key ``-1`` holds the rest: the upcard, then the stock from its top.
    """
    cards = list(game.shuffle_cards())
    rng.shuffle(cards)
    size = game.hand_size()
    active = [s for s in range(game.players) if game.active[s]]
    slices = {s: tuple(cards[j * size:(j + 1) * size]) for j, s in enumerate(active)}
    slices[-1] = tuple(cards[len(active) * size:])  # upcard, then the stock top first
    return slices


def seat_order_shuffle(game: Game, slices: Mapping[int, Sequence[Card]]) -> Shuffle:
    """The :class:`Shuffle` whose deal gives each seat its slice, whoever deals.

    The engine deals one card at a time to each active seat from the dealer's left, then
    turns the upcard, and the rest is the stock, first card on top.
    """
    n = game.players
    order_seats = [s for s in ((game.dealer + i) % n for i in range(1, n + 1))
                   if game.active[s]]
    size = game.hand_size()
    order = [slices[s][i] for i in range(size) for s in order_seats]
    order.extend(slices[-1])
    return Shuffle(tuple(order))


def duplicate_shuffler(seed: int, deal_set: int) -> Callable[[Game], Shuffle]:
    """The chance of every game of ``deal_set``: deals and rebuilds from named streams."""

    def shuffle(game: Game) -> Shuffle:
        if game.phase is Phase.REBUILD:
            # The engine counts the exhaustion before it asks for the rebuild's shuffle.
            cards = list(game.shuffle_cards())
            stream(seed, deal_set, "rebuild", game.hand_no, game.exhaustions).shuffle(cards)
            return Shuffle(tuple(cards))
        slices = deal_slices(game, stream(seed, deal_set, "deal", game.hand_no + 1))
        return seat_order_shuffle(game, slices)

    return shuffle


# ---------------------------------------------------------------------------- playing


def play_one(config: ArenaConfig, deal_set: int, rotation: int, *,
             seat_bots: Callable[[Game, tuple[int, ...]], list[Strategy]] | None = None
             ) -> GameOutcome:
    """Play game ``rotation`` of deal set ``deal_set``; errors become part of the outcome.

    ``seat_bots`` makes the seats' bots from the game and the lineup instead of the
    entrants' factories (a bench whose bots read the game: bench/bench_headroom.py).
    """
    lineup = config.lineup(rotation)
    dealer = first_dealer(config, deal_set)
    game = new_game(config.game, dict(config.options), players=config.seats,
                    first_dealer=dealer)
    if seat_bots is not None:
        bots = seat_bots(game, lineup)
    else:
        bots = [config.entrants[e].factory(stream(config.seed, deal_set, rotation, "seat", s))
                for s, e in enumerate(lineup)]
    base = GameOutcome(deal_set, rotation, lineup, dealer)
    try:
        record = play_game(game, bots, random.Random(0), max_moves=config.max_moves,
                           shuffle=duplicate_shuffler(config.seed, deal_set))
    except GameTooLong as exc:
        return dataclasses.replace(base, error=str(exc))
    except StrategyError as exc:
        label = config.entrants[lineup[exc.seat]].label
        return dataclasses.replace(base, error=f"{label}: {exc}", error_seat=exc.seat)
    points = [0] * config.seats
    dealt = [0] * config.seats
    for result, seats in zip(record.results, record.hand_seats, strict=True):
        for s in seats:
            points[s] += result.points[s]
            dealt[s] += 1
    return GameOutcome(deal_set, rotation, lineup, dealer, record.winners, record.scores,
                       len(record.results), tuple(zip(points, dealt, strict=True)),
                       len(record.actions))


def schedule(config: ArenaConfig) -> list[tuple[int, int]]:
    """Every (deal set, rotation) the arena plays, in order."""
    return [(d, r) for d in range(config.deal_sets) for r in range(config.seats)]


def run_arena(config: ArenaConfig,
              on_game: Callable[[GameOutcome], None] | None = None) -> list[GameOutcome]:
    """Play the whole schedule; ``on_game`` hears of each game as it ends (for progress)."""
    if not config.entrants:
        raise ValueError("the arena needs at least one strategy")
    if config.games < 1:
        raise ValueError("the arena needs at least one game")
    outcomes = []
    for deal_set, rotation in schedule(config):
        outcome = play_one(config, deal_set, rotation)
        outcomes.append(outcome)
        if on_game is not None:
            on_game(outcome)
    return outcomes


# ---------------------------------------------------------------------------- statistics


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional).

    Returns ``(nan, nan)`` when ``n`` is 0.
    """
    if n <= 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n)))
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def ratio_interval(totals: Sequence[float], counts: Sequence[float],
                   z: float = Z95) -> tuple[float, float, float]:
    """Mean ``sum(totals) / sum(counts)`` and its normal interval over clusters.

    Cluster ``j`` contributed ``totals[j]`` over ``counts[j]`` units (points over hands);
    the standard error is the ratio estimator's,
    ``sqrt(sum((t_j - R c_j)^2) / (m (m - 1))) / mean(c)``. With fewer than two clusters
    the interval is ``(nan, nan)``.
    """
    m = len(totals)
    n = sum(counts)
    if n <= 0:
        return math.nan, math.nan, math.nan
    r = sum(totals) / n
    if m < 2:
        return r, math.nan, math.nan
    mean_count = n / m
    ss = sum((t - r * c) ** 2 for t, c in zip(totals, counts, strict=True))
    se = math.sqrt(ss / (m * (m - 1))) / mean_count
    return r, r - z * se, r + z * se


def paired_interval(config: ArenaConfig, outcomes: Sequence[GameOutcome],
                    entrant: int, z: float = Z95) -> tuple[float, float, float]:
    """An entrant's win rate and its 95% interval over deal sets (paired deals).

    The games of a deal set share their cards with the seats rotated, so the set is the
    independent unit: ``x_j`` is the entrant's share of the wins over the finished games
    of set ``j`` (its wins there, a shared win counting ``1/k``, over its games there),
    the estimate is the mean of the ``x_j`` and the interval ``mean +- z * s /
    sqrt(m)`` over the ``m`` sets. The luck of the deal cancels within a set, so the
    ``x_j`` vary less than single games do and the interval is narrower than Wilson's
    over games when the deals matter. With fewer than two sets the bounds are nan.

    ``s`` is the spread of the ``x_j`` with two imagined sets beside them, one lost and
    one won (shares 0 and 1, about the mean of all ``m + 2``): sets that all come out
    alike (two bots that nearly always play the same cards split every pair of games)
    would otherwise give an interval of no width, as if ``m`` sets could not all agree
    by chance. The two add little once the sets vary and there are many.
    """
    per_set: dict[int, list[float]] = {}
    for o in outcomes:
        seats = [s for s, who in enumerate(o.lineup) if who == entrant]
        if not seats or o.error is not None:
            continue
        acc = per_set.setdefault(o.deal_set, [0.0, 0.0])
        acc[1] += 1
        if o.winners:
            acc[0] += sum(1 for s in seats if s in o.winners) / len(o.winners)
    shares = [w / n for w, n in per_set.values() if n]
    m = len(shares)
    if not m:
        return math.nan, math.nan, math.nan
    mean = sum(shares) / m
    if m < 2:
        return mean, math.nan, math.nan
    padded = [*shares, 0.0, 1.0]
    centre = sum(padded) / (m + 2)
    sd = math.sqrt(sum((x - centre) ** 2 for x in padded) / (m + 1))
    half = z * sd / math.sqrt(m)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def summarize(config: ArenaConfig, outcomes: Sequence[GameOutcome]) -> list[EntrantStats]:
    """Per entrant figures (see the module docstring), in lineup order."""
    stats = []
    for e, entrant in enumerate(config.entrants):
        games, wins, errors = 0, 0.0, 0
        by_set: dict[int, list[float]] = {}
        for o in outcomes:
            seats = [s for s, who in enumerate(o.lineup) if who == e]
            if not seats:
                continue
            if o.error is not None:
                if o.error_seat is None or o.error_seat in seats:
                    errors += 1
                continue
            games += 1
            if o.winners:
                wins += sum(1 for s in seats if s in o.winners) / len(o.winners)
            acc = by_set.setdefault(o.deal_set, [0.0, 0.0])
            for s in seats:
                acc[0] += o.hand_points[s][0]
                acc[1] += o.hand_points[s][1]
        low, high = wilson_interval(wins, games)
        sets = sorted(by_set)
        mean, p_low, p_high = ratio_interval([by_set[d][0] for d in sets],
                                             [by_set[d][1] for d in sets])
        stats.append(EntrantStats(entrant.label, games, wins, wins / games if games else math.nan,
                                  low, high, int(sum(by_set[d][1] for d in sets)), mean,
                                  p_low, p_high, errors))
    return stats
