"""No hand and no game goes on forever (docs/rules.md 1, "No hand and no game goes on
forever"): seats that only ever take the discard pile never run the stock out, so a hand
still going after MAX_HAND_TURNS turns is void, and a game ends as it stands once a hand
ends after MAX_GAME_MOVES moves."""

from __future__ import annotations

import random

import pytest

from rummyhall.rules import (
    GAMES,
    Discard,
    DrawDiscard,
    Event,
    Game,
    GameOver,
    HandScored,
    Phase,
    Shuffle,
    new_game,
)
from rummyhall.rules.game import MAX_GAME_MOVES, MAX_HAND_TURNS


def pile_move(game: Game) -> DrawDiscard | Discard:
    """The move of a seat that keeps the hand going without the stock: take the top of
    the discard pile, then throw back another card (the taken one may not go back)."""
    seat = game.to_move
    assert seat is not None
    if game.phase in (Phase.UPCARD, Phase.DRAW):
        return DrawDiscard(seat)
    hand = game.hands[seat]
    return Discard(seat, hand[0] if hand[0] != game.taken else hand[1])


def cycle_hand(game: Game, rng: random.Random) -> tuple[list[Event], int]:
    """Deal, then play the pile loop until the hand ends; its last events and its turns."""
    order = list(game.shuffle_cards())
    rng.shuffle(order)
    events = game.apply(Shuffle(tuple(order)))
    stock = len(game.stock)
    turns = 0
    for _ in range(2 * MAX_HAND_TURNS + 2):  # (a draw and a discard a turn)
        if game.phase is Phase.DEAL or game.is_over:
            return events, turns
        move = pile_move(game)
        turns += isinstance(move, DrawDiscard)
        events = game.apply(move)
        assert len(game.stock) == stock  # nobody touched the stock
    raise AssertionError(f"the hand goes on after {turns} turns")


@pytest.mark.parametrize("name", list(GAMES))
def test_a_hand_that_never_uses_the_stock_is_void_at_the_turn_cap(name: str) -> None:
    game = new_game(name, players=2)
    dealer, round_number = game.dealer, game.round_number()
    events, turns = cycle_hand(game, random.Random(1))
    assert turns == MAX_HAND_TURNS
    result = events[-1]
    assert isinstance(result, HandScored) and result.outcome == "void"
    assert result.points == (0, 0) and game.scores == [0, 0]
    assert result.notes == (f"the hand is void: the hand has lasted {MAX_HAND_TURNS:,} "
                            "turns; the same dealer deals again",)
    # the same dealer deals the same round again, as after any void hand
    assert game.phase is Phase.DEAL and game.dealer == dealer
    assert game.round_number() == round_number and not game.results


def near_the_cap(game: Game) -> None:
    """Count ``game``'s moves as if it had played (almost) MAX_GAME_MOVES of them: the
    cap counts nothing else, and playing five million moves would take a minute."""
    game.move_number = MAX_GAME_MOVES - 3 * MAX_HAND_TURNS


@pytest.mark.parametrize(("name", "winners"), [
    ("basic", (1,)), ("gin", (1,)), ("chicago", (0,)), ("three_thirteen", (0,))])
def test_a_game_ends_as_it_stands_after_the_move_cap(name: str,
                                                       winners: tuple[int, ...]) -> None:
    game = new_game(name, players=2)
    rng = random.Random(2)
    cycle_hand(game, rng)
    # the totals as a scored hand would leave them (Basic and Gin: the highest wins;
    # Chicago and Three Thirteen count penalties: the lowest wins)
    game.scores = [10, 20]
    near_the_cap(game)
    events, _ = cycle_hand(game, rng)  # a void hand of about 20,000 moves: not yet
    assert not game.is_over and game.move_number < MAX_GAME_MOVES
    events, _ = cycle_hand(game, rng)
    assert game.move_number >= MAX_GAME_MOVES
    over = events[-1]
    assert isinstance(over, GameOver) and isinstance(events[-2], HandScored)
    assert over.winners == winners == game.winners and over.totals == (10, 20)
    assert over.notes == (f"the game has taken {game.move_number:,} moves, the most a game "
                          f"may take is {MAX_GAME_MOVES:,}: it ends as it stands",)


def play_a_hand(game: Game, rng: random.Random) -> list[Event]:
    """Random legal moves to the end of the hand; the last move's events."""
    for _ in range(100_000):
        if game.to_move is None:
            order = list(game.shuffle_cards())
            rng.shuffle(order)
            events = game.apply(Shuffle(tuple(order)))
        else:
            events = game.apply(rng.choice(game.legal_actions()))
        if any(isinstance(e, HandScored) for e in events):
            return events
    raise AssertionError("the hand did not end")


def scored_gin_hand_past_the_cap(scores: list[int], options: dict[str, object] | None = None,
                                 ) -> tuple[Game, list[Event]]:
    """A Gin game past the move cap with ``scores``, played to the end of a hand that
    scored (random play: the first seed whose hand is not dead)."""
    for seed in range(200):
        game = new_game("gin", options, players=2)
        near_the_cap(game)
        game.move_number += 3 * MAX_HAND_TURNS
        game.scores = list(scores)
        events = play_a_hand(game, random.Random(seed))
        if not any(isinstance(e, HandScored) and e.outcome == "dead" for e in events):
            return game, events
    raise AssertionError("every hand was dead")


def test_the_cap_after_a_scored_hand_ends_the_game_once() -> None:
    # a scored hand past the cap ends the game, the best total winning...
    game, events = scored_gin_hand_past_the_cap([0, 0])
    overs = [e for e in events if isinstance(e, GameOver)]
    assert len(overs) == 1 and overs[0] is events[-1] and game.is_over
    assert overs[0].winners == game.leaders() and len(overs[0].winners) == 1
    assert overs[0].notes == (f"the game has taken {game.move_number:,} moves, the most a "
                              f"game may take is {MAX_GAME_MOVES:,}: it ends as it stands",)
    # ... and one that ends the game by its own rule (Gin to 100), past the cap too,
    # ends it once, by that rule: its notes, its game bonus
    game, events = scored_gin_hand_past_the_cap([99, 99], {"game_bonus": 100})
    overs = [e for e in events if isinstance(e, GameOver)]
    assert len(overs) == 1 and overs[0] is events[-1]
    winner = overs[0].winners[0]
    assert overs[0].notes[0].startswith(f"seat {winner} reached")
    assert not any("it ends as it stands" in note for note in overs[0].notes)
    assert overs[0].totals[winner] >= 99 + 1 + 100  # the game bonus (100) was added


@pytest.mark.parametrize("name", list(GAMES))
def test_tied_leaders_share_the_win(name: str) -> None:
    game = new_game(name, players=min(3, GAMES[name].max_players))
    game.scores = [7, 3, 7][:game.players]
    assert game.leaders() == {"basic": (0, 2), "gin": (0,)}.get(name, (1,))
    if name in ("chicago", "three_thirteen"):  # a seat out of the game never leads
        game.active = [True, False, True]
        assert game.leaders() == (0, 2)
