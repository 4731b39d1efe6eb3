"""Every built-in strategy only ever answers with one of the legal actions offered.

Whole hands of all four games, under the default options and under odd ones (gin only,
big gin, several decks with jokers, aces high, must-discard, eliminations...), with the
strategies mixed at the table. Hands are capped so the run stays a few seconds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from game_strategies import Setup, game_setups, short_game
from hypothesis import HealthCheck, given, settings

from rummyhall.bots import RandomBot, SimpleBot, Strategy, StrongBot, is_offered
from rummyhall.bots.selfplay import play_game
from rummyhall.rules import SeatAction, SeatView, new_game


class MustBeLegal:
    """Wraps a strategy and fails the test if it answers outside ``legal``."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.needs_view = True
        self.decisions = 0

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        action = self.inner.choose(view if self.inner.needs_view else None, legal)
        assert is_offered(action, legal), \
            f"{self.name} chose {action} outside {list(map(str, legal))}"
        self.decisions += 1
        return action


CASES: list[tuple[str, int, dict[str, object], int]] = [
    # (game, players, options, hands to play)
    ("gin", 2, {}, 4),
    ("gin", 2, {"knock_limit": 0, "big_gin_bonus": 31, "layoff_on_gin": True}, 2),
    ("gin", 2, {"forbid_discarding_taken_card": False, "undercut_on_tie": False,
                "dead_hand_stock_size": 12, "next_dealer": "alternate"}, 3),
    ("chicago", 2, {}, 3),
    ("chicago", 4, {"rummy_timing": "start_of_turn", "knock_penalty_on_tie": False}, 3),
    ("chicago", 5, {"elimination_score": 15, "eliminate_at_equal": True,
                    "rummy_timing": "after_discard", "stock_rebuild": "turn_over"}, 4),
    ("chicago", 3, {"knock_base_limit": 0, "seven_twos_wins": False}, 2),
    ("three_thirteen", 2, {}, 4),
    ("three_thirteen", 3, {"jokers_per_deck": 2, "ace_mode": "high_or_low",
                           "face_points": "eleven_twelve_thirteen", "all_wild_sets": False}, 3),
    ("three_thirteen", 3, {"deuces_arent_wild": True}, 2),
    ("three_thirteen", 4, {"decks": 3, "forbid_discarding_taken_card": False}, 2),
    ("basic", 2, {}, 2),
    ("basic", 3, {"must_discard_to_go_out": True, "one_meld_per_turn": True,
                  "layoff_requires_own_meld": True}, 2),
    ("basic", 4, {"ace_mode": "round_the_corner", "rummy_bonus": "plus_10",
                  "scoring_mode": "low_score_wins", "stock_exhaustion_limit": 1}, 2),
    ("basic", 6, {"ace_mode": "high_or_low", "rummy_bonus": "none",
                  "stock_rebuild": "turn_over", "dealer_rotation": "winner_deals"}, 1),
]


@pytest.mark.parametrize(("game_name", "players", "options", "hands"), CASES,
                         ids=[f"{c[0]}-{c[1]}p-{i}" for i, c in enumerate(CASES)])
def test_strategies_answer_legally(game_name: str, players: int, options: dict[str, object],
                                   hands: int) -> None:
    rng = random.Random(f"{game_name}:{players}:{sorted(options.items())}")
    kinds: list[Strategy] = [StrongBot(), SimpleBot(), StrongBot(), RandomBot(random.Random(1)),
                             StrongBot(), SimpleBot()]
    bots = [MustBeLegal(b) for b in kinds[:players]]
    if players == 2:
        bots = [MustBeLegal(StrongBot()), MustBeLegal(SimpleBot())]
    game = new_game(game_name, options, players=players, first_dealer=rng.randrange(players))
    record = play_game(game, bots, rng, max_moves=20_000, max_hands=hands)
    assert record.deals >= 1
    assert all(b.decisions for b in bots if b.name == "strong")


@pytest.mark.parametrize("game_name", ["gin", "chicago", "three_thirteen"])
def test_strong_against_itself_finishes_whole_games(game_name: str) -> None:
    rng = random.Random(3)
    game = new_game(game_name, players=2, first_dealer=0)
    bots = [MustBeLegal(StrongBot()), MustBeLegal(StrongBot())]
    max_hands = 3 if game_name == "three_thirteen" else None
    record = play_game(game, bots, rng, max_moves=20_000, max_hands=max_hands)
    assert record.winners or max_hands


def test_strong_bot_refuses_to_play_without_a_view() -> None:
    game = new_game("gin", players=2)
    with pytest.raises(ValueError, match="view"):
        StrongBot().choose(None, game.legal_actions() or [])


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(game_setups())
def test_strong_answers_legally_under_random_options(setup: Setup) -> None:
    _, _, players, seed = setup
    game = short_game(setup)
    bots = [MustBeLegal(StrongBot() if s % 2 == 0 else SimpleBot()) for s in range(players)]
    play_game(game, bots, random.Random(seed), max_moves=20_000, max_hands=2)
    assert bots[0].decisions
