"""``rummyhall compile``: build the optional compiled modules (mypyc) that
:mod:`rummyhall.compiled` loads; see that module for the build's layout and keys."""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .compiled import ENV, MANIFEST, MODULES, build_root, digest, ext_suffix, rules_dir


class CompileError(Exception):
    """The compiled build could not be made (no mypy, no C compiler, a compile error)."""


def build(root: Path, *, quiet: bool = True) -> Path:
    """Compile :data:`~rummyhall.compiled.MODULES` from the installed rules sources into
    ``root``; return the build's directory. Other builds in ``root`` for this Python are
    removed (they are stale: their sources differ).

    The sources are copied to a temporary folder laid out as the installed package
    (``rummyhall/rules/``), so that mypyc names the modules as they are imported; nothing
    is written outside that folder and ``root``, and the build appears in ``root`` whole
    or not at all (renamed into place). Raises :class:`CompileError`.
    """
    if importlib.util.find_spec("mypyc") is None:
        raise CompileError("the compiled build needs mypy, which ships mypyc: "
                           "pip install 'rummyhall[compiled]' (and a C compiler)")
    sources = rules_dir()
    key = digest(sources)
    suffix = ext_suffix()
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rummyhall-compile-") as tmp:
        stage = Path(tmp)
        package = stage / "rummyhall" / "rules"
        package.mkdir(parents=True)
        (stage / "rummyhall" / "__init__.py").write_text("", encoding="utf-8")
        for path in sources.glob("*.py"):
            shutil.copyfile(path, package / path.name)
        paths = [str(Path(*m.split(".")).with_suffix(".py")) for m in MODULES]
        run = subprocess.run([sys.executable, "-m", "mypyc", *paths], cwd=stage,
                             capture_output=quiet, text=True, check=False)
        if run.returncode != 0:
            detail = (run.stdout or "") + (run.stderr or "")
            raise CompileError(f"mypyc failed (exit {run.returncode}):\n{detail.strip()}")
        shared = list(stage.glob(f"*__mypyc{suffix}"))
        if len(shared) != 1:
            raise CompileError(f"mypyc made {len(shared)} shared libraries, expected one")
        shared_name = shared[0].name[:-len(suffix)]
        built = {shared_name: shared[0],
                 **{m: stage / (str(Path(*m.split("."))) + suffix) for m in MODULES}}
        out = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
        try:
            files: dict[str, str] = {}
            for name, path in built.items():
                files[name] = f"{name}{suffix}"
                shutil.copyfile(path, out / files[name])
            manifest = {"digest": key, "python": sys.version, "ext_suffix": suffix,
                        "modules": list(MODULES), "shared": shared_name, "files": files,
                        "mypy": _mypy_version()}
            (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n",
                                        encoding="utf-8")
            final = root / key
            if final.exists():
                shutil.rmtree(final)
            out.rename(final)
        except BaseException:
            shutil.rmtree(out, ignore_errors=True)
            raise
    remove_stale(root, keep=key, suffix=suffix)
    return final


def remove_stale(root: Path, *, keep: str, suffix: str) -> None:
    """Remove the other builds of this Python in ``root``: only folders holding a manifest
    of ours for the same extension suffix."""
    for entry in root.iterdir():
        if not entry.is_dir() or entry.name == keep:
            continue
        try:
            manifest = json.loads((entry / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("ext_suffix") == suffix:
            shutil.rmtree(entry, ignore_errors=True)


def _mypy_version() -> str:
    version = importlib.import_module("mypy.version")
    return str(version.__version__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, default=None,
                        help=f"the root of the builds (default: ${ENV} if it names a "
                             "directory, else compiled/ in the per-user cache directory)")
    parser.add_argument("--verbose", action="store_true", help="show mypyc's and the C "
                        "compiler's output")


def cmd_compile(args: argparse.Namespace) -> int:
    """Build the compiled modules; print where, how long it took and what loads next."""
    root = args.dir if args.dir is not None else build_root()
    if root is None:
        print(f"{ENV}=off: name a directory with --dir", file=sys.stderr)
        return 2
    names = ", ".join(m.rsplit(".", 1)[1] for m in MODULES)
    print(f"compiling {names} with mypyc (a minute or two)...", flush=True)
    started = time.monotonic()
    try:
        where = build(root, quiet=not args.verbose)
    except CompileError as exc:
        print(f"rummyhall compile: {exc}", file=sys.stderr)
        return 1
    print(f"built {where} in {time.monotonic() - started:.0f} s")
    if args.dir is not None and build_root() != args.dir:
        print(f"(it loads when {ENV}={args.dir})")
    return 0
