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
from collections.abc import Callable, Mapping, Sequence
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


class PurePath:
    """The child process that times the pure path's rounds when the parent asks."""

    def __init__(self, script: str, argv: Sequence[str]) -> None:
        env = {**os.environ, compiled.ENV: "off"}
        self.child = subprocess.Popen([sys.executable, script, *argv, SERVE_FLAG], env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True)

    def run(self, key: str, seconds: float) -> list[float]:
        """The figures of one round of ``key`` timed by the child."""
        stdin, stdout = self.child.stdin, self.child.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps({"key": key, "seconds": seconds}) + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise RuntimeError(f"the pure path's process ended (exit {self.child.wait()})")
        return [float(x) for x in json.loads(answer)]

    def close(self) -> None:
        if self.child.stdin is not None:
            self.child.stdin.close()
        self.child.wait(timeout=60)


def start(script: str, argv: Sequence[str]) -> PurePath | None:
    """The pure path's child when this process runs the compiled path, else None."""
    return PurePath(script, argv) if compiled.status().active else None


def serve(rounds: Mapping[str, Callable[[float], Sequence[float]]],
          stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> None:
    """The child's loop: answer each request with the figures of ``rounds[key](seconds)``,
    until the parent closes the pipe."""
    for request in stdin:
        asked = json.loads(request)
        figures = rounds[asked["key"]](float(asked["seconds"]))
        stdout.write(json.dumps(list(figures)) + "\n")
        stdout.flush()
