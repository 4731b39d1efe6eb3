"""The strong bot's hold in Basic Rummy (docs/bot-design.md, "How the strong bot decides").

From three seats, when the hand's winner collects, the strong bot keeps its melds in
hand until its turn can empty the hand, and then goes out in that one turn (rummy).
With two seats it holds while the opponent is not close to going out; when each seat
pays its own count, the older rule stands: it holds only with few loose cards left.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from rummyhall.bots import ExpertBot, ExpertParams, StrongBot, StrongParams
from rummyhall.bots.selfplay import play_game
from rummyhall.bots.strong_bot import StrongTurn
from rummyhall.bots.tracking import Tracker
from rummyhall.rules import (
    BasicRummy,
    Discard,
    Game,
    Meld,
    Phase,
    SeatAction,
    SeatView,
    Shuffle,
    TableMeld,
    meld_rules_for,
    new_game,
    parse_cards,
    seat_view,
)

LOOSE = "7h 8h 9h Kc Qd 4s 2c"  # a run, four loose cards: no way out this turn
OUT = "7h 8h 9h Kc Kd Ks 4s"  # two melds and a card to discard: out this turn


def position(players: int, hand: str, options: Mapping[str, object] | None = None, *,
             table: Sequence[str] = ()) -> Game:
    """Seat 0 has drawn and holds ``hand``; the other seats hold dealt hands of the
    deal's size, fixed; ``table`` are melds seat 1 laid (none by default)."""
    game = new_game("basic", dict(options or {}), players=players, first_dealer=players - 1)
    order = list(game.shuffle_cards())
    random.Random(5).shuffle(order)
    game.apply(Shuffle(tuple(order)))
    size = len(game.hands[1])
    mine = parse_cards(hand)
    laid = [parse_cards(m) for m in table]
    used = set(mine) | {c for m in laid for c in m}
    rest = [c for c in order if c not in used]
    if laid:
        assert isinstance(game, BasicRummy)
        game.melds = [TableMeld(1, m) for m in laid]
        game.melded_before[1] = True
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


def play_turn(game: Game) -> list[str]:
    """Seat 0's strong bot plays out its turn; the kinds of its actions."""
    bot, kinds = StrongBot(), []
    for _ in range(12):
        action = bot.choose(seat_view(game, 0), game.legal_actions())
        kinds.append(type(action).__name__)
        game.apply(action)
        if game.phase is not Phase.PLAY or game.turn != 0:
            break
    return kinds


def went_rummy(game: Game, owed: int) -> bool:
    return not game.hands[0] and game.scores[0] == 2 * owed  # going rummy: doubled


def owed_to(game: Game) -> int:
    return sum(meld_rules_for("basic").points(c) for h in game.hands[1:] for c in h)


@pytest.mark.parametrize("players", [2, 6])
def test_with_a_way_out_it_melds_everything_in_one_turn(players: int) -> None:
    game = position(players, OUT if players > 2 else "7h 8h 9h Th Kc Kd Ks 5h 5d 5s Jc")
    owed = owed_to(game)
    play_turn(game)
    assert went_rummy(game, owed)


@pytest.mark.parametrize(("hand", "options", "table", "kinds"), [
    # Every card melds, but the last must be discarded: the run gives up its top card.
    ("7h 8h 9h Th Jh Kc Kd Ks", {"must_discard_to_go_out": True}, (),
     ["Meld", "Meld", "Discard"]),
    # The nines go on the table's runs, which leaves two melds: not the set of nines.
    ("7h 8h 9h 9c 9d Kc Kd Ks", {}, ("6c 7c 8c", "6d 7d 8d"),
     ["LayOff", "LayOff", "Meld", "Meld"]),
])
def test_the_going_out_turn_follows_its_plan(hand: str, options: dict[str, object],
                                             table: tuple[str, ...], kinds: list[str]) -> None:
    game = position(4, hand, options, table=table)
    owed = owed_to(game)
    assert play_turn(game) == kinds
    assert went_rummy(game, owed)


def test_one_meld_a_turn_never_plans_two() -> None:
    game = position(6, OUT, {"one_meld_per_turn": True})
    turn = StrongTurn(StrongBot(), seat_view(game, 0), game.legal_actions(),
                      Tracker().observe(seat_view(game, 0)))
    assert turn.out_plan() is None
    one = position(6, "7h 8h 9h Th 4s", {"one_meld_per_turn": True})
    owed = owed_to(one)
    assert play_turn(one) == ["Meld", "Discard"] and went_rummy(one, owed)


def test_the_card_just_taken_is_not_thrown_back() -> None:
    # With the taken-card rule off the Kd, just taken, is the dearest loose card; the bot
    # throws another (throwing the Kd back is a pass that cost the draw; two seats doing
    # so to each other, each holding its melds, would never end the hand).
    game = position(3, "2c 3c 4c 9s Kd 5h", {"forbid_discarding_taken_card": False})
    game.taken = parse_cards("Kd")[0]
    thrown = choice(game)
    assert isinstance(thrown, Discard) and thrown.card != game.taken


def test_two_seats_hold_for_rummy_whatever_the_loose_cards() -> None:
    # A run and eight loose cards, the opponent far from going out: the run stays in hand
    # (rummy_hold_two 9; with the earlier 6 it went down).
    game = position(2, f"{LOOSE} Jd 5c 6s Ts")
    assert isinstance(choice(game), Discard)
    assert isinstance(choice(game, StrongParams(rummy_hold_two=6)), Meld)
    # A run, a set and five loose cards: held; with the first number, 2, they went down.
    game = position(2, "7h 8h 9h Kc Kd Ks 4s 2c Jd 5c 6s")
    assert isinstance(choice(game), Discard)
    assert isinstance(choice(game, StrongParams(rummy_hold_two=2)), Meld)
    # Where each seat pays its own count the older number stands.
    low = position(2, "7h 8h 9h Kc Kd Ks 4s 2c Jd 5c 6s", {"scoring_mode": "low_score_wins"})
    assert isinstance(choice(low), Meld)


def test_two_seats_bank_the_melds_when_the_opponent_is_close_to_going_out() -> None:
    game = position(2, f"{LOOSE} Jd 5c 6s Ts")
    assert isinstance(choice(game), Discard)
    extra = game.hands[1][4:]
    game.hands[1] = game.hands[1][:4]  # four cards left: it may go out next turn
    game.stock = extra + game.stock
    assert isinstance(choice(game), Meld)


@pytest.mark.parametrize("options", [{"scoring_mode": "low_score_wins"},
                                     {"layoff_requires_own_meld": True},
                                     {"one_meld_per_turn": True}])
def test_where_the_hold_does_not_pay_the_melds_go_down(options: dict[str, object]) -> None:
    # Each seat paying its own count, the count held is ours to pay; with layoffs only
    # after a meld of our own, a bare hand cannot use the table; with one meld a turn, a
    # hand of two melds could never go out in one (each measured: losses).
    game = position(6, LOOSE, options)
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
    # Beside the hold the sampled feed of the discard lost (docs/bot-design.md): the expert's
    # discards there are the strong bot's, with no world searched.
    worlds: list[int] = []
    for seed in range(3):
        watched = Watched()
        game = new_game("basic", players=4, first_dealer=3)
        play_game(game, [watched, StrongBot(), StrongBot(), StrongBot()],
                  random.Random(seed), max_hands=1)
        worlds += watched.worlds
    assert len(worlds) >= 5 and not any(worlds)
