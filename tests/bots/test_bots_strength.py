"""A bounded check of strength: the strong bot beats random in duplicate Gin games.

The figure the project promises (at least 95% of 1,000 duplicate games) is measured with
``rummyhall arena --game gin --games 1000 --bots strong,random`` and reported in
docs/bots.md; this test only guards against a collapse, quickly.
"""

from __future__ import annotations

import random

from rummyhall.bots import ExpertBot, ExpertParams, RandomBot, SimpleBot, StrongBot
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


def test_the_expert_beats_simple_in_duplicate_gin_games() -> None:
    """Small and seeded (a fixed number of worlds, no clock): a collapse of the expert's
    search shows here; its measured strength is bench/bench_arena.py's."""
    def make_expert(rng: random.Random) -> ExpertBot:
        return ExpertBot(ExpertParams(budget_ms=None, max_worlds=4), rng)

    entrants = (Entrant("expert", make_expert), Entrant("simple", lambda rng: SimpleBot()))
    config = ArenaConfig("gin", entrants, games=12, seed=2026)
    expert, simple = summarize(config, run_arena(config))
    assert expert.games == 12 and expert.errors == 0
    assert expert.wins >= 8
    assert expert.points_per_hand > simple.points_per_hand
