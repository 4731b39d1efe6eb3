"""Ctrl-C wins over the failures it causes: a command stopped while its connection
breaks reports the interruption (status 130), not the broken connection (status 1)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import NoReturn

import pytest

from rummyhall import botcmd, serve
from rummyhall.cli import INTERRUPTED, main
from rummyhall.client.session import ConnectionLost


@pytest.mark.parametrize("failure", [ConnectionLost("the connection dropped"),
                                     ConnectionResetError("reset by peer")])
def test_bot_interrupted_as_its_connection_fails(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        failure: Exception) -> None:
    async def interrupted_run_bot(*args: object, **kwargs: object) -> NoReturn:
        # (as a session's nursery hands them over: the interruption and, beside it, what
        # the closing connection raised in another task)
        raise BaseExceptionGroup("session", [failure, KeyboardInterrupt()])

    monkeypatch.setattr(botcmd, "run_bot", interrupted_run_bot)
    assert main(["bot", "--server", "127.0.0.1:1", "--quiet"]) == INTERRUPTED
    assert capsys.readouterr().err.splitlines() == ["rummyhall bot: interrupted"]


def test_bot_failure_without_an_interruption_is_reported(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def failing_run_bot(*args: object, **kwargs: object) -> NoReturn:
        raise ExceptionGroup("session", [ConnectionResetError("reset by peer")])

    monkeypatch.setattr(botcmd, "run_bot", failing_run_bot)
    assert main(["bot", "--server", "127.0.0.1:1", "--quiet"]) == 1
    assert capsys.readouterr().err.splitlines() == ["rummyhall bot: reset by peer"]


def test_serve_interrupted_as_it_fails_to_listen(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    async def interrupted_serve(*args: object, **kwargs: object) -> NoReturn:
        raise BaseExceptionGroup("hall", [OSError(98, "Address already in use"),
                                          KeyboardInterrupt()])

    monkeypatch.setattr(serve, "serve_until_signalled", interrupted_serve)
    argv = ["serve", "--host", "127.0.0.1", "--port", "0", "--no-beacon",
            "--data", str(tmp_path / "hall.sqlite3")]
    threshold = gc.get_threshold()
    try:
        assert main(argv) == INTERRUPTED
    finally:  # (the server tunes the collector for itself: not for the tests after this)
        gc.set_threshold(*threshold)
        gc.unfreeze()
    assert capsys.readouterr().err.splitlines() == ["rummyhall serve: interrupted"]
