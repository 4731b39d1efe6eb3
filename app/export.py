"""``rummyhall export GAME``: a game's versioned JSON record (docs/persistence.md)."""

from __future__ import annotations

import argparse
import json
import sys

from .datafile import add_data_flag, load_record


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="write a game's record as JSON",
                       description="Write the record of game number GAME (see `rummyhall "
                                   "history`) as JSON: format rummyhall-game, version 1, "
                                   "documented in docs/persistence.md. Another program "
                                   "replays it with the game's rules from its journal.")
    add_data_flag(p)
    p.add_argument("game", type=int, help="the game's number")
    p.add_argument("-o", "--output", help="the file to write (default: standard output)")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    record = load_record(args, "export")
    if record is None:
        return 1
    text = json.dumps(record, indent=1)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError as exc:
            print(f"rummyhall export: cannot write {args.output}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 1
    else:
        print(text)
    return 0
