"""The host's admin credential: a secret file the server creates once, for its owner only.

The credential is 256 random bits from the operating system's CSPRNG, written as 64
lowercase hex digits in a file of mode 0600 beside the data file (``<data
file>.admin-key``, or the ``admin_key`` setting). Whoever can read that file, the server's
own user, holds the host's controls: ``rummyhall admin`` and the console read it there.
The secret itself never crosses the wire (a connection proves it with an HMAC over its
nonce, :mod:`rummyhall.protocol.proofs`) and is never logged; only the file's path is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat

from .config import Settings
from .store import MEMORY, StoreError, data_path

log = logging.getLogger("rummyhall.admin")

KEY_SUFFIX = ".admin-key"
KEY_BYTES = 32  # 256 bits, kept as 64 lowercase hex digits
KEY_MODE = 0o600


def credential_path(settings: Settings) -> str | None:
    """Where the credential of these settings lives, or None when the server keeps no data
    directory (``:memory:`` data, or no journal, and no ``admin_key``): it then has no
    host's controls."""
    if settings.admin_key:
        return settings.admin_key
    path = data_path(settings.data)
    return None if path == MEMORY or not settings.journal else path + KEY_SUFFIX


def _is_credential(text: str) -> bool:
    return len(text) == 2 * KEY_BYTES and all(c in "0123456789abcdef" for c in text)


def read_credential(path: str) -> str:
    """The credential in ``path``; :class:`StoreError` (with the reason, never the
    content) when it is missing, unreadable or not a credential."""
    try:
        with open(path, encoding="ascii") as f:
            text = f.read(4 * KEY_BYTES).strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StoreError(f"cannot read the admin credential {path}: {reason}") from None
    if not _is_credential(text):
        raise StoreError(f"{path} is not an admin credential (64 hex digits); remove it "
                         f"and the server makes a new one")
    return text


def load_or_create(path: str) -> str:
    """The credential in ``path``, made first if the file is missing (0600, created
    exclusively so that two servers never write two). A file others may read is made
    private again, with a warning: the secret may have been seen, so make a new one by
    removing the file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, KEY_MODE)
    except FileExistsError:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            with contextlib.suppress(OSError):
                os.chmod(path, KEY_MODE)
            log.warning("%s could be read by others (mode %o): made private again; remove "
                        "it and restart to get a new credential", path, mode)
        return read_credential(path)
    except OSError as exc:
        raise StoreError(f"cannot create the admin credential {path}: "
                         f"{exc.strerror or exc}") from None
    credential = secrets.token_hex(KEY_BYTES)
    try:
        os.write(fd, (credential + "\n").encode("ascii"))
    finally:
        os.close(fd)
    os.chmod(path, KEY_MODE)  # (the mode given to open passes through the umask)
    log.info("admin credential created: %s", path)
    return credential
