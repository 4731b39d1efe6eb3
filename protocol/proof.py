"""Proofs of a shared secret over a connection's nonce (HMAC-SHA256), for both ends.

A server's ``welcome`` (1.2) carries a fresh ``nonce`` per connection. A client proves it
holds a secret by sending the HMAC-SHA256 of that nonce keyed by the secret; the server
computes the same and compares in constant time. The secret never crosses the wire, and
a proof is worth nothing on any other connection: its nonce differs.

    >>> admin_proof("k" * 64, "0" * 32) == admin_proof("k" * 64, "0" * 32)
    True
    >>> len(admin_proof("k" * 64, "0" * 32)), admin_proof("k" * 64, "1" * 32) == admin_proof(
    ...     "k" * 64, "0" * 32)
    (64, False)
"""

from __future__ import annotations

import hashlib
import hmac


def admin_proof(credential: str, nonce: str) -> str:
    """The ``admin_login`` proof: HMAC-SHA256 keyed by the credential's text (UTF-8) over
    the nonce's text (ASCII), as 64 lowercase hex digits."""
    return hmac.new(credential.encode(), nonce.encode("ascii"), hashlib.sha256).hexdigest()


def proof_matches(expected: str, given: str) -> bool:
    """``given`` is ``expected``, compared in constant time."""
    return hmac.compare_digest(expected.encode(), given.encode())
