"""The JavaScript bot of examples/js-bot, written from docs/protocol.md alone, plays a
whole game of Gin against a house bot on a real server. CI installs its one npm package
(`npm ci` in .ci/run); without Node.js or that package the test is skipped, saying why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import trio
from hang_guard import HANG_GUARD

from rummyhall.server import Hall

BOT = Path(__file__).resolve().parents[2] / "examples" / "js-bot"


async def test_the_javascript_bot_plays_a_whole_game(hall: Hall) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    if not (BOT / "node_modules" / "@msgpack" / "msgpack").is_dir():
        pytest.skip("run `npm ci` in examples/js-bot first (.ci/run does)")
    assert hall.port
    with trio.fail_after(HANG_GUARD):  # real time: a Node.js subprocess plays a game
        result = await trio.run_process(
            [node, str(BOT / "bot.mjs"), "--port", str(hall.port), "--target", "50"],
            capture_stdout=True, capture_stderr=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert "game over after" in result.stdout.decode()
