"""The package layout: every sub-package is in the wheel, and the layering holds.

The layering is import-linter's contracts in pyproject.toml (CI runs ``lint-imports``).
These tests run the same contracts over a copy of the packages laid out as installed, so
a probe module that breaks them is written into a temporary folder, never the source tree.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("rules", "bots", "protocol", "server", "client")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def installed_copy(tmp_path: Path) -> Path:
    """The packages as they install (app/ is rummyhall/, rules/ is rummyhall/rules/, ...)."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "app", site / "rummyhall", ignore=shutil.ignore_patterns("__pycache__"))
    for package in SUBPACKAGES:
        shutil.copytree(ROOT / package, site / "rummyhall" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return site


def lint_imports(tmp_path: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_layering_contracts_hold(tmp_path: Path) -> None:
    run = lint_imports(tmp_path, installed_copy(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_every_contract_catches_its_violation(tmp_path: Path) -> None:
    site = installed_copy(tmp_path)
    probes = {
        "rules": "from rummyhall import server\n",   # a layer reached by a from-import
        "bots": "import sqlite3\n",                  # I/O in a pure core
        "protocol": "import trio\n",
        "client": "from rummyhall import replay\n",  # the client reaching into the commands
        # server and client independent; the packages do not import the commands' package
        "server": "from rummyhall.client import session\nfrom rummyhall import __version__\n",
    }
    for package, source in probes.items():
        (site / "rummyhall" / package / "_layering_probe.py").write_text(source)
    run = lint_imports(tmp_path, site)
    assert run.returncode == 1, run.stdout + run.stderr
    out = " ".join(run.stdout.split())
    assert "0 kept, 3 broken" in out
    for importer, imported, layer in [("rules", "server", "server"),
                                      ("client", "replay", "replay"),
                                      ("server", "client.session", "client")]:
        assert f"rummyhall.{importer} is not allowed to import rummyhall.{layer}:" in out
        assert f"rummyhall.{importer}._layering_probe -> rummyhall.{imported} (l.1)" in out
    assert "rummyhall.bots is not allowed to import sqlite3" in out
    assert "rummyhall.protocol is not allowed to import trio" in out
    assert "rummyhall.server._layering_probe is not allowed to import rummyhall: " in out


def test_every_subpackage_folder_is_in_the_wheel(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("rummyhall-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in SUBPACKAGES:
        for source in (ROOT / package).rglob("*.py"):
            relative = source.relative_to(ROOT / package).as_posix()
            assert f"rummyhall/{package}/{relative}" in names
    assert "rummyhall/cli.py" in names and "rummyhall/py.typed" in names


def test_test_modules_have_unique_names() -> None:
    """The test folders are not packages (each folder's helpers import by bare name from
    pyproject.toml's ``pythonpath`` and pytest's rootdir insertion), so two modules of one
    name in two folders would shadow each other: every name is unique (conftest.py aside,
    which pytest loads by path)."""
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "conftest.py":
            continue
        assert path.name not in seen, f"{path} and {seen[path.name]} share a module name"
        seen[path.name] = path
