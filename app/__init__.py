"""Rummy Hall: a LAN server for the Rummy family of card games."""

__version__ = "0.1.0"
