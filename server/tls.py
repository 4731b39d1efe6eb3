"""Optional TLS: the server's certificate, its TLS context, and opening a TLS connection.

Theory of operation
-------------------
TLS is a wrapper around the same byte stream: the sans-IO protocol never knows about it.
With ``tls`` on, the hall loads :class:`ServerTLS` once before it listens: the operator's
certificate and key (``tls_cert``, ``tls_key``), or else a self-signed certificate that
the server made the first time and keeps in its data directory (the key file readable by
its owner only). Making one needs the ``cryptography`` library, an optional extra
(``pip install 'rummyhall[tls]'``), imported only then; loading one needs only the
standard library's ``ssl``.

Every accepted connection is then peeked at (``MSG_PEEK``: nothing is consumed). A TLS
client's first byte is 0x16, a TLS handshake record; a frame of our protocol starts with
its length prefix, whose first byte is 0 for any frame a server takes. So a plain client
on a TLS port is told so with a plain framed error (``tls_required``) and closed, and a
TLS client gets a :class:`trio.SSLStream`. The fingerprint players check is the SHA-256
of the certificate's DER bytes, printed by ``serve`` and sent in the LAN beacon.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import ipaddress
import logging
import os
import socket
import ssl
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from rummyhall.protocol.fingerprints import format_fingerprint

if TYPE_CHECKING:
    from .metering import ReadMeter

log = logging.getLogger("rummyhall.tls")

TLS_RECORD_HANDSHAKE = 0x16  # the first byte of a TLS ClientHello
CERT_FILE = "tls-cert.pem"  # the self-signed certificate, in the data directory
KEY_FILE = "tls-key.pem"  # its private key (mode 0600)
CERT_DAYS = 3650  # a self-signed certificate lasts ten years: its fingerprint is its identity
INSTALL_HINT = "pip install 'rummyhall[tls]'"


class TLSSetupError(Exception):
    """TLS cannot be served: the message says why and what to do, for a human."""


@dataclass(frozen=True)
class ServerTLS:
    """What the hall serves TLS with: the context and the certificate's fingerprint."""

    context: ssl.SSLContext
    fingerprint: str  # 64 lowercase hex digits: SHA-256 of the certificate's DER form
    cert: Path
    key: Path
    self_signed: bool  # made by this server (False: the operator's own)

    @property
    def shown(self) -> str:
        """The fingerprint as people compare it: ``SHA-256 AB:CD:...``."""
        return f"SHA-256 {format_fingerprint(self.fingerprint)}"


def load_server_tls(cert: str, key: str, directory: Path) -> ServerTLS:
    """The operator's ``cert`` and ``key`` (PEM files), or with both empty the self-signed
    pair in ``directory``, made there the first time.

    Raises :class:`TLSSetupError` (a file missing or unreadable, a key that does not fit
    its certificate, ``cryptography`` missing when a certificate must be made).
    """
    if bool(cert) != bool(key):
        raise TLSSetupError("tls_cert and tls_key go together: give both files (or neither, "
                            "for a self-signed certificate made by the server)")
    self_signed = not cert
    if self_signed:
        cert_path, key_path = directory / CERT_FILE, directory / KEY_FILE
        if not (cert_path.exists() and key_path.exists()):
            make_self_signed(cert_path, key_path)
    else:
        cert_path, key_path = Path(cert).expanduser(), Path(key).expanduser()
    _check_key_mode(key_path)
    context = server_context(cert_path, key_path)
    return ServerTLS(context, certificate_fingerprint(cert_path), cert_path, key_path,
                     self_signed)


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A server context: TLS 1.2 at least (1.3 is preferred: it is the highest), forward
    secret AEAD ciphers only for 1.2, with ``cert`` and ``key``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers("ECDHE+AESGCM:ECDHE+CHACHA20")
    context.options |= ssl.OP_NO_RENEGOTIATION  # (TLS 1.2: a client's renegotiations cost us)
    try:
        context.load_cert_chain(cert, key)
    except FileNotFoundError as exc:
        raise TLSSetupError(f"cannot read {exc.filename}: no such file") from exc
    except (OSError, ssl.SSLError) as exc:
        raise TLSSetupError(f"cannot use the certificate {cert} with the key {key}: {exc}"
                            ) from exc
    return context


def certificate_fingerprint(cert: Path) -> str:
    """The SHA-256 of the DER form of the first certificate of a PEM file (the server's
    own; the chain's others follow it), as 64 lowercase hex digits."""
    try:  # (as UTF-8: openssl's bag attributes before the PEM block may not be ASCII)
        text = cert.read_text(encoding="utf-8", errors="replace")
    except (OSError, UnicodeDecodeError) as exc:
        raise TLSSetupError(f"cannot read the certificate {cert}: {exc}") from exc
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        raise TLSSetupError(f"{cert} holds no PEM certificate")
    der = ssl.PEM_cert_to_DER_cert(text[start:stop + len(end)])
    return hashlib.sha256(der).hexdigest()


def _check_key_mode(key: Path) -> None:
    """Warn when the private key can be read by others than its owner."""
    with contextlib.suppress(OSError):
        mode = key.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("the TLS key %s can be read by others (mode %o): chmod 600 it",
                        key, stat.S_IMODE(mode))


def make_self_signed(cert: Path, key: Path, *, hostname: str | None = None) -> None:
    """Make a self-signed certificate (an ECDSA P-256 key, SHA-256, ten years) for this
    machine's name, localhost and the loopback addresses; write the key (mode 0600) and
    the certificate, each atomically (a temporary file, then a rename)."""
    try:  # (imported here: an optional extra, needed only to make a certificate)
        from cryptography import x509  # noqa: PLC0415
        from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
        from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415
        from cryptography.x509.oid import NameOID  # noqa: PLC0415
    except ImportError as exc:
        raise TLSSetupError(
            "making a self-signed certificate needs the cryptography library: "
            f"{INSTALL_HINT} (or give your own with --tls-cert and --tls-key)") from exc
    hostname = hostname or socket.gethostname() or "localhost"
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Rummy Hall on {hostname}"[:64])])
    now = datetime.datetime.now(datetime.UTC)
    names: list[x509.GeneralName] = [x509.DNSName(n) for n in dict.fromkeys(
        [hostname, "localhost"]) if _is_dns_name(n)]
    names += [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "::1")]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(private, hashes.SHA256()))
    key_pem = private.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    try:
        key.parent.mkdir(parents=True, exist_ok=True)
        _write_private(key, key_pem, 0o600)
        _write_private(cert, certificate.public_bytes(serialization.Encoding.PEM), 0o644)
    except OSError as exc:
        raise TLSSetupError(f"cannot write the self-signed certificate in {key.parent}: "
                            f"{exc}") from exc
    log.info("made a self-signed TLS certificate: %s (key %s)", cert, key)


def _is_dns_name(name: str) -> bool:
    return all(part and len(part) <= 63 and all(c.isascii() and (c.isalnum() or c == "-")
                                                 for c in part) for part in name.split("."))


def _write_private(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` through a temporary file, then give it ``mode``. The
    temporary file is made 0600 (``mkstemp``), so a key is never readable by others, not
    even for an instant."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        if mode != 0o600:
            os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- connections


async def first_byte(stream: trio.SocketStream) -> int | None:
    """The first byte the client sent, left in the socket (None: it closed first)."""
    data = await stream.socket.recv(1, socket.MSG_PEEK)
    return data[0] if data else None


class LingeringTransport(trio.abc.HalfCloseableStream):
    """The TCP stream under a server's :class:`trio.SSLStream`, whose ``aclose`` closes
    politely: the SSL stream's ``aclose`` sends its close_notify, then this shuts the
    socket for writing, reads and drops what the client still sends (``linger``), and
    closes, so that the client reads the last error instead of a connection reset."""

    def __init__(self, stream: trio.SocketStream, linger: float, most: int) -> None:
        self.stream = stream
        self.linger = linger
        self.most = most
        #: Counts the reads (the session's :class:`~.session.ReadMeter`, once it has one):
        #: under TLS one decrypted chunk may take many reads of the socket.
        self.meter: ReadMeter | None = None

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self.stream.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        meter = self.meter
        if meter is None:
            return await self.stream.receive_some(max_bytes)
        await meter.before()
        data = await self.stream.receive_some(max_bytes)
        meter.after(len(data))
        return data

    async def aclose(self) -> None:
        with trio.move_on_after(self.linger):
            try:
                await self.stream.send_eof()
                dropped = 0
                while dropped < self.most:
                    data = await self.stream.receive_some(65_536)
                    if not data:
                        break
                    dropped += len(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        await self.stream.aclose()


def wrap_server_stream(stream: trio.SocketStream, tls: ServerTLS, *, linger: float,
                       most: int) -> trio.SSLStream[LingeringTransport]:
    """The TLS stream of an accepted connection (the handshake is still to come)."""
    return trio.SSLStream(LingeringTransport(stream, linger, most), tls.context,
                          server_side=True)
