"""The message catalogue: one read-only dataclass per message type, defined once.

Each class names its wire ``type`` and its sender, and each field its spec and the
sentence that documents it; :func:`~.schema.compile_record` turns that into the checks
run by the constructor (so an invalid message cannot be built: :class:`LocalProtocolError`),
the reader of a received map (``bad_message``...), and ``to_wire()``. docs/protocol.md's
field tables are generated from these declarations and a test keeps them in step.

Messages are values: compared and hashed by their fields, and read-only. Type checkers
see every class as a frozen dataclass (the decorators are ``dataclass_transform``s with
``frozen_default``), so an assignment to a field is a mypy error. At run time they are
plain slotted dataclasses: a frozen one's guard on ``__setattr__`` would make every
field of every received message cost a call to set (about 130 ns an event, 7% of a
round trip in bench/bench_protocol.py).

Field rules: a field whose type says ``| nil`` may be absent, and absent means nil,
whoever sends it; one whose default is None is moreover left out of what we send when
None. Every other field is *required*. Unknown fields are ignored.

    >>> Ping(id=7).to_wire()
    {'type': 'ping', 'id': 7}
    >>> Hello(versions=(1,), name="ada", kind="person")
    Hello(protocol='rummyhall', versions=(1,), name='ada', kind='person', client=None, minor=None)

A token is a secret: no ``repr`` shows it (so no log line can).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Self, TypeVar, cast, dataclass_transform

from .limits import (
    BURST,
    DEAL_HEX,
    GRACE_SECONDS,
    HANDSHAKE_SECONDS,
    IDLE_SECONDS,
    INT_MAX,
    MAX_ARRAY_LEN,
    MAX_BAN_SECONDS,
    MAX_BANS,
    MAX_CHAT,
    MAX_CONTRIBUTION_MS,
    MAX_FRAME,
    MAX_FRAME_LIMIT,
    MAX_ID,
    MAX_LISTED_TABLES,
    MAX_NAME,
    MAX_PLAYER_ID,
    MAX_RATE,
    MAX_SEATS,
    MAX_SECONDS,
    MAX_SERVER_FRAME,
    MAX_TABLE_ID,
    MAX_TEXT,
    MESSAGES_PER_SECOND,
    MIN_FRAME_LIMIT,
    NONCE_LEN,
    PING_SECONDS,
    PROOF_LEN,
    PROTOCOL,
    TOKEN_LEN,
    TURN_SECONDS,
)
from .payloads import ACTION, EVENT, LEGAL_ACTION, VIEW_SPEC
from .proofs import KDF, MAX_ITERATIONS, MAX_SALT_BYTES, MIN_SALT_BYTES
from .schema import (
    ArrayT,
    BoolT,
    CardT,
    EnumT,
    IdT,
    IntT,
    MapT,
    OptT,
    RecordT,
    ScalarT,
    StrT,
    compile_record,
    spec,
)


class Role(StrEnum):
    """Which end of a connection: the client sends requests, the server answers and pushes."""

    CLIENT = "client"
    SERVER = "server"


CLIENT = Role.CLIENT
SERVER = Role.SERVER


def _is_name(text: str) -> bool:
    return text.isprintable() and text == text.strip()


def _is_line(text: str) -> bool:
    return text.isprintable() and bool(text.strip())


def _is_token(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _is_word(text: str) -> bool:
    return text.isascii() and text.replace("_", "").isalnum() and text == text.lower()


def _is_hex_bytes(text: str) -> bool:
    return len(text) % 2 == 0 and _is_token(text)


NAME = StrT(1, MAX_NAME, _is_name, "printable, no leading or trailing space", code="bad_name")
LINE = StrT(1, MAX_CHAT, _is_line, "printable, not blank")
TEXT = StrT(0, MAX_TEXT)
WORD = StrT(1, 32, _is_word, "lowercase letters, digits and _")
TOKEN = StrT(TOKEN_LEN, TOKEN_LEN, _is_token, "lowercase hex")
NONCE = StrT(NONCE_LEN, NONCE_LEN, _is_token, "lowercase hex")
PROOF = StrT(PROOF_LEN, PROOF_LEN, _is_token, "lowercase hex")
REASON = StrT(0, 200, _is_name, "printable, no leading or trailing space")
ADDRESS = StrT(2, 45, lambda t: t.isascii() and t.isprintable() and " " not in t,
               "an IPv4 or IPv6 address")
TABLE = IntT(1, MAX_TABLE_ID)
SEAT = IntT(0, MAX_SEATS - 1)
PLAYER = IntT(1, MAX_PLAYER_ID)
COUNT = IntT(0, INT_MAX)
SECONDS = IntT(0, MAX_SECONDS)
FRAME_LIMIT = IntT(MIN_FRAME_LIMIT, MAX_FRAME_LIMIT)
SALT = StrT(2 * MIN_SALT_BYTES, 2 * MAX_SALT_BYTES, _is_hex_bytes, "lowercase hex, whole bytes")
ROUNDS = IntT(1, MAX_ITERATIONS)
KDF_NAME = EnumT((KDF,))
DIGEST = StrT(DEAL_HEX, DEAL_HEX, _is_token, "lowercase hex: 32 bytes")
CONTRIBUTION = StrT(DEAL_HEX, DEAL_HEX, _is_token, "lowercase hex: 32 bytes",
                    code="bad_contribution")
SHUFFLE_KIND = EnumT(("deal", "rebuild"))
ID_DOC = "the request id, echoed in the reply"


# ------------------------------------------------------------------ the base classes


class Record:
    """A message or a record inside one: a read-only dataclass whose fields are checked."""

    __slots__ = ()

    def __post_init__(self) -> None:
        """Replaced by the compiled field checks."""

    def to_wire(self) -> dict[str, Any]:
        """The map to pack (compiled)."""
        raise NotImplementedError

    @staticmethod
    def _from_wire(d: dict[str, Any], path: str, depth: int) -> Any:
        raise NotImplementedError

    @classmethod
    def from_wire(cls, d: Mapping[str, Any]) -> Self:
        """Build from a received map; raises :class:`~.schema.SchemaError`."""
        record: Self = cls._from_wire(dict(d), _label(cls), 1)
        return record


class Message(Record):
    """A protocol message. ``type`` is its wire type, ``sender`` who may send it."""

    __slots__ = ()
    type: ClassVar[str]
    sender: ClassVar[Role]
    #: A request (client) gets exactly one reply echoing its id: ``error`` or this type.
    reply: ClassVar[str | None] = None


MESSAGES: dict[str, type[Message]] = {}
"""Every message class by its wire type, in the order of the document."""
RECORDS: dict[str, type[Record]] = {}
"""The records nested in messages, by class name."""

_labels: dict[type[Any], str] = {}
R = TypeVar("R", bound=type[Record])


def _label(cls: type[Any]) -> str:
    return _labels[cls]


def _value_class(cls: R) -> R:
    """Make ``cls`` a slotted, keyword-only dataclass, hashed and compared by its fields."""
    return cast(R, dataclass(slots=True, kw_only=True, unsafe_hash=True)(cls))


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(spec,))
def record(cls: R) -> R:
    """Make and compile a record class (a map inside messages), and register it."""
    cls = _value_class(cls)
    _labels[cls] = cls.__name__
    compile_record(cls, cls.__name__)
    RECORDS[cls.__name__] = cls
    return cls


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(spec,))
def message(type_: str, sender: Role, reply: str | None = None) -> Callable[[R], R]:
    """Make and compile a message class of wire type ``type_`` sent by ``sender``, and
    register it."""

    def register(cls: R) -> R:
        cls = _value_class(cls)
        cls.type = type_  # type: ignore[attr-defined]
        cls.sender = sender  # type: ignore[attr-defined]
        cls.reply = reply  # type: ignore[attr-defined]
        _labels[cls] = type_
        compile_record(cls, type_, {"type": type_})
        MESSAGES[type_] = cls  # type: ignore[assignment]
        return cls

    return register


# ------------------------------------------------------------------ records


@record
class Limits(Record):
    """The server's limits, announced in welcome; a client must stay within them."""

    max_frame: int = spec(FRAME_LIMIT, "largest frame body the server accepts (bytes)",
                          default=MAX_FRAME)
    max_server_frame: int = spec(FRAME_LIMIT, "largest frame body the server sends (bytes)",
                                 default=MAX_SERVER_FRAME)
    max_name: int = spec(IntT(1, MAX_NAME), "longest player name (characters)",
                         default=MAX_NAME)
    max_chat: int = spec(IntT(1, MAX_CHAT), "longest chat line (characters)", default=MAX_CHAT)
    messages_per_second: int = spec(IntT(1, MAX_RATE), "rate bucket refill (frames per second)",
                                    default=MESSAGES_PER_SECOND)
    burst: int = spec(IntT(1, MAX_RATE), "rate bucket size (frames)", default=BURST)
    handshake_seconds: int = spec(IntT(1, MAX_SECONDS), "time allowed for the hello",
                                  default=HANDSHAKE_SECONDS)
    idle_seconds: int = spec(IntT(1, MAX_SECONDS), "a client silent this long is closed",
                             default=IDLE_SECONDS)
    ping_seconds: int = spec(IntT(1, MAX_SECONDS), "recommended keepalive interval",
                             default=PING_SECONDS)


@record
class Challenge(Record):
    """How to prove the hall's password (welcome's login): the salt and rounds of its key."""

    kdf: str = spec(KDF_NAME, "the key derivation: PBKDF2-HMAC-SHA256 (section 3.1)")
    salt: str = spec(SALT, "the salt, as hex (8 to 64 bytes)")
    iterations: int = spec(ROUNDS, "PBKDF2's rounds")


@record
class TableLock(Record):
    """A private table's lock, as the lobby shows it: what a code's proof is made with."""

    kdf: str = spec(KDF_NAME, "the key derivation: PBKDF2-HMAC-SHA256 (section 3.1)")
    salt: str = spec(SALT, "the salt of the table's code, as hex")
    iterations: int = spec(ROUNDS, "PBKDF2's rounds")
    invite: bool = spec(BoolT(), "the code is an invite code the server made (else a "
                                 "password the creator chose)")
    watch_code: bool = spec(BoolT(), "watching needs the code too (else anybody may watch)")


@record
class NewLock(Record):
    """A table password, as create_table sets it: its verifier, never the password."""

    kdf: str = spec(KDF_NAME, "the key derivation: PBKDF2-HMAC-SHA256 (section 3.1)")
    salt: str = spec(SALT, "a fresh random salt, as hex (8 to 64 bytes; 16 recommended)")
    iterations: int = spec(ROUNDS, "PBKDF2's rounds (600000 recommended)")
    stored_key: str = spec(PROOF, "SHA-256(HMAC(PBKDF2(password), \"Client Key\")), as hex",
                           repr=False)


@record
class Session(Record):
    """Who the client is on this server, and the secret that brings it back."""

    player: int = spec(PLAYER, "the player's id on this server")
    token: str = spec(TOKEN, "secret resume token (128 random bits); send it in a later hello",
                      repr=False)
    resumed: bool = spec(BoolT(), "true when the hello's token was recognised: same player, "
                                  "seats kept")


@record
class SeatInfo(Record):
    """One seat of a table as the lobby shows it."""

    seat: int = spec(SEAT, "the seat number, 0-based, in play order")
    kind: str = spec(EnumT(("empty", "person", "bot", "house")),
                     "empty; a person's or a remote bot's client (their hello kind); "
                     "or a house bot")
    player: int | None = spec(OptT(PLAYER), "the sitting player's id (nil when empty or house)")
    name: str | None = spec(OptT(StrT(1, MAX_NAME)), "the sitter's name (nil when empty)")
    connected: bool = spec(BoolT(), "the sitter is connected (house bots always are)")
    bot: str | None = spec(OptT(WORD), "the strategy of the house bot playing this seat now: "
                                       "a house seat, or a stand-in for an absent player")
    rating: int | None = spec(OptT(IntT()), "the sitter's rating at this table's game "
                                            "(see ratings); nil when empty or unrated",
                              default=None)


@record
class TableInfo(Record):
    """A table's summary: game, options, seats and state."""

    table: int = spec(TABLE, "the table's number")
    game: str = spec(WORD, "the game: basic, gin, chicago, three_thirteen")
    options: Mapping[str, bool | int | str] = spec(
        MapT(ScalarT()), "every option of the table (defaults filled in)")
    seats: tuple[SeatInfo, ...] = spec(ArrayT(RecordT(SeatInfo), 1, MAX_SEATS), "the seats")
    state: str = spec(EnumT(("waiting", "playing", "finished")),
                      "waiting for start, playing, or finished")
    spectators: int = spec(COUNT, "connections watching")
    creator: int = spec(PLAYER, "the creator's player id (may add bots and start)")
    creator_name: str = spec(StrT(1, MAX_NAME), "the creator's name")
    turn_seconds: int = spec(SECONDS, "time per decision, 0 = no timer")
    grace_seconds: int = spec(SECONDS, "how long a disconnected player's seat waits before a "
                                       "house bot plays it")
    seeded: bool = spec(BoolT(), "the shuffles come from a fixed seed (tests and benchmarks "
                                 "only), not from the server's secure random generator",
                        default=False)
    lock: TableLock | None = spec(OptT(RecordT(TableLock)), "a private table's lock: "
                                  "joining (and watching, if watch_code) needs its code; "
                                  "nil: an open table", default=None)


@record
class OptionInfo(Record):
    """One table option of a game (from the rules engine's option specs)."""

    name: str = spec(WORD, "the option's name, a key of create_table's options")
    type: str = spec(EnumT(("bool", "int", "enum", "int_or_auto")), "its type")
    default: bool | int | str = spec(ScalarT(), "the value when not given")
    meaning: str = spec(TEXT, "what it does, in English")
    allowed: str = spec(TEXT, "the allowed values, in words")
    choices: tuple[str, ...] = spec(ArrayT(WORD), "an enum's values (empty otherwise)")
    low: int | None = spec(OptT(IntT()), "an integer's lowest value", default=None)
    high: int | None = spec(OptT(IntT()), "an integer's highest value", default=None)
    values: tuple[int, ...] | None = spec(OptT(ArrayT(IntT())),
                                          "the only integers allowed, when listed",
                                          default=None)


@record
class GameInfo(Record):
    """A game the server can host."""

    game: str = spec(WORD, "its name, for create_table")
    title: str = spec(StrT(1, 64), "its title")
    min_players: int = spec(IntT(2, MAX_SEATS), "fewest seats")
    max_players: int = spec(IntT(2, MAX_SEATS), "most seats")
    options: tuple[OptionInfo, ...] = spec(ArrayT(RecordT(OptionInfo), 0, 64),
                                           "every table option")


# ------------------------------------------------------------------ the handshake


@message("hello", CLIENT)
class Hello(Message):
    """The client's first frame: who it is and which protocol versions it speaks."""

    protocol: str = spec(StrT(1, 32), f'always "{PROTOCOL}"', default=PROTOCOL)
    versions: tuple[int, ...] = spec(ArrayT(IntT(1, 65_535), 1, 16),
                                     "the protocol versions the client speaks")
    name: str = spec(NAME, "the player's name (compared case-blind in Unicode's NFKC "
                                 "form, section 3; it belongs to its token, section 4)")
    kind: str = spec(EnumT(("person", "bot", "spectator")),
                     "person (a human's client), bot (a program), spectator (watches only)")
    token: str | None = spec(OptT(TOKEN), "the token of an earlier session, to resume it",
                             default=None, repr=False)
    client: str | None = spec(OptT(StrT(1, 64)), "the client software and its version, "
                                                 "for the server's log", default=None)
    minor: int | None = spec(OptT(IntT(0, 65_535)), "the minor version the client speaks "
                             "(2 for 1.2); absent: 0 or 1. A hall with a password refuses "
                             "a client below 2 (password_required)", default=None)


@message("welcome", SERVER)
class Welcome(Message):
    """The server accepts the hello: the version chosen, its limits and the session."""

    version: int = spec(IntT(1, 65_535), "the version chosen: the highest both speak")
    server: str = spec(StrT(1, 64), "the server's name")
    limits: Limits = spec(RecordT(Limits), "the limits the client must respect")
    features: tuple[str, ...] = spec(ArrayT(WORD, 0, 64),
                                     "optional features this server offers")
    session: Session | None = spec(OptT(RecordT(Session)), "the client's identity; nil "
                                   "when the hall has a password (login's reply, "
                                   "logged_in, carries it)")
    minor: int | None = spec(IntT(0, 65_535), "the minor version the server speaks of "
                             "that version (2 for 1.2); absent: 0", default=None)
    nonce: str | None = spec(OptT(NONCE), "1.2: a fresh random value of this connection "
                             "(128 bits from a cryptographic generator): proofs are HMACs "
                             "over it, so a proof captured on one connection proves nothing "
                             "on another", default=None)
    login: Challenge | None = spec(OptT(RecordT(Challenge)), "present when the hall has a "
                                   "password: the client must send login with its proof "
                                   "before anything else", default=None)


@message("login", CLIENT, reply="logged_in")
class Login(Message):
    """Prove the hall's password (section 3.1): the only request a locked hall reads."""

    proof: str = spec(PROOF, "client_key XOR HMAC(stored_key, \"rummyhall login \" + "
                             "nonce), as hex", repr=False)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("logged_in", SERVER)
class LoggedIn(Message):
    """The password was right: the session, as a welcome without a password carries it."""

    session: Session = spec(RecordT(Session), "the client's identity")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


# ------------------------------------------------------------------ replies and keepalive


@message("ok", SERVER)
class Ok(Message):
    """A request succeeded."""

    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    table: int | None = spec(OptT(TABLE), "the table concerned (create_table: the new one)",
                             default=None)
    seat: int | None = spec(OptT(SEAT), "join: the seat taken", default=None)
    invite: str | None = spec(OptT(StrT(1, 64)), "create_table with invite: the table's "
                              "invite code, to share (the server keeps only its verifier)",
                              default=None, repr=False)


@message("error", SERVER)
class Error(Message):
    """A request failed, or the connection is closing (fatal)."""

    code: str = spec(WORD, "stable machine-readable code (see the table of codes)")
    message: str = spec(TEXT, "what went wrong, for a human")
    fatal: bool = spec(BoolT(), "true: the server closes the connection after this message")
    id: int | str | None = spec(OptT(IdT()), "the id of the request refused, when it had one",
                                default=None)
    retry_ms: int | None = spec(OptT(IntT(0, MAX_SECONDS * 1000)),
                                "rate_limited: milliseconds until the server takes a frame "
                                "again", default=None)


@message("ping", CLIENT, reply="pong")
class Ping(Message):
    """Keepalive: the server answers pong."""

    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("pong", SERVER)
class Pong(Message):
    """The answer to a ping."""

    id: int | str | None = spec(OptT(IdT()), "the ping's id", default=None)


@message("bye", CLIENT)
class Bye(Message):
    """The client leaves: the server closes; its seats go to house bots at once."""


# ------------------------------------------------------------------ the lobby


@message("list_games", CLIENT, reply="games")
class ListGames(Message):
    """Ask for the games, their options and the house bot strategies."""

    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("games", SERVER)
class Games(Message):
    """The games this server hosts and the house bots it has."""

    games: tuple[GameInfo, ...] = spec(ArrayT(RecordT(GameInfo), 0, 64), "the games")
    bots: tuple[str, ...] = spec(ArrayT(WORD, 0, 64), "house bot strategies, for add_bot "
                                                      "(the first is the default)")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("list_tables", CLIENT, reply="tables")
class ListTables(Message):
    """Ask for the tables, a page at a time."""

    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    after: int | None = spec(OptT(TABLE), "list the tables numbered above this one (absent: "
                                          "from the first)", default=None)


@message("tables", SERVER)
class Tables(Message):
    """A page of the server's tables, in the order of their numbers."""

    tables: tuple[TableInfo, ...] = spec(ArrayT(RecordT(TableInfo), 0, MAX_LISTED_TABLES),
                                         "the tables (at most 64 in a reply)")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    more: bool | None = spec(OptT(BoolT()), "true: more tables follow the last one listed "
                                            "(ask again with after = its number)",
                             default=None)


@message("lobby_updates", CLIENT, reply="ok")
class LobbyUpdates(Message):
    """Choose which table pushes this connection gets: every table's (on, the default) or
    only those of the tables where it sits or watches (off)."""

    on: bool = spec(BoolT(), "true: table_update and table_removed of every table; false: "
                             "only of this connection's own tables")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("create_table", CLIENT, reply="ok")
class CreateTable(Message):
    """Create a table; the sender becomes its creator (it does not sit: join for that)."""

    game: str = spec(WORD, "the game (see games)")
    players: int = spec(IntT(2, MAX_SEATS), "the number of seats, within the game's "
                                            "min_players..max_players (see games): gin 2, "
                                            "basic 2..6, chicago and three_thirteen 2..8")
    options: Mapping[str, bool | int | str] | None = spec(
        OptT(MapT(ScalarT())), "house rules; the rest take their defaults", default=None)
    turn_seconds: int | None = spec(OptT(SECONDS), "time per decision (0 = no timer); "
                                                   f"default: the server's ({TURN_SECONDS} out of "
                                                   "the box)",
                                    default=None)
    grace_seconds: int | None = spec(OptT(SECONDS), "seat held for a disconnected player "
                                                    "before a house bot plays; default: the "
                                                    f"server's ({GRACE_SECONDS} out of the box)",
                                     default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    lock: NewLock | None = spec(OptT(RecordT(NewLock)), "a private table with a password: "
                                "its verifier (section 6.1)", default=None)
    invite: bool | None = spec(OptT(BoolT()), "true: an invite-only table; the ok carries "
                               "its invite code (section 6.1)", default=None)
    watch_code: bool | None = spec(OptT(BoolT()), "with lock or invite: whether watching "
                                   "needs the code too; default true", default=None)


@message("join", CLIENT, reply="ok")
class Join(Message):
    """Sit at a table (before it starts, or back in one's own seat)."""

    table: int = spec(TABLE, "the table")
    seat: int | None = spec(OptT(SEAT), "the seat wanted; absent: the first empty one",
                            default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    proof: str | None = spec(OptT(PROOF), "a private table: the proof of its code "
                             "(section 6.1)", default=None, repr=False)


@message("leave", CLIENT, reply="ok")
class Leave(Message):
    """Stand up from a table, or stop watching it."""

    table: int = spec(TABLE, "the table")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("watch", CLIENT, reply="ok")
class Watch(Message):
    """Watch a table as a spectator (no hand is visible until the showdown)."""

    table: int = spec(TABLE, "the table")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    proof: str | None = spec(OptT(PROOF), "a private table whose lock has watch_code: the "
                             "proof of its code (section 6.1)", default=None, repr=False)


@message("add_bot", CLIENT, reply="ok")
class AddBot(Message):
    """The creator seats a house bot in an empty seat before the start."""

    table: int = spec(TABLE, "the table")
    seat: int = spec(SEAT, "the empty seat")
    strategy: str | None = spec(OptT(WORD), "a strategy of games' bots; absent: the first",
                                default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("remove_bot", CLIENT, reply="ok")
class RemoveBot(Message):
    """The creator removes a house bot before the start."""

    table: int = spec(TABLE, "the table")
    seat: int = spec(SEAT, "the house bot's seat")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("start", CLIENT, reply="ok")
class Start(Message):
    """The creator starts the game; every seat must be filled."""

    table: int = spec(TABLE, "the table")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("say", CLIENT, reply="ok")
class Say(Message):
    """Send a chat line to a table (its players and spectators) or to the whole lobby."""

    text: str = spec(LINE, "the line")
    table: int | None = spec(OptT(TABLE), "the table; absent: everyone connected",
                             default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("chat", SERVER)
class Chat(Message):
    """A chat line somebody said."""

    player: int = spec(PLAYER, "who said it")
    name: str = spec(StrT(1, MAX_NAME), "their name")
    text: str = spec(LINE, "the line")
    table: int | None = spec(OptT(TABLE), "the table it was said at; absent: the lobby",
                             default=None)


@message("table_update", SERVER)
class TableUpdate(Message):
    """A table was created or changed (seats, connections, state): sent to every client."""

    info: TableInfo = spec(RecordT(TableInfo), "the table's new summary")


@message("table_removed", SERVER)
class TableRemoved(Message):
    """A table is gone (finished and emptied, or abandoned before its start)."""

    table: int = spec(TABLE, "the table")


# ------------------------------------------------------------------ the table


@message("snapshot", SERVER)
class Snapshot(Message):
    """Everything a seat (or a spectator) may see of a table, as of event ``seq``."""

    table: int = spec(TABLE, "the table")
    seq: int = spec(COUNT, "the number of the last event this view includes; the next "
                           "event is seq + 1 (0: none yet)")
    info: TableInfo = spec(RecordT(TableInfo), "the table's summary")
    view: dict[str, Any] | None = spec(OptT(VIEW_SPEC), "the view of the game; nil before "
                                                        "the game starts")


@message("event", SERVER)
class EventMessage(Message):
    """Something happened at a table, as this connection's seat may see it."""

    table: int = spec(TABLE, "the table")
    seq: int = spec(IntT(1, INT_MAX), "the event's number at the table: 1, 2, 3... without "
                                      "gaps on a connection")
    event: dict[str, Any] = spec(EVENT, "the event (see Events)")


@message("turn", SERVER)
class Turn(Message):
    """A seat must decide now (sent to everyone at the table)."""

    table: int = spec(TABLE, "the table")
    seat: int = spec(SEAT, "the seat to move")
    move: int = spec(COUNT, "the move number its action will name")
    time_left_ms: int | None = spec(OptT(IntT(0, MAX_SECONDS * 1000)),
                                    "milliseconds left to decide, as the server sent this; "
                                    "nil without a timer")


@message("your_turn", SERVER)
class YourTurn(Message):
    """This connection's seat must decide: the legal actions and the time left."""

    table: int = spec(TABLE, "the table")
    move: int = spec(COUNT, "the move number the action must name")
    legal: tuple[dict[str, Any], ...] = spec(ArrayT(LEGAL_ACTION, 1, MAX_ARRAY_LEN),
                                             "every legal action (see Actions); a Basic "
                                             "Rummy layoff is listed card by card")
    time_left_ms: int | None = spec(OptT(IntT(0, MAX_SECONDS * 1000)),
                                    "milliseconds left, as the server sent this; nil "
                                    "without a timer")


@message("action", CLIENT, reply="ok")
class ActionMessage(Message):
    """Play an action for this connection's seat."""

    table: int = spec(TABLE, "the table")
    move: int = spec(COUNT, "the move number of the your_turn it answers")
    action: dict[str, Any] = spec(ACTION, "the action (see Actions)")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("resync", CLIENT, reply="ok")
class Resync(Message):
    """Ask for the events missed after a seq, or a fresh snapshot of a table."""

    table: int = spec(TABLE, "the table")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)
    since: int | None = spec(OptT(COUNT), "the last seq the client holds: the events after "
                             "it follow the ok, when they are of the current game and the "
                             "server still keeps them (this one keeps the last 1000 at "
                             "least); nil, or an older seq, gets a snapshot",
                             default=None)


@message("deal_commit", SERVER)
class DealCommit(Message):
    """The next shuffle is announced: the server's commitment, and the seats' (section 7,
    "Verifiable deals"). Sent to every seat and spectator as soon as the shuffle before it
    is made (the game's first: when it starts), before any card of it is dealt."""

    table: int = spec(TABLE, "the table")
    commitment: str = spec(DIGEST, "SHA-256 of the server's secret for this shuffle")
    seeded: bool = spec(BoolT(), "true: the secret comes from the server's fixed seed (tests "
                                 "and benchmarks), so whoever knows the seed knows it")
    commitments: tuple[str | None, ...] = spec(
        ArrayT(OptT(DIGEST), 1, MAX_SEATS), "per seat, the commitment (SHA-256) to the "
        "contribution the server waits for from it; nil: none is waited for")
    window_ms: int = spec(IntT(0, MAX_CONTRIBUTION_MS), "how long from now the shuffle may "
                          "wait for the contributions, at most (0: it waits for none)")


@message("contribute", CLIENT, reply="ok")
class Contribute(Message):
    """A seat's answer to deal_commit: its contribution, and its commitment to the next."""

    table: int = spec(TABLE, "the table")
    commitment: str | None = spec(OptT(DIGEST), "the deal_commit answered (its commitment); "
                                  "nil: none, only next is given", default=None)
    reveal: str | None = spec(OptT(CONTRIBUTION), "the contribution (32 random bytes) whose "
                              "commitment deal_commit lists for this seat; nil: none",
                              default=None)
    next: str | None = spec(OptT(CONTRIBUTION), "SHA-256 of the contribution this seat will "
                            "reveal at the next shuffle; nil: none", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("deal_revealed", SERVER)
class DealRevealed(Message):
    """A hand has ended: the secret and the contributions of one of its shuffles, for
    every seat and spectator to recompute the order (section 7, "Verifiable deals")."""

    table: int = spec(TABLE, "the table")
    hand: int = spec(IntT(1, INT_MAX), "the hand (as in its deal_commit)")
    shuffle: str = spec(SHUFFLE_KIND, "deal or rebuild (as in its deal_commit)")
    commitment: str = spec(DIGEST, "the commitment of its deal_commit")
    secret: str = spec(CONTRIBUTION, "the server's secret: SHA-256 of it is the commitment")
    contributions: tuple[str | None, ...] = spec(
        ArrayT(OptT(CONTRIBUTION), 1, MAX_SEATS), "per seat, the contribution mixed in; nil: "
        "none (not waited for, or not revealed in time)")
    cards: tuple[str, ...] = spec(ArrayT(CardT(), 1, MAX_ARRAY_LEN), "the cards shuffled, in "
                                  "canonical order (ascending card code)")
    seeded: bool = spec(BoolT(), "as in its deal_commit")


# ------------------------------------------------------------------ history and ratings


@record
class PlayedSeat(Record):
    """One seat of a game played, as it was when the game started."""

    seat: int = spec(SEAT, "the seat number, 0-based")
    name: str = spec(StrT(1, MAX_NAME), "who sat there (a house bot: its strategy and \"bot\")")
    kind: str = spec(EnumT(("person", "bot", "house")),
                     "a person's or a remote bot's client, or a house bot")
    player: int | None = spec(OptT(PLAYER), "the player's id on this server (nil: house bot)",
                              default=None)


@record
class PlayedGame(Record):
    """A game kept in the server's history."""

    number: int = spec(IntT(1, MAX_ID), "the game's number on this server (for get_record)")
    table: int = spec(TABLE, "the table it was played at")
    game: str = spec(WORD, "the game: basic, gin, chicago, three_thirteen")
    state: str = spec(EnumT(("playing", "finished")), "still being played, or finished")
    seats: tuple[PlayedSeat, ...] = spec(ArrayT(RecordT(PlayedSeat), 1, MAX_SEATS),
                                         "the seats")
    winners: tuple[int, ...] = spec(ArrayT(SEAT, 0, MAX_SEATS), "the winning seats "
                                    "(empty while playing)")
    totals: tuple[int, ...] = spec(ArrayT(IntT(), 0, MAX_SEATS), "the final totals per seat "
                                   "(empty while playing)")
    hands: int = spec(COUNT, "hands scored (a void or dead hand is not counted)")
    started: int = spec(COUNT, "when the game started (Unix time, seconds)")
    finished: int | None = spec(OptT(COUNT), "when it ended (Unix time, seconds); nil while "
                                             "playing")


@record
class HandResult(Record):
    """The result of one hand of a game played."""

    hand_no: int = spec(IntT(1, INT_MAX), "the hand's number, from 1")
    outcome: str = spec(WORD, "how it ended (as hand_scored's outcome)")
    winners: tuple[int, ...] = spec(ArrayT(SEAT, 0, MAX_SEATS), "the seats that won the hand")
    points: tuple[int, ...] = spec(ArrayT(IntT(), 1, MAX_SEATS), "what each seat gained")
    totals: tuple[int, ...] = spec(ArrayT(IntT(), 1, MAX_SEATS), "each seat's total after it")


@record
class JournalEntry(Record):
    """One step of a game's journal: a seat's action, or a shuffle (seat nil)."""

    seat: int | None = spec(OptT(SEAT), "the seat that acted; nil for a shuffle")
    action: dict[str, Any] = spec(LEGAL_ACTION, "the action (see Actions); a shuffle is "
                                                "{\"kind\": \"shuffle\", \"order\": [cards], "
                                                "\"proof\": {...}}, order[0] dealt first; "
                                                "proof (from 1.2): how it was derived "
                                                "(section 7, Verifiable deals)")


@record
class RatingInfo(Record):
    """A player's (or a house bot's) rating at one game."""

    name: str = spec(StrT(1, MAX_NAME), "the player's name (its name now; a house bot: "
                     "its seat name)")
    game: str = spec(WORD, "the game rated")
    rating: int = spec(IntT(), "the rating shown: mu - 3 sigma, rounded (0 for a newcomer)")
    skill: int = spec(IntT(), "mu, the estimated skill, rounded (25 for a newcomer)")
    games: int = spec(COUNT, "rated games played")
    player: int | None = spec(OptT(PLAYER), "the player rated (ratings follow players, not "
                              "names: two players of one name are two ratings); nil for a "
                              "house bot", default=None)


@message("list_games_played", CLIENT, reply="games_played")
class ListGamesPlayed(Message):
    """Ask for finished games, newest first (the server's history)."""

    limit: int | None = spec(OptT(IntT(1, 100)), "at most this many; default 20", default=None)
    before: int | None = spec(OptT(IntT(1, MAX_ID)), "only games numbered below this (the "
                                                     "next page)", default=None)
    name: str | None = spec(OptT(StrT(1, MAX_NAME)), "only games where this name sat",
                            default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("games_played", SERVER)
class GamesPlayed(Message):
    """Finished games, newest first."""

    games: tuple[PlayedGame, ...] = spec(ArrayT(RecordT(PlayedGame), 0, 100), "the games")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("get_record", CLIENT, reply="record")
class GetRecord(Message):
    """Ask for the whole record of a finished game: everything needed to replay it."""

    number: int = spec(IntT(1, MAX_ID), "the game's number (from games_played)")
    start: int | None = spec(OptT(COUNT), "the first journal entry wanted (for a record sent "
                                          "in parts); default 0", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("record", SERVER)
class GameRecord(Message):
    """A finished game's record. Replay it with the rules engine: a new game of ``game``
    with ``options``, ``len(summary.seats)`` seats and ``first_dealer``, then apply the
    journal's entries in order."""

    summary: PlayedGame = spec(RecordT(PlayedGame), "the game")
    options: Mapping[str, bool | int | str] = spec(MapT(ScalarT()), "every option of the game")
    first_dealer: int = spec(SEAT, "the dealer of the first hand")
    seeded: bool = spec(BoolT(), "the shuffles came from a fixed seed (tests only)")
    hands: tuple[HandResult, ...] = spec(ArrayT(RecordT(HandResult), 0, MAX_ARRAY_LEN),
                                         "each hand's result")
    start: int = spec(COUNT, "the number of the first journal entry in this part")
    journal: tuple[JournalEntry, ...] = spec(ArrayT(RecordT(JournalEntry), 0, MAX_ARRAY_LEN),
                                             "journal entries start, start + 1...")
    next: int | None = spec(OptT(COUNT), "more entries follow: ask get_record with this "
                                         "start; nil when this part ends the journal")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("list_ratings", CLIENT, reply="ratings")
class ListRatings(Message):
    """Ask for the ratings, best first."""

    game: str | None = spec(OptT(WORD), "only this game's; default every game", default=None)
    limit: int | None = spec(OptT(IntT(1, 1000)), "at most this many; default 100",
                             default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("ratings", SERVER)
class Ratings(Message):
    """Ratings, by game, best first."""

    ratings: tuple[RatingInfo, ...] = spec(ArrayT(RecordT(RatingInfo), 0, 1000), "the ratings")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


# ------------------------------------------------------------------ the host's controls


SEAT_CHOICE = EnumT(("wait", "bot"))
SEAT_CHOICE_DOC = ("what becomes of the player's seats: wait (held for the table's grace "
                   "period, as after a lost connection) or bot (a house bot plays them at "
                   "once; before a game starts the seat is freed)")


@record
class BanInfo(Record):
    """A ban in force: a name (and its player), an address, or both."""

    name: str | None = spec(OptT(StrT(1, MAX_NAME)), "the banned name (compared case-blind)")
    player: int | None = spec(OptT(PLAYER), "the banned player (its token is refused too)")
    address: str | None = spec(OptT(ADDRESS), "the banned address")
    until: int | None = spec(OptT(COUNT), "when the ban ends (Unix time, seconds); nil: "
                                          "until it is lifted")
    reason: str = spec(REASON, "why, as the host wrote it (may be empty)")
    since: int = spec(COUNT, "when it was made (Unix time, seconds)")


@message("admin_login", CLIENT, reply="ok")
class AdminLogin(Message):
    """Prove the server's admin credential: this connection may then use the host's
    controls (section 6, "The host's controls")."""

    proof: str = spec(PROOF, "HMAC-SHA256 keyed by the credential over this connection's "
                             "welcome nonce, as lowercase hex", repr=False)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_kick", CLIENT, reply="ok")
class AdminKick(Message):
    """Close a connected player's connection (``kicked``); it may connect again."""

    name: str = spec(NAME, "the player's name (any case)")
    seat: str | None = spec(OptT(SEAT_CHOICE), SEAT_CHOICE_DOC + "; default wait",
                            default=None)
    reason: str | None = spec(OptT(REASON), "told to the player", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_ban", CLIENT, reply="ok")
class AdminBan(Message):
    """Ban a player's name (and its player, token included), an address, or both, for a
    time or until lifted; its connections are closed (``banned``)."""

    name: str | None = spec(OptT(NAME), "a known player's name (any case)", default=None)
    address: str | None = spec(OptT(ADDRESS), "an IPv4 or IPv6 address", default=None)
    seconds: int | None = spec(OptT(IntT(1, MAX_BAN_SECONDS)), "how long; absent: until "
                               "lifted", default=None)
    seat: str | None = spec(OptT(SEAT_CHOICE), SEAT_CHOICE_DOC + "; default bot",
                            default=None)
    reason: str | None = spec(OptT(REASON), "told to the player", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_unban", CLIENT, reply="ok")
class AdminUnban(Message):
    """Lift the bans of a name, of an address, or both."""

    name: str | None = spec(OptT(NAME), "the banned name (any case)", default=None)
    address: str | None = spec(OptT(ADDRESS), "the banned address", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_close", CLIENT, reply="ok")
class AdminClose(Message):
    """Close a table: its players and spectators get a notice, then every client its
    table_removed."""

    table: int = spec(TABLE, "the table")
    reason: str | None = spec(OptT(REASON), "told to its players", default=None)
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_mute", CLIENT, reply="ok")
class AdminMute(Message):
    """Keep a player from chatting for a time (its say gets ``muted``)."""

    name: str = spec(NAME, "the player's name (any case)")
    seconds: int = spec(IntT(0, MAX_BAN_SECONDS), "how long; 0 lifts a mute")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_notice", CLIENT, reply="ok")
class AdminNotice(Message):
    """Send a notice from the host to every connected client."""

    text: str = spec(LINE, "the notice")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("admin_bans", CLIENT, reply="bans")
class AdminBans(Message):
    """Ask for the bans in force."""

    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("bans", SERVER)
class Bans(Message):
    """The bans in force, oldest first."""

    bans: tuple[BanInfo, ...] = spec(ArrayT(RecordT(BanInfo), 0, MAX_BANS), "the bans")
    id: int | str | None = spec(OptT(IdT()), ID_DOC, default=None)


@message("notice", SERVER)
class Notice(Message):
    """A notice from the server's host (admin_notice), or about one's table (closed by
    the host): a client shows it prominently."""

    text: str = spec(StrT(1, MAX_TEXT), "the notice")
    table: int | None = spec(OptT(TABLE), "the table it is about; absent: everyone",
                             default=None)


CLIENT_MESSAGES: frozenset[str] = frozenset(t for t, c in MESSAGES.items() if c.sender is CLIENT)
SERVER_MESSAGES: frozenset[str] = frozenset(t for t, c in MESSAGES.items() if c.sender is SERVER)
assert MAX_ID > 0 and MAX_ARRAY_LEN > 0
