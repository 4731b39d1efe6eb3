"""The optional compiled build of the rules engine's hot modules (mypyc), and its loader.

Rummy Hall is pure Python and needs no compiler. ``rummyhall compile`` (with mypy, which
ships mypyc, and a C compiler) compiles the modules named in :data:`MODULES`, and only
those, into a *build directory*; when the package is imported, a finder on
``sys.meta_path`` loads those modules from the build instead of their ``.py`` files, if the
build is there, was made from exactly the rules sources installed and for this Python.

Theory of operation
-------------------
A build is keyed by a digest of every ``rules/*.py`` file (names and bytes), the module
list and this interpreter's extension suffix (``.cpython-311-x86_64-linux-gnu.so``):
mypyc bakes into the compiled code what it knew of the other rules modules (constants,
class layouts), so an edit to any of them makes a build stale. The build lives in
``<root>/<digest>/``: one extension module per compiled module (a small shim) and the one
shared library holding their code, with ``manifest.json`` naming them. A stale build, or
one made for another Python, simply has another digest and is never looked at; the loader
then stays silent and the pure modules load. When the digest matches but the shared
library does not load (a damaged or foreign file), the loader gives up on every module
before loading any, so the compiled and the pure modules are never mixed, and records why.

The root is ``$RUMMYHALL_COMPILED`` when that names a directory, else ``compiled/`` in the
per-user cache directory; ``RUMMYHALL_COMPILED=off`` always loads the pure modules.
:func:`status` says which path is in use and why; ``rummyhall --version`` prints it.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final

import platformdirs

# The modules compiled: the one list. Each must compile with mypyc as it is and must not
# hold a class that uncompiled code subclasses (docs/rules.md, "The compiled build").
MODULES: Final = (
    "rummyhall.rules.melds",
    "rummyhall.rules.solver",
    "rummyhall.rules.wild_runs",
    "rummyhall.rules.game",
    "rummyhall.rules.variants",
)

ENV: Final = "RUMMYHALL_COMPILED"  # "off", or the root directory of the builds
OFF: Final = ("off", "0", "no", "false", "pure")
MANIFEST: Final = "manifest.json"
RULES_PACKAGE: Final = "rummyhall.rules"


@dataclass(frozen=True)
class Status:
    """Which path the rules engine's hot modules take."""

    compiled: tuple[str, ...]  # the modules loaded from a compiled build
    reason: str  # why (the build used, or why the pure modules load)

    @property
    def active(self) -> bool:
        """True when every module of :data:`MODULES` was loaded compiled."""
        return self.compiled == MODULES

    def describe(self) -> str:
        """One line: ``compiled (mypyc): melds, solver, ...`` or ``pure Python (...)``."""
        if self.active:
            names = ", ".join(m.rsplit(".", 1)[1] for m in self.compiled)
            return f"compiled (mypyc): {names}"
        return f"pure Python ({self.reason})"


def ext_suffix() -> str:
    """This interpreter's own suffix for extension modules (``.cpython-311-...so``)."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def build_root(environ: dict[str, str] | os._Environ[str] | None = None) -> Path | None:
    """Where the builds live, or None when ``RUMMYHALL_COMPILED=off``."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip()
    if value.lower() in OFF:
        return None
    if value:
        return Path(value)
    return Path(platformdirs.user_cache_dir("rummyhall")) / "compiled"


def rules_dir() -> Path:
    """The folder the rules package's sources are imported from (found, not imported)."""
    spec = importlib.util.find_spec(RULES_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"cannot find the {RULES_PACKAGE} package")
    return Path(next(iter(spec.submodule_search_locations)))


def digest(sources: Path, modules: Sequence[str] = MODULES, suffix: str | None = None) -> str:
    """The key of a build: every ``*.py`` in ``sources``, the module list, the suffix."""
    h = hashlib.sha256()
    h.update(repr((tuple(modules), suffix or ext_suffix())).encode())
    for path in sorted(sources.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:24]


class CompiledFinder(importlib.abc.MetaPathFinder):
    """Loads :data:`MODULES` from the build of the installed sources, all or none."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.loaded: list[str] = []
        self.reason = "not looked for yet"
        self._files: dict[str, Path] | None = None  # None: not decided yet

    def _decide(self) -> dict[str, Path]:
        """Find the build (once); load its shared library to prove it works."""
        self._files = {}
        if self.root is None:
            self.reason = f"{ENV}=off"
            return self._files
        try:
            key = digest(rules_dir())
            build = self.root / key
            manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            self.reason = (f"no compiled build of these sources for this Python in "
                           f"{self.root}; `rummyhall compile` makes one")
            return self._files
        except (OSError, ValueError, ImportError) as exc:
            self.reason = f"cannot read the compiled build: {exc}"
            return self._files
        try:
            files = {name: build / manifest["files"][name] for name in MODULES}
            shared = str(manifest["shared"])
            files[shared] = build / manifest["files"][shared]
            _load_extension(shared, files[shared])
        except (ImportError, OSError, KeyError, TypeError) as exc:
            self.reason = f"the compiled build in {build} does not load: {exc}"
            return self._files
        self._files = files
        self.reason = f"build {build}"
        return self._files

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES:
            return None
        files = self._decide() if self._files is None else self._files
        where = files.get(fullname)
        if where is None:
            return None
        self.loaded.append(fullname)
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(where))
        return importlib.util.spec_from_file_location(fullname, where, loader=loader)


def _load_extension(name: str, path: Path) -> ModuleType:
    """Load the extension module ``name`` from ``path`` into ``sys.modules``."""
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(f"no module spec for {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[name] = module
    return module


# The one finder, reading RUMMYHALL_COMPILED when the package is first imported.
FINDER: Final = CompiledFinder(build_root())


def install() -> None:
    """Put :data:`FINDER` first on ``sys.meta_path`` (once; the package's ``__init__``
    calls it)."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)


def status() -> Status:
    """Which path the hot modules take; imports the rules package to know."""
    importlib.import_module(RULES_PACKAGE)
    compiled = tuple(m for m in MODULES if m in sys.modules
                     and isinstance(sys.modules[m].__loader__,
                                    importlib.machinery.ExtensionFileLoader))
    return Status(compiled, FINDER.reason)
