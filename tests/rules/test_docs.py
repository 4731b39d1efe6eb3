"""The examples in docs/rules.md and in the rules engine's docstrings run as written."""

import doctest
from pathlib import Path

import pytest

import rummyhall.rules
from rummyhall.rules import cards, melds, options

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_rules_md_examples() -> None:
    result = doctest.testfile(str(DOCS / "rules.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("module", [rummyhall.rules, cards, melds, options])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0
