"""Multiplayer ratings: the Weng-Lin Bayesian approximation with the Plackett-Luce model.

Every (name, game) pair has a rating: a belief ``N(mu, sigma^2)`` about the player's skill,
starting at ``mu = 25``, ``sigma = 25/3``. After a game of any number of seats ranked
``r_1..r_n`` (1 = best; equal ranks are ties) each seat's rating moves by (Weng and Lin,
"A Bayesian Approximation Method for Online Ranking", 2011, Algorithm 4, Plackett-Luce):

    c        = sqrt( sum_i (sigma_i^2 + beta^2) )            beta = sigma_0 / 2
    C_q      = sum over s with r_s >= r_q of exp(mu_s / c)   (the seats not ranked above q)
    A_q      = number of seats with r_s == r_q               (ties share the update)
    p_{i,q}  = exp(mu_i / c) / C_q
    Omega_i  = sigma_i^2 / c * sum over q with r_q <= r_i of ([q == i] - p_{i,q}) / A_q
    Delta_i  = gamma_i * sigma_i^2 / c^2 * sum over q with r_q <= r_i of
                                             p_{i,q} (1 - p_{i,q}) / A_q
    gamma_i  = sigma_i / c
    mu_i'    = mu_i + Omega_i
    sigma_i' = sigma_i * sqrt( max(1 - Delta_i, kappa) )     kappa = 0.0001

The rating shown is the conservative ``mu - 3 sigma`` (0 for a newcomer), rounded. It is
the same method as the openskill library's PlackettLuce model; it is written out here so
the server needs no dependency beyond trio, msgpack and prompt_toolkit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 0.0001


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> int:
        """The conservative rating players see: ``mu - 3 sigma``, rounded."""
        return round(self.mu - 3 * self.sigma)


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after a game where seat ``i`` finished at ``ranks[i]`` (1 = best)."""
    n = len(ratings)
    if n < 2 or len(ranks) != n:
        return list(ratings)
    c = math.sqrt(sum(r.sigma ** 2 + BETA ** 2 for r in ratings))
    strength = [math.exp(r.mu / c) for r in ratings]
    below = [sum(strength[s] for s in range(n) if ranks[s] >= ranks[q]) for q in range(n)]
    ties = [sum(1 for s in range(n) if ranks[s] == ranks[q]) for q in range(n)]
    out = []
    for i, r in enumerate(ratings):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            p = strength[i] / below[q]
            omega += ((1.0 if q == i else 0.0) - p) / ties[q]
            delta += p * (1 - p) / ties[q]
        gamma = r.sigma / c
        mu = r.mu + r.sigma ** 2 / c * omega
        sigma = r.sigma * math.sqrt(max(1 - gamma * r.sigma ** 2 / c ** 2 * delta, KAPPA))
        out.append(Rating(mu, sigma))
    return out


def ranks_from_result(winners: Sequence[int], totals: Sequence[int]) -> list[int]:
    """Finishing ranks (1 = best) from a game's winners and final totals.

    The winners share rank 1. The others are ordered by their totals in the direction the
    game rewards, read off the result itself: if the winners scored at least as much as
    everybody else, more is better (Gin, Basic Rummy); otherwise less is better (Three
    Thirteen, Chicago's penalty points). Equal totals tie.
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
