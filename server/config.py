"""The server's settings: defaults, a TOML file, environment variables and flags.

Every setting has one name used everywhere: ``port`` is ``port = 7654`` in the TOML
file, ``RUMMYHALL_PORT`` in the environment and ``--port`` on the command line. Later
sources win: defaults, then the file, then the environment, then the flags.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummyhall.bots import STRATEGIES
from rummyhall.protocol import ProofError, Verifier
from rummyhall.protocol.limits import (
    BURST,
    CONNECT_BURST,
    CONNECT_RATE,
    DEFAULT_PORT,
    GRACE_SECONDS,
    HANDSHAKE_SECONDS,
    IDLE_SECONDS,
    MAX_CONNECTIONS,
    MAX_FRAME,
    MAX_FRAME_LIMIT,
    MAX_PER_ADDRESS,
    MAX_RATE,
    MAX_SECONDS,
    MAX_TABLES,
    MAX_TABLES_LIMIT,
    MESSAGES_PER_SECOND,
    MIN_FRAME_LIMIT,
    PRODUCT,
    TURN_SECONDS,
)
from rummyhall.protocol.proofs import KDF

ENV_PREFIX = "RUMMYHALL_"
# RUMMYHALL_ variables that are not settings: the config file's path, and the compiled
# build's switch read when the package is imported (rummyhall.compiled)
NOT_SETTINGS = frozenset({ENV_PREFIX + "CONFIG", ENV_PREFIX + "COMPILED"})
LOG_LEVELS = ("debug", "info", "warning", "error")


class ConfigError(ValueError):
    """A setting that is unknown, of the wrong type or out of range."""


def _s(default: Any, meaning: str, *, low: float | None = None, high: float | None = None,
       choices: tuple[str, ...] = (), secret: bool = False) -> Any:
    return field(default=default, repr=not secret,
                 metadata={"meaning": meaning, "low": low, "high": high, "choices": choices})


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything ``rummyhall serve`` can be told."""

    host: str = _s("0.0.0.0", "address to listen on (0.0.0.0: every interface)")
    port: int = _s(DEFAULT_PORT, "TCP port", low=0, high=65_535)
    name: str = _s(PRODUCT, "the server's name, shown to players and in the LAN beacon")
    password: str = _s("", "the hall's password (empty: none): a client must prove it before "
                           "anything else; better, the verifier `rummyhall hall-key` prints, "
                           "which keeps its salt across restarts (docs/server.md, 'Running a "
                           "private hall')", secret=True)
    data: str = _s("", "the SQLite data file (empty: the per-user data directory; "
                       "':memory:' keeps nothing after the server stops)")
    journal: bool = _s(True, "journal every action in the data file (--no-journal: no "
                             "persistence, no history; for benchmarks)")
    fsync: bool = _s(False, "fsync every commit of the journal: committed actions also "
                            "survive a power loss, not only a crash (slower)")
    log_level: str = _s("info", "how much to log", choices=LOG_LEVELS)
    beacon: bool = _s(True, "announce the server on the LAN (UDP broadcast)")
    beacon_port: int = _s(DEFAULT_PORT, "UDP port of the LAN beacon", low=1, high=65_535)
    beacon_address: str = _s("255.255.255.255", "where the beacon is sent")
    beacon_seconds: float = _s(2.0, "seconds between two beacons", low=0.1, high=3600)
    tls: bool = _s(False, "serve TLS instead of plain TCP (docs/server.md, \"Serving over "
                          "TLS\"); without tls_cert and tls_key, with a self-signed "
                          "certificate made once in the data directory")
    tls_cert: str = _s("", "the certificate (PEM, the chain after it) to serve TLS with "
                           "(empty: the self-signed one)")
    tls_key: str = _s("", "the private key (PEM, unencrypted) of tls_cert")
    max_connections: int = _s(MAX_CONNECTIONS, "connections held at once", low=1, high=100_000)
    max_per_address: int = _s(MAX_PER_ADDRESS, "connections from one address", low=1, high=100_000)
    connect_rate: float = _s(float(CONNECT_RATE), "new connections one address may open a "
                                                  "second, on average, past connect_burst",
                             low=0.1, high=100_000)
    connect_burst: int = _s(CONNECT_BURST, "new connections one address may open at once",
                            low=1, high=100_000)
    max_tables: int = _s(MAX_TABLES, "tables at once", low=1,
                         high=MAX_TABLES_LIMIT)
    max_tables_per_address: int = _s(32, "tables open at once created from one address "
                                         "(by any of its players)", low=1,
                                     high=MAX_TABLES_LIMIT)
    tables_per_second: float = _s(1.0, "tables one address may create a second, on "
                                       "average, past max_tables_per_address at once "
                                       "(each is told to every lobby)", low=0.01,
                                  high=MAX_RATE)
    max_frame: int = _s(MAX_FRAME, "largest frame a client may send (bytes)",
                        low=MIN_FRAME_LIMIT, high=MAX_FRAME_LIMIT)
    messages_per_second: int = _s(MESSAGES_PER_SECOND, "frames per second a client may "
                                                      "send, on average", low=1, high=MAX_RATE)
    burst: int = _s(BURST, "frames a client may send at once", low=1, high=MAX_RATE)
    chat_per_second: float = _s(2.0, "chat lines a player may say a second, on average, "
                                     "past chat_burst (each reaches every listener)",
                                low=0.1, high=MAX_RATE)
    chat_burst: int = _s(10, "chat lines a player may say at once", low=1, high=MAX_RATE)
    handshake_seconds: float = _s(float(HANDSHAKE_SECONDS), "time a new connection has to "
                                                             "say hello", low=0.1, high=3600)
    idle_seconds: float = _s(float(IDLE_SECONDS), "a client silent this long is closed",
                             low=1, high=MAX_SECONDS)
    max_output_bytes: int = _s(1_048_576, "bytes waiting to be written to one client; a "
                                          "client that does not read and overflows it is "
                                          "closed (slow_consumer)", low=262_144,
                               high=1_073_741_824)
    max_total_output_bytes: int = _s(67_108_864, "bytes waiting to be written to all clients "
                                                 "together; past it the client with the "
                                                 "most waiting is closed", low=1_048_576,
                                     high=17_179_869_184)
    player_expiry_seconds: float = _s(3600.0, "a player gone this long that holds nothing "
                                              "here (no seat, no table) is forgotten: its "
                                              "token and name are free", low=1,
                                      high=31_536_000)
    max_players: int = _s(20_000, "players remembered at once; past it the longest gone of "
                                  "those that hold nothing are forgotten first",
                          low=100, high=10_000_000)
    frame_seconds: float = _s(10.0, "time a frame that has begun to arrive has to end",
                              low=0.1, high=3600)
    send_timeout: float = _s(10.0, "seconds one write may take before the client is closed",
                             low=0.1, high=3600)
    turn_seconds: int = _s(TURN_SECONDS, "default time per decision for people (0: no timer)",
                           low=0, high=MAX_SECONDS)
    bot_turn_seconds: int = _s(15, "time per decision for remote bot clients", low=1,
                               high=MAX_SECONDS)
    grace_seconds: int = _s(GRACE_SECONDS, "default time a disconnected player's seat "
                                           "waits before a house bot plays it", low=0,
                           high=MAX_SECONDS)
    abandoned_seconds: float = _s(600.0, "a game in play with nobody at its table (no "
                                         "player connected in a seat, no spectator) waits, "
                                         "its house bots still; after this long the table "
                                         "is closed", low=1, high=MAX_SECONDS)
    house_delay: float = _s(0.4, "seconds a house bot waits before it plays (for people "
                                 "to follow)", low=0, high=60)
    update_interval: float = _s(0.1, "seconds the lobby gathers table changes before it "
                                     "tells every client", low=0, high=60)
    table_update_seconds: float = _s(1.0, "seconds at least between two lobby updates of "
                                          "one table (each tells its latest state; its "
                                          "removal goes at once)", low=0, high=60)
    contribution_seconds: float = _s(2.0, "seconds from a shuffle's announcement during "
                                          "which it may wait for the seats' contributions "
                                          "(verifiable deals); 0: none is waited for",
                                     low=0, high=30)
    hand_pause: float = _s(2.0, "seconds between the end of a hand and the next deal",
                           low=0, high=60)
    stand_in: str = _s("strong", "strategy of the house bots: the default for add_bot, and "
                                 "the one that plays for an absent player",
                       choices=STRATEGIES)
    admin_key: str = _s("", "the file of the host's admin credential, created once (0600) "
                            "when missing (empty: beside the data file, <data "
                            "file>.admin-key; none with ':memory:' data or --no-journal)")
    admin_from_lan: bool = _s(False, "accept the host's controls (admin_login with the "
                                     "credential) from other machines too, not only from "
                                     "this one; only with TLS on a shared network")
    seed: int | None = _s(None, "shuffle seed, for tests and benchmarks only: seeded games "
                                "are marked as such")

    @classmethod
    def load(cls, *, file: str | Path | None = None, env: Mapping[str, str] | None = None,
             flags: Mapping[str, object] | None = None) -> Settings:
        """Defaults, overridden by ``file`` (TOML), then ``env``, then ``flags``.

        Raises :class:`ConfigError` naming the bad setting and its source.
        """
        values: dict[str, object] = {}
        if file is not None:
            path = Path(file)
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read {path}: {exc}") from exc
            for key, value in data.items():
                values[key] = _coerce(key, value, f"{path}")
        for key, text in (env or {}).items():
            if key.startswith(ENV_PREFIX) and key not in NOT_SETTINGS:
                name = key[len(ENV_PREFIX):].lower()
                values[name] = _coerce(name, text, f"environment {key}")
        for key, value in (flags or {}).items():
            if value is not None:
                values[key] = _coerce(key, value, f"--{key.replace('_', '-')}")
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def from_environment(cls, flags: Mapping[str, object] | None = None,
                         file: str | Path | None = None) -> Settings:
        """Like :meth:`load` with ``os.environ``; the file may come from RUMMYHALL_CONFIG."""
        env = dict(os.environ)
        return cls.load(file=file or env.get(ENV_PREFIX + "CONFIG"), env=env, flags=flags)


def setting_fields() -> list[dataclasses.Field[Any]]:
    """The settings in order, with their metadata (for --help and the docs)."""
    return list(dataclasses.fields(Settings))


_TYPES = {f.name: f for f in dataclasses.fields(Settings)}


def _coerce(name: str, value: object, source: str) -> object:
    f = _TYPES.get(name)
    if f is None:
        raise ConfigError(f"{source}: unknown setting {name!r}; settings: {', '.join(_TYPES)}")
    kind = str(f.type)
    meta = f.metadata
    try:
        result: object
        if kind == "bool":
            result = _as_bool(value)
        elif kind in ("int", "int | None"):
            result = None if value in ("", None) and "None" in kind else _as_int(value)
        elif kind == "float":
            if not isinstance(value, (int, float, str)) or isinstance(value, bool):
                raise TypeError
            result = float(value)
            if not math.isfinite(result):  # (nan passes any comparison of a range)
                raise ValueError
        else:
            result = value if isinstance(value, str) else _fail()
    except (TypeError, ValueError, OverflowError):  # (a 400-digit int is no float)
        what = "a finite number" if kind == "float" else f"of type {kind}"
        raise ConfigError(f"{source}: setting {name!r} must be {what}, not {value!r}") from None
    if isinstance(result, (int, float)) and not isinstance(result, bool):
        low, high = meta["low"], meta["high"]
        if (low is not None and result < low) or (high is not None and result > high):
            raise ConfigError(f"{source}: setting {name!r} = {result} is out of range "
                              f"{low}..{high}")
    if name == "password" and isinstance(result, str) and result.startswith(KDF + "$"):
        try:
            Verifier.parse(result)
        except ProofError as exc:
            raise ConfigError(f"{source}: setting 'password' is not a usable verifier: "
                              f"{exc}") from None
    if meta["choices"] and result not in meta["choices"]:
        raise ConfigError(f"{source}: setting {name!r} must be one of "
                          f"{', '.join(meta['choices'])}, not {result!r}")
    return result


def _fail() -> object:
    raise TypeError


def _as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false",
                                                    "no", "off"):
        return value.lower() in ("1", "true", "yes", "on")
    raise TypeError


def _as_int(value: object) -> int:
    if isinstance(value, bool):
        raise TypeError
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value.strip())
    raise TypeError
