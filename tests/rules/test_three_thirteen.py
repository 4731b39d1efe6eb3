"""Three Thirteen (docs/rules.md 5): last turns, ties and the round structure."""

import pytest
from rig import card, deal

from rummyhall.rules import (
    CannotGoOut,
    Discard,
    DrawStock,
    GameOver,
    GoOut,
    HandScored,
    OptionError,
    Phase,
    ThreeThirteen,
    new_game,
)


def thirteen(players: int, dealer: int = 0, **options: object) -> ThreeThirteen:
    game = new_game("three_thirteen", options, players=players, first_dealer=dealer)
    assert isinstance(game, ThreeThirteen)
    return game


@pytest.mark.parametrize(("players", "decks", "stock_r11"), [(2, 1, 25), (4, 2, 51), (5, 3, 90)])
def test_decks_and_stock_sizes(players: int, decks: int, stock_r11: int) -> None:
    game = thirteen(players)
    assert game.decks() == decks
    game.round = 11
    deal(game, {}, "Kd")
    assert len(game.stock) == stock_r11 and all(len(h) == 13 for h in game.hands)
    assert game.meld_rules.wild_rank == 13


def test_rounds_deal_three_to_thirteen_with_their_wild_rank() -> None:
    game = thirteen(2)
    for r in range(1, 12):
        game.round = r
        assert game.hand_size() == r + 2
        assert game.hand_meld_rules().wild_rank == r + 2


def test_too_few_cards_are_refused() -> None:
    with pytest.raises(OptionError, match="decks"):
        thirteen(8, decks=1)


def test_going_out_and_last_turns() -> None:
    game = thirteen(4, dealer=0)
    game.round = 5  # 7 cards, sevens wild
    deal(game, {1: "4h 5h 6h 9c 9d 9s Kc"}, "Qd", stock="7c 2s 3s 4s")
    game.apply(DrawStock(1))  # draws the wild 7c
    with pytest.raises(CannotGoOut):
        game.apply(GoOut(1, card("9c")))
    events = game.apply(GoOut(1, card("Kc")))
    assert [e.kind for e in events] == ["discard", "go_out"]
    turns = []
    for _ in range(3):
        seat = game.turn
        assert seat is not None
        turns.append(seat)
        assert not any(isinstance(a, GoOut) for a in game.legal_actions())
        game.apply(DrawStock(seat))
        events = game.apply(Discard(seat, game.hands[seat][0]))
    assert turns == [2, 3, 0]
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.points[1] == 0 and result.hand_no == 1
    assert game.round == 6 and game.phase is Phase.DEAL and game.dealer == 1


def test_shared_win() -> None:
    game = thirteen(3, dealer=2)
    game.round = 11
    game.scores = [87, 60, 54]
    deal(game, {0: "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc",
                1: "Ad 2d 3d 5s 6s 7s 9h 9d 9s 2h 3h 4h 4c",
                2: "Ad 2d 3d 5s 6s 7s 9h 9d 9s 2h 3h 4h Qd"}, "Js", stock="5h 6h Td")
    game.apply(DrawStock(0))
    game.apply(GoOut(0, card("5h")))
    game.apply(DrawStock(1))
    game.apply(Discard(1, card("6h")))
    game.apply(DrawStock(2))
    events = game.apply(Discard(2, card("Td")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert list(result.points) == [0, 4, 10]
    assert isinstance(events[-1], GameOver) and events[-1].winners == (1, 2)
    assert game.scores == [87, 64, 64]


def test_deuces_arent_wild_plays_twelve_rounds_and_a_bonus_round_on_a_tie() -> None:
    game = thirteen(2, dealer=1, deuces_arent_wild=True)
    assert game.last_round == 12 and len(game.deck()) == 54
    game.round = 12
    assert game.hand_size() == 14 and game.hand_meld_rules().wild_rank == 1
    with pytest.raises(OptionError):
        thirteen(4, deuces_arent_wild=True)


def test_deuces_tie_after_round_12_is_settled_by_a_bonus_round() -> None:
    game = thirteen(2, dealer=1, deuces_arent_wild=True)
    game.round = 12  # 14 cards, aces wild
    game.scores = [50, 50]
    deal(game, {0: "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d 3d",
                1: "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh 2s 3s"}, "Js", stock="4d 4s")
    game.apply(DrawStock(0))
    game.apply(GoOut(0, card("Kc")))
    game.apply(DrawStock(1))
    events = game.apply(Discard(1, card("Kh")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "round" and result.points == (0, 0)
    assert not game.is_over and game.round == 13 and game.active == [True, True]
    # the bonus round: 14 cards, aces wild; seat 1 goes out, seat 0 keeps 5 points
    assert game.hand_size() == 14 and game.dealer == 0
    deal(game, {1: "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d 3d",
                0: "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh 2s 5s"}, "Js", stock="4d 9d")
    game.apply(DrawStock(1))
    game.apply(GoOut(1, card("Kc")))
    game.apply(DrawStock(0))
    events = game.apply(Discard(0, card("9d")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "bonus" and result.points == (0, 0)
    assert isinstance(events[-1], GameOver) and events[-1].winners == (1,)
    assert game.scores == [50, 50]
