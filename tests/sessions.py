"""Shared test helpers of sessions: the session a welcome carries (a hall without a
password), the rate tokens a player's connections are charged."""

from __future__ import annotations

import pytest

from rummyhall.protocol import Session, Welcome
from rummyhall.server.session import ServerSession


def session_of(welcome: Welcome) -> Session:
    """``welcome.session``, which only a hall with a password leaves out (then the
    ``logged_in`` after the login carries it)."""
    assert welcome.session is not None, "a welcome of a hall with a password"
    return welcome.session


def charged_to(name: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rate tokens charged from now on to the connections of the player named
    ``name`` (frames, replies, the work they cost), one entry a charge: clear the list
    to count afresh."""
    charged: list[int] = []
    charge = ServerSession._charge

    def counting(self: ServerSession, tokens: int) -> None:
        if self.player is not None and self.player.name == name:
            charged.append(tokens)
        charge(self, tokens)

    monkeypatch.setattr(ServerSession, "_charge", counting)
    return charged
