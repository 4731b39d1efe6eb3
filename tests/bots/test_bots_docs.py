"""docs/bots.md: the example bot runs in the arena exactly as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from rummyhall.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def example_bot() -> str:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## A complete example bot", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_the_example_is_about_twenty_lines() -> None:
    lines = [line for line in example_bot().splitlines() if line.strip()]
    assert len(lines) <= 25


@pytest.mark.parametrize(("game", "options"), [
    ("gin", []), ("chicago", ["-o", "elimination_score=30"]),
    ("three_thirteen", []), ("basic", ["-o", "max_hands=2", "-o", "target_score=0"]),
])
def test_the_example_bot_plays_in_the_arena(tmp_path: Path, game: str, options: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mybot.py"
    path.write_text(example_bot(), encoding="utf-8")
    code = main(["arena", "--game", game, "--games", "2", "--bot", f"{path}:MyBot",
                 "--bots", "strong", "-q", *options])
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"^mybot\s+2\s", out, re.M)


def test_the_doctest_examples_of_docs_bots_md_run() -> None:
    result = doctest.testfile(str(DOCS), module_relative=False)
    assert result.attempted >= 1 and result.failed == 0
