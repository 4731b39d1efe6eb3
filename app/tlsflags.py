"""The TLS flags of the commands that connect: ``--tls``, ``--cafile``, ``--fingerprint``."""

from __future__ import annotations

import argparse

from rummyhall.client import ServerTrust
from rummyhall.protocol.fingerprints import parse_fingerprint


def fingerprint_arg(text: str) -> str:
    """A ``--fingerprint`` as typed (``AB:CD:...``, any case, with or without colons)."""
    fingerprint = parse_fingerprint(text)
    if fingerprint is None:
        raise argparse.ArgumentTypeError(
            f"not a SHA-256 fingerprint (64 hex digits, colons optional): {text!r}")
    return fingerprint


def add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tls", action="store_true",
                        help="connect over TLS; the server's certificate is remembered on "
                             "first use and must not change (or see --cafile, --fingerprint)")
    check = parser.add_mutually_exclusive_group()
    check.add_argument("--cafile", metavar="FILE|system",
                       help="over TLS, trust the CA certificates of FILE ('system': the "
                            "operating system's store) instead of the first use")
    check.add_argument("--fingerprint", type=fingerprint_arg, metavar="SHA256",
                       help="over TLS, accept only the certificate of this SHA-256 "
                            "fingerprint (what `rummyhall serve --tls` prints); it also "
                            "replaces the one remembered for that server")


def trust_from_args(args: argparse.Namespace) -> ServerTrust | None:
    """How to check the server, or None for plain TCP (``--cafile`` and ``--fingerprint``
    imply ``--tls``)."""
    if not (args.tls or args.cafile or args.fingerprint):
        return None
    return ServerTrust(cafile=args.cafile, fingerprint=args.fingerprint)
