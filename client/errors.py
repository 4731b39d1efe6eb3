"""The root of the client library's errors (every module of the client raises under it)."""

from __future__ import annotations


class ClientError(Exception):
    """The root of the client library's errors."""
