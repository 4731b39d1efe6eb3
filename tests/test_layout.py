"""The package layout: every sub-package is in the wheel, and the layering holds."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("rules", "bots", "protocol", "server", "client")

sys.path.insert(0, str(ROOT / "tools"))
import check_layers  # noqa: E402


def test_layering_holds() -> None:
    assert check_layers.violations() == []


def test_layering_check_catches_a_violation(tmp_path: Path) -> None:
    bad = ROOT / "rules" / "_layering_probe.py"
    bad.write_text("from rummyhall.server import x\nimport trio\n")
    try:
        found = check_layers.violations()
    finally:
        bad.unlink()
    assert any("rules may not import server" in p for p in found)
    assert any("must do no I/O" in p for p in found)


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
