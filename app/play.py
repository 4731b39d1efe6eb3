"""``rummyhall play``: find a server, pick a name, and run the console client."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import logging.handlers
import socket
import sys
from pathlib import Path

import platformdirs
import trio

from rummyhall.client import HallCredential, ServerClosed, ServerTrust, TLSError
from rummyhall.client.console import ConsoleOptions, Profile, run_console
from rummyhall.client.discovery import FoundServer, discover
from rummyhall.client.trust import server_key
from rummyhall.protocol import DEFAULT_PORT
from rummyhall.protocol.fingerprints import format_fingerprint
from rummyhall.server import ConfigError, Settings
from rummyhall.server.credential import credential_path, read_credential
from rummyhall.server.store import StoreError

from .prompts import ask
from .tlsflags import add_tls_arguments, trust_from_args

LOCK = "\N{LOCK}"  # a server that serves TLS, in the list of those found

REACH_SECONDS = 5.0  # how long play waits for the server's port to answer
PASSWORD_TRIES = 3
LOG_BYTES = 1 << 20  # the console's log file, at most (then it starts a new one)
LOG_LEVELS = ("debug", "info", "warning", "error")


def default_log_path() -> Path:
    """The console's log file, in the per-user log directory."""
    return platformdirs.user_log_path("rummyhall", appauthor=False) / "console.log"


def log_to_file(path: Path, level: str = "info") -> logging.Handler:
    """Send the client's log to ``path`` (never to the terminal, where it would draw
    over the full-screen console): a file of at most :data:`LOG_BYTES`, the one before
    kept beside it as ``.1``. The handler, on the ``rummyhall`` logger."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=1,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("rummyhall")
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False  # (nor to Python's last-resort handler, on standard error)
    return handler


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="the server (default: choose among those found on the LAN)")
    parser.add_argument("--name", help="your name (default: the one used last time there)")
    parser.add_argument("--no-color", action="store_true",
                        help="no colours (suits and highlights stay readable)")
    parser.add_argument("--discover-seconds", type=float, default=2.5,
                        help="how long to listen for servers on the LAN (2.5)")
    add_tls_arguments(parser)
    parser.add_argument("--password", default=None,
                        help="the hall's password, for a hall that has one (default: asked "
                             "for when needed)")
    parser.add_argument("--remember-password", action="store_true",
                        help="keep the key derived from the hall's password in your profile "
                             "(never the password), so that the next play logs in by itself")
    parser.add_argument("--admin", nargs="?", const="", default=None, metavar="FILE",
                        help="the host who plays: log in with the server's admin credential "
                             "(FILE; without it, the one beside the server's default data "
                             "file, as `rummyhall admin` finds it) and have the host's "
                             "commands (/kick, /ban, /unban, /mute, /close, /notice, /bans); "
                             "on the server's machine")
    parser.add_argument("--log", type=Path, default=None, metavar="FILE",
                        help="the console's log (connections lost and regained, failed "
                             "deal checks; default: console.log in your log directory, "
                             f"{default_log_path().parent}); at most 1 MiB, the one "
                             "before kept as FILE.1")
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info",
                        help="log lines of this level and above (info)")


def admin_credential(choice: str) -> str:
    """The credential of ``--admin`` (``""``: the server's default file); raises
    :class:`ValueError` saying why it cannot be read."""
    try:
        path = choice or credential_path(Settings.from_environment())
        if path is None:
            raise ValueError("the server's settings keep no data directory: no credential")
        return read_credential(path)
    except (ConfigError, StoreError) as exc:
        raise ValueError(str(exc)) from None


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` (or ``host``, the default port) -> (host, port); raises ValueError."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, DEFAULT_PORT
    if not host or not port.isdigit() or not 0 < int(port) < 65_536:
        raise ValueError(f"not a HOST:PORT address: {text!r}")
    return host.strip("[]"), int(port)


def choose_server(profile: Profile, seconds: float) -> tuple[str, bool] | None:
    """List the servers heard on the LAN and the remembered ones; ask for one. The
    address chosen, and whether its beacon says it serves TLS."""
    print(f"Looking for Rummy Hall servers on the LAN ({seconds:g} s)…")
    try:
        found: list[FoundServer] = trio.run(discover, seconds)
    except OSError as exc:
        print(f"  (cannot listen for beacons: {exc})")
        found = []
    choices = [f.address for f in found]
    tls = {f.address for f in found if f.tls}
    for i, f in enumerate(found, 1):
        lock = f" {LOCK} TLS" if f.tls else ""
        print(f"  {i}. {f.name} at {f.address}{lock}: {f.tables} tables, {f.players} players")
        if f.fingerprint is not None:
            print(f"       certificate SHA-256 {format_fingerprint(f.fingerprint)}")
    for address in profile.servers:
        if address not in choices:
            choices.append(address)
            print(f"  {len(choices)}. {address} (played there before)")
    if not choices:
        print("  none found")
    # (the default is never a server known only from a beacon: anybody on the network can
    # send one, named to sort first; a server played before, else this machine's)
    default = profile.last_server if profile.last_server in choices else next(
        (a for a in profile.servers if a in choices), f"127.0.0.1:{DEFAULT_PORT}")
    try:
        answer = ask(f"Server number or HOST:PORT [{default}]: ").strip()
    except EOFError:
        return None
    if not answer:
        chosen = default
    elif answer.isdigit() and 1 <= int(answer) <= len(choices):
        chosen = choices[int(answer) - 1]
    else:
        chosen = answer
    return chosen, chosen in tls


def reachable(host: str, port: int) -> bool:
    """Whether something answers on ``host:port`` (else one line says why, on stderr)."""
    try:
        socket.create_connection((host, port), timeout=REACH_SECONDS).close()
    except OSError as exc:
        print(f"rummyhall play: cannot reach {host}:{port}: {exc}", file=sys.stderr)
        return False
    return True


def ask_name() -> str | None:
    """The player's name, asked (the login name by default); None at the end of input."""
    default = getpass.getuser()
    try:
        return ask(f"Your name [{default}]: ").strip() or default
    except EOFError:
        return None


def cmd_play(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty():
        print("rummyhall play: the console needs a terminal (standard input is not one)",
              file=sys.stderr)
        return 2
    try:
        credential = None if args.admin is None else admin_credential(args.admin)
    except ValueError as exc:
        print(f"rummyhall play: --admin: {exc}", file=sys.stderr)
        return 2
    try:
        log_to_file(args.log or default_log_path(), args.log_level)
    except OSError as exc:
        print(f"rummyhall play: --log: {exc}", file=sys.stderr)
        return 2
    profile = Profile.load()
    trust = trust_from_args(args)
    address = args.server
    if address is None:
        chosen = choose_server(profile, args.discover_seconds)
        if chosen is None:
            return 1
        address, beacon_tls = chosen
        if beacon_tls and trust is None:  # its beacon says TLS: checked on first use
            trust = ServerTrust()
    try:
        host, port = parse_address(address)
    except ValueError as exc:
        print(f"rummyhall play: {exc}", file=sys.stderr)
        return 2
    server = f"{host}:{port}"
    if not reachable(host, port):  # before asking for a name: is a server there at all?
        return 1
    if trust is not None and trust.mode == "first use":
        try:
            first = trust.store.get(server_key(host, port)) is None
        except TLSError as exc:
            print(f"rummyhall play: {exc}", file=sys.stderr)
            return 1
        if first:
            print(f"First TLS connection to {server}: its certificate will be remembered "
                  "and must not change (trust on first use). To check it first, ask its "
                  "operator for the fingerprint and use --fingerprint.")
    name = args.name or profile.name_for(server) or ask_name()
    if name is None:
        return 1
    hall = HallCredential(args.password, saved=profile.hall_keys_for(server))

    def connected(token: str) -> None:
        profile.remember(server, name, token)
        if args.remember_password:
            profile.remember_hall_keys(server, hall.saved)

    options = ConsoleOptions(host, port, name, token=profile.token_for(server, name),
                             color=not args.no_color, on_token=connected,
                             password=hall, tls=trust, admin_credential=credential)
    return play_logged_in(options, hall, profile, server)


def play_logged_in(options: ConsoleOptions, credential: HallCredential, profile: Profile,
                   server: str) -> int:
    """Run the console; a hall that wants its password (or refuses the one given) has
    the player asked for it, a few times. The exit status."""
    for _ in range(PASSWORD_TRIES):
        try:
            asyncio.run(run_console(options))
        except ServerClosed as exc:
            if exc.code not in ("password_required", "wrong_password"):
                print(f"rummyhall play: the server refused: {exc}", file=sys.stderr)
                return 1
            if exc.code == "wrong_password":
                print(f"rummyhall play: {exc}", file=sys.stderr)
                credential.saved.clear()
                profile.remember_hall_keys(server, None)  # (a kept key that no longer works)
            try:
                credential.password = ask(f"The hall at {server} has a password: ",
                                          secret=True)
            except EOFError:
                return 1
            continue
        except TLSError as exc:
            print(f"rummyhall play: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"rummyhall play: cannot reach {server}: {exc}", file=sys.stderr)
            return 1
        return 0
    print("rummyhall play: the password was refused", file=sys.stderr)
    return 1
