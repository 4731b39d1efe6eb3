"""An action is applied whole or not at all.

At random points of random games (all four, random options), random wrong actions are
tried: every kind, by the wrong seat or the right one, with cards held, not held or not
in the game, and half-legal ones (a legal meld or layoff with a card added, swapped or
repeated: the layoff whose second card does not fit). Each is either legal, or refused
with a :class:`RulesError` and the game's whole state (every attribute, deeply) is as it
was. The server counts on this: a refused action needs no repair (server/table.py).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from game_strategies import Setup, game_setups, short_game, wrong_moves
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummyhall.bots import RandomBot, SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.rules import (
    DrawStock,
    Game,
    LayOff,
    RulesError,
    TableMeld,
    new_game,
    parse_cards,
    seat_view,
)


def full_state(value: Any) -> Any:
    """``value`` as nested plain data: every attribute of every object, recursively."""
    if isinstance(value, bool | int | float | str | bytes | type(None)):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(full_state(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), full_state(v)) for k, v in value.items())))
    if isinstance(value, set | frozenset):
        return ("set", tuple(sorted(repr(v) for v in value)))
    names = list(getattr(value, "__dict__", {}))
    names += getattr(type(value), "__mypyc_attrs__", ())  # (a compiled build's classes)
    for cls in type(value).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    if not names:
        return (type(value).__name__, repr(value))
    return (type(value).__name__,
            tuple((n, full_state(getattr(value, n))) for n in sorted(set(names))
                  if hasattr(value, n) and n != "__weakref__"))


def advance(game: Game, moves: int, rng: random.Random) -> None:
    """Play ``moves`` moves (or to the end) with a simple bot and random ones."""
    bots = [SimpleBot() if s == 0 else RandomBot(random.Random(rng.random()))
            for s in range(game.players)]
    for _ in range(moves):
        if game.is_over:
            return
        seat = game.to_move
        if seat is None:
            game.apply(shuffle_for(game, rng))
        else:
            game.apply(bots[seat].choose(seat_view(game, seat), game.legal_actions()))


def try_wrong_move(game: Game, action: object) -> bool:
    """Apply ``action``; if it is refused, the state must be untouched. True if applied."""
    before = full_state(game)
    try:
        game.apply(action)  # type: ignore[arg-type]
    except RulesError:
        assert full_state(game) == before, f"{action!r} was refused but changed the game"
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(), st.data())
def test_a_refused_action_changes_nothing(setup: Setup, data: st.DataObject) -> None:
    game = short_game(setup)
    rng = random.Random(setup[3])
    for _ in range(data.draw(st.integers(1, 5), label="stops")):
        advance(game, data.draw(st.integers(0, 40), label="moves"), rng)
        if game.is_over:
            break
        for _ in range(data.draw(st.integers(1, 6), label="tries")):
            if try_wrong_move(game, data.draw(wrong_moves(game), label="action")):
                break  # it was legal: the game moved on


def test_the_full_state_sees_every_attribute() -> None:
    """The comparison is deep: a change in a meld's cards or a hidden attribute shows."""
    game = new_game("basic", {}, players=2, first_dealer=0)
    before = full_state(game)
    game.melds.append(TableMeld(0, parse_cards("5h 6h 7h")))
    assert full_state(game) != before
    after_meld = full_state(game)
    game.melds[0].cards = parse_cards("5h 6h 7h 8h")
    assert full_state(game) != after_meld
    changed = full_state(game)
    game._rebuild_cards = parse_cards("2c")
    assert full_state(game) != changed


def test_a_layoff_whose_second_card_does_not_fit_is_refused_whole() -> None:
    """Basic Rummy: 8h fits the table's 5h 6h 7h, Kc does not; the 8h stays in the hand."""
    game = new_game("basic", {}, players=2, first_dealer=1)
    game.apply(shuffle_for(game, random.Random(7)))
    seat = game.to_move
    assert seat is not None
    game.apply(DrawStock(seat))
    piles = [*game.hands, game.stock, game.discard]
    for card in parse_cards("5h 6h 7h"):  # onto the table, from wherever they were
        next(p for p in piles if card in p).remove(card)
    game.melds.append(TableMeld(1 - seat, parse_cards("5h 6h 7h")))
    hand = game.hands[seat]
    for i, card in enumerate(parse_cards("8h Kc")):  # into the mover's hand, by a swap
        pile = next(p for p in piles if card in p)
        pile[pile.index(card)], hand[i] = hand[i], card
    assert game.can(LayOff(seat, parse_cards("8h"), 0))
    assert not try_wrong_move(game, LayOff(seat, parse_cards("8h Kc"), 0))
    assert game.melds[0].cards == parse_cards("5h 6h 7h") and parse_cards("8h")[0] in hand


def test_a_deep_copy_is_the_whole_game_and_plays_on_alone() -> None:
    """``copy.deepcopy`` of a game in play (what-ifs of bots and benches): the copy holds
    every attribute, deeply, and what is played on one does not reach the other. The
    compiled build's games are native classes, whose default copy would fail."""
    for name, players in (("basic", 3), ("gin", 2), ("chicago", 4), ("three_thirteen", 3)):
        game = new_game(name, {}, players=players, first_dealer=0)
        rng = random.Random(11)
        advance(game, 25, rng)
        if name == "basic" and not game.melds:  # (a table meld, to copy too)
            game.melds.append(TableMeld(0, parse_cards("5h 6h 7h")))
        before = full_state(game)
        clone = copy.deepcopy(game)
        assert type(clone) is type(game)
        assert clone.meld_rules is game.meld_rules  # (an immutable value, shared)
        assert full_state(clone) == before
        advance(clone, 30, random.Random(12))
        assert full_state(game) == before  # the original did not move
        assert full_state(clone) != before
        assert all(a is not b for a, b in zip(game.hands, clone.hands, strict=True))
        assert all(a is not b for a, b in zip(game.melds, clone.melds, strict=False))
