"""Tokens are secrets: the server keeps only their digest, and no repr or log line shows one."""

from __future__ import annotations

import logging

import pytest
from players import RawClient
from sessions import session_of

from rummyhall.protocol import Hello, Session, Welcome
from rummyhall.server import Hall
from rummyhall.server.players import PlayerRegistry
from rummyhall.server.tokens import digest, matches


def test_a_token_is_128_random_bits_and_only_its_digest_is_kept() -> None:
    registry = PlayerRegistry()
    ada, token = registry.new("ada", "person")
    bob, other = registry.new("bob", "person")
    assert len(token) == 32 and int(token, 16) >= 0 and token != other
    assert ada.token_digest == digest(token) and token not in vars(ada).values()
    assert registry.by_token(token) is ada and registry.by_token(other) is bob
    assert registry.by_token(digest(token)[:32]) is None  # the digest is no token
    assert matches(token, ada.token_digest) and not matches(other, ada.token_digest)


def test_no_repr_shows_a_token() -> None:
    token = "ab" * 16
    hello = Hello(versions=(1,), name="ada", kind="person", token=token)
    session = Session(player=1, token=token, resumed=True)
    for text in (repr(hello), repr(session), str(hello), repr(PlayerRegistry().new("x", "bot"))):
        assert token not in text and "token" not in text


async def test_no_log_line_shows_a_token(hall: Hall, caplog: pytest.LogCaptureFixture) -> None:
    assert hall.port
    caplog.set_level(logging.DEBUG)
    raw = await RawClient.connect(hall.port)
    welcome = await raw.hello("ada")
    assert isinstance(welcome, Welcome)
    token = session_of(welcome).token
    await raw.aclose()
    again = await RawClient.connect(hall.port)
    await again.send(Hello(versions=(1,), name="ada", kind="person", token=token))
    resumed = await again.receive()
    assert isinstance(resumed, Welcome) and session_of(resumed).resumed
    await again.aclose()
    assert caplog.records  # (the hellos and resumes are logged)
    assert not [r for r in caplog.records if token in r.getMessage()]
