"""A shared test helper: the session a welcome carries (a hall without a password)."""

from __future__ import annotations

from rummyhall.protocol import Session, Welcome


def session_of(welcome: Welcome) -> Session:
    """``welcome.session``, which only a hall with a password leaves out (then the
    ``logged_in`` after the login carries it)."""
    assert welcome.session is not None, "a welcome of a hall with a password"
    return welcome.session
