"""Hypothesis strategies shared by test folders (on the path: see pyproject.toml)."""

from __future__ import annotations

from hypothesis import strategies as st

from rummyhall.rules import option_specs


def option_sets(game: str) -> st.SearchStrategy[dict[str, object]]:
    """Random valid options of ``game``: any subset, each a legal value (small integers
    keep the games short)."""
    fields: dict[str, st.SearchStrategy[object]] = {}
    for spec in option_specs(game):
        if spec.type == "bool":
            fields[spec.name] = st.booleans()
        elif spec.type == "enum":
            fields[spec.name] = st.sampled_from(spec.choices)
        elif spec.values is not None:
            fields[spec.name] = st.sampled_from(spec.values)
        elif spec.type == "int_or_auto":
            fields[spec.name] = st.just("auto")
        else:
            low = spec.low or 0
            fields[spec.name] = st.integers(low, min(spec.high or 0, low + 30))
    return st.fixed_dictionaries({}, optional=fields)
