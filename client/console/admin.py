"""The host's controls in the console, for a host who plays (``rummyhall play --admin``).

The console logs in with the admin credential as soon as it connects (and again after a
reconnection: the session does). Only then do the commands below exist: without the
credential they are unknown commands. Each sends one request; the answer shows in the
log, a refusal in the status line (docs/server.md, "The host's controls").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rummyhall.protocol import (
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminMute,
    AdminNotice,
    AdminUnban,
    Bans,
    Message,
)

if TYPE_CHECKING:
    from .controller import CommandWords, Controller

ADMIN_COMMANDS = {
    # command: (arguments, meaning), as COMMANDS
    "kick": ("NAME [bot]", "host: close a player's connection (bot: house bots take its seats)"),
    "ban": ("NAME [MINUTES]", "host: ban a player (until lifted without MINUTES)"),
    "unban": ("NAME", "host: lift a player's ban"),
    "mute": ("NAME MINUTES", "host: no chat for MINUTES (0 lifts it)"),
    "close": ("TABLE", "host: close a table (its players are told)"),
    "notice": ("TEXT", "host: a notice to everyone"),
    "bans": ("", "host: the bans in force"),
    "admin": ("", "host: these commands"),
}


def login(controller: Controller, credential: str) -> None:
    """Log in with the credential; from its ok the host's commands exist."""

    def enable(_: object) -> None:
        controller.extra_commands.update(
            {word: _handler(word) for word in ADMIN_COMMANDS})

    controller.request(lambda: controller.session.admin_login(credential),
                       done="logged in as the host: /admin lists the host's commands",
                       after=enable)


def _handler(word: str) -> Callable[[Controller, CommandWords], None]:
    return lambda controller, words: _run(controller, word, words)


def _send(controller: Controller, message: Message, done: str) -> None:
    controller.request(lambda: controller.session.request(message), done=done)


def _run(controller: Controller, word: str, words: CommandWords) -> None:
    args, say = words.args, controller.model.say
    if word == "admin":
        for name, (arguments, meaning) in ADMIN_COMMANDS.items():
            say(f"/{name} {arguments}: {meaning}".replace("  ", " "))
        return
    if word == "bans":
        controller.request(lambda: controller.session.request(AdminBans()),
                           after=lambda reply: _show_bans(controller, reply))
        return
    if word == "notice":
        if not words.rest.strip():
            say("/notice TEXT", error=True)
        else:
            _send(controller, AdminNotice(text=words.rest.strip()), "notice sent")
        return
    if word == "close":
        if not words.ints:
            say("/close TABLE", error=True)
        else:
            _send(controller, AdminClose(table=words.ints[0]), f"table {words.ints[0]} closed")
        return
    if not args:
        say(f"/{word} {ADMIN_COMMANDS[word][0]}", error=True)
        return
    name, more = args[0], args[1:]
    if word == "kick":
        seat = "bot" if "bot" in more else "wait"
        _send(controller, AdminKick(name=name, seat=seat), f"kicked {name}")
    elif word == "ban":
        minutes = int(more[0]) if more and more[0].isdigit() else None
        _send(controller, AdminBan(name=name, seconds=minutes * 60 if minutes else None),
              f"banned {name} " + (f"for {minutes} min" if minutes else "until lifted"))
    elif word == "unban":
        _send(controller, AdminUnban(name=name), f"lifted the ban of {name}")
    elif word == "mute":
        if not more or not more[0].isdigit():
            say("/mute NAME MINUTES", error=True)
            return
        minutes = int(more[0])
        _send(controller, AdminMute(name=name, seconds=minutes * 60),
              f"muted {name} for {minutes} min" if minutes else f"{name} may chat again")


def _show_bans(controller: Controller, reply: object) -> None:
    if not isinstance(reply, Bans) or not reply.bans:
        controller.model.say("no bans in force")
        return
    for ban in reply.bans:
        who = ", ".join(t for t in (ban.name, ban.address) if t)
        controller.model.say(f"banned: {who}" + (f" ({ban.reason})" if ban.reason else ""))
