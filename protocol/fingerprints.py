"""Certificate fingerprints as people compare them and as the LAN beacon carries them.

A fingerprint is the SHA-256 of a certificate's DER bytes. On the wire (the beacon's
``fingerprint``) it is 64 lowercase hex digits; people see it in pairs::

    >>> fp = "ab" * 32
    >>> format_fingerprint(fp)[:11]
    'AB:AB:AB:AB'
    >>> parse_fingerprint("SHA256:" + format_fingerprint(fp)) == fp
    True
    >>> parse_fingerprint("ab:cd") is None
    True
"""

from __future__ import annotations

import re

_HEX64 = re.compile(r"[0-9a-f]{64}")


def format_fingerprint(fingerprint: str) -> str:
    """``ab12...`` -> ``AB:12:...`` (what ``rummyhall serve`` prints)."""
    upper = fingerprint.upper()
    return ":".join(upper[i:i + 2] for i in range(0, len(upper), 2))


def parse_fingerprint(text: str) -> str | None:
    """A fingerprint typed by a person (any case; colons, spaces and a leading
    ``SHA256:`` or ``SHA-256`` optional) as 64 lowercase hex digits, or None if it is
    not one."""
    cleaned = text.strip().lower()
    for prefix in ("sha256:", "sha-256:", "sha256", "sha-256"):
        if cleaned.startswith(prefix):
            cleaned = cleaned[len(prefix):]
            break
    cleaned = re.sub(r"[\s:]", "", cleaned)
    return cleaned if is_fingerprint(cleaned) else None


def is_fingerprint(text: str) -> bool:
    """Whether ``text`` is a fingerprint in its wire form (64 lowercase hex digits)."""
    return _HEX64.fullmatch(text) is not None
