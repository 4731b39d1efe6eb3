"""The ``--data FILE`` of the commands that read the server's data file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rummyhall.server import ConfigError, Settings
from rummyhall.server.store import Store, StoreError, data_path


def add_data_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="FILE",
                        help="the server's SQLite data file (default: the same as "
                             "`rummyhall serve`: RUMMYHALL_DATA, the config file, or the "
                             "per-user data directory)")


def open_store(args: argparse.Namespace, command: str) -> Store | None:
    """The data file of ``--data`` (or the server's default), or None after an error
    message on stderr."""
    try:
        settings = Settings.from_environment({"data": args.data})
        return Store.open_for_reading(settings.data)
    except (ConfigError, StoreError) as exc:
        print(f"rummyhall {command}: {exc}", file=sys.stderr)
        return None


def load_record(args: argparse.Namespace, command: str) -> dict[str, Any] | None:
    """The export record of game ``args.game``, or None after an error message on stderr."""
    store = open_store(args, command)
    if store is None:
        return None
    try:
        record = store.record(args.game)
    finally:
        store.close()
    if record is None:
        print(f"rummyhall {command}: no game number {args.game}", file=sys.stderr)
    return record


def describe(args: argparse.Namespace) -> str:
    """The data file's path, for messages."""
    try:
        return data_path(Settings.from_environment({"data": args.data}).data)
    except ConfigError:
        return str(args.data)
