"""Proofs of a secret (the hall's password, a table's code, the host's credential) that
never send the secret.

Theory of operation
-------------------
The scheme is SCRAM-SHA-256's client proof (RFC 5802, RFC 7677), keyed over the
per-connection ``nonce`` of the server's ``welcome`` (docs/protocol.md, section 3.1)::

    salted     = PBKDF2-HMAC-SHA256(NFC(secret) as UTF-8, salt, iterations, 32 bytes)
    client_key = HMAC-SHA256(salted, "Client Key")
    stored_key = SHA-256(client_key)                 # what the server keeps
    signature  = HMAC-SHA256(stored_key, label + nonce)
    proof      = client_key XOR signature            # what the client sends

The server, holding only ``stored_key``, recomputes ``signature``, recovers
``client_key = proof XOR signature`` and accepts when ``SHA-256(client_key)`` is its
``stored_key``. So:

* the secret never crosses the wire, nor anything that logs in by itself;
* a proof is bound to one connection's nonce (and to its ``label``: the hall's login, or
  one table's code), so a captured proof fails on any other connection;
* the server's copy (``stored_key``) does not log in either: making a proof needs
  ``client_key``, a SHA-256 preimage of it;
* a sniffer who saw a proof and its nonce can still test guesses of the secret offline,
  each guess costing ``iterations`` rounds of PBKDF2: a weak secret can be found.

The host's credential (``admin_login``) is already a long random key, so its proof skips
the key derivation: it is the HMAC-SHA256 of the nonce keyed by the credential's text
(:func:`admin_proof`), compared in constant time (:func:`proof_matches`).

Everything here is a pure function of its arguments (no randomness, no clock): the
server draws salts and nonces itself.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from dataclasses import dataclass

KDF = "pbkdf2_sha256"
"""The key derivation function of every salt this protocol announces."""
KEY_BYTES = 32
PROOF_LEN = 2 * KEY_BYTES  # hex characters
NONCE_BYTES = 16
NONCE_LEN = 2 * NONCE_BYTES
MIN_SALT_BYTES = 8
MAX_SALT_BYTES = 64
MAX_ITERATIONS = 2_000_000
"""The most PBKDF2 rounds a peer may ask of a client (about a second of one core)."""
DEFAULT_ITERATIONS = 600_000
"""Rounds for a password a person chooses (OWASP's figure for PBKDF2-HMAC-SHA256)."""

LOGIN_LABEL = "rummyhall login "
"""The label of the hall password's proof (``login``)."""


def table_label(table: int) -> str:
    """The label of table ``table``'s code proof (``join`` and ``watch``).

    >>> table_label(7)
    'rummyhall table 7 '
    """
    return f"rummyhall table {table} "


class ProofError(ValueError):
    """A salt, a count of rounds or a verifier that this scheme cannot use."""


@dataclass(frozen=True, slots=True)
class ClientKeys:
    """What a client derives from a secret and a salt; enough to prove it again and again.

    ``client_key`` is as good as the secret on this server (keep it private);
    ``stored_key`` is what the server keeps.
    """

    client_key: bytes
    stored_key: bytes

    def __repr__(self) -> str:
        return "ClientKeys(...)"


@dataclass(frozen=True, slots=True)
class Verifier:
    """What a server keeps of a secret: the salt, the rounds and the stored key.

    Its text form (a settings file's ``password``) is
    ``pbkdf2_sha256$ITERATIONS$SALT_HEX$STORED_KEY_HEX``.
    """

    salt: bytes
    iterations: int
    stored_key: bytes

    def __repr__(self) -> str:
        return f"Verifier(iterations={self.iterations}, ...)"

    def text(self) -> str:
        """The text form, for a settings file."""
        return f"{KDF}${self.iterations}${self.salt.hex()}${self.stored_key.hex()}"

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """A verifier from its text form; :class:`ProofError` says what is wrong."""
        parts = text.split("$")
        if len(parts) != 4 or parts[0] != KDF:
            raise ProofError(f"a verifier reads {KDF}$ITERATIONS$SALT$KEY")
        try:
            iterations = int(parts[1])
            salt, key = bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
        except ValueError:
            raise ProofError("a verifier's rounds are a number, its salt and key hex") \
                from None
        check_salt(salt, iterations)
        if len(key) != KEY_BYTES:
            raise ProofError(f"a verifier's key is {KEY_BYTES} bytes")
        return cls(salt, iterations, key)

    @classmethod
    def of(cls, secret: str, salt: bytes, iterations: int) -> Verifier:
        """The verifier of ``secret`` (runs PBKDF2: ``iterations`` rounds)."""
        return cls(salt, iterations, derive(secret, salt, iterations).stored_key)


def check_salt(salt: bytes, iterations: int) -> None:
    """Raise :class:`ProofError` unless ``salt`` and ``iterations`` are within bounds."""
    if not MIN_SALT_BYTES <= len(salt) <= MAX_SALT_BYTES:
        raise ProofError(f"a salt is {MIN_SALT_BYTES} to {MAX_SALT_BYTES} bytes")
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise ProofError(f"rounds are 1 to {MAX_ITERATIONS}")


def derive(secret: str, salt: bytes, iterations: int) -> ClientKeys:
    """The client's keys for ``secret`` (NFC-normalised, UTF-8) under ``salt``.

    Raises :class:`ProofError` for a salt or a count of rounds out of bounds (a hostile
    server cannot make a client spin for long).
    """
    check_salt(salt, iterations)
    data = unicodedata.normalize("NFC", secret).encode("utf-8")
    salted = hashlib.pbkdf2_hmac("sha256", data, salt, iterations, KEY_BYTES)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    return ClientKeys(client_key, hashlib.sha256(client_key).digest())


def _signature(stored_key: bytes, label: str, nonce: str) -> bytes:
    return hmac.digest(stored_key, (label + nonce).encode("ascii"), "sha256")


def make_proof(keys: ClientKeys, label: str, nonce: str) -> str:
    """The proof to send for ``label`` on the connection whose welcome had ``nonce``."""
    signature = _signature(keys.stored_key, label, nonce)
    return bytes(a ^ b for a, b in zip(keys.client_key, signature, strict=True)).hex()


def check_proof(stored_key: bytes, proof: str, label: str, nonce: str) -> bool:
    """True if ``proof`` proves the secret of ``stored_key`` for ``label`` and ``nonce``.

    Runs in constant time in the proof's content (a wrong proof teaches nothing by its
    timing); a proof that is not 64 hex characters is simply wrong.

    >>> keys = derive("s3cret", b"saltsalt", 2)
    >>> p = make_proof(keys, LOGIN_LABEL, "00" * 16)
    >>> check_proof(keys.stored_key, p, LOGIN_LABEL, "00" * 16)
    True
    >>> check_proof(keys.stored_key, p, LOGIN_LABEL, "11" * 16)  # another connection
    False
    >>> check_proof(keys.stored_key, p, table_label(1), "00" * 16)  # another purpose
    False
    """
    try:
        given = bytes.fromhex(proof)
    except ValueError:
        return False
    if len(given) != KEY_BYTES:
        return False
    signature = _signature(stored_key, label, nonce)
    client_key = bytes(a ^ b for a, b in zip(given, signature, strict=True))
    return hmac.compare_digest(hashlib.sha256(client_key).digest(), stored_key)


def admin_proof(credential: str, nonce: str) -> str:
    """The ``admin_login`` proof: HMAC-SHA256 keyed by the credential's text (UTF-8) over
    the nonce's text (ASCII), as 64 lowercase hex digits.

    >>> admin_proof("k" * 64, "0" * 32) == admin_proof("k" * 64, "0" * 32)
    True
    >>> len(admin_proof("k" * 64, "0" * 32)), admin_proof("k" * 64, "1" * 32) == admin_proof(
    ...     "k" * 64, "0" * 32)
    (64, False)
    """
    return hmac.new(credential.encode(), nonce.encode("ascii"), hashlib.sha256).hexdigest()


def proof_matches(expected: str, given: str) -> bool:
    """``given`` is ``expected``, compared in constant time."""
    return hmac.compare_digest(expected.encode(), given.encode())
