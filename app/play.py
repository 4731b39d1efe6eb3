"""``rummyhall play``: find a server, pick a name, and run the console client."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys

import trio

from rummyhall.client import ServerClosed
from rummyhall.client.console import ConsoleOptions, Profile, run_console
from rummyhall.client.discovery import FoundServer, discover
from rummyhall.protocol import DEFAULT_PORT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="the server (default: choose among those found on the LAN)")
    parser.add_argument("--name", help="your name (default: the one used last time there)")
    parser.add_argument("--no-color", action="store_true",
                        help="no colours (suits and highlights stay readable)")
    parser.add_argument("--discover-seconds", type=float, default=2.5,
                        help="how long to listen for servers on the LAN (2.5)")


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` (or ``host``, the default port) -> (host, port); raises ValueError."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, DEFAULT_PORT
    if not host or not port.isdigit() or not 0 < int(port) < 65_536:
        raise ValueError(f"not a HOST:PORT address: {text!r}")
    return host.strip("[]"), int(port)


def choose_server(profile: Profile, seconds: float) -> str | None:
    """List the servers heard on the LAN and the remembered ones; ask for one."""
    print(f"Looking for Rummy Hall servers on the LAN ({seconds:g} s)…")
    try:
        found: list[FoundServer] = trio.run(discover, seconds)
    except OSError as exc:
        print(f"  (cannot listen for beacons: {exc})")
        found = []
    choices = [f.address for f in found]
    for i, f in enumerate(found, 1):
        print(f"  {i}. {f.name} at {f.address}: {f.tables} tables, {f.players} players")
    for address in profile.servers:
        if address not in choices:
            choices.append(address)
            print(f"  {len(choices)}. {address} (played there before)")
    if not choices:
        print("  none found")
    default = profile.last_server if profile.last_server in choices else (
        choices[0] if choices else f"127.0.0.1:{DEFAULT_PORT}")
    try:
        answer = input(f"Server number or HOST:PORT [{default}]: ").strip()
    except EOFError:
        return None
    if not answer:
        return default
    if answer.isdigit() and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    return answer


def cmd_play(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty():
        print("rummyhall play: the console needs a terminal (standard input is not one)",
              file=sys.stderr)
        return 2
    profile = Profile.load()
    address = args.server or choose_server(profile, args.discover_seconds)
    if address is None:
        return 1
    try:
        host, port = parse_address(address)
    except ValueError as exc:
        print(f"rummyhall play: {exc}", file=sys.stderr)
        return 2
    server = f"{host}:{port}"
    name = args.name or profile.name_for(server)
    if not name:
        default = getpass.getuser()
        try:
            name = input(f"Your name [{default}]: ").strip() or default
        except EOFError:
            return 1
    options = ConsoleOptions(host, port, name, token=profile.token_for(server, name),
                             color=not args.no_color,
                             on_token=lambda token: profile.remember(server, name, token))
    try:
        asyncio.run(run_console(options))
    except ServerClosed as exc:
        print(f"rummyhall play: the server refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"rummyhall play: cannot reach {server}: {exc}", file=sys.stderr)
        return 1
    return 0
