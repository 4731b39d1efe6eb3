"""Settings: defaults, a TOML file, the environment and flags, in that order; bad values."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import msgpack
import pytest
import trio
from hang_guard import HANG_GUARD
from players import RawClient

from rummyhall.protocol import (
    MAX_SERVER_FRAME,
    SeatInfo,
    TableInfo,
    Tables,
    to_wire,
)
from rummyhall.protocol.limits import (
    MAX_ID,
    MAX_NAME,
    MAX_PLAYER_ID,
    MAX_SECONDS,
    MAX_TABLE_ID,
    MAX_TABLES_LIMIT,
)
from rummyhall.rules import GAMES
from rummyhall.rules.options import options_to_dict, parse_options
from rummyhall.server import ConfigError, Settings


def test_precedence(tmp_path: Path) -> None:
    file = tmp_path / "hall.toml"
    file.write_text('port = 7000\nname = "From file"\nhand_pause = 1.5\nbeacon = false\n')
    settings = Settings.load(file=file, env={"RUMMYHALL_PORT": "7100", "OTHER": "x",
                                             "RUMMYHALL_MAX_TABLES": "12"},
                             flags={"port": 7200, "name": None})
    assert (settings.port, settings.name, settings.max_tables) == (7200, "From file", 12)
    assert settings.hand_pause == 1.5 and settings.beacon is False
    assert Settings.load().port == 7654


@pytest.mark.parametrize(("env", "words"), [
    ({"RUMMYHALL_PORT": "seventy"}, ["RUMMYHALL_PORT", "'port'", "int"]),
    ({"RUMMYHALL_PORT": "70000"}, ["'port'", "out of range"]),
    ({"RUMMYHALL_COLOUR": "red"}, ["unknown setting 'colour'"]),
    ({"RUMMYHALL_LOG_LEVEL": "loud"}, ["'log_level'", "debug, info, warning, error"]),
    ({"RUMMYHALL_BEACON": "maybe"}, ["'beacon'", "bool"]),
])
def test_bad_settings_are_named(env: dict[str, str], words: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        Settings.load(env=env)
    for word in words:
        assert word in str(info.value)


def test_a_bad_file_is_reported(tmp_path: Path) -> None:
    file = tmp_path / "bad.toml"
    file.write_text("port = = 3")
    with pytest.raises(ConfigError, match="cannot read"):
        Settings.load(file=file)


async def test_rummyhall_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "rummyhall", "serve", "--host", "127.0.0.1",
               "--port", "0", "--no-beacon", "--log-level", "warning",
               "--data", str(tmp_path / "hall.db")]
    process = await trio.lowlevel.open_process(command, stdout=-1)
    try:
        assert process.stdout is not None
        line = b""
        # real time: a subprocess (a Python that starts, then stops); bounded by the guard
        with trio.fail_after(HANG_GUARD):
            while b"\n" not in line:
                line += await process.stdout.receive_some(1024)
        port = int(line.split(b"listening on 127.0.0.1:")[1].split()[0])
        raw = await RawClient.connect(port)
        await raw.hello("ada")
        process.send_signal(signal.SIGTERM)
        got = await raw.receive_until_closed()
        assert [getattr(m, "code", None) for m in got] == ["server_shutdown"]
        with trio.fail_after(HANG_GUARD):
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        if process.stdout is not None:
            await process.stdout.aclose()


def test_max_tables_is_bounded_by_what_a_tables_reply_holds() -> None:
    """Every table must fit in one tables reply, so the setting stops at the number of
    the largest tables there can be (8 seats, names of 32 four-byte characters) that one
    frame holds."""
    with pytest.raises(ConfigError, match="max_tables"):
        Settings.load(flags={"max_tables": MAX_TABLES_LIMIT + 1})
    assert Settings.load(flags={"max_tables": MAX_TABLES_LIMIT}).max_tables == \
        MAX_TABLES_LIMIT
    name = "\U0001d11e" * MAX_NAME
    largest = []
    for game, cls in GAMES.items():
        seats = tuple(SeatInfo(seat=i, kind="person", player=MAX_PLAYER_ID, name=name,
                               connected=True, bot="strong", rating=10**9)
                      for i in range(cls.max_players))
        largest.append(TableInfo(
            table=MAX_TABLE_ID, game=game, options=options_to_dict(parse_options(game, {})),
            seats=seats, state="finished", spectators=10**9, creator=MAX_PLAYER_ID,
            creator_name=name, turn_seconds=MAX_SECONDS, grace_seconds=MAX_SECONDS))
    worst = max(largest, key=lambda info: len(msgpack.packb(to_wire(info))))
    reply = Tables(tables=(worst,) * MAX_TABLES_LIMIT, id=MAX_ID)
    assert len(msgpack.packb(to_wire(reply))) <= MAX_SERVER_FRAME


def test_a_number_setting_must_be_finite() -> None:
    """nan passes any comparison of a range, inf is no duration: both are refused."""
    for value in ("nan", "inf", 10**400):  # (the last: a TOML integer no float holds)
        with pytest.raises(ConfigError, match=r"idle_seconds.*finite number"):
            Settings.load(flags={"idle_seconds": value})
