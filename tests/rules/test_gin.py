"""Gin Rummy (docs/rules.md 3): knocks, layoffs, undercuts, gin, the first turn, dead hands."""

import pytest
from rig import card, cards, deal, poke

from rummyhall.rules import (
    CannotGoOut,
    CardNotHeld,
    Discard,
    DrawDiscard,
    DrawStock,
    GameOver,
    GinRummy,
    HandScored,
    IllegalDiscard,
    IllegalDraw,
    InvalidMeld,
    Knock,
    PassUpcard,
    Phase,
    Showdown,
    WrongPhase,
    new_game,
)


def gin(dealer: int = 1, **options: object) -> GinRummy:
    game = new_game("gin", options, players=2, first_dealer=dealer)
    assert isinstance(game, GinRummy)
    return game


def knock_scenario(knocker: str, discard: str, defender: str, **options: object
                   ) -> tuple[HandScored, Showdown, GinRummy]:
    """Seat 0 holds ``knocker`` plus ``discard`` and knocks discarding it; seat 1 defends."""
    game = new_game("gin", options, players=2, first_dealer=1)
    assert isinstance(game, GinRummy)
    deal(game, {}, "Kd")
    poke(game, hands={0: f"{knocker} {discard}", 1: defender}, stock="2h 3h 4h 5h",
         discard="Qd", turn=0)
    events = game.apply(Knock(0, card(discard)))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    (show,) = [e for e in events if isinstance(e, Showdown)]
    return result, show, game


def test_knock_with_layoffs() -> None:
    result, show, game = knock_scenario("2c 3c 4c 9h 9s 9d Js Qs Ks 5d", "Kc",
                                        "5c 6c 9c Ts 7h 7s 7d 4d 4h 8d")
    knocker, defender = show.reveals
    assert knocker.points == 5 and defender.points == 16
    assert sorted(str(c) for c, _ in defender.layoffs) == ["5c", "6c", "9c", "Ts"]
    assert result.outcome == "knock" and list(result.points) == [11, 0]
    assert game.discard[-1] == card("Kc")


@pytest.mark.parametrize(("bonus", "points"), [(25, 34), (20, 29), (10, 19)])
def test_undercut_by_laying_off_everything(bonus: int, points: int) -> None:
    result, show, _ = knock_scenario("Ac 2c 3c 8h 8s 8d 4h 5h 6h 9s", "Kc",
                                     "Jc Jd Jh 5s 6s 7s 2d 3d 4d 7h", undercut_bonus=bonus)
    assert show.reveals[1].points == 0
    assert result.outcome == "undercut" and list(result.points) == [0, points]


@pytest.mark.parametrize(("on_tie", "outcome", "points"), [(True, "undercut", [0, 25]),
                                                           (False, "tie", [0, 0])])
def test_tie(on_tie: bool, outcome: str, points: list[int]) -> None:
    result, show, _ = knock_scenario("2c 3c 4c 9h 9s 9d Js Qs Ks 8d", "Kc",
                                     "5h 5s 5d Th Jh Qh 2s 3s 4s 8h", undercut_on_tie=on_tie)
    assert show.reveals[0].points == show.reveals[1].points == 8
    assert (result.outcome, list(result.points)) == (outcome, points)


@pytest.mark.parametrize(("layoff", "points"), [(False, 49), (True, 45)])
def test_gin(layoff: bool, points: int) -> None:
    result, _, _ = knock_scenario("As 2s 3s 4d 4c 4h 7c 8c 9c Tc", "Kc",
                                     "Jh Qh Kh 5h 5s 5d 4s 2d 8d Qc", layoff_on_gin=layoff)
    assert result.outcome == "gin" and list(result.points) == [points, 0]


def test_first_turn_dealer_takes_the_upcard() -> None:
    game = gin(dealer=1)
    deal(game, {0: "2c 3c 9h 9s Jd Qd Kd 4s 6s 8h", 1: "7d 7h 5c 5d Ac 2d 3h Th Jh Qs"}, "7c",
         stock="Ks 2s")
    assert game.phase is Phase.UPCARD and game.turn == 0
    assert {a.kind for a in game.legal_actions()} == {"draw_discard", "pass"}
    with pytest.raises(WrongPhase):
        game.apply(DrawStock(0))
    game.apply(PassUpcard(0))
    assert game.turn == 1
    game.apply(DrawDiscard(1))
    with pytest.raises(IllegalDiscard):
        game.apply(Discard(1, card("7c")))
    game.apply(Discard(1, card("Qs")))
    assert (game.turn, game.phase) == (0, Phase.DRAW)
    assert {a.kind for a in game.legal_actions()} == {"draw_stock", "draw_discard"}


def test_both_pass_non_dealer_must_draw_from_stock() -> None:
    game = gin(dealer=1)
    deal(game, {}, "7c", stock="Ks")
    game.apply(PassUpcard(0))
    game.apply(PassUpcard(1))
    assert game.turn == 0 and [a.kind for a in game.legal_actions()] == ["draw_stock"]
    with pytest.raises(IllegalDraw):
        game.apply(DrawDiscard(0))
    game.apply(DrawStock(0))
    assert game.hands[0][-1] == card("Ks")


def test_dead_hand_and_the_last_chance_to_knock() -> None:
    game = gin(dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "2c 3c 4c 9h 9s 9d Js Qs 5d 6h", 1: "Ac 5s 7d 8h Tc Jd Qc Kh 2d 3s"},
         stock="Ks 4h 4s", discard="Qd", turn=0, phase="draw")
    game.apply(DrawStock(0))  # leaves 2 cards in the stock: knocking is still allowed
    assert game.can(Knock(0, card("6h")))
    events = game.apply(Discard(0, card("6h")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "dead" and result.points == (0, 0)
    assert game.phase is Phase.DEAL and game.dealer == 1 and game.results == []


KEPT_BY_DEADWOOD = {
    0: "2c 3c 4c 9h 9s 9d Ts Js Qs Ks",
    1: "2c 3c 4c 9h 9s 9d Js Qs Ks Ad",
    10: "2c 3c 4c 9h 9s 9d Js Qs Ks Td",
    11: "2c 3c 4c 9h 9s 9d As 2h 3d 5s",
}


@pytest.mark.parametrize(("limit", "deadwood", "allowed"), [(10, 10, True), (10, 11, False),
                                                            (0, 1, False), (0, 0, True)])
def test_knock_legality(limit: int, deadwood: int, allowed: bool) -> None:
    game = gin(knock_limit=limit)
    deal(game, {}, "Kd")
    poke(game, hands={0: f"{KEPT_BY_DEADWOOD[deadwood]} 8h", 1: "Ac"}, stock="2h 3h 4h",
         discard="Qd")
    assert game.can(Knock(0, card("8h"))) is allowed
    assert (Knock(0, card("8h")) in game.legal_actions()) is allowed
    if not allowed:
        with pytest.raises(CannotGoOut):
            game.apply(Knock(0, card("8h")))


def test_game_end_and_bonuses() -> None:
    game = gin(game_bonus=100, box_bonus=20, shutout_bonus=100)
    deal(game, {}, "Kd")
    game.scores = [90, 0]
    game.results.append(HandScored(0, "knock", (0,), (90, 0), (90, 0), ()))
    poke(game, hands={0: "2c 3c 4c 9h 9s 9d Js Qs Ks 5d Kc", 1: "5c 6c 9c Ts 7h 7s 7d 4d 4h 8d"},
         stock="2h 3h 4h", discard="Qd")
    events = game.apply(Knock(0, card("Kc")))
    assert isinstance(events[-1], GameOver) and events[-1].winners == (0,)
    assert game.scores == [90 + 11 + 100 + 100 + 2 * 20, 0]


@pytest.mark.parametrize(("rule", "expected"), [("loser", 1), ("winner", 0), ("alternate", 0)])
def test_next_dealer(rule: str, expected: int) -> None:
    game = gin(dealer=1, next_dealer=rule)
    deal(game, {}, "Kd")
    poke(game, hands={0: "2c 3c 4c 9h 9s 9d Js Qs Ks 5d Kc", 1: "5c 6c 9c Ts 7h 7s 7d 4d 4h 8d"},
         stock="2h 3h 4h", discard="Qd")
    game.apply(Knock(0, card("Kc")))  # seat 0 wins the hand; seat 1 dealt it
    assert game.dealer == expected


# -- the knocker's own arrangement (docs/rules.md, "Gin Rummy: the showdown")

SQUARE = "3c 4c 5c 3d 4d 5d 3h 4h 5h 2s"
SQUARE_DEFENDER = "5s 2c Ac Ks Qh Jd 9h 8s Td Kc"


def own_knock(knocker: str, discard: str, defender: str, melds: list[str],
              **options: object) -> tuple[HandScored, Showdown]:
    game = new_game("gin", options, players=2, first_dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: f"{knocker} {discard}", 1: defender}, stock="2h 3h 4h 5h",
         discard="Qd", turn=0)
    events = game.apply(Knock(0, card(discard), tuple(cards(m) for m in melds)))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    (show,) = [e for e in events if isinstance(e, Showdown)]
    return result, show


def test_without_melds_the_server_lays_the_fewest_layoffs() -> None:
    result, show, _ = knock_scenario(SQUARE, "Kh", SQUARE_DEFENDER)
    assert [str(c) for c, _ in show.reveals[1].layoffs] == ["5s"]
    assert list(result.points) == [68, 0]


def test_the_knocker_lays_his_runs_and_the_defender_lays_off_on_them() -> None:
    result, show = own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["3c 4c 5c", "3d 4d 5d", "3h 4h 5h"])
    knocker, defender = show.reveals
    assert [" ".join(map(str, m)) for m in knocker.melds] == ["3c 4c 5c", "3d 4d 5d", "3h 4h 5h"]
    assert sorted(str(c) for c, _ in defender.layoffs) == ["2c", "Ac"]
    assert {i for _, i in defender.layoffs} == {0}
    assert result.outcome == "knock" and list(result.points) == [70, 0]


def test_a_worse_arrangement_within_the_limit_is_his_to_choose() -> None:
    # All ten cards meld (gin), but he lays 3c 4c 5c and keeps 2c as deadwood: a knock.
    result, show = own_knock("2c 3c 4c 5c 9h 9s 9d Js Qs Ks", "Kc",
                             "Ac 5h 6h 8d 8h 2d 7s 6d 4s Td", ["3c 4c 5c", "9h 9s 9d", "Js Qs Ks"])
    assert show.reveals[0].points == 2 and [str(c) for c in show.reveals[0].deadwood] == ["2c"]
    assert result.outcome == "knock" and list(result.points) == [55, 0]
    result, show = own_knock("2c 3c 4c 5c 9h 9s 9d Js Qs Ks", "Kc",
                             "Ac 5h 6h 8d 8h 2d 7s 6d 4s Td",
                             ["2c 3c 4c 5c", "9h 9s 9d", "Js Qs Ks"])
    assert result.outcome == "gin" and list(result.points) == [25 + 57, 0]


def test_chosen_melds_must_be_valid_held_and_distinct() -> None:
    with pytest.raises(CannotGoOut, match="with those melds"):
        own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["4c 4d 4h", "5c 5d 5h"])  # 3c 3d 3h 2s: 11
    with pytest.raises(InvalidMeld):
        own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["3c 4c 5d", "3h 4h 5h", "3d 4d 5c"])
    with pytest.raises(InvalidMeld, match="two melds"):
        own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["3c 4c 5c", "3c 3d 3h"])
    with pytest.raises(CardNotHeld):  # the knock card is discarded, not kept
        own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["3h 4h 5h Kh"])
    with pytest.raises(CardNotHeld):
        own_knock(SQUARE, "Kh", SQUARE_DEFENDER, ["3s 3c 3d"])


def test_legal_actions_list_knocks_without_melds() -> None:
    game = new_game("gin", {}, players=2, first_dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: f"{SQUARE} Kh", 1: SQUARE_DEFENDER}, stock="2h 3h 4h 5h",
         discard="Qd", turn=0)
    knocks = [a for a in game.legal_actions() if isinstance(a, Knock)]
    assert knocks and all(a.melds is None for a in knocks)


def test_chicago_refuses_named_melds() -> None:
    game = new_game("chicago", {}, players=2, first_dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "4s 5s 2h 8c 8d 8h 3d Kc", 1: "7h 7s 7c Jd Qd Kd Ac"},
         stock="2c 3c 4c 5c", discard="Qh", turn=0)
    with pytest.raises(InvalidMeld, match="without naming melds"):
        game.apply(Knock(0, card("Kc"), (cards("8c 8d 8h"),)))
    assert game.can(Knock(0, card("Kc")))


def test_a_knock_over_the_limit_with_chosen_melds_is_refused() -> None:
    game = new_game("gin", {}, players=2, first_dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "2c 3c 4c 9h 9s 9d Js Qs Ks 5d Kc", 1: SQUARE_DEFENDER},
         stock="2h 3h 4h 5h", discard="Qd", turn=0)
    before = game.hands[0][:]
    with pytest.raises(CannotGoOut):
        game.apply(Knock(0, card("Kc"), (cards("2c 3c 4c"), cards("9h 9s 9d"))))
    assert game.hands[0] == before and game.phase is Phase.PLAY
