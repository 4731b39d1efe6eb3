"""Check the dependency direction of DESIGN.md mechanically.

rules imports nothing of ours; bots imports only rules; protocol imports at most rules;
server and client never import each other; no trio, socket or asyncio (no I/O) in rules,
bots or protocol. Exits non-zero and names every offending import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "bots", "protocol", "server", "client")
ALLOWED = {
    "rules": set(),
    "bots": {"rules"},
    "protocol": {"rules"},
    "server": {"rules", "bots", "protocol"},
    "client": {"rules", "bots", "protocol"},
}
PURE = {"rules", "bots", "protocol"}
IO_MODULES = {"trio", "socket", "asyncio", "selectors", "ssl", "sqlite3", "prompt_toolkit",
              "threading", "subprocess"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a file of package ``rummyhall.X``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(ROOT).parts[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: stays inside the package unless it climbs out
                base = ["rummyhall", package][: max(0, 2 - (node.level - 1))]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def violations() -> list[str]:
    problems = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, module in imported_modules(path):
                where = f"{path.relative_to(ROOT)}:{line}: imports {module}"
                parts = module.split(".")
                if parts[0] == "rummyhall" and len(parts) > 1 and parts[1] in PACKAGES:
                    target = parts[1]
                    if target != package and target not in ALLOWED[package]:
                        problems.append(f"{where} ({package} may not import {target})")
                elif parts[0] in IO_MODULES and package in PURE:
                    problems.append(f"{where} ({package} must do no I/O)")
    return problems


def main() -> int:
    problems = violations()
    for problem in problems:
        print(problem)
    print(f"layering: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
