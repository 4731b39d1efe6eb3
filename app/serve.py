"""``rummyhall serve``: run the server with settings from flags, environment and file."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import signal
import socket
import sys
from types import ModuleType

import trio

from rummyhall import __version__
from rummyhall.protocol import PRODUCT
from rummyhall.server import ConfigError, Hall, Settings, serve_until_signalled
from rummyhall.server.config import setting_fields
from rummyhall.server.credential import credential_path
from rummyhall.server.store import MEMORY, StoreError, data_path
from rummyhall.server.tls import ServerTLS, TLSSetupError

from .failures import reported_error

SWITCH_INTERVAL = 0.0005
"""Seconds a thread runs before Python offers the interpreter to another (its default is
0.005): the server's thread waits at most about this long for a thinking house bot."""

resource: ModuleType | None
try:
    import resource
except ImportError:  # not on this platform
    resource = None


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM."""
    flags = {f.name: getattr(args, f.name, None) for f in setting_fields()}
    try:
        settings = Settings.from_environment(flags, file=args.config)
    except ConfigError as exc:
        print(f"rummyhall serve: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    _raise_file_limit()
    # A server holds many long-lived objects (sessions, tables): keep the garbage
    # collector off them, and collect the young generation less often. Measured with
    # bench/bench_server.py: p99 latency at half load 74 ms -> 26 ms on 2 cores.
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)
    # An expert house bot thinks in a worker thread (one at a time, server/lobby.py):
    # let the server's own thread take the interpreter back from it sooner than Python's
    # 5 ms. Measured with sixteen expert tables thinking (one at a time): a bystander's
    # ping p50 5.5 -> 1.0 ms, p99 21.5 -> 3.3 ms (104 ms before they took turns).
    sys.setswitchinterval(SWITCH_INTERVAL)

    hall = Hall(settings)
    stopped_by: list[int | None] = []

    async def main() -> None:
        async def run(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
            stopped_by.append(await serve_until_signalled(settings, task_status=task_status,
                                                          hall=hall))

        async with trio.open_nursery() as nursery:
            port = await nursery.start(run)
            for line in banner(settings, port, hall.tls):
                print(line, flush=True)

    try:
        trio.run(main)
    except BaseException as exc:  # a nursery wraps what it raises in exception groups
        setup_error = reported_error(exc, (StoreError, TLSSetupError))
        if setup_error is not None:
            print(f"rummyhall serve: {setup_error}", file=sys.stderr)
            return 1
        os_error = reported_error(exc, OSError)
        if os_error is None:
            raise
        print(f"rummyhall serve: cannot listen on {settings.host}:{settings.port}: "
              f"{os_error}", file=sys.stderr)
        return 1
    if stopped_by and stopped_by[0] == signal.SIGINT:  # Ctrl-C: as any command stopped so
        print("rummyhall serve: interrupted; the server stopped cleanly", file=sys.stderr)
        return 130
    print("rummyhall serve: stopped", file=sys.stderr)
    return 0


def banner(settings: Settings, port: int, tls: ServerTLS | None = None) -> list[str]:
    """What the server says once it listens: who it is, where players find it (and its
    certificate, over TLS), its data."""
    named = "" if settings.name == PRODUCT else f" {settings.name!r}"
    addresses = reachable_addresses(settings.host)
    lines = [f"{PRODUCT} {__version__}{named} listening on {settings.host}:{port}"
             + (" (TLS)" if tls else "")]
    where = " or ".join(f"{a}:{port}" for a in addresses)
    lines.append(f"Players connect with: rummyhall play {'--tls ' if tls else ''}"
                 f"--server {where}")
    if tls is not None:
        made = "self-signed, made by this server" if tls.self_signed else "yours"
        lines += [f"TLS certificate: {tls.cert} ({made})",
                  f"Certificate fingerprint: {tls.shown}",
                  "  (players check it on first connection, or pin it with --fingerprint)"]
    lines.append(f"Data file: {_data_file(settings)}")
    key = credential_path(settings)
    where = os.path.abspath(key) if key else "none (no data directory)"
    lines.append(f"Admin credential: {where} (rummyhall admin reads it)")
    if settings.password:
        lines.append("This hall has a password: players log in with it (rummyhall play "
                     "asks for it; rummyhall bot --password)")
    return lines


def reachable_addresses(host: str) -> list[str]:
    """The addresses players may use for a server bound to ``host``: itself, or for every
    interface (0.0.0.0, ::) this machine's LAN address (found without sending a packet),
    else a placeholder."""
    if host not in ("", "0.0.0.0", "::"):
        return [host]
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET,
                                                     socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # (a documentation address: UDP sends nothing)
        address = probe.getsockname()[0]
        if not address.startswith("127.") and address != "0.0.0.0":
            found.append(address)
    return found or ["<this machine's address>"]


def _data_file(settings: Settings) -> str:
    """Where the server keeps its games, for the host to back up or look at."""
    if not settings.journal:
        return "none (--no-journal: nothing is kept)"
    path = data_path(settings.data)
    return "in memory only (nothing is kept)" if path == MEMORY else os.path.abspath(path)


def _raise_file_limit() -> None:
    """Allow as many open sockets as the system lets this user have (for 1,000 clients)."""
    if resource is None:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        new = hard if hard != resource.RLIM_INFINITY else max(soft, 65_536)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per server setting (``--max-connections``...), from the settings' source."""
    for f in setting_fields():
        flag = "--" + f.name.replace("_", "-")
        meaning = f.metadata["meaning"]
        default = f.default
        kind = str(f.type)
        if kind == "bool":
            parser.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction,
                                default=None, help=f"{meaning} (default {default})")
        else:
            convert = {"int": int, "float": float, "int | None": int}.get(kind, str)
            parser.add_argument(flag, dest=f.name, type=convert, default=None,
                                help=f"{meaning} (default {default!r})")
