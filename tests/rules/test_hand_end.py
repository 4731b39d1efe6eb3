"""The end of a hand as a seat sees it: every seat in the showdown, one hand per view."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from rummyhall.rules import (
    CALLS,
    DRAW_SOURCES,
    GAMES,
    OUTCOMES,
    PHASE_MEANINGS,
    REVEAL_STATES,
    Drew,
    Game,
    HandDealt,
    HandScored,
    Knocked,
    Showdown,
    Shuffle,
    new_game,
    seat_view,
)

PLAYERS = {"basic": 3, "gin": 2, "chicago": 4, "three_thirteen": 3}


def random_games(name: str, seed: int, options: dict[str, object] | None = None,
                 ) -> Iterator[tuple[Game, list[object]]]:
    """Play one random game; after each action, the game (as it is now) and its events."""
    rng = random.Random(seed)
    game = new_game(name, options, players=PLAYERS[name])
    for _ in range(20_000):
        if game.is_over:
            break
        order = list(game.shuffle_cards())
        if order:
            rng.shuffle(order)
            events = game.apply(Shuffle(tuple(order)))
        else:
            events = game.apply(rng.choice(game.legal_actions()))
        yield game, list(events)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("seed", range(2))
def test_every_hand_ends_with_a_showdown_of_every_seat(name: str, seed: int) -> None:
    options: dict[str, object] | None = {"elimination_score": 30} if name == "chicago" else None
    hands = 0
    for game, events in random_games(name, seed, options):
        for i, event in enumerate(events):
            if isinstance(event, HandScored):
                hands += 1
                shows = [e for e in events[:i] if isinstance(e, Showdown)]
                assert len(shows) == 1, events
                reveals = shows[0].reveals
                assert [r.seat for r in reveals] == list(range(game.players))
                assert all(r.state in REVEAL_STATES for r in reveals)
                if event.outcome in ("dead", "void"):
                    assert {r.state for r in reveals} == {"hidden"}
                    assert not any(r.melds or r.deadwood for r in reveals)
                else:
                    assert "hidden" not in {r.state for r in reveals}
    assert hands


def test_an_eliminated_chicago_seat_is_listed_as_out() -> None:
    seen_out = False
    for seed in range(6):
        for _game, events in random_games("chicago", seed, {"elimination_score": 20}):
            for event in events:
                if isinstance(event, Showdown):
                    for r in event.reveals:
                        if r.state == "out":
                            seen_out = True
                            assert r.points == 0 and not r.deadwood
    assert seen_out


@pytest.mark.parametrize("name", list(GAMES))
def test_a_view_between_hands_describes_the_hand_that_ended(name: str) -> None:
    checked = 0
    dealt: HandDealt | None = None
    for game, events in random_games(name, 7):
        for event in events:
            if isinstance(event, HandDealt):
                dealt = event
        view = seat_view(game, 0)
        if any(isinstance(e, HandScored) for e in events) \
                and str(game.phase) == "deal":
            assert dealt is not None and view.hand_ended
            assert (view.hand_no, view.round, view.dealer, view.wild_rank) == (
                dealt.hand_no, dealt.round, dealt.dealer, dealt.wild_rank)
            assert view.knock_limits == dealt.knock_limits
            checked += 1
        elif str(game.phase) not in ("deal", "game_over", "rebuild"):
            assert not view.hand_ended
            assert dealt is not None and view.dealer == dealt.dealer
    assert checked
    assert seat_view(new_game(name, players=PLAYERS[name]), 0).hand_ended is False


@pytest.mark.parametrize("name", list(GAMES))
def test_every_enumerated_value_played_is_a_documented_one(name: str) -> None:
    for seed in range(1):
        for game, events in random_games(name, seed):
            assert game.phase in PHASE_MEANINGS
            for event in events:
                if isinstance(event, Drew):
                    assert event.source in DRAW_SOURCES
                elif isinstance(event, Knocked):
                    assert event.call in CALLS
                elif isinstance(event, HandScored):
                    assert event.outcome in OUTCOMES
