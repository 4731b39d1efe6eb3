"""Basic Rummy (docs/rules.md 2): deal, layoffs, scoring, going rummy, exhaustion, game end."""

import itertools
import random

import pytest
from rig import card, cards, deal, poke

from rummyhall.rules import (
    BasicRummy,
    CardNotHeld,
    Discard,
    DrawDiscard,
    DrawStock,
    GameOver,
    HandScored,
    IllegalDiscard,
    InvalidMeld,
    LayOff,
    Meld,
    NotYourTurn,
    Phase,
    SeatAction,
    Shuffle,
    StockRebuilt,
    TableMeld,
    WrongPhase,
    new_game,
)


def basic(players: int = 2, dealer: int = 0, **options: object) -> BasicRummy:
    game = new_game("basic", options, players=players, first_dealer=dealer)
    assert isinstance(game, BasicRummy)
    return game


@pytest.mark.parametrize(("players", "each", "stock"), [(2, 10, 31), (3, 7, 30), (4, 7, 23),
                                                        (5, 6, 21), (6, 6, 15)])
def test_deal(players: int, each: int, stock: int) -> None:
    game = basic(players)
    deal(game, {}, "Kd")
    assert [len(h) for h in game.hands] == [each] * players
    assert len(game.stock) == stock and game.discard == [card("Kd")]
    assert game.turn == 1 and game.phase is Phase.DRAW  # left of the dealer plays first


def test_meld_then_layoff_on_another_players_meld() -> None:
    game = basic(dealer=1)
    deal(game, {0: "8c 8d 8s 2c 4c 6c 9d Jd Ks Ah", 1: "8h 9h 2d 4d 6d 3s 5s 7s Qh Qs"}, "Kh",
         stock="2s 3h")
    game.apply(DrawStock(0))
    game.apply(Meld(0, cards("8c 8d 8s")))
    game.apply(Discard(0, card("Ks")))
    game.apply(DrawStock(1))
    with pytest.raises(InvalidMeld, match="cannot be laid off"):
        game.apply(LayOff(1, cards("9h"), 0))
    events = game.apply(LayOff(1, cards("8h"), 0))
    assert [str(c) for c in game.melds[0].cards] == ["8c", "8d", "8h", "8s"]
    assert events[0].kind == "layoff"
    with pytest.raises(InvalidMeld):  # a set of four takes nothing more
        game.apply(LayOff(1, cards("9h"), 0))


def test_refusals_leave_the_state_unchanged() -> None:
    game = basic(dealer=1)
    deal(game, {0: "8c 8d 8s 2c 4c 6c 9d Jd Ks Ah"}, "Kh")
    before = (game.move_number, [list(h) for h in game.hands], list(game.stock))
    refused: list[tuple[SeatAction, type[Exception]]] = [
        (DrawStock(1), NotYourTurn), (Discard(0, card("2c")), WrongPhase),
        (Meld(0, cards("8c 8d 8s")), WrongPhase)]
    for action, error in refused:
        with pytest.raises(error):
            game.apply(action)
        assert not game.can(action)
    game.apply(DrawDiscard(0))
    with pytest.raises(IllegalDiscard):
        game.apply(Discard(0, card("Kh")))
    with pytest.raises(CardNotHeld):
        game.apply(Discard(0, card("Qh")))
    with pytest.raises(InvalidMeld):
        game.apply(Meld(0, cards("2c 4c 6c")))
    assert game.hands[0][-1] == card("Kh") and game.phase is Phase.PLAY
    assert before[0] + 1 == game.move_number


def _go_out_scenario(game: BasicRummy, *, rummy: bool) -> list[HandScored]:
    """P1 (seat 0) goes out; P2 holds Ks 7d Ac, P3 holds 5h 5c 9s 2d."""
    deal(game, {}, "Kd")
    poke(game, hands={0: "9h Th", 1: "Ks 7d Ac", 2: "5h 5c 9s 2d"}, stock="Jh",
         discard="3c", turn=0, phase="draw")
    game.melded_before[0] = not rummy
    game.apply(DrawStock(0))
    events = game.apply(Meld(0, cards("9h Th Jh")))
    return [e for e in events if isinstance(e, HandScored)]


@pytest.mark.parametrize(("options", "rummy", "points"), [
    ({}, False, [39, 0, 0]),
    ({}, True, [78, 0, 0]),
    ({"rummy_bonus": "plus_10"}, True, [49, 0, 0]),
    ({"rummy_bonus": "none"}, True, [39, 0, 0]),
    ({"ace_mode": "high_or_low"}, False, [53, 0, 0]),
    ({"ace_mode": "high_or_low"}, True, [106, 0, 0]),

    ({"scoring_mode": "low_score_wins"}, False, [0, 18, 21]),
    ({"scoring_mode": "low_score_wins"}, True, [0, 36, 42]),
    ({"scoring_mode": "low_score_wins", "rummy_bonus": "plus_10"}, True, [-10, 18, 21]),
])
def test_b5_scoring(options: dict[str, object], rummy: bool, points: list[int]) -> None:
    (result,) = _go_out_scenario(basic(3, dealer=2, **options), rummy=rummy)
    assert list(result.points) == points
    assert result.outcome == ("rummy" if rummy else "out")


def test_melds_never_laid_down_count_in_full() -> None:
    game = basic(3, dealer=2)
    deal(game, {}, "Kd")
    poke(game, hands={0: "9h Th", 1: "Ks 7d Ac", 2: "9s 9d 9c 2d"}, stock="Jh", discard="3c",
         turn=0, phase="draw")
    game.melded_before[0] = True
    game.apply(DrawStock(0))
    result = [e for e in game.apply(Meld(0, cards("9h Th Jh"))) if isinstance(e, HandScored)]
    assert result[0].points[0] == 18 + 29


def test_going_rummy_in_one_turn() -> None:
    game = basic(3, dealer=1)
    deal(game, {2: "7c 7d 7h 4s 5s 6s Kh", 0: "2c 3d 9h", 1: "Ac 2d"}, "Qd", stock="7s")
    game.apply(DrawStock(2))
    game.apply(Meld(2, cards("7c 7d 7h 7s")))
    game.apply(Meld(2, cards("4s 5s 6s")))
    events = game.apply(Discard(2, card("Kh")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "rummy" and result.winners == (2,)
    assert result.points[2] == 2 * sum(game.meld_rules.points(c) for s in (0, 1)
                                       for c in game.hands[s])


def test_a_player_who_laid_off_earlier_is_not_rummy() -> None:
    game = basic(2, dealer=1)
    deal(game, {0: "4h 5h 6h 2c 3d 8s 9s Jd Qc Kd", 1: "7h 2s 2h 3c 4d 5c 9c Tc Jc Qd"}, "Ks",
         stock="Ac Js")
    game.apply(DrawStock(0))
    game.apply(Meld(0, cards("4h 5h 6h")))
    game.apply(Discard(0, card("Kd")))
    game.apply(DrawStock(1))
    game.apply(LayOff(1, cards("7h"), 0))  # seat 1 plays a card in an earlier turn
    game.apply(Discard(1, card("Js")))
    # later, seat 1 goes out in one turn: not rummy, he played a card before
    poke(game, hands={1: "9c Tc"}, stock="Jc", discard="Kd", turn=1, phase="draw")
    game.apply(DrawStock(1))
    events = game.apply(Meld(1, cards("9c Tc Jc")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "out"


@pytest.mark.parametrize("must_discard", [False, True])
def test_must_discard_to_go_out(must_discard: bool) -> None:
    game = basic(2, dealer=1, must_discard_to_go_out=must_discard)
    deal(game, {}, "Kd")
    poke(game, hands={0: "9h", 1: "2c 3c"}, stock="Th", discard="Kd", turn=0, phase="draw")
    game.melds.append(TableMeld(1, cards("6h 7h 8h")))
    game.apply(DrawStock(0))
    if not must_discard:
        game.apply(LayOff(0, cards("9h"), 0))
        events = game.apply(LayOff(0, cards("Th"), 0))
        assert any(isinstance(e, HandScored) for e in events)
        return
    with pytest.raises(InvalidMeld, match="last card must be discarded"):
        game.apply(LayOff(0, cards("9h Th"), 0))
    game.apply(LayOff(0, cards("9h"), 0))
    with pytest.raises(InvalidMeld, match="last card must be discarded"):
        game.apply(LayOff(0, cards("Th"), 0))
    events = game.apply(Discard(0, card("Th")))
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.winners == (0,)


def test_the_card_taken_cannot_be_discarded() -> None:
    game = basic(2, dealer=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "Qc", 1: "2c 3c"}, stock="5h 6s", discard="9d", turn=0, phase="draw")
    game.apply(DrawDiscard(0))
    assert [str(a) for a in game.legal_actions()] == ["seat 0: discard Qc"]
    with pytest.raises(IllegalDiscard):
        game.apply(Discard(0, card("9d")))
    game.apply(Discard(0, card("Qc")))
    game.apply(DrawStock(1))
    game.apply(Discard(1, card("5h")))
    game.apply(DrawStock(0))
    assert game.can(Discard(0, card("9d")))


def test_stock_exhaustion_ends_the_hand() -> None:
    game = basic(3, dealer=2, stock_exhaustion_limit=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "Qc 2c Kd", 1: "Ks Th", 2: "Kc Qh Jd Ac"}, stock="", discard="3c",
         turn=0, phase="play")
    events = game.apply(Discard(0, card("Kd")))  # P1 keeps 12; P2 must draw from no stock
    (result,) = [e for e in events if isinstance(e, HandScored)]
    assert result.outcome == "exhausted"
    assert list(result.points) == [(20 - 12) + (31 - 12), 0, 0]


def test_ties_for_lowest_and_low_score_wins() -> None:
    game = basic(3, dealer=2, stock_exhaustion_limit=1)
    deal(game, {}, "Kd")
    poke(game, hands={0: "Qc 2c Kd", 1: "Ks 2h", 2: "Kc Qh Jd Ac"}, discard="3c", turn=0)
    (result,) = [e for e in game.apply(Discard(0, card("Kd"))) if isinstance(e, HandScored)]
    assert list(result.points) == [19, 19, 0]
    game = basic(3, dealer=2, stock_exhaustion_limit=1, scoring_mode="low_score_wins")
    deal(game, {}, "Kd")
    poke(game, hands={0: "Qc 2c Kd", 1: "Ks Th", 2: "Kc Qh Jd Ac"}, discard="3c", turn=0)
    (result,) = [e for e in game.apply(Discard(0, card("Kd"))) if isinstance(e, HandScored)]
    assert list(result.points) == [12, 20, 31]


@pytest.mark.parametrize("mode", ["shuffle", "turn_over"])
def test_rebuild(mode: str) -> None:
    game = basic(2, dealer=1, stock_rebuild=mode)
    deal(game, {}, "Kd")
    poke(game, hands={0: "Qc 2c", 1: "5s 6d"}, discard="3c 9d Ks", turn=0, phase="play")
    events = game.apply(Discard(0, card("Qc")))
    assert game.discard == [card("Qc")]
    if mode == "shuffle":
        assert game.phase is Phase.REBUILD and not events[1:]
        assert sorted(game.shuffle_cards()) == sorted(cards("3c 9d Ks"))
        events = game.apply(Shuffle(cards("Ks 3c 9d")))
        assert game.stock[-1] == card("Ks")
    else:
        assert list(reversed(game.stock)) == list(cards("3c 9d Ks"))
    assert isinstance(events[-1], StockRebuilt) and events[-1].exhaustions == 1
    assert game.exhaustions == 1 and game.phase is Phase.DRAW and game.turn == 1


def test_game_end() -> None:
    game = basic(2, dealer=1)
    deal(game, {}, "Kd")
    game.scores = [140, 90]
    poke(game, hands={0: "9h Th", 1: "2c Tc"}, stock="Jh", discard="3c", turn=0, phase="draw")
    game.melded_before[0] = True
    game.apply(DrawStock(0))
    events = game.apply(Meld(0, cards("9h Th Jh")))
    assert game.scores == [152, 90]
    assert isinstance(events[-1], GameOver) and events[-1].winners == (0,)
    assert game.is_over and game.legal_actions() == []


def test_low_score_wins_lowest_total_wins() -> None:
    game = basic(2, dealer=1, scoring_mode="low_score_wins", target_score=100)
    deal(game, {}, "Kd")
    game.scores = [40, 95]
    poke(game, hands={0: "9h Th", 1: "2c Tc"}, stock="Jh", discard="3c", turn=0, phase="draw")
    game.apply(DrawStock(0))
    events = game.apply(Meld(0, cards("9h Th Jh")))
    assert isinstance(events[-1], GameOver) and events[-1].winners == (0,)


def test_a_refusal_names_the_turn_first_then_the_phase_in_words() -> None:
    """Another seat's action is "not your turn" whatever it is; one's own action out of
    phase says what the phase wants; while the cards are dealt nobody is on turn."""
    game = basic(dealer=1)
    with pytest.raises(WrongPhase, match="not allowed now: the cards are being dealt"):
        game.apply(DrawStock(0))  # before the deal: no seat is on turn
    deal(game, {0: "8c 8d 8s 2c 4c 6c 9d Jd Ks Ah"}, "Kh")
    with pytest.raises(NotYourTurn):
        game.apply(Discard(1, card("Kh")))  # wrong seat and wrong phase: the seat first
    with pytest.raises(WrongPhase, match="discarding is not allowed now: draw first"):
        game.apply(Discard(0, card("2c")))


def test_the_legal_melds_are_every_meld_the_game_accepts() -> None:
    """Listed without running each through verify(): checked against every subset."""
    rng = random.Random(11)
    checked = 0
    for game_no in range(12):
        mode = ("low", "high_or_low", "round_the_corner")[game_no % 3]
        game = basic(ace_mode=mode, one_meld_per_turn=game_no % 4 == 0)
        seed_hand = {0: "Ah 2h 3h 4h Kh Qh 7c 7d 7s Jh"} if game_no % 2 else {}
        deal(game, seed_hand, "Kd", stock="Js 5h")
        for move in range(36):
            if game.to_move is None:
                break
            legal = game.legal_actions()
            if game.phase is Phase.PLAY and move % 4 < 2:
                seat = game.turn
                assert seat is not None
                hand = game.hands[seat]
                listed = [frozenset(a.cards) for a in legal if isinstance(a, Meld)]
                assert len(listed) == len(set(listed))
                accepted = {frozenset(combo) for size in range(3, len(hand) + 1)
                            for combo in itertools.combinations(hand, size)
                            if game.can(Meld(seat, combo))}
                assert set(listed) == accepted
                checked += bool(accepted)
            game.apply(rng.choice(legal))
    assert checked >= 8  # positions that had a meld to make


def _layoffs(game: BasicRummy) -> list[tuple[str, int]]:
    return [(str(a.cards[0]), a.meld) for a in game.legal_actions() if isinstance(a, LayOff)]


def test_layoffs_are_listed_on_every_meld_as_the_table_changes() -> None:
    """The legal layoffs look at every table meld, the last one too, and again once a
    layoff has changed the table (the targets are kept between turns)."""
    game = basic()
    deal(game, {}, "Kd")
    poke(game, hands={0: "5h 6h Kc Qd"}, discard="Kd")
    game.melds = [TableMeld(1, cards("8c 8d 8s")), TableMeld(1, cards("2h 3h 4h"))]
    assert _layoffs(game) == [("5h", 1)]
    game.apply(LayOff(0, cards("5h"), 1))
    assert _layoffs(game) == [("6h", 1)]
    game.melds.append(TableMeld(1, cards("Jc Qc Kc#1")))  # (a second deck's Kc: no matter)
    assert _layoffs(game) == [("6h", 1)]


@pytest.mark.parametrize("owner", [0, 1])
def test_own_meld_first_counts_any_meld_of_the_seat(owner: int) -> None:
    """With layoff_requires_own_meld, a seat that laid any meld lays off on every meld;
    one that laid none lays off nothing."""
    game = basic(layoff_requires_own_meld=True)
    deal(game, {}, "Kd")
    poke(game, hands={0: "8h 5h Kc Qd"}, discard="Kd")
    game.melds = [TableMeld(1, cards("8c 8d 8s")), TableMeld(owner, cards("2h 3h 4h"))]
    assert _layoffs(game) == ([("8h", 0), ("5h", 1)] if owner == 0 else [])
