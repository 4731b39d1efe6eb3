"""Checking a TLS server: a known CA, a pinned fingerprint, or trust on first use.

Theory of operation
-------------------
A :class:`ServerTrust` says how a client decides that the server at the other end of a
TLS connection is the one it meant (docs/protocol.md, section 1):

- **A known CA** (``cafile``: a PEM file of CA certificates, or ``"system"``, the
  operating system's store): the certificate must chain to one of them and name the
  host. This is ordinary web TLS, for a server with a CA-signed certificate.
- **A pinned fingerprint** (``fingerprint``): the SHA-256 of the certificate's DER bytes
  must be exactly this one, whatever signed it. The operator's ``rummyhall serve``
  prints it. A pinned connection also remembers it, which is how a player accepts a
  server's new certificate after checking it.
- **Trust on first use** (neither): the first fingerprint seen for a ``host:port`` is
  remembered in :class:`KnownServers`, a small file in the per-user data directory; a
  later connection that shows another is refused with a loud warning that says how to
  accept it. SSH does the same with host keys.

The handshake needs TLS 1.2 at least. A server that answers a TLS ClientHello with
anything that is not TLS (our plain servers answer with a framed ``frame_too_large``,
whose first byte is 0) is reported as :class:`NotTLS`.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import logging
import os
import ssl
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import platformdirs
import trio

from rummyhall.protocol.fingerprints import format_fingerprint, is_fingerprint

from .errors import ClientError

log = logging.getLogger("rummyhall.trust")

KNOWN_FILE = "known_servers.json"
MAX_KNOWN_BYTES = 1_048_576  # a bigger file is not ours: refused, not parsed
MAX_KNOWN = 10_000  # servers remembered; past it the one remembered longest ago goes
HANDSHAKE_SECONDS = 30.0
SYSTEM = "system"  # the cafile that means the operating system's CA store
_TLS_FIRST_BYTES = (0x15, 0x16)  # what a TLS server sends first: an alert or a handshake


class TLSError(ClientError):
    """A TLS connection could not be made, or its server is not trusted."""

    @property
    def summary(self) -> str:
        """The message's first line of words (a warning's is framed by lines of @)."""
        return next((line for line in str(self).splitlines() if line.strip("@ ")), "")


class NotTLS(TLSError):
    """The server answered in plain TCP: it does not serve TLS."""


class UntrustedServer(TLSError):
    """The server's certificate is not the one expected: the connection was refused."""

    def __init__(self, message: str, *, address: str, presented: str | None,
                 expected: str | None = None) -> None:
        super().__init__(message)
        self.address = address
        self.presented = presented  # the fingerprint the server showed (None: not seen)
        self.expected = expected


class KnownServersError(TLSError):
    """The file of known servers cannot be read or written."""


def server_key(host: str, port: int) -> str:
    """How a server is named in the known servers: ``host:port``, ``[v6]:port``."""
    host = host.strip("[]").lower()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def fingerprint_of(der: bytes) -> str:
    """The SHA-256 of a certificate's DER bytes, as 64 lowercase hex digits."""
    return hashlib.sha256(der).hexdigest()


def shown(fingerprint: str) -> str:
    return f"SHA-256 {format_fingerprint(fingerprint)}"


def known_servers_path() -> Path:
    """The default file of known servers, in the per-user data directory."""
    return platformdirs.user_data_path("rummyhall", appauthor=False, roaming=False) \
        / KNOWN_FILE


class KnownServers:
    """The fingerprint first seen for each ``host:port``, in a JSON file written
    atomically: ``{"servers": {"host:port": {"sha256": ..., "since": ...}}}``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or known_servers_path()

    def get(self, key: str) -> str | None:
        """The fingerprint remembered for ``key``, or None."""
        entry = self._load().get(key)
        return entry.get("sha256") if entry is not None else None

    def remember(self, key: str, fingerprint: str) -> None:
        """Remember ``fingerprint`` for ``key`` (replacing any other) and write the file."""
        servers = self._load()
        servers.pop(key, None)
        servers[key] = {"sha256": fingerprint,
                        "since": datetime.datetime.now(datetime.UTC).isoformat(
                            timespec="seconds")}
        while len(servers) > MAX_KNOWN:
            del servers[next(iter(servers))]
        self._save(servers)

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            with self.path.open("rb") as f:
                data = f.read(MAX_KNOWN_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise KnownServersError(f"cannot read the known servers {self.path}: {exc}"
                                    ) from exc
        try:
            if len(data) > MAX_KNOWN_BYTES:
                raise ValueError(f"over {MAX_KNOWN_BYTES} bytes")
            body: Any = json.loads(data)
            servers = body["servers"]
            if not isinstance(servers, dict):
                raise ValueError("no map of servers")
            clean = {str(k): {"sha256": str(v["sha256"]), "since": str(v.get("since", ""))}
                     for k, v in servers.items()}
            if not all(is_fingerprint(v["sha256"]) for v in clean.values()):
                raise ValueError("a fingerprint that is not 64 hex digits")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            # Not an empty list: that would trust again whatever a server shows next.
            raise KnownServersError(
                f"the known servers file {self.path} is damaged ({exc}); repair it, or "
                "remove it to trust every server anew on its next connection") from exc
        return clean

    def _save(self, servers: dict[str, dict[str, str]]) -> None:
        text = json.dumps({"servers": servers}, indent=2)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".known-", suffix=".json", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise KnownServersError(f"cannot write the known servers {self.path}: {exc}"
                                    ) from exc


class _Watched(trio.abc.Stream):
    """A transport that remembers the first byte the server sent (to tell a plain server
    from a failed TLS handshake)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.first: int | None = None

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.stream.receive_some(max_bytes)
        if self.first is None and data:
            self.first = data[0]
        return data

    async def aclose(self) -> None:
        await self.stream.aclose()


@dataclass(frozen=True)
class ServerTrust:
    """How to check a TLS server: ``cafile`` (a CA file, or ``"system"``), a pinned
    ``fingerprint`` (64 hex digits), or, with neither, trust on first use in ``known``
    (the per-user file when None)."""

    cafile: str | None = None
    fingerprint: str | None = None
    known: KnownServers | None = field(default=None, compare=False)
    handshake_seconds: float = HANDSHAKE_SECONDS

    def __post_init__(self) -> None:
        if self.cafile is not None and self.fingerprint is not None:
            raise ValueError("a CA file and a pinned fingerprint: choose one")
        if self.fingerprint is not None and not is_fingerprint(self.fingerprint):
            raise ValueError(f"not a SHA-256 fingerprint (64 lowercase hex digits): "
                             f"{self.fingerprint!r}")

    @property
    def mode(self) -> str:
        """``ca``, ``pinned`` or ``first use``."""
        return "ca" if self.cafile else "pinned" if self.fingerprint else "first use"

    @cached_property
    def store(self) -> KnownServers:
        return self.known or KnownServers()

    @cached_property
    def context(self) -> ssl.SSLContext:
        """The client context: TLS 1.2 at least; the CA check only in the CA mode (the
        others check the certificate's fingerprint after the handshake)."""
        if self.cafile:
            try:
                context = ssl.create_default_context(
                    cafile=None if self.cafile == SYSTEM else self.cafile)
            except (OSError, ssl.SSLError) as exc:
                raise TLSError(f"cannot use the CA file {self.cafile}: {exc}") from exc
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # the fingerprint is checked instead
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        return context

    async def open(self, stream: trio.SocketStream, host: str, port: int
                   ) -> tuple[trio.SSLStream[Any], str]:
        """The TLS stream over ``stream`` once the handshake is done and the server is
        trusted, and the fingerprint of its certificate.

        Raises :class:`NotTLS`, :class:`UntrustedServer`, :class:`KnownServersError` or
        :class:`TLSError` (the handshake failed, or took over ``handshake_seconds``).
        """
        key = server_key(host, port)
        watched = _Watched(stream)
        tls = trio.SSLStream(watched, self.context, server_hostname=host.strip("[]"))
        try:
            with trio.fail_after(self.handshake_seconds):
                await tls.do_handshake()
        except trio.TooSlowError:
            raise TLSError(f"the TLS handshake with {key} took over "
                           f"{self.handshake_seconds:g} s") from None
        except trio.BrokenResourceError as exc:
            raise self._failure(key, watched.first, exc.__cause__) from exc
        der = tls.getpeercert(binary_form=True)
        if not der:
            raise TLSError(f"{key} showed no certificate")
        fingerprint = fingerprint_of(der)
        self._check(key, fingerprint)
        return tls, fingerprint

    def _failure(self, key: str, first: int | None, cause: BaseException | None
                 ) -> TLSError:
        if first is not None and first not in _TLS_FIRST_BYTES:
            return NotTLS(f"{key} does not speak TLS (it answered in plain TCP): connect "
                          "without TLS")
        if isinstance(cause, ssl.SSLCertVerificationError):
            where = "the system's CA store" if self.cafile == SYSTEM else self.cafile
            return UntrustedServer(f"the certificate of {key} is not trusted by {where}: "
                                   f"{cause.verify_message}", address=key, presented=None)
        if first is None:
            return TLSError(f"{key} closed the connection during the TLS handshake")
        return TLSError(f"the TLS handshake with {key} failed: {cause}")

    def _check(self, key: str, fingerprint: str) -> None:
        if self.cafile:
            return  # the handshake checked the chain and the name
        if self.fingerprint is not None:
            if not hmac.compare_digest(fingerprint, self.fingerprint):
                raise UntrustedServer(
                    f"the certificate of {key} is not the pinned one: it shows "
                    f"{shown(fingerprint)}, the pin is {shown(self.fingerprint)}; "
                    "the connection was refused", address=key, presented=fingerprint,
                    expected=self.fingerprint)
            if self.store.get(key) != fingerprint:
                self.store.remember(key, fingerprint)  # checked by the player: accepted
            return
        remembered = self.store.get(key)
        if remembered is None:
            self.store.remember(key, fingerprint)
            log.warning("%s: trusting its TLS certificate on first use, %s (remembered in "
                        "%s)", key, shown(fingerprint), self.store.path)
            return
        if not hmac.compare_digest(remembered, fingerprint):
            raise UntrustedServer(changed_warning(key, remembered, fingerprint,
                                                  self.store.path),
                                  address=key, presented=fingerprint, expected=remembered)


def changed_warning(key: str, remembered: str, presented: str, path: Path) -> str:
    """The loud warning of a certificate that is not the one seen before."""
    bar = "@" * 64
    return "\n".join([
        bar,
        f"WARNING: THE TLS CERTIFICATE OF {key} HAS CHANGED. Connection refused.",
        bar,
        "Someone may be pretending to be this server (between you and it), or its",
        "operator made a new certificate.",
        f"  remembered: {shown(remembered)}",
        f"  presented:  {shown(presented)}",
        "Ask the server's operator for the fingerprint `rummyhall serve` printed. Only if",
        "it is the presented one, accept it by connecting once with",
        f"  --fingerprint {format_fingerprint(presented)}",
        f"which replaces the remembered one in {path}.",
    ])

