"""Properties of whole games under random valid options (hypothesis).

No card is created or lost; every view holds only what its seat may see; random games
end with scores that follow the rules; replaying the actions rebuilds the same state.
"""

from __future__ import annotations

import random
from collections import Counter

from game_strategies import Setup, game_setups, short_game, single_card_actions
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage

from rummyhall.bots import RandomBot, SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    Discard,
    Event,
    Game,
    HandDealt,
    HandScored,
    IllegalAction,
    Phase,
    SeatAction,
    event_for,
    seat_view,
    visible_cards,
)

MAX_MOVES = 20_000


def all_cards(game: Game) -> Counter[int]:
    held = Counter[int]()
    for hand in game.hands:
        held.update(hand)
    held.update(game.stock)
    held.update(game.discard)
    for meld in game.melds:
        held.update(meld.cards)
    if game.phase is Phase.REBUILD:  # the discards waiting to be shuffled into the stock
        held.update(game.shuffle_cards())
    return held


def play(game: Game, seed: int, check: bool) -> list[object]:
    """Play to the end with a mix of random and simple bots; check invariants at each step."""
    rng = random.Random(seed)
    # seat 0 is always the simple bot: two random players may never go out (gin only)
    bots = [SimpleBot() if s == 0 or (seed >> s) & 1 else RandomBot(random.Random(seed + s))
            for s in range(game.players)]
    actions: list[object] = []
    deck: Counter[int] | None = None
    for _ in range(MAX_MOVES):
        if game.is_over:
            return actions
        seat = game.to_move
        if seat is None:
            if game.phase is Phase.DEAL:
                deck = Counter(game.shuffle_cards())
            action: object = shuffle_for(game, rng)
        else:
            bot = bots[seat]
            legal = game.legal_actions()
            assert legal, f"no legal action in {game.phase}"
            view = seat_view(game, seat)
            if check:
                check_view(game, seat, view)
                check_legal_actions(game, seat, legal)
            choice: SeatAction = bot.choose(view, legal)
            action = choice
        events = game.apply(action)  # type: ignore[arg-type]
        actions.append(action)
        if check:
            check_events(game, events)
            if deck is not None and game.phase is not Phase.DEAL:
                assert all_cards(game) == deck, "a card was created or lost"
    raise AssertionError("the game did not end")


def check_view(game: Game, seat: int, view: object) -> None:
    # the card just taken from the discard pile was seen by all: it is not hidden
    public = {game.taken} if game.taken is not None else set()
    seen = visible_cards(view)
    others = {int(c) for s, hand in enumerate(game.hands) if s != seat for c in hand} - public
    stock = {int(c) for c in game.stock}
    assert not seen & stock, "a view shows a stock card"
    assert not seen & others, "a view shows another seat's card"
    spectator = visible_cards(seat_view(game, None))
    assert not spectator & ({int(c) for hand in game.hands for c in hand} - public | stock)


def snapshot(game: Game) -> tuple[object, ...]:
    return (game.phase, game.turn, game.move_number, [list(h) for h in game.hands],
            list(game.stock), list(game.discard), [m.cards for m in game.melds],
            list(game.scores), game.taken)


def check_legal_actions(game: Game, seat: int, legal: list[SeatAction]) -> None:
    """legal_actions() is exactly what verify() accepts, over every action of these kinds
    (melds aside: Basic Rummy's legal melds are checked one way), and a refused action
    leaves the state untouched."""
    universe = single_card_actions(game, seat)
    before = snapshot(game)
    for action in universe:
        assert game.can(action) == (action in legal), action
    for action in legal:
        assert game.can(action), action
    for action in universe[:6]:
        if not game.can(action):
            try:
                game.apply(action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{action} was applied though refused")
    other = (seat + 1) % game.players
    assert not game.can(Discard(other, game.hands[other][0])) if game.hands[other] else True
    assert snapshot(game) == before


def check_events(game: Game, events: list[Event]) -> None:
    for seat in [*range(game.players), None]:
        for event in events:
            seen = event_for(event, seat)
            if isinstance(event, HandDealt):
                for s, hand in enumerate(seen.hands):  # type: ignore[union-attr]
                    assert hand is None or s == seat
            if event.kind == "draw" and event.source == "stock" and event.seat != seat:  # type: ignore[union-attr]
                assert seen.card is None  # type: ignore[union-attr]
    for event in events:
        if isinstance(event, HandScored):
            assert len(event.points) == game.players


# Whole games are slow to shrink: a failure is reported as found, with its seed.
NO_SHRINK = (Stage.explicit, Stage.reuse, Stage.generate)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=NO_SHRINK)
@given(game_setups())
def test_random_games_keep_every_card_and_hide_what_they_must(
        setup: Setup) -> None:
    game = short_game(setup)
    play(game, setup[3], check=True)
    assert game.winners, "a finished game has a winner"
    check_final_scores(game)


def check_final_scores(game: Game) -> None:
    totals = [0] * game.players
    for result in game.results:
        for s, p in enumerate(result.points):
            totals[s] += p
        assert list(result.totals) == totals
    if game.name == "gin":
        assert all(min(r.points) == 0 for r in game.results)  # one scorer per hand
        assert max(game.scores) >= game.options.target_score  # type: ignore[union-attr]
    if game.name == "chicago":
        alive = [s for s in range(game.players) if game.active[s]]
        assert len(alive) <= 1
    if game.name == "three_thirteen":
        assert all(p >= 0 for r in game.results for p in r.points)


@settings(max_examples=25, deadline=None, phases=NO_SHRINK)
@given(game_setups())
def test_replaying_the_actions_rebuilds_the_same_game(
        setup: Setup) -> None:
    first = short_game(setup)
    actions = play(first, setup[3], check=False)
    second = short_game(setup)
    for action in actions:
        second.apply(action)  # type: ignore[arg-type]
    assert second.scores == first.scores and second.winners == first.winners
    assert second.results == first.results and second.move_number == first.move_number
