"""The examples in docs/rules.md run as written.

The docstrings' examples, in every package, run in CI as
``pytest --doctest-modules --pyargs rummyhall`` (.ci/run).
"""

import doctest
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_rules_md_examples() -> None:
    result = doctest.testfile(str(DOCS / "rules.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


def test_the_rules_command_stops_quietly_when_its_reader_does() -> None:
    """`rummyhall rules | head`: the pipe closes early; no traceback, a clean exit."""
    with subprocess.Popen([sys.executable, "-m", "rummyhall.cli", "rules"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith(b"basic")
        proc.stdout.close()  # as head does after its lines
        err = proc.stderr.read()
        assert proc.wait(timeout=30) == 0, err
    assert b"Traceback" not in err


def test_no_file_points_at_a_rules_text_outside_the_repository() -> None:
    """The rules are docs/rules.md: no code or doc cites another rules text."""
    root = DOCS.parent
    outside = re.compile("RULES" + r"(\.md|\s+\d)")
    found = []
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if not path.is_file() or parts[0] in (".git", ".venv", "build", "node_modules") or \
                "node_modules" in parts or path.suffix not in (".py", ".md", ".mjs", ".toml",
                                                               ".json", ".txt", ""):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(root)}:{n}" for n, line in enumerate(text.splitlines(), 1)
                  if outside.search(line)]
    assert found == []
