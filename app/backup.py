"""``rummyhall backup PATH``: a consistent copy of the data file, also while the server runs."""

from __future__ import annotations

import argparse
import os
import sys

from .datafile import add_data_flag, describe, open_store


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("backup", help="copy the data file (safe while the server runs)",
                       description="Copy the server's data file to PATH with SQLite's online "
                                   "backup: a consistent copy even while the server writes. "
                                   "Serve the copy with `rummyhall serve --data PATH`.")
    add_data_flag(p)
    p.add_argument("path", help="the copy to write (must not exist)")
    p.set_defaults(func=cmd_backup)


def cmd_backup(args: argparse.Namespace) -> int:
    if os.path.exists(args.path):
        print(f"rummyhall backup: {args.path} exists; give a new file", file=sys.stderr)
        return 1
    store = open_store(args, "backup")
    if store is None:
        return 1
    try:
        store.backup(args.path)
    except Exception as exc:
        print(f"rummyhall backup: cannot write {args.path}: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    print(f"{describe(args)} copied to {args.path}")
    return 0
