"""The optional compiled build (rummyhall.compiled): the pure modules load unless a build
of exactly these sources for this Python is there, a damaged build never crashes or
mixes the two paths, ``RUMMYHALL_COMPILED=off`` forces the pure path, and CI's compiled
run (``pytest --expect-compiled``) proves its modules are the ones in use."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rummyhall import compilecmd, compiled
from rummyhall.cli import main
from rummyhall.server.config import Settings

PROBE = """
from rummyhall import compilecmd, compiled
from rummyhall.cli import main
from rummyhall.rules import MeldRules, deadwood_points, parse_cards
print(compiled.status().describe())
print(deadwood_points(parse_cards("As 2s 3s 7h 7d 7c Kd Qd 9c 4h"), MeldRules()))
"""


def probe(root: str) -> list[str]:
    """Run PROBE in a fresh interpreter with RUMMYHALL_COMPILED=root; its two lines."""
    env = {**os.environ, compiled.ENV: root}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True, timeout=60)
    return out.stdout.splitlines()


def fake_build(root: Path, content: bytes) -> Path:
    """A build with the right key whose files hold ``content``: a damaged build."""
    build = root / compiled.digest(compiled.rules_dir())
    build.mkdir(parents=True)
    files = {name: f"{name}{compiled.ext_suffix()}" for name in [*compiled.MODULES, "x__mypyc"]}
    for file in files.values():
        (build / file).write_bytes(content)
    manifest = {"shared": "x__mypyc", "files": files}
    (build / compiled.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return build


def test_no_build_loads_the_pure_modules(tmp_path: Path) -> None:
    finder = compiled.CompiledFinder(tmp_path)
    assert finder.find_spec("rummyhall.rules.solver", None) is None
    assert "no compiled build" in finder.reason and "rummyhall compile" in finder.reason
    assert finder.find_spec("rummyhall.rules.cards", None) is None  # never asked about


def test_off_loads_the_pure_modules_even_beside_a_build() -> None:
    assert compiled.build_root({compiled.ENV: "off"}) is None
    assert compiled.build_root({compiled.ENV: "/some/dir"}) == Path("/some/dir")
    assert compiled.build_root({}) is not None  # the per-user cache directory
    finder = compiled.CompiledFinder(None)
    assert finder.find_spec("rummyhall.rules.solver", None) is None
    assert "RUMMYHALL_COMPILED=off" in finder.reason


def test_a_damaged_build_is_never_used_nor_a_crash(tmp_path: Path) -> None:
    build = fake_build(tmp_path, b"not an ELF file, nor a DLL")
    finder = compiled.CompiledFinder(tmp_path)
    for name in compiled.MODULES:  # none of them: the paths are never mixed
        assert finder.find_spec(name, None) is None
    assert "does not load" in finder.reason and str(build) in finder.reason
    assert finder.loaded == []


def test_a_damaged_build_falls_back_in_a_fresh_interpreter(tmp_path: Path) -> None:
    fake_build(tmp_path, b"\x7fELF garbage")
    status, deadwood = probe(str(tmp_path))
    assert status.startswith("pure Python (the compiled build in")
    assert deadwood == "33"  # the pure solver answers: Kd Qd 9c 4h are left


def test_the_key_changes_with_any_rules_source_and_with_the_python(tmp_path: Path) -> None:
    (tmp_path / "melds.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "cards.py").write_text("y = 1\n", encoding="utf-8")
    first = compiled.digest(tmp_path)
    assert compiled.digest(tmp_path) == first
    (tmp_path / "cards.py").write_text("y = 2\n", encoding="utf-8")  # not compiled itself
    assert compiled.digest(tmp_path) != first
    second = compiled.digest(tmp_path)
    assert compiled.digest(tmp_path, suffix=".cpython-312-x86_64-linux-gnu.so") != second
    assert compiled.digest(tmp_path, modules=compiled.MODULES[:1]) != second


def test_the_switch_is_no_server_setting() -> None:
    env = {compiled.ENV: "off", "RUMMYHALL_PORT": "7000"}
    assert Settings.load(env=env).port == 7000


def test_the_path_in_use_is_what_the_ci_asks(request: pytest.FixtureRequest) -> None:
    status = compiled.status()
    loaders = {name: type(sys.modules[name].__loader__) for name in compiled.MODULES}
    extension = importlib.machinery.ExtensionFileLoader
    if request.config.getoption("--expect-compiled"):
        assert status.active, status.reason
        assert all(kind is extension for kind in loaders.values()), loaders
        assert status.describe().startswith("compiled (mypyc): ")
        assert probe(os.environ[compiled.ENV])[0] == status.describe()
        assert probe("off")[0] == "pure Python (RUMMYHALL_COMPILED=off)"
    elif compiled.build_root() is None:  # CI's pure run: RUMMYHALL_COMPILED=off
        assert status.compiled == ()
        assert all(kind is not extension for kind in loaders.values())
    else:
        assert status.compiled == () or status.active  # all or nothing
        assert status.active == all(kind is extension for kind in loaders.values())


def test_compile_without_mypyc_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mypyc" else real(name, *a))
    with pytest.raises(compilecmd.CompileError, match=r"rummyhall\[compiled\]"):
        compilecmd.build(tmp_path)
    assert main(["compile", "--dir", str(tmp_path / "b")]) == 1
    assert "pip install 'rummyhall[compiled]'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_compile_with_the_switch_off_needs_a_folder(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(compiled.ENV, "off")
    assert main(["compile"]) == 2
    assert "--dir" in capsys.readouterr().err


def test_compile_replaces_only_our_stale_builds(tmp_path: Path) -> None:
    suffix = compiled.ext_suffix()
    for name, manifest in (("old", {"ext_suffix": suffix}), ("other-python",
                           {"ext_suffix": ".cpython-399.so"}), ("not-ours", None)):
        (tmp_path / name).mkdir()
        if manifest is not None:
            (tmp_path / name / compiled.MANIFEST).write_text(json.dumps(manifest))
    compilecmd.remove_stale(tmp_path, keep="new", suffix=suffix)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-ours", "other-python"]
