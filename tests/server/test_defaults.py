"""One source for each default: protocol/limits.py owns the numbers a client must know,
server/config.py takes its defaults and bounds from there, and every doc that restates a
number states the same one. A copy that drifts (a literal in config.py, a number in the
docs) fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rummyhall.protocol import Limits
from rummyhall.protocol import limits as L
from rummyhall.server.access import CODES_PER_ADDRESS
from rummyhall.server.config import setting_fields
from rummyhall.server.lobby import INVITE_TOKENS

DOCS = Path(__file__).resolve().parents[2] / "docs"
PROTOCOL = (DOCS / "protocol.md").read_text(encoding="utf-8")
SERVER = (DOCS / "server.md").read_text(encoding="utf-8")
README = (DOCS.parent / "README.md").read_text(encoding="utf-8")

DEFAULTS: dict[str, Any] = {f.name: f.default for f in setting_fields()}
BOUNDS = {f.name: (f.metadata["low"], f.metadata["high"]) for f in setting_fields()}

# setting -> the protocol constant that owns its default
OWNED = {
    "port": L.DEFAULT_PORT,
    "beacon_port": L.DEFAULT_PORT,
    "max_connections": L.MAX_CONNECTIONS,
    "max_per_address": L.MAX_PER_ADDRESS,
    "connect_rate": L.CONNECT_RATE,
    "connect_burst": L.CONNECT_BURST,
    "max_tables": L.MAX_TABLES,
    "max_frame": L.MAX_FRAME,
    "messages_per_second": L.MESSAGES_PER_SECOND,
    "burst": L.BURST,
    "handshake_seconds": L.HANDSHAKE_SECONDS,
    "idle_seconds": L.IDLE_SECONDS,
    "turn_seconds": L.TURN_SECONDS,
    "grace_seconds": L.GRACE_SECONDS,
}


@pytest.mark.parametrize(("name", "value"), OWNED.items())
def test_the_settings_take_the_protocols_defaults(name: str, value: int) -> None:
    assert DEFAULTS[name] == value


def test_the_settings_bounds_are_the_protocols() -> None:
    assert BOUNDS["max_frame"] == (L.MIN_FRAME_LIMIT, L.MAX_FRAME_LIMIT)
    assert BOUNDS["max_tables"][1] == L.MAX_TABLES_LIMIT
    assert BOUNDS["messages_per_second"][1] == BOUNDS["burst"][1] == L.MAX_RATE
    # what a table announces (TableInfo, welcome.limits) must fit the schema's SECONDS
    for name in ("idle_seconds", "turn_seconds", "bot_turn_seconds", "grace_seconds",
                 "handshake_seconds"):
        assert BOUNDS[name][1] <= L.MAX_SECONDS, name


def test_the_welcome_announces_the_same_defaults() -> None:
    limits = Limits()
    assert (limits.max_frame, limits.max_server_frame) == (L.MAX_FRAME, L.MAX_SERVER_FRAME)
    assert (limits.max_name, limits.max_chat) == (L.MAX_NAME, L.MAX_CHAT)
    assert (limits.messages_per_second, limits.burst) == (L.MESSAGES_PER_SECOND, L.BURST)
    assert (limits.handshake_seconds, limits.idle_seconds, limits.ping_seconds) == (
        L.HANDSHAKE_SECONDS, L.IDLE_SECONDS, L.PING_SECONDS)
    assert L.keepalive(DEFAULTS["idle_seconds"]) == (L.IDLE_SECONDS, L.PING_SECONDS)


def _doc_value(text: str) -> object:
    """A default as the settings table writes it: 7654, 2.0, `info`, true, empty, none."""
    text = text.strip()
    words = {"true": True, "false": False, "empty": "", "none": None}
    if text in words:
        return words[text]
    if text.startswith("`") and text.endswith("`"):
        return text[1:-1]
    return float(text) if "." in text else int(text)


def test_the_host_guides_settings_table_states_every_default() -> None:
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| `--[^|]*\| `RUMMYHALL_[A-Z_]+` \| ([^|]+) \|",
                           SERVER, re.MULTILINE))
    assert set(rows) == set(DEFAULTS)
    for name, written in rows.items():
        default = DEFAULTS[name]
        value = _doc_value(written)
        assert value == default, (name, written, default)
        assert type(value) is type(default) or isinstance(default, float), (name, written)


_UNITS = {"bytes": 1, "s": 1, "KiB": 1024, "MiB": 1024 ** 2, "h": 3600, "/s": 1}


def test_the_host_guides_limits_table_states_the_defaults() -> None:
    rows = re.findall(r"^\| [^|]+ \| ((?:`[a-z_]+`(?:, )?)+) \| ([^|]+) \|", SERVER,
                      re.MULTILINE)
    assert len(rows) >= 10
    for names, written in rows:
        settings = re.findall(r"`([a-z_]+)`", names)
        numbers = re.findall(r"(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|h|/s|s)?\b", written)
        for setting, (number, unit) in zip(settings, numbers, strict=False):
            assert float(number) * _UNITS.get(unit, 1) == DEFAULTS[setting], (setting, written)
    assert f"| `max_tables` | {L.MAX_TABLES} (at most {L.MAX_TABLES_LIMIT}) |" in SERVER
    assert f"| (fixed) | {L.TABLES_PER_PAGE} tables a page |" in SERVER
    assert f"| (fixed) | {L.MAX_NAME} characters |" in SERVER
    assert f"| (fixed) | {L.MAX_CHAT} characters |" in SERVER
    assert f"{DEFAULTS['port']} and announces" in SERVER or \
        f"TCP port {DEFAULTS['port']}" in SERVER


def test_the_protocol_doc_states_the_defaults() -> None:
    # every "`setting` (number" in the prose is that setting's default
    known = {**DEFAULTS, "max_server_frame": L.MAX_SERVER_FRAME, "ping_seconds": L.PING_SECONDS,
             "max_name": L.MAX_NAME, "max_chat": L.MAX_CHAT}
    found = re.findall(r"`([a-z_]+)` \((\d+(?:\.\d+)?)", PROTOCOL)
    assert len(found) >= 12
    for name, number in found:
        if name in known:
            assert float(number) == known[name], (name, number)
    phrases = [
        f"The default port is **{L.DEFAULT_PORT}**",
        f"**{L.MAX_FRAME}** bytes for what a client sends",
        f"before the welcome\n  the limit is {L.HELLO_FRAME}, which a hello never needs",
        f"one more per whole\n  {L.FRAME_BYTES_PER_TOKEN} bytes of its body",
        f"**{L.MAX_SERVER_FRAME}** bytes for what the server sends",
        f"(at most {L.MAX_KEY_LEN} characters",
        f"Nesting is at most **{L.MAX_DEPTH}** containers",
        f"Arrays have at most **{L.MAX_ARRAY_LEN}** items, maps at most **{L.MAX_MAP_LEN}**",
        f"at most {L.TABLES_PER_PAGE} in one reply",
        f"`grace_seconds` (default {L.GRACE_SECONDS}) are bounded by 0..{L.MAX_SECONDS}",
        f"(the table's, default {L.GRACE_SECONDS})",
        f"min({L.PING_SECONDS}, idle_seconds / 3",
        f"idle\n  timeout of at least {L.MIN_IDLE_SECONDS} seconds",
        f"one more per\n  whole {L.REPLY_BYTES_PER_TOKEN // 1024} KiB",
        f"{L.MAX_CONNECTIONS} connections (`server_full`), {L.MAX_PER_ADDRESS} per IP address",
        f"{L.MAX_TABLES} tables (`too_many_tables`; at most {L.MAX_TABLES_LIMIT})",
        f"`bot_turn_seconds` ({DEFAULTS['bot_turn_seconds']} by default)",
        f"`house_delay` ({DEFAULTS['house_delay']} s by default)",
        f"default: the server's ({L.TURN_SECONDS} out of the box)",  # create_table's table
        f"default: the server's ({L.GRACE_SECONDS} out of the box)",
    ]
    for phrase in phrases:
        assert phrase in PROTOCOL, phrase


def test_the_readme_states_the_default_port() -> None:
    assert f"port {L.DEFAULT_PORT}," in README and f"[--port {L.DEFAULT_PORT}]" in README
    assert f"rummyhall serve                      # every interface, port {L.DEFAULT_PORT}" \
        in SERVER


def test_the_docs_state_what_an_invite_costs_and_how_many_tables_an_address_may_guess_at(
        ) -> None:
    text = " ".join(PROTOCOL.split())
    assert f"a `create_table` with an invite {INVITE_TOKENS} more" in text
    assert f"An address has wrong codes on record at {CODES_PER_ADDRESS} tables" in text
    assert f"a table with an invite code {INVITE_TOKENS} more" in " ".join(SERVER.split())
