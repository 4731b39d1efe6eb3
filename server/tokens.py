"""Session tokens: 128 random bits that a client keeps and the server never stores.

A token is made by :func:`new_token` and sent once, in the welcome. The server keeps only
its SHA-256 digest (in memory and in the data file): 128 random bits need no salt or slow
hash, since nobody can guess them, and a copy of the data file resumes nobody. A token
presented in a hello is compared with a digest in constant time (:func:`matches`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 16  # 128 bits, sent as 32 lowercase hex digits


def new_token() -> str:
    """A fresh token from the operating system's CSPRNG."""
    return secrets.token_hex(TOKEN_BYTES)


def digest(token: str) -> str:
    """The SHA-256 digest of ``token``, as 64 lowercase hex digits: what the server keeps."""
    return hashlib.sha256(token.encode()).hexdigest()


def matches(token: str, token_digest: str) -> bool:
    """True if ``token`` is the one whose digest is ``token_digest`` (constant time)."""
    return hmac.compare_digest(digest(token), token_digest)
