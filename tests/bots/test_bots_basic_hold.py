"""The strong bot's hold in Basic Rummy (docs/bots.md, "How the strong bot decides").

From three seats, when the hand's winner collects, the strong bot keeps its melds in
hand until its turn can empty the hand, and then goes out in that one turn (rummy).
With two seats, and when each seat pays its own count, the older rule stands: it holds
only with few loose cards left while no opponent is close to going out.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from rummyhall.bots import ExpertBot, ExpertParams, StrongBot, StrongParams
from rummyhall.bots.selfplay import play_game
from rummyhall.rules import (
    Discard,
    Game,
    Meld,
    Phase,
    SeatAction,
    SeatView,
    Shuffle,
    meld_rules_for,
    new_game,
    parse_cards,
    seat_view,
)

LOOSE = "7h 8h 9h Kc Qd 4s 2c"  # a run, four loose cards: no way out this turn
OUT = "7h 8h 9h Kc Kd Ks 4s"  # two melds and a card to discard: out this turn


def position(players: int, hand: str,
             options: Mapping[str, object] | None = None) -> Game:
    """Seat 0 has drawn and holds ``hand``; the other seats hold dealt hands of the
    deal's size, fixed; nothing is on the table."""
    game = new_game("basic", dict(options or {}), players=players, first_dealer=players - 1)
    order = list(game.shuffle_cards())
    random.Random(5).shuffle(order)
    game.apply(Shuffle(tuple(order)))
    size = len(game.hands[1])
    mine = parse_cards(hand)
    rest = [c for c in order if c not in set(mine)]
    game.hands = [list(mine), *(rest[i * size:(i + 1) * size] for i in range(players - 1))]
    rest = rest[(players - 1) * size:]
    game.discard, game.stock = rest[:1], rest[1:]
    game.turn, game.taken = 0, None
    game.phase = Phase.PLAY
    return game


def choice(game: Game, params: StrongParams | None = None) -> object:
    return StrongBot(params).choose(seat_view(game, 0), game.legal_actions())


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("bonus", ["double", "none"])
def test_from_three_seats_the_melds_stay_in_hand(players: int, bonus: str) -> None:
    game = position(players, LOOSE, {"rummy_bonus": bonus})
    assert any(isinstance(a, Meld) for a in game.legal_actions())
    held = choice(game)
    assert isinstance(held, Discard) and held.card not in parse_cards("7h 8h 9h")
    # The older rule lays the run down: four loose cards are too many to hold for.
    assert isinstance(choice(game, StrongParams(hold_seats=0)), Meld)


@pytest.mark.parametrize("players", [2, 6])
def test_with_a_way_out_it_melds_everything_in_one_turn(players: int) -> None:
    game = position(players, OUT if players > 2 else "7h 8h 9h Th Kc Kd Ks 5h 5d 5s Jc")
    owed = sum(meld_rules_for("basic").points(c) for h in game.hands[1:] for c in h)
    bot = StrongBot()
    for _ in range(10):  # (two melds and a discard)
        action = bot.choose(seat_view(game, 0), game.legal_actions())
        game.apply(action)
        if game.phase is not Phase.PLAY or game.turn != 0:
            break
    assert not game.hands[0] or game.phase is not Phase.PLAY
    assert game.scores[0] == 2 * owed  # going rummy: the hand doubled


def test_two_seats_keep_the_older_rule() -> None:
    game = position(2, f"{LOOSE} Jd 5c 6s Ts")
    assert isinstance(choice(game), Meld)


def test_where_each_seat_pays_its_own_count_the_melds_go_down() -> None:
    game = position(6, LOOSE, {"scoring_mode": "low_score_wins"})
    assert isinstance(choice(game), Meld)


class Watched:
    """An expert seat that remembers how many worlds each of its discards searched."""

    name = "watched"
    needs_view = True

    def __init__(self) -> None:
        self.bot = ExpertBot(ExpertParams(budget_ms=None, max_worlds=12), random.Random(2))
        self.worlds: list[int] = []

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        action = self.bot.choose(view, legal)
        if isinstance(action, Discard):
            self.worlds.append(self.bot.last_worlds)
        return action


def test_from_three_seats_the_expert_discards_as_the_strong_bot() -> None:
    # Beside the hold the sampled feed of the discard lost (docs/bots.md): the expert's
    # discards there are the strong bot's, with no world searched.
    worlds: list[int] = []
    for seed in range(3):
        watched = Watched()
        game = new_game("basic", players=4, first_dealer=3)
        play_game(game, [watched, StrongBot(), StrongBot(), StrongBot()],
                  random.Random(seed), max_hands=1)
        worlds += watched.worlds
    assert len(worlds) >= 5 and not any(worlds)
