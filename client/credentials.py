"""The client's side of the hall's password and of private tables' codes.

A secret is turned into keys once per salt (PBKDF2, in a worker thread: it takes a
moment on purpose), and the keys make a fresh proof for each connection's nonce
(:mod:`rummyhall.protocol.proofs`). The secret itself is never sent; what may be kept on
disk is the derived :class:`~rummyhall.protocol.ClientKeys` of one salt, never the secret.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import trio

from rummyhall.protocol import Challenge, ClientKeys, NewLock, TableLock, Verifier, derive
from rummyhall.protocol.proofs import DEFAULT_ITERATIONS, KDF


async def derive_keys(secret: str, salt_hex: str, iterations: int) -> ClientKeys:
    """The keys of ``secret`` under a salt a server announced (raises ProofError for a
    salt or a count of rounds out of the protocol's bounds)."""
    salt = bytes.fromhex(salt_hex)
    return await trio.to_thread.run_sync(derive, secret, salt, iterations)


@dataclass
class HallCredential:
    """What a client knows of a hall's password: the password, or keys derived before.

    ``saved`` maps ``(salt, iterations)`` to keys (a profile may hold them); the password,
    when given, derives keys for any other salt.
    """

    password: str | None = None
    saved: dict[tuple[str, int], ClientKeys] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"HallCredential(password={'***' if self.password else None}, ...)"

    def can_answer(self, challenge: Challenge) -> bool:
        return self.password is not None or (challenge.salt, challenge.iterations) in self.saved

    async def keys_for(self, challenge: Challenge) -> ClientKeys | None:
        """The keys answering ``challenge`` (None: no password and none saved for it)."""
        key = (challenge.salt, challenge.iterations)
        keys = self.saved.get(key)
        if keys is None and self.password is not None:
            keys = self.saved[key] = await derive_keys(self.password, *key)
        return keys


async def table_keys(code: str, lock: TableLock) -> ClientKeys:
    """The keys of a private table's code (a password or an invite code, as given)."""
    return await derive_keys(code.strip(), lock.salt, lock.iterations)


async def new_lock(password: str, iterations: int = DEFAULT_ITERATIONS) -> NewLock:
    """The lock that create_table sends for a table password: its verifier with a fresh
    salt (the password stays here)."""
    salt = secrets.token_bytes(16)
    verifier = await trio.to_thread.run_sync(Verifier.of, password.strip(), salt, iterations)
    return NewLock(kdf=KDF, salt=salt.hex(), iterations=iterations,
                   stored_key=verifier.stored_key.hex())
