"""``rummyhall hall-key``: the verifier of a hall password, for the server's settings.

The server keeps only what checks a proof (docs/protocol.md, section 3.1); putting this
line in hall.toml rather than the password keeps the password off the disk and keeps the
salt across restarts, so that clients' saved keys go on working.
"""

from __future__ import annotations

import argparse
import secrets
import sys

from rummyhall.protocol import Verifier
from rummyhall.protocol.proofs import DEFAULT_ITERATIONS, MAX_ITERATIONS

from .prompts import ask

MIN_LENGTH = 8


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("hall-key", help="print the verifier of a hall password (for "
                                        "`password` in hall.toml)",
                       description="Ask for a hall password (twice) and print the line to put "
                                   "in the server's TOML settings: its verifier, never the "
                                   "password itself.")
    p.add_argument("--stdin", action="store_true",
                   help="read the password from the first line of standard input")
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                   help=f"PBKDF2 rounds (default {DEFAULT_ITERATIONS})")
    p.set_defaults(func=cmd_hall_key)


def cmd_hall_key(args: argparse.Namespace) -> int:
    if not 1 <= args.iterations <= MAX_ITERATIONS:
        print(f"rummyhall hall-key: --iterations is 1 to {MAX_ITERATIONS}", file=sys.stderr)
        return 2
    if args.stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = ask("Hall password: ", secret=True)
        if ask("Again: ", secret=True) != password:
            print("rummyhall hall-key: the two passwords differ", file=sys.stderr)
            return 1
    if len(password) < MIN_LENGTH:
        print(f"rummyhall hall-key: a hall password has at least {MIN_LENGTH} characters "
              "(a sniffer on the LAN can test guesses offline: longer is safer)",
              file=sys.stderr)
        return 1
    verifier = Verifier.of(password, secrets.token_bytes(16), args.iterations)
    print(f'password = "{verifier.text()}"')
    return 0
