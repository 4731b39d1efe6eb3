"""Ratings: openskill's Plackett-Luce model against the formulas the server used to carry.

The reference below is the Weng-Lin update (Algorithm 4, Plackett-Luce) as the server wrote
it out by hand before it used openskill. Stored ratings were computed with it, so the
library must give the same mu and sigma for the same games.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummyhall.server.ratings import BETA, KAPPA, MU, SIGMA, Rating, ranks_from_result, rate


def reference_rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The old hand-written update, kept as the reference the library must match."""
    n = len(ratings)
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


# Recorded results of a small club's evening: the seats by name, the winners (seat indices)
# and the final totals, in the direction each game keeps them (Gin and Basic Rummy count up
# to a win, Three Thirteen and Chicago's penalties count against).
EVENING: list[tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]] = [
    (("ann", "bob"), (0,), (112, 47)),                      # gin
    (("ann", "bob"), (1,), (88, 104)),
    (("ann", "bob", "cat"), (2,), (61, 74, 150)),           # basic rummy
    (("bob", "cat", "dan", "ann"), (1,), (35, 12, 35, 90)),  # three thirteen: a tie behind
    (("cat", "dan"), (0,), (100, 100)),                     # gin, winner on the last hand
    (("ann", "bob", "cat", "dan"), (0, 3), (20, 44, 31, 20)),  # chicago: two winners
    (("dan", "ann", "bob"), (0,), (210, 190, 60)),
    (("ann", "bob", "cat", "dan"), (2,), (80, 80, 9, 80)),  # three seats tie for second
    (("bob", "dan"), (1,), (40, 150)),
    (("cat", "ann", "dan", "bob"), (3,), (55, 23, 70, 12)),
]


Rater = Callable[[Sequence[Rating], Sequence[int]], list[Rating]]


def play(rater: Rater, evening: list[tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]]
         ) -> dict[str, Rating]:
    book: dict[str, Rating] = {}
    for names, winners, totals in evening:
        ranks = ranks_from_result(winners, totals)
        after = rater([book.get(n, Rating()) for n in names], ranks)
        book.update(zip(names, after, strict=True))
    return book


def test_the_library_gives_the_stored_ratings_of_the_old_formulas() -> None:
    ours, theirs = play(rate, EVENING), play(reference_rate, EVENING)
    assert ours.keys() == theirs.keys() == {"ann", "bob", "cat", "dan"}
    for name, rating in ours.items():
        assert rating.mu == pytest.approx(theirs[name].mu, abs=1e-9), name
        assert rating.sigma == pytest.approx(theirs[name].sigma, abs=1e-9), name


ratings_st = st.builds(Rating, mu=st.floats(0, 50), sigma=st.floats(0.5, SIGMA))


@given(st.lists(st.tuples(ratings_st, st.integers(1, 4)), min_size=2, max_size=4))
def test_any_game_rates_as_the_old_formulas(seats: list[tuple[Rating, int]]) -> None:
    ratings, ranks = [r for r, _ in seats], [k for _, k in seats]
    for ours, ref in zip(rate(ratings, ranks), reference_rate(ratings, ranks), strict=True):
        assert ours.mu == pytest.approx(ref.mu, abs=1e-9)
        assert ours.sigma == pytest.approx(ref.sigma, abs=1e-9)


def test_the_winner_gains_the_loser_loses_and_both_grow_surer() -> None:
    winner, loser = rate([Rating(), Rating()], [1, 2])
    assert winner.mu > MU > loser.mu
    assert winner.mu - MU == pytest.approx(MU - loser.mu)
    assert winner.sigma < SIGMA and loser.sigma < SIGMA
    # the figures of a first game between two newcomers (Weng and Lin's update by hand)
    assert winner.mu == pytest.approx(27.635, abs=1e-3)
    assert winner.sigma == pytest.approx(8.0655, abs=1e-3)


def test_an_upset_moves_ratings_more_than_the_expected_result() -> None:
    strong, weak = Rating(35.0, 3.0), Rating(15.0, 3.0)
    expected = rate([strong, weak], [1, 2])
    upset = rate([strong, weak], [2, 1])
    assert upset[1].mu - weak.mu > expected[0].mu - strong.mu > 0
    assert upset[0].mu < strong.mu


def test_equal_players_who_tie_keep_their_mu() -> None:
    a, b = rate([Rating(), Rating()], [1, 1])
    assert a.mu == pytest.approx(MU) and b.mu == pytest.approx(MU)
    assert a == b


def test_a_game_of_one_seat_or_mismatched_ranks_changes_nothing() -> None:
    lone = [Rating(30.0, 4.0)]
    assert rate(lone, [1]) == lone
    pair = [Rating(), Rating(20.0, 5.0)]
    assert rate(pair, [1]) == pair
    assert rate(pair, [1, 2, 3]) == pair


def test_a_rating_is_an_immutable_value() -> None:
    rating = Rating(30.0, 4.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rating.mu = 40.0  # type: ignore[misc]
    assert {rating: 1}[Rating(30.0, 4.0)] == 1


def test_shown_rating_is_conservative() -> None:
    assert Rating().shown == 0
    assert Rating(30.0, 2.0).shown == 24
    assert Rating(10.0, 5.0).shown == -5


def test_ranks_follow_the_direction_the_winners_scored() -> None:
    assert ranks_from_result([0], [120, 40, 80]) == [1, 3, 2]      # more is better
    assert ranks_from_result([2], [31, 57, 12, 57]) == [2, 3, 1, 3]  # less is better
    assert ranks_from_result([0, 3], [20, 44, 31, 20]) == [1, 3, 2, 1]
    assert ranks_from_result([], [5, 9]) == [1, 1]
    assert ranks_from_result([1], [100, 100]) == [2, 1]            # a tie on totals
    assert ranks_from_result([0], [100, 50, 40, 30, 20]) == [1, 2, 3, 4, 5]
    assert ranks_from_result([4], [10, 20, 30, 40, 5]) == [2, 3, 4, 5, 1]
    # a loser level with the winner: the winner still scored at least as much as all,
    # so more is better
    assert ranks_from_result([0], [50, 50, 20]) == [1, 2, 3]
