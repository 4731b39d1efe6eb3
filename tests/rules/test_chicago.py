"""Chicago Rummy (docs/rules.md 4): knock limits, penalties, rummy, elimination, seven 2s."""

import random
from collections.abc import Sequence

import pytest
from rig import card, deal, poke

from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    CannotGoOut,
    ChicagoRummy,
    DeclareRummy,
    DrawStock,
    Eliminated,
    GameOver,
    HandScored,
    Knock,
    new_game,
    variants,
)
from rummyhall.rules.melds import MeldRules
from rummyhall.rules.solver import deadwood_at_most, deadwood_points


def chicago(players: int, dealer: int = 0, **options: object) -> ChicagoRummy:
    game = new_game("chicago", options, players=players, first_dealer=dealer)
    assert isinstance(game, ChicagoRummy)
    return game


@pytest.mark.parametrize(("score", "limit"), [(0, 9), (91, 9), (92, 8), (95, 5), (99, 1),
                                              (100, 0)])
def test_knock_table(score: int, limit: int) -> None:
    assert chicago(2).knock_limit(score) == limit


def test_a_player_at_95_knocks_with_5_not_6() -> None:
    game = chicago(2, dealer=1)
    game.scores = [95, 0]
    deal(game, {}, "Kd")
    assert game.knock_limits == [5, 9]
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 5d Kc", 1: "Ac"}, stock="Qs Qh")
    assert game.can(Knock(0, card("Kc")))
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 6d Kc", 1: "Ac"}, stock="Qs Qh")
    assert not game.can(Knock(0, card("Kc")))


def c3(b_hand: str, **options: object) -> tuple[HandScored, ChicagoRummy]:
    game = chicago(3, dealer=2, **options)
    game.scores = [40, 95, 20]
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 2h 8c 8d 8h 3d Kc", 1: b_hand, 2: "Ks Kh 2c 9h Th 6c 4h"},
         stock="Qs Qh")
    events = game.apply(Knock(0, card("Kc")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    return result, game


def test_knocker_not_lowest_pays_the_penalty() -> None:
    result, game = c3("7h 7s 7c Jd Qd Kd Ac")
    assert result.outcome == "knock"
    assert list(result.totals) == [58, 96, 49]
    assert game.hand_knock_limits() == [9, 4, 9]


@pytest.mark.parametrize(("b_hand", "options", "totals"), [
    ("7h 7s 7c Jd Qd Kd 3c", {}, [58, 98, 49]),
    ("7h 7s 7c Jd Qd Kd 3c", {"knock_penalty_on_tie": False}, [43, 98, 49]),
    ("7h 7s 7c Jd Qd Kd 4c", {}, [43, 99, 49]),
])
def test_variants(b_hand: str, options: dict[str, object], totals: list[int]) -> None:
    result, _ = c3(b_hand, **options)
    assert list(result.totals) == totals


def test_rummy_never_pays_a_penalty() -> None:
    game = chicago(2, dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 8s Kc", 1: "7h 7s 7c Jd Qd Kd 2s"}, stock="Qs")
    events = game.apply(Knock(0, card("Kc")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "rummy" and list(result.points) == [0, 0]


def test_rummy_at_the_start_of_the_turn() -> None:
    game = chicago(2, dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 8s", 1: "7h 7s 7c Jd Qd 2s 5c"}, stock="Qs",
         phase="draw")
    assert DeclareRummy(0) in game.legal_actions()
    events = game.apply(DeclareRummy(0))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "rummy" and list(result.points) == [0, 5]


def test_rummy_timing_after_discard_forbids_the_start_of_turn_call() -> None:
    game = chicago(2, dealer=1, rummy_timing="after_discard")
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 8s", 1: "Ac"}, stock="Qs", phase="draw")
    assert not game.can(DeclareRummy(0))
    with pytest.raises(CannotGoOut):
        game.apply(DeclareRummy(0))
    game.apply(DrawStock(0))


def test_elimination() -> None:
    for at_equal, out in [(False, (0,)), (True, (0, 1))]:
        game = chicago(3, dealer=2, eliminate_at_equal=at_equal)
        game.scores = [97, 96, 0]
        deal(game, {}, "Kd")
        poke(game, hands={0: "Js Qs Ks 9h 9d 9c 5d", 1: "Jh Qh Kh 9s 9c 9h 4c",
                          2: "3s 4s 5s 8c 8d 8h 9d Kc"}, stock="Qd", turn=2)
        events = game.apply(Knock(2, card("Kc")))
        elim = [e for e in events if isinstance(e, Eliminated)]
        assert game.scores[:2] == [102, 100]
        assert elim and elim[0].seats == out
        if not at_equal:
            assert game.hand_knock_limits()[1] == 0


def test_seven_twos_win_the_game() -> None:
    game = chicago(2, dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "2c 2d 2h 2s 2c 2d 2h Kc", 1: "Ac"}, stock="Qs")
    events = game.apply(Knock(0, card("Kc")))
    assert isinstance(events[-1], GameOver) and events[-1].winners == (0,)


def test_last_player_standing() -> None:
    game = chicago(2, dealer=1)
    game.scores = [90, 85]
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 6s 8c 8d 8h 9d Kc", 1: "7h 7s 7c 7d 7h Ah As"}, stock="Qs")
    events = game.apply(Knock(0, card("Kc")))
    assert game.scores == [90 + 9 + 15, 85 + 2]
    assert isinstance(events[-1], GameOver) and events[-1].winners == (1,)


def test_both_eliminated_lowest_total_wins() -> None:
    game = chicago(2, dealer=1)
    game.scores = [98, 99]
    deal(game, {}, "Kd")
    assert game.knock_limits == [2, 1]
    poke(game, hands={0: "4s 5s 6s 7s 8s Ah Ac Kc", 1: "7h 7s 7c 7d 7h Ah As"}, stock="Qs")
    events = game.apply(Knock(0, card("Kc")))
    assert game.scores == [115, 101]
    assert [e.seats for e in events if isinstance(e, Eliminated)] == [(0, 1)]
    assert isinstance(events[-1], GameOver) and events[-1].winners == (1,)


@pytest.mark.skipif(not str(variants.__file__).endswith(".py"),
                    reason="the compiled build calls the solver directly: no patch reaches it")
def test_the_start_of_turn_rummy_check_reuses_the_last_play(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The hand at the start of a turn is the one kept after the last discard: when that
    # discard was not listed as keeping a count within reach, the hand is not rummy and
    # the solver is not asked again. The listed rummy stays exactly the solver's answer.
    calls = 0
    real = deadwood_at_most

    def counted(cards: Sequence[int], rules: MeldRules, limit: int) -> bool:
        nonlocal calls
        calls += 1
        return real(cards, rules, limit)

    monkeypatch.setattr(variants, "deadwood_at_most", counted)
    rng = random.Random(5)
    draws = 0
    for _ in range(40):
        game = chicago(4)
        game.apply(shuffle_for(game, rng))
        while game.phase != "deal" and not game.is_over:
            if game.to_move is None:
                game.apply(shuffle_for(game, rng))
                continue
            legal = game.legal_actions()
            if game.phase == "draw":
                draws += 1
                seat = game.to_move
                rummy = deadwood_points(game.hands[seat], game.meld_rules) == 0
                assert (DeclareRummy(seat) in legal) == rummy
            game.apply(rng.choice(legal))
    assert draws > 1000
    assert calls < draws // 5  # (182 of 2131): first turns, and after a knock listed
