"""Both paths of the rules engine in one bench run: pure Python and the compiled build.

A process loads one path or the other (rummyhall.compiled), so when this process loaded
the compiled modules, the bench starts itself again as a child with
``RUMMYHALL_COMPILED=off`` and the same arguments (so the same seed and the same inputs),
and the two take turns: the parent times its own round, then asks the child for the same
round of the pure path, and so on. The child works only when asked (it waits on a pipe
otherwise), so the figures of both paths come from the same minutes of the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from rummyhall import compiled

SERVE_FLAG = "--serve-pure-path"  # the child's flag: answer rounds on stdin/stdout


def label() -> str:
    """This process's path, for a column: ``compiled`` or ``pure``."""
    return "compiled" if compiled.status().active else "pure"


def note() -> str:
    """One line saying which path this run takes and why."""
    status = compiled.status()
    if status.active:
        return (f"(rules engine: {status.describe()}; the pure Python figures come from a "
                "child process taking turns with this one)")
    return (f"(rules engine: {status.describe()}; `rummyhall compile` adds the compiled "
            "path's columns)")


class ChildRounds:
    """A child copy of a bench that times its rounds when the parent asks (one JSON
    request a line, one answer a line: :func:`serve`)."""

    def __init__(self, script: str, argv: Sequence[str], env: Mapping[str, str],
                 what: str) -> None:
        self.what = what
        self.child = subprocess.Popen([sys.executable, script, *argv, SERVE_FLAG],
                                      env=dict(env), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)

    def run(self, key: str, seconds: float) -> list[float]:
        """The figures of one round of ``key`` timed by the child."""
        stdin, stdout = self.child.stdin, self.child.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps({"key": key, "seconds": seconds}) + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise RuntimeError(f"the {self.what}'s process ended (exit {self.child.wait()})")
        return [float(x) for x in json.loads(answer)]

    def close(self) -> None:
        if self.child.stdin is not None:
            self.child.stdin.close()
        self.child.wait(timeout=60)


def start(script: str, argv: Sequence[str]) -> ChildRounds | None:
    """The pure path's child when this process runs the compiled path, else None."""
    if not compiled.status().active:
        return None
    return ChildRounds(script, argv, {**os.environ, compiled.ENV: "off"}, "pure path")


def tree_links(tree: str, tmp: str) -> str:
    """A folder of links laid out as another source tree of the project (a checkout of
    main, say) installs its package (its pyproject.toml's package-dir): put first on
    PYTHONPATH, it imports that tree's ``rummyhall``."""
    root = Path(tree).resolve()
    config = tomllib.loads((root / "pyproject.toml").read_text())
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    links = Path(tmp) / "baseline"
    for package, folder in sorted(mapping.items()):
        target = links.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for entry in (root / folder).iterdir():
            file = entry.suffix in (".py", ".json") or entry.name == "py.typed"
            subpackage = entry.is_dir() and (entry / "__init__.py").exists() and \
                f"{package}.{entry.name}" not in mapping  # (the console)
            if file or subpackage:
                (target / entry.name).symlink_to(entry)
    return str(links)


def serve(rounds: Mapping[str, Callable[[float], Sequence[float]]],
          stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> None:
    """The child's loop: answer each request with the figures of ``rounds[key](seconds)``,
    until the parent closes the pipe."""
    for request in stdin:
        asked = json.loads(request)
        figures = rounds[asked["key"]](float(asked["seconds"]))
        stdout.write(json.dumps(list(figures)) + "\n")
        stdout.flush()
