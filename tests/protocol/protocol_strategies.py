"""Hypothesis strategies for every spec, message and payload of rummyhall.protocol."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from rummyhall.protocol import CARD_BY_TEXT, MESSAGES, Message
from rummyhall.protocol.limits import MAX_ID
from rummyhall.protocol.schema import (
    ArrayT,
    BoolT,
    CardT,
    EnumT,
    IdT,
    IntT,
    MapT,
    OptT,
    PayloadT,
    RecordT,
    ScalarT,
    Spec,
    StrT,
    TupleT,
    UnionT,
    field_info,
)

_PRINTABLE = st.characters(codec="utf-8", categories=["L", "N", "P", "S"])
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


def text_for(spec: StrT) -> st.SearchStrategy[str]:
    hi = min(spec.hi, 40)
    lo = min(spec.lo, hi)
    if spec.rule_words.startswith("lowercase hex"):
        hexes = st.text("0123456789abcdef", min_size=spec.lo, max_size=spec.hi)
        return hexes.filter(lambda t: len(t) % 2 == 0) if "whole bytes" in spec.rule_words \
            else hexes
    if spec.rule_words.startswith("lowercase letters"):
        return st.text(_WORD, min_size=max(lo, 1), max_size=hi).filter(
            lambda t: t.replace("_", "").isalnum())
    alphabet = _PRINTABLE if spec.rule is not None else st.characters(codec="utf-8")
    strategy = st.text(alphabet, min_size=lo, max_size=hi)
    if spec.rule is not None:
        strategy = strategy.filter(spec.rule)
    return strategy


_LEAVES: dict[type, Any] = {  # the specs without inner specs: spec -> its values
    IntT: lambda spec: st.integers(spec.lo, spec.hi),
    BoolT: lambda spec: st.booleans(),
    StrT: text_for,
    EnumT: lambda spec: st.sampled_from(spec.values),
    CardT: lambda spec: st.sampled_from(sorted(CARD_BY_TEXT)),
    IdT: lambda spec: st.integers(0, MAX_ID) | st.text(min_size=1, max_size=64),
    ScalarT: lambda spec: (st.booleans() | st.integers(-(2**63), 2**63 - 1)
                           | st.text(max_size=20)),
}


def strategy_for(spec: Spec) -> st.SearchStrategy[Any]:
    """Values (in their Python form) that ``spec`` accepts."""
    leaf = _LEAVES.get(type(spec))
    if leaf is not None:
        return leaf(spec)  # type: ignore[no-any-return]
    if isinstance(spec, OptT):
        return st.none() | strategy_for(spec.inner)
    if isinstance(spec, ArrayT):
        return st.lists(strategy_for(spec.item), min_size=spec.lo,
                        max_size=max(spec.lo, min(spec.hi, 4))).map(tuple)
    if isinstance(spec, TupleT):
        return st.tuples(*(strategy_for(i) for i in spec.items))
    if isinstance(spec, MapT):
        return st.dictionaries(st.text(_WORD, min_size=1, max_size=20),
                               strategy_for(spec.value), max_size=4)
    if isinstance(spec, PayloadT):
        fields = {n: strategy_for(s) for n, s in spec.fields.items()}
        if spec.kind:
            fields = {"kind": st.just(spec.kind), **fields}
        return st.fixed_dictionaries(fields)
    if isinstance(spec, UnionT):
        return st.one_of(*(strategy_for(v) for v in spec.variants.values()))
    if isinstance(spec, RecordT):
        return record_strategy(spec.cls)
    raise TypeError(spec)


def record_strategy(cls: type[Any]) -> st.SearchStrategy[Any]:
    kwargs = {}
    for name, info, required in field_info(cls):
        inner = strategy_for(info.spec)
        kwargs[name] = inner if required else (st.none() | inner)
    assert dataclasses.is_dataclass(cls)
    return st.builds(cls, **kwargs)


def message_strategy(kind: str) -> st.SearchStrategy[Message]:
    return record_strategy(MESSAGES[kind])
