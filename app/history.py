"""``rummyhall history``: the games kept in the data file, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from .arena import positive_int
from .datafile import add_data_flag, open_store


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("history", help="list the games played on this server",
                       description="List the games kept in the server's data file, newest "
                                   "first: number (for replay and export), when, the game, "
                                   "who sat and their final totals; * marks the winners.")
    add_data_flag(p)
    p.add_argument("--limit", type=positive_int, default=20, help="how many (20)")
    p.add_argument("--name", help="only games where this name sat")
    p.add_argument("--all", action="store_true",
                   help="also the games still being played, and those abandoned (their "
                        "table closed or removed before the end)")
    p.set_defaults(func=cmd_history)


def cmd_history(args: argparse.Namespace) -> int:
    store = open_store(args, "history")
    if store is None:
        return 1
    try:
        games = store.games(limit=args.limit, name=args.name, finished_only=not args.all)
    finally:
        store.close()
    if not games:
        print("no games yet")
        return 0
    # (the store numbers games as they start; the list is by the time it shows)
    games.sort(key=_when, reverse=True)
    print(f"{len(games)} game{'' if len(games) == 1 else 's'}, newest first (by the time "
          "each finished, or started if still playing); * marks the winners")
    for g in games:
        when = _when(g).replace("T", " ").rstrip("Z")
        seats = []
        for s in g["seats"]:
            total = g["totals"][s["seat"]] if g["totals"] else None
            star = "*" if s["seat"] in g["winners"] else ""
            seats.append(f"{star}{s['name']}" + (f" {total}" if total is not None else ""))
        state = "" if g["state"] == "finished" else f" ({g['state']})"
        print(f"#{g['id']:<5} {when}  {g['game']:<14} {g['hands_scored']:>2} hands  "
              f"{', '.join(seats)}{state}")
    return 0


def _when(game: dict[str, Any]) -> str:
    """When the game finished, else when it started (ISO text: it sorts as time does)."""
    return str(game["finished"] or game["started"] or "")
