"""A small mutation pass with cosmic-ray: which deliberate bugs do the tests miss?

Not part of CI (it runs the chosen tests once per mutant: minutes, not seconds). It
copies the repository's tracked files to a temporary folder, lays them out as the
package installs (a link tree ``rummyhall/`` put first on PYTHONPATH, so the copy is what
the tests import), and mutates the copy only: the working tree is never written, even if
the run is stopped half-way. Each target is a module and the tests that should catch its
mutants; run a few, not everything (the machine is shared)::

    .venv/bin/pip install -e '.[mutation]' --config-settings editable_mode=strict
    .venv/bin/python tools/mutate.py                 # every target below
    .venv/bin/python tools/mutate.py ratings         # targets whose module names match

A target may name some functions of its module (``Target.functions``): only the lines
of those are mutated (cosmic-ray's line filter, the ranges found with ``ast`` when the
pass runs, so they follow edits). That is how the pass covers the guards of a large
module (the server session's read path and rate limit) with tests that run in seconds.

It prints cosmic-ray's report of each target (the surviving mutants in full) and a
summary line per target. docs/testing.md records the last run's survivors and why each
is harmless.
"""

from __future__ import annotations

import argparse
import ast
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SUBPACKAGES = ("rules", "bots", "protocol", "server", "client")

@dataclass(frozen=True)
class Target:
    """The tests that should kill a module's mutants (a small, fast selection), and the
    functions to mutate (``()``: the whole module). A test may carry pytest's ``::``."""

    tests: tuple[str, ...]
    functions: tuple[str, ...] = ()
    select: str = ""  # pytest's -k expression over those tests (empty: all of them)


#: the tests' hang guard in the pass (seconds): a mutant that loses a message fails fast
HANG_GUARD = 15.0
#: cosmic-ray's limit on one mutant's test run (seconds): past it the mutant counts as killed
MUTANT_TIMEOUT = 90.0

SERVER_GUARDS = ("tests/server/test_limits.py", "tests/server/test_abuse.py")
GUARD_TESTS = ("bad_frames or hostile or unknown_types or flood or refused_unread or "
               "names_are_unique or read_path or big_reply or handshake_and_idle or "
               "trickled or whole_seconds or no_fresh_your_turn")
PROTOCOL = ("tests/protocol/test_protocol_framing.py", "tests/protocol/test_protocol_hostile.py",
            "tests/protocol/test_protocol_edges.py",
            "tests/protocol/test_protocol_connection.py")

#: module -> what the pass does with it; the guards of docs/testing.md first. A module may
#: come twice, its name followed by a word for each target (``"server/lobby.py updates"``).
TARGETS: dict[str, Target] = {
    # token on resume: the digest kept, the constant-time compare, the registry's lookup
    "server/tokens.py": Target(("tests/server/test_secrets.py", "tests/server/test_names.py")),
    "server/players.py": Target(("tests/server/test_secrets.py", "tests/server/test_names.py"),
                                ("by_token", "new", "restore", "forget")),
    "server/hall.py": Target(("tests/server/test_names.py", "tests/server/test_lobby_updates.py",
                              "tests/server/test_limits.py::test_names_are_unique_and_a_token_"
                              "replaces_the_old_session",
                              "tests/persistence/test_names_restart.py"), ("check_name", "admit")),
    # frame size on every read path: the frame buffer, the connection's limits per role
    "protocol/framing.py": Target(PROTOCOL),
    "protocol/connection.py": Target(PROTOCOL, ("__init__", "receive_data", "next_event",
                                                "_enter", "_refuse", "_fail", "send", "_sent")),
    # the server session: what it reads, the limits it announces, the rate it allows
    "server/session.py": Target((*SERVER_GUARDS, "tests/server/test_play.py"),
                                ("limits", "_read_handshake", "_reader", "_over_rate", "_queue"),
                                GUARD_TESTS),
    # the rate limit's cap
    "protocol/ratelimit.py": Target(("tests/protocol/test_protocol_ratelimit.py",
                                     "tests/protocol/test_protocol_bucket.py")),
    # one reply per request: the lobby answers each request once, a table after its ok
    "server/lobby.py": Target(("tests/server/test_table_failures.py",
                               "tests/server/test_names.py::test_a_reply_goes_to_the_connection_"
                               "that_asked_not_to_a_newer_one",
                               "tests/server/test_limits.py::test_replies_come_in_the_order_of_"
                               "the_requests",
                               "tests/server/test_limits.py::test_the_games_answer_carries_the_id_"
                               "it_was_asked_with", "tests/persistence/test_history.py"),
                              ("handle", "_reply", "_to_table"),
                              "not restart and not commands and not stays_left"),
    # what the lobby holds back: an update of a table changed again and again, a table
    # only watched, the chat rate of a player and of its address, a fresh your_turn
    "server/lobby.py updates": Target(
        ("tests/server/test_lobby_updates.py", "tests/server/test_abuse.py",
         "tests/server/test_play.py", "tests/server/test_admin.py",
         "tests/server/test_unattended.py"), ("_due", "_removable", "_say", "prompt_again"),
        "lobby_updates or unattended or chat or broken or refused_unread or bad_frame_that "
        "or muted or spectator or creator or held or again_and_again or watching_and"),
    # wrong codes and passwords: the waits, the forgetting, an address's bound of records
    "server/access.py": Target(("tests/server/test_access.py",
                                "tests/server/test_private_tables.py"),
                               ("_record", "_drop", "_group_wait", "wait", "failed", "failures",
                                "succeeded")),
    # a page of a game's record: read by the journal's key, refused before any of it
    "server/store.py": Target(("tests/persistence/test_history.py",
                               "tests/server/test_private_tables.py",
                               "tests/persistence/test_queries.py"), ("record_part",)),
    # what reading costs: a frame's free reads, the token of a short read past them, no
    # read while a bucket is in debt (plain TCP and TLS)
    "server/metering.py": Target(("tests/server/test_metering.py", "tests/server/test_abuse.py",
                                  "tests/server/test_tls.py"),
                                 select="metering or trickle or segment or meters or "
                                        "reset_before"),
    "server/ratings.py": Target(("tests/server/test_ratings.py",)),
    "rules/timeout.py": Target(("tests/rules/test_timeout.py",)),
}


def function_lines(path: Path, names: tuple[str, ...]) -> list[str]:
    """The line ranges (``"a-b"``) of the functions and methods called ``names``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {node.name: f"{node.lineno}-{node.end_lineno}" for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names}
    missing = set(names) - set(found)
    if missing:
        raise SystemExit(f"{path}: no function {', '.join(sorted(missing))}")
    return [found[n] for n in names]


def copy_repository(dest: Path) -> None:
    """The tracked files of the working tree (as they are now, edits included)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def link_tree(repo: Path, site: Path) -> None:
    """``site/rummyhall`` as the package installs: app/ is rummyhall, rules/ its rules..."""
    package = site / "rummyhall"
    package.mkdir(parents=True)
    for source in (repo / "app").iterdir():
        (package / source.name).symlink_to(source)
    for sub in SUBPACKAGES:
        (package / sub).symlink_to(repo / sub, target_is_directory=True)


def config_text(module: str, target: Target, lines: list[str], timeout: float) -> str:
    tests = " ".join(target.tests)
    if target.select:
        tests += f" -k {shlex.quote(target.select)}"
    command = f"{BIN / 'python'} -m pytest -x -q -p no:cacheprovider {tests}"
    text = (f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = {timeout}\n'
            f'excluded-modules = []\ntest-command = "{command}"\n\n'
            '[cosmic-ray.distributor]\nname = "local"\n')
    if lines:
        ranges = ", ".join(f'"{r}"' for r in lines)
        text += f'\n[cosmic-ray.filters.line-filter.lines]\n"{module}" = [{ranges}]\n'
    return text


def run_target(repo: Path, env: dict[str, str], key: str, target: Target) -> str:
    module, _, label = key.partition(" ")
    name = "-".join(filter(None, (Path(module).stem, label)))
    config, session = repo / f"cr-{name}.toml", repo / f"cr-{name}.sqlite"
    lines = function_lines(repo / module, target.functions) if target.functions else []
    config.write_text(config_text(module, target, lines, timeout=MUTANT_TIMEOUT))
    cosmic = str(BIN / "cosmic-ray")
    steps = [[cosmic, "baseline", str(config)],  # the tests pass on the copy as it is
             [cosmic, "init", str(config), str(session)]]
    if lines:
        steps.append([str(BIN / "cr-filter-lines"), "--config", str(config), str(session)])
    for step in [*steps, [cosmic, "exec", str(config), str(session)]]:
        subprocess.run(step, cwd=repo, env=env, check=True)
    report = subprocess.run([str(BIN / "cr-report"), "--show-diff", "--surviving-only",
                             str(session)],
                            cwd=repo, env=env, check=True, capture_output=True, text=True)
    print(report.stdout, flush=True)
    rate = subprocess.run([str(BIN / "cr-rate"), str(session)], cwd=repo, env=env,
                          check=True, capture_output=True, text=True).stdout.strip()
    total = report.stdout.strip().splitlines()[-1] if report.stdout.strip() else ""
    where = f" ({', '.join(target.functions)})" if target.functions else ""
    return f"{key}{where}: {rate}% of the mutants survived; {total}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="run the targets whose module names match")
    args = parser.parse_args()
    if shutil.which("cosmic-ray", path=str(BIN)) is None:
        print("cosmic-ray is not installed: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    chosen = {k: t for k, t in TARGETS.items()
              if not args.only or any(o in k for o in args.only)}
    with tempfile.TemporaryDirectory(prefix="rummyhall-mutate-") as tmp:
        repo, site = Path(tmp) / "repo", Path(tmp) / "site"
        copy_repository(repo)
        link_tree(repo, site)
        env = {**os.environ, "PYTHONPATH": f"{site}:{repo / 'tests'}",
               "TESTS_HANG_GUARD": str(HANG_GUARD)}
        summary = [run_target(repo, env, key, target) for key, target in chosen.items()]
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
