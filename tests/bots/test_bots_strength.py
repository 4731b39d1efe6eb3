"""A bounded check of strength: the strong bot beats random in duplicate Gin games.

The figure the project promises (at least 95% of 1,000 duplicate games) is measured with
``rummyhall arena --game gin --games 1000 --bots strong,random`` and reported in
docs/bots.md; this test only guards against a collapse, quickly.
"""

from __future__ import annotations

import random

from rummyhall.bots import RandomBot, StrongBot
from rummyhall.bots.arena import ArenaConfig, Entrant, run_arena, summarize


def test_strong_beats_random_in_at_least_90_of_100_duplicate_gin_games() -> None:
    def make_strong(rng: random.Random) -> StrongBot:
        return StrongBot()

    entrants = (Entrant("strong", make_strong), Entrant("random", RandomBot))
    config = ArenaConfig("gin", entrants, games=100, seed=2024)
    outcomes = run_arena(config)
    strong, random_ = summarize(config, outcomes)
    assert strong.games == 100 and strong.errors == 0
    assert strong.wins >= 90
    assert strong.points_per_hand > random_.points_per_hand
