"""The protocol's constants: its name, versions, port, frame rules and the server defaults.

Every number here appears in docs/protocol.md; a server announces the ones a client
must respect in the ``limits`` of its ``welcome``. This module is the one source of each:
the server's settings (server/config.py) take their defaults and bounds from here, and
tests/server/test_defaults.py fails when a doc or a module states another value.
"""

from __future__ import annotations

import math
from typing import Final

PROTOCOL: Final = "rummyhall"
VERSION: Final = 1
VERSIONS: Final = (1,)
MINOR: Final = 2
"""The minor version of :data:`VERSION` this implementation speaks: 1.2. A minor version
only adds (optional fields, message types, kinds, codes); docs/protocol.md sections 13 and 14
list what each one added."""
DEFAULT_PORT: Final = 7654
PRODUCT: Final = "Rummy Hall"
"""The product's name, and a server's name unless its host gives another: a server of
this name is not named again in titles and banners."""

# ---------------------------------------------------------------- frame rules
HEADER_SIZE: Final = 4
MAX_FRAME: Final = 65_536
"""Default limit of a frame body sent by a client once welcomed (bytes)."""
HELLO_FRAME: Final = 4_096
"""Limit of a frame body a client sends before the welcome, its hello (bytes): a hello at
its largest is a few hundred bytes, so a bigger first frame costs the server nothing."""
MAX_SERVER_FRAME: Final = 1_048_576
"""Default limit of a frame body sent by a server; a client must accept this much."""
MIN_FRAME_LIMIT: Final = 4_096
MAX_FRAME_LIMIT: Final = 16_777_216
MAX_DEPTH: Final = 16
"""Containers nested in a frame, the message map counting as one."""
MAX_ARRAY_LEN: Final = 4_096
MAX_MAP_LEN: Final = 256
MAX_KEY_LEN: Final = 64
INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1

# ---------------------------------------------------------------- field bounds
MAX_ID: Final = 2**53 - 1  # exact in every JSON/JavaScript number
MAX_ID_LEN: Final = 64
MAX_NAME: Final = 32
MAX_CHAT: Final = 500
MAX_TEXT: Final = 1_024  # any other free text (messages, notes)
MAX_TABLE_ID: Final = 2**31 - 1
MAX_PLAYER_ID: Final = 2**31 - 1
MAX_SEATS: Final = 16
MAX_SECONDS: Final = 86_400
TOKEN_LEN: Final = 32  # 128 bits as lowercase hex
NONCE_LEN: Final = 32  # the welcome's nonce: 128 bits as lowercase hex
PROOF_LEN: Final = 64  # an HMAC-SHA256 as lowercase hex
MAX_BAN_SECONDS: Final = 31_536_000 * 10  # a ban lasts at most ten years (or until lifted)
MAX_BANS: Final = 1_000  # bans a server holds at once (a bans reply lists them all)
DEAL_HEX: Final = 64  # a deal's secret, contributions and commitments: 32 bytes as hex
MAX_CONTRIBUTION_MS: Final = 30_000  # the longest window for contributions a server gives

# ---------------------------------------------------------------- server defaults
MESSAGES_PER_SECOND: Final = 100
BURST: Final = 200
MAX_RATE: Final = 10_000
"""The most a server may set ``messages_per_second`` or ``burst`` to (the schema's bound)."""
REPLY_BYTES_PER_TOKEN: Final = 4_096
"""A reply (or a snapshot) costs its asker one more rate token for each whole 4 KiB of it."""
FRAME_BYTES_PER_TOKEN: Final = 256
"""A frame received costs its sender one more rate token for each whole 256 bytes of its
body: decoding a frame costs the server in proportion to its size (a frame of many tiny
arrays and maps costs up to 0.3 ms a KiB to decode and check, a small request about 0.1
ms), so a token buys about the same work whatever a client sends; 64 KiB cost 257."""
ADDRESS_SHARE: Final = 4
"""The connections of one IP address together may send this many times
``messages_per_second`` (and ``burst`` at once): a machine cannot take the server's whole
capacity by opening many connections, each within its own rate."""
HANDSHAKE_SECONDS: Final = 10
IDLE_SECONDS: Final = 120
PING_SECONDS: Final = 30
MIN_IDLE_SECONDS: Final = 3
"""The shortest idle timeout a server applies: a ping interval of 1 s is a third of it."""
TURN_SECONDS: Final = 0
GRACE_SECONDS: Final = 120
MAX_CONNECTIONS: Final = 1024
MAX_PER_ADDRESS: Final = 64
CONNECT_RATE: Final = 20
"""New connections one address may open a second, on average, after its first
:data:`CONNECT_BURST`: a client that reconnects must wait between tries."""
CONNECT_BURST: Final = 64
"""New connections one address may open at once (as many as it may hold)."""
MAX_TABLES: Final = 256
MAX_LISTED_TABLES: Final = 1024
"""The most tables a ``tables`` reply may hold (the schema's bound)."""
TABLES_PER_PAGE: Final = 64
"""The most tables a server lists in one ``tables`` reply: a page (``more``, ``after``)."""
MAX_TABLES_LIMIT: Final = 500
"""The most tables a host may allow at once (``max_tables``): the most bench/bench_scale.py
measures playing on one core (about 45 KiB each; docs/server.md, "Scale"). Tables are
listed in pages of :data:`TABLES_PER_PAGE`, though a ``tables`` reply of this many, each
as large as a table can be, would still fit in one frame."""


def keepalive(idle_seconds: float) -> tuple[float, int]:
    """The idle timeout a server applies for a setting of ``idle_seconds``, and the ping
    interval it announces: at most a third of the timeout, whatever the setting.

    >>> keepalive(120), keepalive(20), keepalive(1), keepalive(3.9)
    ((120, 30), (20, 6), (3, 1), (3.9, 1))
    """
    idle = max(MIN_IDLE_SECONDS, idle_seconds)
    return idle, max(1, min(PING_SECONDS, math.floor(idle) // 3))
