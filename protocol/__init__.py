"""The Rummy Hall wire protocol, sans-IO: framing, the message catalogue, the connection.

docs/protocol.md is the specification; this package is its implementation, shared by the
server and the clients. It does no I/O and reads no clock: feed a :class:`Connection`
the bytes you read, take messages out with :meth:`Connection.next_event`, and write what
:meth:`Connection.send` returns::

    >>> client, server = Connection(CLIENT), Connection(SERVER)
    >>> server.receive_data(client.send(Hello(versions=(1,), name="ada", kind="person")))
    >>> server.next_event()
    Hello(protocol='rummyhall', versions=(1,), name='ada', kind='person', client=None)

:mod:`.payloads` turns the rules engine's actions, events and views into wire maps and
back; ``conformance.json`` beside this module is the golden transcript kit for authors
of other clients.
"""

from .connection import (
    CLOSED,
    FATAL_ERROR,
    NEED_DATA,
    PAUSED,
    TRANSITIONS,
    Connection,
    Sentinel,
    State,
    error_message,
)
from .errors import (
    ERROR_CODES,
    ErrorCode,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .framing import FrameDecoder, encode_frame, json_value
from .limits import (
    DEFAULT_PORT,
    MAX_FRAME,
    MAX_SERVER_FRAME,
    PROTOCOL,
    VERSION,
    VERSIONS,
    keepalive,
)
from .messages import (
    CLIENT,
    MESSAGES,
    SERVER,
    ActionMessage,
    AddBot,
    AdminBan,
    AdminBans,
    AdminClose,
    AdminKick,
    AdminLogin,
    AdminMute,
    AdminNotice,
    AdminUnban,
    BanInfo,
    Bans,
    Bye,
    Chat,
    Contribute,
    CreateTable,
    DealCommit,
    DealRevealed,
    Error,
    EventMessage,
    GameInfo,
    GameRecord,
    Games,
    GamesPlayed,
    GetRecord,
    HandResult,
    Hello,
    Join,
    JournalEntry,
    Leave,
    Limits,
    ListGames,
    ListGamesPlayed,
    ListRatings,
    ListTables,
    LobbyUpdates,
    Message,
    Notice,
    Ok,
    OptionInfo,
    Ping,
    PlayedGame,
    PlayedSeat,
    Pong,
    RatingInfo,
    Ratings,
    Record,
    RemoveBot,
    Resync,
    Role,
    Say,
    SeatInfo,
    Session,
    Snapshot,
    Start,
    TableInfo,
    TableRemoved,
    Tables,
    TableUpdate,
    Turn,
    Watch,
    Welcome,
    YourTurn,
)
from .payloads import (
    action_from_wire,
    action_to_wire,
    event_from_wire,
    event_to_wire,
    games_catalogue,
    legal_from_wire,
    to_wire,
    view_from_wire,
    view_to_wire,
)
from .proof import admin_proof, proof_matches
from .ratelimit import TokenBucket
from .schema import CARD_BY_TEXT, SchemaError

__all__ = [
    "CARD_BY_TEXT", "CLIENT", "CLOSED", "DEFAULT_PORT", "ERROR_CODES", "FATAL_ERROR",
    "MAX_FRAME", "MAX_SERVER_FRAME", "MESSAGES", "NEED_DATA", "PAUSED", "PROTOCOL", "SERVER",
    "TRANSITIONS", "VERSION", "VERSIONS", "ActionMessage", "AddBot", "AdminBan", "AdminBans",
    "AdminClose", "AdminKick", "AdminLogin", "AdminMute", "AdminNotice", "AdminUnban",
    "BanInfo", "Bans", "Bye", "Chat", "Connection", "Contribute", "CreateTable",
    "DealCommit", "DealRevealed", "Error", "ErrorCode", "EventMessage", "FrameDecoder",
    "GameInfo", "GameRecord", "Games", "GamesPlayed", "GetRecord", "HandResult", "Hello",
    "Join", "JournalEntry", "Leave", "Limits", "ListGames", "ListGamesPlayed", "ListRatings",
    "ListTables", "LobbyUpdates", "LocalProtocolError", "Message", "Notice", "Ok",
    "OptionInfo", "Ping",
    "PlayedGame", "PlayedSeat", "Pong", "ProtocolError", "RatingInfo", "Ratings", "Record",
    "RemoteProtocolError", "RemoveBot", "Resync", "Role", "Say", "SchemaError", "SeatInfo",
    "Sentinel", "Session", "Snapshot", "Start", "State", "TableInfo", "TableRemoved",
    "TableUpdate", "Tables", "TokenBucket", "Turn", "Watch", "Welcome", "YourTurn",
    "action_from_wire", "action_to_wire", "admin_proof", "encode_frame", "error_message",
    "event_from_wire",
    "event_to_wire", "games_catalogue", "json_value", "keepalive", "legal_from_wire",
    "proof_matches", "to_wire", "view_from_wire", "view_to_wire",
]
