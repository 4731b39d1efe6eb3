"""Multiplayer ratings: openskill's Weng-Lin Plackett-Luce model, one rating per name and game.

Every (name, game) pair has a rating: a belief ``N(mu, sigma^2)`` about the player's skill,
starting at ``mu = 25``, ``sigma = 25/3``. After a game of any number of seats ranked
``r_1..r_n`` (1 = best; equal ranks are ties) each seat's rating moves by Weng and Lin's
Bayesian approximation with the Plackett-Luce model ("A Bayesian Approximation Method for
Online Ranking", 2011, Algorithm 4), as the openskill library implements it: every seat is
a team of one, ``beta = sigma_0 / 2``, ``kappa = 0.0001``, and no additive dynamics
(``tau = 0``), so a rating's sigma only shrinks as games accumulate. The stored ``mu`` and
``sigma`` are those of the paper, the same numbers the server stored before it used the
library.

The rating shown is the conservative ``mu - 3 sigma`` (0 for a newcomer), rounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 0.0001

# tau = 0: the paper's update as it stands. openskill's default adds tau^2 to every
# variance before a game, which would make sigma (and so the shown rating) drift.
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=0.0)


@dataclass(frozen=True, slots=True)
class Rating:
    """A belief about one player's skill in one game: ``N(mu, sigma^2)``.

    >>> Rating().shown
    0
    >>> Rating(mu=30.0, sigma=2.0).shown
    24
    """

    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> int:
        """The conservative rating players see: ``mu - 3 sigma``, rounded."""
        return round(self.mu - 3 * self.sigma)


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after a game where seat ``i`` finished at ``ranks[i]`` (1 = best).

    Fewer than two seats, or ranks that do not match the seats, change nothing.

    >>> winner, loser = rate([Rating(), Rating()], [1, 2])
    >>> winner.mu > 25 > loser.mu and winner.sigma < 25 / 3
    True
    """
    n = len(ratings)
    if n < 2 or len(ranks) != n:
        return list(ratings)
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


def ranks_from_result(winners: Sequence[int], totals: Sequence[int]) -> list[int]:
    """Finishing ranks (1 = best) from a game's winners and final totals.

    The winners share rank 1. The others are ordered by their totals in the direction the
    game rewards, read off the result itself: if the winners scored at least as much as
    everybody else, more is better (Gin, Basic Rummy); otherwise less is better (Three
    Thirteen, Chicago's penalty points). Equal totals tie.

    >>> ranks_from_result([0], [120, 40, 80])
    [1, 3, 2]
    >>> ranks_from_result([2], [31, 57, 12, 57])
    [2, 3, 1, 3]
    """
    n = len(totals)
    if not winners:
        return [1] * n
    best = [totals[w] for w in winners]
    others = [totals[s] for s in range(n) if s not in winners]
    high_wins = not others or min(best) >= max(others)
    key = [(-t if high_wins else t) for t in totals]
    losers = sorted({key[s] for s in range(n) if s not in winners})
    return [1 if s in winners else 2 + losers.index(key[s]) for s in range(n)]
