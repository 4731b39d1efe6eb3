"""``rummyhall admin ...``: the host's controls, from the server's own machine.

Each subcommand but ``log`` connects to the running server on this machine, logs in with
the admin credential kept beside the data file (docs/server.md, "The host's controls")
and sends one request; ``log`` reads the admin log from the data file, so it works while
the server is stopped too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import trio

from rummyhall.client import ClientError, RequestRefused, ServerClosed, open_session
from rummyhall.protocol import (
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminMute,
    AdminNotice,
    AdminUnban,
    Bans,
    LocalProtocolError,
    Message,
)
from rummyhall.protocol.proofs import KDF
from rummyhall.server import ConfigError, Settings
from rummyhall.server.credential import credential_path, read_credential
from rummyhall.server.store import StoreError

from .arena import positive_int
from .datafile import add_data_flag, open_store

CONNECT_SECONDS = 10.0  # to reach the server, log in and have the answer, at most

SEAT_HELP = ("what becomes of the player's seats: wait (held for the table's grace "
             "period, then a house bot) or bot (a house bot plays them at once)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    admin = sub.add_parser(
        "admin", help="the host's controls: kick, ban, close, mute, notice, the admin log",
        description="The host's controls of a server running on this machine: each command "
                    "logs in with the admin credential beside the data file (made by "
                    "`rummyhall serve`, readable by its user only) and every action is "
                    "kept in the admin log. See docs/server.md, 'The host's controls'.")
    commands = admin.add_subparsers(dest="admin_command", required=True, metavar="ACTION")

    def command(name: str, help_text: str, description: str) -> argparse.ArgumentParser:
        p = commands.add_parser(name, help=help_text, description=description)
        add_data_flag(p)
        if name != "log":
            p.add_argument("--port", type=int, help="the server's port (default: the "
                                                    "`port` setting, 7654)")
            p.add_argument("--admin-key", metavar="FILE",
                           help="the credential file, when the server was given one "
                                "(its admin_key setting; default: beside the data file)")
            p.add_argument("--password", default=None,
                           help="the hall's password, for a hall that has one (default: "
                                "its password setting, unless that is a verifier)")
            p.add_argument("--host", default="127.0.0.1",
                           help="the server's address (default 127.0.0.1: the controls are "
                                "taken from this machine only, unless the server allows "
                                "the LAN)")
        return p

    kick = command("kick", "close a player's connection",
                   "Close the connection of the player of NAME (it may connect again: "
                   "ban to keep it out). Its seats wait for it, or go to house bots.")
    kick.add_argument("name", help="the player's name (any case)")
    kick.add_argument("--seat", choices=("wait", "bot"), default="wait", help=SEAT_HELP +
                      " (default wait)")
    kick.add_argument("--reason", default="", help="told to the player")
    kick.set_defaults(func=cmd_kick)

    ban = command("ban", "ban a name and/or an address, for a time or until lifted",
                  "Ban the player of NAME (its name, any case, and its token under any "
                  "name) and/or an address. Its connections are closed now; it is refused "
                  "until the ban ends. Without --minutes, --hours or --days the ban lasts "
                  "until `rummyhall admin unban`.")
    ban.add_argument("name", nargs="?", help="a known player's name")
    ban.add_argument("--address", help="an IPv4 or IPv6 address to ban")
    length = ban.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=positive_int, help="the ban's length in minutes")
    length.add_argument("--hours", type=positive_int, help="... in hours")
    length.add_argument("--days", type=positive_int, help="... in days")
    ban.add_argument("--seat", choices=("wait", "bot"), default="bot", help=SEAT_HELP +
                     " (default bot)")
    ban.add_argument("--reason", default="", help="told to the player")
    ban.set_defaults(func=cmd_ban)

    unban = command("unban", "lift the bans of a name and/or an address",
                    "Lift the bans of NAME and/or of --address.")
    unban.add_argument("name", nargs="?", help="the banned name")
    unban.add_argument("--address", help="the banned address")
    unban.set_defaults(func=cmd_unban)

    close = command("close", "close a table (its players are told)",
                    "Close table TABLE: its players and spectators get a notice, then it "
                    "is removed; a game under way there ends unfinished.")
    close.add_argument("table", type=positive_int, help="the table's number")
    close.add_argument("--reason", default="", help="told to the table's players")
    close.set_defaults(func=cmd_close)

    mute = command("mute", "keep a player from chatting for a time",
                   "Mute the chat of the player of NAME for --minutes (0 lifts a mute). "
                   "A mute lasts while the server runs.")
    mute.add_argument("name", help="the player's name (any case)")
    mute.add_argument("--minutes", type=int, required=True, help="how long (0: lift it)")
    mute.set_defaults(func=cmd_mute)

    notice = command("notice", "send a notice to every connected client",
                     "Send TEXT to every connected client, shown as the host's notice.")
    notice.add_argument("text", nargs="+", help="the notice")
    notice.set_defaults(func=cmd_notice)

    bans = command("bans", "list the bans in force",
                   "List the bans in force on the running server, oldest first.")
    bans.add_argument("--json", action="store_true", help="print JSON")
    bans.set_defaults(func=cmd_bans)

    log = command("log", "show the admin log, newest first",
                  "Show every admin action kept in the data file (who, what, when), "
                  "newest first. Reads the data file: the server need not run.")
    log.add_argument("--limit", type=positive_int, default=50, help="how many (50)")
    log.add_argument("--before", type=positive_int, help="only entries numbered below this "
                                                         "(the next page)")
    log.add_argument("--json", action="store_true", help="print JSON")
    log.set_defaults(func=cmd_log)


# ------------------------------------------------------------------ the requests


def _fail(args: argparse.Namespace, text: str) -> int:
    print(f"rummyhall admin {args.admin_command}: {text}", file=sys.stderr)
    return 1


def hall_password(args: argparse.Namespace, settings: Settings) -> str | None:
    """The password that logs in to a hall that has one: ``--password``, else the
    server's own setting when it holds the password (a verifier logs nobody in)."""
    if args.password is not None:
        return str(args.password)
    setting = settings.password
    return setting if setting and not setting.startswith(KDF + "$") else None


def _ask(args: argparse.Namespace, make: Callable[[], Message]) -> Message | int:
    """Log in to the server of these settings and send the request ``make`` builds: its
    reply, or the exit status after an error message on stderr."""
    try:
        request = make()
    except LocalProtocolError as exc:  # a name, reason or text the protocol refuses
        return _fail(args, str(exc))
    try:
        settings = Settings.from_environment({"data": args.data, "port": args.port,
                                              "admin_key": args.admin_key})
        path = credential_path(settings)
        if path is None:
            return _fail(args, "a server with ':memory:' data has no admin credential")
        credential = read_credential(path)
    except ConfigError as exc:
        return _fail(args, str(exc))
    except StoreError as exc:
        return _fail(args, f"{exc} (is this the data file of a server started on this "
                           f"machine? Give its --data FILE)")

    async def run() -> Message | ClientError:
        name = f"rummyhall admin {os.getpid() % 1_000_000}"
        with trio.fail_after(CONNECT_SECONDS):
            async with open_session(args.host, settings.port, name=name, kind="spectator",
                                    reconnect_seconds=0,
                                    password=hall_password(args, settings)) as session:
                try:  # (inside: the session's nursery would wrap it in a group)
                    await session.set_lobby_updates(False)
                    await session.admin_login(credential)
                    return await session.request(request)
                except ClientError as exc:
                    return exc

    try:
        reply = trio.run(run)
    except ServerClosed as exc:
        return _fail(args, str(exc))
    except (OSError, trio.TooSlowError) as exc:
        return _fail(args, f"cannot reach the server at {args.host}:{settings.port} "
                           f"({exc or 'no answer'}); is it running? (--port)")
    if isinstance(reply, RequestRefused):
        return _fail(args, f"{reply.code}: {reply.message}")
    if isinstance(reply, ClientError):
        return _fail(args, str(reply))
    return reply


def _done(reply: Message | int, text: str) -> int:
    if isinstance(reply, int):
        return reply
    print(text)
    return 0


def cmd_kick(args: argparse.Namespace) -> int:
    reply = _ask(args, lambda: AdminKick(name=args.name, seat=args.seat,
                                               reason=args.reason or None))
    return _done(reply, f"kicked {args.name} (seats: {args.seat})")


def _seconds(args: argparse.Namespace) -> int | None:
    for unit, factor in (("minutes", 60), ("hours", 3600), ("days", 86_400)):
        value = getattr(args, unit)
        if value is not None:
            return int(value) * factor
    return None


def cmd_ban(args: argparse.Namespace) -> int:
    if args.name is None and args.address is None:
        return _fail(args, "give a NAME, an --address or both")
    seconds = _seconds(args)
    reply = _ask(args, lambda: AdminBan(name=args.name, address=args.address, seconds=seconds,
                                        seat=args.seat, reason=args.reason or None))
    what = " and ".join(t for t in (args.name, args.address) if t)
    length = f"for {seconds} s" if seconds is not None else "until lifted"
    return _done(reply, f"banned {what} {length}")


def cmd_unban(args: argparse.Namespace) -> int:
    if args.name is None and args.address is None:
        return _fail(args, "give a NAME, an --address or both")
    reply = _ask(args, lambda: AdminUnban(name=args.name, address=args.address))
    return _done(reply, "lifted the bans of " + " and ".join(
        t for t in (args.name, args.address) if t))


def cmd_close(args: argparse.Namespace) -> int:
    reply = _ask(args, lambda: AdminClose(table=args.table, reason=args.reason or None))
    return _done(reply, f"closed table {args.table}")


def cmd_mute(args: argparse.Namespace) -> int:
    if args.minutes < 0:
        return _fail(args, "--minutes must be 0 (lift the mute) or more")
    reply = _ask(args, lambda: AdminMute(name=args.name, seconds=args.minutes * 60))
    return _done(reply, f"muted {args.name} for {args.minutes} min" if args.minutes
                 else f"lifted the mute of {args.name}")


def cmd_notice(args: argparse.Namespace) -> int:
    text = " ".join(args.text)
    return _done(_ask(args, lambda: AdminNotice(text=text)), "notice sent")


def _unix(t: int | float | None) -> str:
    if t is None:
        return "until lifted"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def cmd_bans(args: argparse.Namespace) -> int:
    reply = _ask(args, AdminBans)
    if isinstance(reply, int):
        return reply
    assert isinstance(reply, Bans)
    if args.json:
        print(json.dumps([b.to_wire() for b in reply.bans], indent=1))
        return 0
    if not reply.bans:
        print("no bans in force")
    for ban in reply.bans:
        who = ", ".join(t for t in (ban.name, ban.address) if t)
        until = "until lifted" if ban.until is None else f"until {_unix(ban.until)} UTC"
        print(f"{who}  {until}  (since {_unix(ban.since)} UTC)"
              + (f"  {ban.reason}" if ban.reason else ""))
    return 0


# ------------------------------------------------------------------ the log


def _entry_text(entry: dict[str, Any]) -> str:
    details = ", ".join(f"{k} {v}" for k, v in entry["details"].items()
                        if v not in (None, "", {}))
    when = (entry["at"] or "").replace("T", " ").rstrip("Z")
    target = f" {entry['target']}" if entry["target"] else ""
    return (f"#{entry['id']:<5} {when}  {entry['who']}: {entry['action']}{target}"
            + (f" ({details})" if details else ""))


def cmd_log(args: argparse.Namespace) -> int:
    store = open_store(args, "admin log")
    if store is None:
        return 1
    try:
        entries = store.admin_log(limit=args.limit, before=args.before)
    finally:
        store.close()
    if args.json:
        print(json.dumps(entries, indent=1))
    elif not entries:
        print("no admin actions yet")
    for entry in entries if not args.json else []:
        print(_entry_text(entry))
    return 0
