"""Rummy Hall: a LAN server for the Rummy family of card games."""

from importlib.metadata import version

__version__ = version("rummyhall")  # one source: pyproject.toml's [project] version

# The optional compiled rules modules load from here on when a fresh build exists
# (rummyhall.compiled; `rummyhall compile` makes one).
from . import compiled

compiled.install()
