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

It prints cosmic-ray's report of each target (the surviving mutants in full) and a
summary line per target. docs/testing.md records the last run's survivors and why each
is harmless.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SUBPACKAGES = ("rules", "bots", "protocol", "server", "client")

#: module -> the tests that should kill its mutants (a small, fast selection)
TARGETS: dict[str, list[str]] = {
    "server/ratings.py": ["tests/server/test_ratings.py"],
    "protocol/ratelimit.py": ["tests/protocol/test_protocol_ratelimit.py",
                              "tests/protocol/test_protocol_bucket.py"],
    "rules/timeout.py": ["tests/rules/test_timeout.py"],
}


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


def config_text(module: str, tests: list[str], timeout: float) -> str:
    command = f"{BIN / 'python'} -m pytest -x -q -p no:cacheprovider {' '.join(tests)}"
    return (f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = {timeout}\n'
            f'excluded-modules = []\ntest-command = "{command}"\n\n'
            '[cosmic-ray.distributor]\nname = "local"\n')


def run_target(repo: Path, env: dict[str, str], module: str, tests: list[str]) -> str:
    name = Path(module).stem
    config, session = repo / f"cr-{name}.toml", repo / f"cr-{name}.sqlite"
    config.write_text(config_text(module, tests, timeout=120.0))
    cosmic = str(BIN / "cosmic-ray")
    for step in ([cosmic, "baseline", str(config)],  # the tests pass on the copy as it is
                 [cosmic, "init", str(config), str(session)],
                 [cosmic, "exec", str(config), str(session)]):
        subprocess.run(step, cwd=repo, env=env, check=True)
    report = subprocess.run([str(BIN / "cr-report"), "--show-diff", "--surviving-only",
                             str(session)],
                            cwd=repo, env=env, check=True, capture_output=True, text=True)
    print(report.stdout, flush=True)
    rate = subprocess.run([str(BIN / "cr-rate"), str(session)], cwd=repo, env=env,
                          check=True, capture_output=True, text=True).stdout.strip()
    return f"{module}: {rate}% of the mutants survived ({' '.join(tests)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="run the targets whose module names match")
    args = parser.parse_args()
    if shutil.which("cosmic-ray", path=str(BIN)) is None:
        print("cosmic-ray is not installed: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    chosen = {m: t for m, t in TARGETS.items() if not args.only or any(o in m for o in args.only)}
    with tempfile.TemporaryDirectory(prefix="rummyhall-mutate-") as tmp:
        repo, site = Path(tmp) / "repo", Path(tmp) / "site"
        copy_repository(repo)
        link_tree(repo, site)
        env = {**os.environ, "PYTHONPATH": f"{site}:{repo / 'tests'}"}
        summary = [run_target(repo, env, module, tests) for module, tests in chosen.items()]
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
