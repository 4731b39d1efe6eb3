"""Rummy Hall: a LAN server for the Rummy family of card games."""

from importlib.metadata import version

__version__ = version("rummyhall")  # one source: pyproject.toml's [project] version
