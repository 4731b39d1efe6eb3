"""The direct constructor of the frozen action and event classes (rules/frozen.py)."""

from __future__ import annotations

import dataclasses
import pickle
from typing import get_args

import pytest

from rummyhall.rules import Action, Card, Discard, Drew, Event, Knock, Reveal
from rummyhall.rules.frozen import direct_init


@pytest.mark.parametrize("cls", [Reveal, *get_args(Event), *get_args(Action)])
def test_every_action_and_event_class_has_the_direct_constructor(cls: type) -> None:
    init = vars(cls)["__init__"]
    names = [f.name for f in dataclasses.fields(cls)]
    assert list(init.__code__.co_varnames[1:len(names) + 1]) == names
    assert set(init.__code__.co_names) == {f"_set_{name}" for name in names}


def test_the_values_stay_frozen_values() -> None:
    drew = Drew(1, "stock", Card.parse("7h"), 20)
    assert drew == Drew(seat=1, source="stock", card=Card.parse("7h"), stock_count=20)
    assert hash(drew) == hash(Drew(1, "stock", Card.parse("7h"), 20))
    assert repr(drew) == "Drew(seat=1, source='stock', card=Card('7h'), stock_count=20)"
    assert dataclasses.replace(drew, card=None).card is None
    assert pickle.loads(pickle.dumps(drew)) == drew
    with pytest.raises(dataclasses.FrozenInstanceError):
        drew.seat = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Discard(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Knock(1, None, None, 3)  # type: ignore[call-arg]
    assert str(Discard(0, Card.parse("Td"))) == "seat 0: discard Td"
    assert Knock(1, None).melds is None  # a plain default is kept
    assert Knock(1, None, melds=()).melds == ()


def test_direct_init_refuses_what_it_does_not_fit() -> None:
    @dataclasses.dataclass(slots=True)
    class Loose:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        a: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    for cls in (Loose, WithFactory, NoSlots):
        with pytest.raises(TypeError):
            direct_init(cls)
