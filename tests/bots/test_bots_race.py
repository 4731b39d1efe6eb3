"""The strong bot's race to end the hand (Chicago, Three Thirteen, Basic Rummy).

Worked positions where the strong bot now plays for the next draw's chance to end the
hand, and where the older policy (the race off: ``race_bonus*=0``) did not.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from rummyhall.bots import ExpertBot, ExpertParams, StrongBot, StrongParams
from rummyhall.bots.evaluation import HandEvaluator
from rummyhall.bots.strong_bot import StrongTurn, passed_at_most, prob_at_most
from rummyhall.bots.tracking import Tracker, unseen_faces
from rummyhall.rules import (
    Card,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    Knock,
    Phase,
    SeatAction,
    SeatView,
    Shuffle,
    ThreeThirteen,
    discard_deadwoods,
    new_game,
    parse_cards,
    seat_view,
    view_meld_rules,
)

NO_RACE = StrongParams(race_bonus=0.0, race_bonus_tt=0.0, race_bonus_basic=0.0)


def position(game_name: str, hand: str, pile: str, *, drawn: bool,
             theirs: str | None = None) -> tuple[Game, list[SeatAction]]:
    """A two-seat game where seat 0 is to draw (or has drawn) holding ``hand``, ``pile``
    the discard pile (top last); the other cards are dealt at random but fixed."""
    game = new_game(game_name, players=2, first_dealer=1)
    order = list(game.shuffle_cards())
    random.Random(3).shuffle(order)
    game.apply(Shuffle(tuple(order)))
    size = len(game.hands[1])
    mine, top = parse_cards(hand), parse_cards(pile)
    used = set(mine) | set(top)
    rest = [c for c in order if c not in used]
    other = list(parse_cards(theirs)) if theirs else rest[:size]
    rest = [c for c in rest if c not in other]
    game.hands = [list(mine), other]
    game.discard, game.stock = list(top), rest
    game.turn, game.taken = 0, None
    game.phase = Phase.PLAY if drawn else Phase.DRAW
    return game, game.legal_actions()


def test_chicago_takes_the_discard_that_lets_it_knock_at_once() -> None:
    # Ts Qs Ks and the wild 2d are a run; Ac Kd As is 12 points. The 5c on the pile lets
    # the Kd go: Ac As 5c, 7 points, a knock this turn. The stock's average saving is
    # larger than the 5 points the 5c saves, so the older rule drew from the stock.
    game, legal = position("chicago", "Ac 2d Kd As#1 Ts Qs#1 Ks#1", "6h 3h 5c", drawn=False)
    view = seat_view(game, 0)
    assert isinstance(StrongBot().choose(view, legal), DrawDiscard)
    assert isinstance(StrongBot(NO_RACE).choose(view, legal), DrawStock)


def test_chicago_keeps_the_pair_that_can_knock_on_the_next_draw() -> None:
    # 6c 6d 6s are a set; Tc Ad Kd Kh 4s are 35 points. Throwing a king (the older rule:
    # least deadwood, 25 points) leaves no draw that brings the hand within the knock
    # limit of 9. Keeping both kings and throwing the 4s (31 points) lets a king or a
    # wild 2 make a set of kings, the Tc goes and the Ad alone is a knock.
    game, legal = position("chicago", "6c Tc#1 Ad 6d Kd Kh#1 4s#1 6s", "5d#1 6d#1 7h#1",
                           drawn=True)
    view = seat_view(game, 0)
    race = StrongBot().choose(view, legal)
    old = StrongBot(NO_RACE).choose(view, legal)
    assert isinstance(race, Discard) and isinstance(old, Discard)
    assert race.card == Card.parse("4s#1") and old.card in parse_cards("Kd Kh#1")
    ev = HandEvaluator(view_meld_rules(view), unseen_faces(view, Tracker().observe(view)))
    limit = view.knock_limits[0]
    kings = ev.draw_chances([c for c in view.hand if c != race.card], limit)
    one_king = ev.draw_chances([c for c in view.hand if c != old.card], limit)
    assert kings[0] > 0.1 and one_king[0] == 0.0


def test_three_thirteen_keeps_the_ten_with_more_ways_to_go_out() -> None:
    # Round 1 (threes wild): 3d 4h and a ten or a king. Both cost 10; the Td melds with
    # the wild three in more ways (8d 9d, 9d Jd, Jd Qd, or any ten) than the Ks (Js Qs
    # or a king), so the race keeps it and throws the Ks; the older rule threw the Td.
    game, legal = position("three_thirteen", "3d Td 4h Ks", "9s Tc 6h", drawn=True)
    view = seat_view(game, 0)
    race = StrongBot().choose(view, legal)
    old = StrongBot(NO_RACE).choose(view, legal)
    assert isinstance(race, Discard) and isinstance(old, Discard)
    assert (race.card, old.card) == (Card.parse("Ks"), Card.parse("Td"))


def test_draw_chances_count_the_draws_that_end_the_hand() -> None:
    game, _ = position("chicago", "Ac 2d As Ts Qs Ks 9h", "6h", drawn=False)
    view = seat_view(game, 0)
    ev = HandEvaluator(view_meld_rules(view), unseen_faces(view, Tracker().observe(view)))
    # Ts Qs Ks 2d is a run, Ac As 9h 11 points: drawing an ace (a set of three) or a
    # card that lets the 9h go for a lower one ends the hand within 9 points.
    chance, later = ev.draw_chances(view.hand, 9)
    assert 0 < chance < 1 and later < 11
    assert ev.draw_chances(view.hand, 11) == (1.0, later)


def test_basic_rummy_keeps_the_low_cards_when_no_draw_takes_it_out() -> None:
    # Late in a Basic Rummy hand, nothing melds: Jc 4d 9h 6s. No card drawn next turn
    # lets either three-card hand go out, so the race weighs what each keeps after the
    # next draw: without the Jc it is lower (and the opponent collects a jack less if he
    # goes out first). The older value, the potential weighted 1.5, kept the jack for
    # its better draws and threw the 9h.
    game, legal = position("basic", "Jc 4d 9h 6s", "3s Qh Ac", drawn=True, theirs="Kc Kd 8h")
    view = seat_view(game, 0)
    race = StrongBot().choose(view, legal)
    old = StrongBot(NO_RACE).choose(view, legal)
    assert isinstance(race, Discard) and isinstance(old, Discard)
    assert (race.card, old.card) == (Card.parse("Jc"), Card.parse("9h"))
    ev = HandEvaluator(view_meld_rules(view), unseen_faces(view, Tracker().observe(view)))
    for card in (race.card, old.card):
        assert ev.draw_chances([c for c in view.hand if c != card], 0)[0] == 0.0


def test_three_thirteen_last_turn_keeps_the_least_deadwood() -> None:
    # Round 1 (threes wild), 3c 8c 6d Jh after the draw, nothing melds. Seat 1 went out:
    # this is our last turn and the next seat is the one who went out, so no discard can
    # feed anybody: throw the Jh (17 points kept). While the round goes on the bot weighs
    # the danger of feeding the next seat and its race, and throws the 8c instead.
    game, legal = position("three_thirteen", "3c 8c 6d Jh", "Qh Qc 9d", drawn=True)
    going_on = StrongBot().choose(seat_view(game, 0), legal)
    assert isinstance(game, ThreeThirteen)
    game.out_seat = 1
    view = seat_view(game, 0)
    last = StrongBot().choose(view, game.legal_actions())
    assert isinstance(last, Discard) and isinstance(going_on, Discard)
    assert last.card == Card.parse("Jh") and going_on.card == Card.parse("8c")
    rules = view_meld_rules(view)
    assert min(discard_deadwoods(view.hand, rules).values()) == 17


def test_three_thirteen_races_in_every_round_weighing_two_discards_in_the_large_ones(
) -> None:
    # The race's solves are dear with the wild cards of the largest rounds: above
    # race_large_cards kept cards (eight) it weighs the two best discards by deadwood and
    # danger, not four (eleven kept cards measured +3.5 to +6.8 points of win rate at two
    # seats against the race stopping at eight, CPU p99 under 13 ms).
    small, small_legal = position("three_thirteen", "3d Td 4h Ks", "9s Tc 6h", drawn=True)
    turn = StrongTurn(StrongBot(), seat_view(small, 0), small_legal,
                      Tracker().observe(seat_view(small, 0)))
    assert turn.race_terms() == (0.0, 0, StrongParams().race_bonus_tt)
    big, _ = position("three_thirteen", "3d Td 4h Ks 5c 7c 9c Jc Qd 8h 6s Ad", "9s Tc 6h",
                      drawn=True, theirs="2c 2d 2h 2s Kc Kd Kh Qc Qh Qs Jd")
    assert isinstance(big, ThreeThirteen)
    big.round = 9  # eleven cards dealt, twelve after the draw
    view = seat_view(big, 0)
    assert len(view.hand) - 1 > StrongParams().race_large_cards
    turn = StrongTurn(StrongBot(), view, big.legal_actions(), Tracker().observe(view))
    assert turn.race_terms() == (0.0, 0, StrongParams().race_bonus_tt)
    weighed: list[int] = []
    chances = turn.eval.draw_chances

    def counted(hand: Sequence[Card], limit: int) -> tuple[float, float]:
        weighed.append(len(hand))
        return chances(hand, limit)

    turn.eval.draw_chances = counted  # type: ignore[method-assign]
    turn.ranked_discards([a.card for a in big.legal_actions() if isinstance(a, Discard)])
    assert weighed == [11, 11]


def test_three_thirteen_draws_from_the_stock_when_this_draw_may_go_out() -> None:
    # Round 1 (threes wild): 2c 2d Kh, the Ad on the pile. Taking it for the Kh leaves
    # 2c 2d Ad (5 points), which goes out next turn with a 2 or a wild three; the stock
    # gives that same chance now (a 2 or a three, the Kh thrown), a turn earlier, so the
    # race draws from the stock; the older rule took the Ad for its 9 points.
    game, legal = position("three_thirteen", "2c 2d Kh", "Ad", drawn=False)
    view = seat_view(game, 0)
    assert isinstance(StrongBot().choose(view, legal), DrawStock)
    assert isinstance(StrongBot(StrongParams(race_take_tt=False)).choose(view, legal),
                      DrawDiscard)


def test_passed_at_most_reads_a_pass_on_a_knock_as_evidence() -> None:
    # Passing always (c = 1) tells nothing: the plain normal law. Never passing (c = 0):
    # a seat that did not knock holds more than its limit, so no count within it.
    assert passed_at_most(7, 9, 1.0, 12.0, 6.0) == pytest.approx(prob_at_most(7, 12.0, 6.0))
    assert passed_at_most(7, 9, 0.0, 12.0, 6.0) == 0.0
    # Above the seat's own limit (a knock limit lowered by its score) nothing changes but
    # the conditioning: P(5 < X <= 7) / (1 - P(X <= 5)).
    low, at7 = prob_at_most(5, 12.0, 6.0), prob_at_most(7, 12.0, 6.0)
    assert passed_at_most(7, 5, 0.0, 12.0, 6.0) == pytest.approx((at7 - low) / (1.0 - low))
    # c = 0.1: P(X <= 9), about 0.34, becomes 0.1 of it over what stays unknocked.
    p9 = prob_at_most(9, 12.0, 6.0)
    assert passed_at_most(9, 9, 0.1, 12.0, 6.0) == pytest.approx(0.1 * p9 / (1.0 - 0.9 * p9))
    # Above a limit of 5 with c = 0.1: a tenth of P(X <= 5), and all of P(5 < X <= 7).
    assert passed_at_most(7, 5, 0.1, 12.0, 6.0) == pytest.approx(
        (0.1 * low + at7 - low) / (1.0 - 0.9 * low))


def test_chicago_knocks_late_in_a_hand_when_the_other_seat_did_not() -> None:
    # Eleven turns in, the table says another seat holds about 10 +- 6.5 points: 9
    # or less 47% of the time, too likely a penalty for a knock with 9. But the other seat
    # played since our last turn and did not knock: a seat that knocks when it can (it
    # passes 10% of the time) holds 9 or less only 8% of the time, so the bot knocks.
    # Taking the seat to pass on every knock (c = 1: its not knocking says nothing), the
    # bot plays on.
    game, legal = position("chicago", "7c 7d 7h 3s 4s 5s 9d Kc", "5d#1 6c#1", drawn=True,
                           theirs="Ac#1 3d#1 8h#1 Ts#1 Tc#1 5s#1 6h#1")
    view = seat_view(game, 0)
    assert view.knock_limits == (9, 9)
    assert [a.card for a in legal if isinstance(a, Knock)] == [Card.parse("Kc")]  # 9d: 9

    assert isinstance(decide_at(view, legal, StrongParams(), turns=11), Knock)
    assert not isinstance(decide_at(view, legal, StrongParams(chicago_pass=1.0), turns=11),
                          Knock)


def test_chicago_reads_no_pass_into_a_seat_that_has_not_played_yet() -> None:
    # Seat 1 deals, so in our first turn of the hand it has not played: its not knocking
    # says nothing. The table gives it 9 or less 5.4% of the time, above a 4% threshold:
    # the bot plays on. In its second turn seat 1 has played and passed: the risk falls
    # below 1% (7% from the table), and the bot knocks.
    game, legal = position("chicago", "7c 7d 7h 3s 4s 5s 9d Kc", "5d#1 6c#1", drawn=True)
    view = seat_view(game, 0)
    cautious = StrongParams(chicago_risk=0.04)
    assert not isinstance(decide_at(view, legal, cautious, turns=1), Knock)
    assert isinstance(decide_at(view, legal, cautious, turns=2), Knock)


def decide_at(view: SeatView, legal: Sequence[SeatAction], params: StrongParams, *,
              turns: int) -> SeatAction:
    """The strong bot's choice in ``view`` as if in its ``turns``-th turn of the hand."""
    bot = StrongBot(params)
    mem = bot.tracker.observe(view)
    mem.turns = turns
    return StrongTurn(bot, view, legal, mem).decide()


def test_the_expert_feeds_nobody_on_a_three_thirteen_last_turn() -> None:
    # The position above, seat 1 gone out: our discard ends the round, so no card can
    # feed the next seat. The expert plays the strong bot's least deadwood (the Jh) at
    # once, searching no world; its sampled feed once made it pay points to spare a seat
    # that would never draw again.
    game, _ = position("three_thirteen", "3c 8c 6d Jh", "Qh Qc 9d", drawn=True)
    assert isinstance(game, ThreeThirteen)
    game.out_seat = 1
    view = seat_view(game, 0)
    for seed in range(8):
        expert = ExpertBot(ExpertParams(budget_ms=None, max_worlds=40, clear_cost=99.0),
                           random.Random(seed))
        choice = expert.choose(view, game.legal_actions())
        assert isinstance(choice, Discard) and choice.card == Card.parse("Jh")
        assert expert.last_worlds == 0
