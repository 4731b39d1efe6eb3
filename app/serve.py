"""``rummyhall serve``: run the server with settings from flags, environment and file."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import sys
from functools import partial
from types import ModuleType

import trio

from rummyhall import __version__
from rummyhall.server import ConfigError, Hall, Settings, serve_until_signalled
from rummyhall.server.config import setting_fields
from rummyhall.server.credential import credential_path
from rummyhall.server.store import MEMORY, StoreError, data_path
from rummyhall.server.tls import TLSSetupError

from .failures import find_error

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

    hall = Hall(settings)

    async def main() -> None:
        async def announce(port: int) -> None:
            tls = hall.tls
            print(f"Rummy Hall {__version__} '{settings.name}' listening on "
                  f"{settings.host}:{port}" + (" (TLS)" if tls else ""), flush=True)
            print(f"Players connect with: rummyhall play {'--tls ' if tls else ''}--server "
                  f"<this machine's address>:{port}", flush=True)
            if tls is not None:
                made = "self-signed, made by this server" if tls.self_signed else "yours"
                print(f"TLS certificate: {tls.cert} ({made})", flush=True)
                print(f"Certificate fingerprint: {tls.shown}", flush=True)
                print("  (players check it on first connection, or pin it with "
                      "--fingerprint)", flush=True)
            print(f"Data file: {_data_file(settings)}", flush=True)
            key = credential_path(settings)
            where = os.path.abspath(key) if key else "none (no data directory)"
            print(f"Admin credential: {where} (rummyhall admin reads it)", flush=True)
            if settings.password:
                print("This hall has a password: players log in with it (rummyhall play "
                      "asks for it; rummyhall bot --password)", flush=True)

        async with trio.open_nursery() as nursery:
            port = await nursery.start(partial(serve_until_signalled, settings, hall=hall))
            await announce(port)

    try:
        trio.run(main)
    except BaseException as exc:  # a nursery wraps what it raises in exception groups
        setup_error = find_error(exc, (StoreError, TLSSetupError))
        if setup_error is not None:
            print(f"rummyhall serve: {setup_error}", file=sys.stderr)
            return 1
        os_error = find_error(exc, OSError)
        if os_error is None:
            raise
        print(f"rummyhall serve: cannot listen on {settings.host}:{settings.port}: "
              f"{os_error}", file=sys.stderr)
        return 1
    return 0


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
