"""The protocol layer's errors and the table of every error code that goes on the wire.

One root, split by whose fault it is (STYLE 5, after h11): :class:`LocalProtocolError`
means *we* misused the connection (sent something illegal in our state, built an invalid
message); :class:`RemoteProtocolError` means the *peer* misbehaved, and carries the code
to answer with and whether the connection survives. Anything else escaping
``rummyhall.protocol`` is a bug.

:data:`ERROR_CODES` is the normative list of codes of docs/protocol.md ("Error codes"):
each code's default fatality and meaning. It includes every ``code`` of the rules
engine's errors, which the server forwards as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from rummyhall.rules import RulesError


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One error code: whether the server closes after it, who sends it, and what it means."""

    code: str
    fatal: bool
    meaning: str


def _codes(*rows: tuple[str, bool, str]) -> dict[str, ErrorCode]:
    return {code: ErrorCode(code, fatal, meaning) for code, fatal, meaning in rows}


# Codes of the connection itself: framing, schema, handshake, limits, closing.
_CONNECTION = _codes(
    ("bad_frame", True, "the frame body is not one msgpack value obeying the frame rules "
                        "(not msgpack, trailing bytes, a forbidden type, a non-string key, "
                        "invalid UTF-8, too deep, too long), or the connection closed inside "
                        "a frame"),
    ("frame_too_large", True, "the length prefix exceeds the receiver's max_frame"),
    ("bad_message", False, "the frame is not a valid message: not a map, no type, a "
                           "required field missing, a field of the wrong type or out of range "
                           "(fatal during the handshake)"),
    ("unknown_type", False, "the message type is not one this protocol version knows"),
    ("unexpected_message", False, "a known message that may not be sent now or in this "
                                  "direction (fatal during the handshake)"),
    ("handshake_required", True, "the first frame of a client was not a hello"),
    ("unsupported_protocol", True, "the hello names another protocol than rummyhall"),
    ("unsupported_version", True, "the client and the server share no protocol version"),
    ("bad_name", True, "the name in the hello breaks the name rules"),
    ("name_taken", True, "the name belongs to another player: connected, or holding a "
                         "seat or a table (section 4); or, sent to a connection that took "
                         "a free name, its owner came back with its token"),
    ("handshake_timeout", True, "no hello arrived within handshake_seconds"),
    ("tls_required", True, "the server serves TLS only and the client spoke plain TCP "
                           "(sent in plain, then the server closes; section 1)"),
    ("idle_timeout", True, "no whole frame arrived from the client within idle_seconds"),
    ("frame_timeout", True, "a frame began to arrive and did not end within frame_seconds"),
    ("rate_limited", False, "the frame arrived when the rate bucket did not hold what it "
                            "costs and was not read; retry_ms says when the server takes "
                            "frames again (fatal once the refusals spent their allowance: "
                            "burst small frames refused at once, section 8); say and "
                            "create_table: past chat's rate or the tables' (section 6), "
                            "retry_ms the wait"),
    ("session_replaced", True, "the same player connected again with its token; this older "
                               "connection is closed"),
    ("server_full", True, "the server has max_connections connections already"),
    ("too_many_connections", True, "this address has too many connections already, or "
                                   "opens them too fast (section 8; over TLS such a "
                                   "connection is closed before its handshake, without "
                                   "a word)"),
    ("server_shutdown", True, "the server is shutting down"),
    ("kicked", True, "the server's host closed this connection (admin_kick); the message "
                     "gives the reason; the client may connect again"),
    ("banned", True, "the server's host banned this name, player or address (admin_ban): "
                     "refused at connect or at the hello (at a hall with a password: the "
                     "login), with its token or not, and closed when the ban is made; the "
                     "message says until when"),
    ("password_required", True, "the hall has a password (section 3.1): the hello came "
                                "from a client below 1.2, a request other than login came "
                                "before it, or no login came within handshake_seconds"),
    ("wrong_password", True, "login: the proof is not that of the hall's password"),
    ("too_many_attempts", False, "too many wrong passwords (or table codes) came from this "
                                 "address lately: this one was not checked; retry_ms says "
                                 "when the next is (fatal during the handshake)"),
    ("internal_error", False, "the server failed to handle the request (a bug). Unless the "
                              "message says the table was stopped, the game did not change; "
                              "after a table request the table's table_update follows, "
                              "with its seats as they now are"),
)

# Codes of the lobby and the tables, answered to a request.
_LOBBY = _codes(
    ("no_such_table", False, "no table has this number (or it was removed)"),
    ("no_such_seat", False, "the seat number is outside the table's seats"),
    ("table_full", False, "join without a seat: every seat is taken"),
    ("seat_taken", False, "the seat is occupied"),
    ("seat_empty", False, "remove_bot: no house bot sits in this seat"),
    ("already_seated", False, "the player already has a seat at this table (join, watch)"),
    ("not_seated", False, "the player has no seat at this table, or left it (action)"),
    ("not_watching", False, "leave: the player neither sits nor watches at this table"),
    ("not_creator", False, "only the table's creator may do this (add_bot, remove_bot, start)"),
    ("already_started", False, "the table's game has started: seats and bots are fixed"),
    ("not_started", False, "the table's game has not started yet"),
    ("seats_empty", False, "start: some seat is still empty"),
    ("game_over", False, "the table's game has ended"),
    ("unknown_game", False, "create_table: no game of that name"),
    ("unknown_strategy", False, "add_bot: the server has no bot strategy of that name"),
    ("too_many_tables", False, "the server has max_tables tables already, or the tables "
                               "created from the client's address are "
                               "max_tables_per_address (the message says which)"),
    ("spectator_only", False, "a spectator connection may not sit, create tables or bring "
                              "bots"),
    ("no_such_game", False, "get_record: no game played has this number"),
    ("no_history", False, "the server keeps no history (it runs without its data file)"),
    ("code_required", False, "join or watch: the table is private (its lock says what "
                             "needs the code) and the request has no proof of its code"),
    ("wrong_code", False, "join or watch: the proof is not that of the table's code"),
    ("bad_lock", False, "create_table: both lock and invite, or watch_code without either"),
    ("not_your_seat", False, "action: its map names a seat that is not the sender's own "
                             "(a client never needs to name its seat)"),
    ("muted", False, "say: the server's host muted this player's chat for a time (the "
                     "message says how long)"),
    ("not_admin", False, "a host's control (admin_*) on a connection that has not proved "
                         "the admin credential with admin_login"),
    ("admin_denied", False, "admin_login: the proof is not the HMAC of this connection's "
                            "nonce under the server's credential (a wrong credential, or a "
                            "proof made for another connection)"),
    ("admin_not_local", False, "admin_login from another machine: this server takes its "
                               "host's controls only from its own machine"),
    ("admin_unavailable", False, "admin_login: this server has no admin credential (it "
                                 "keeps no data directory)"),
    ("no_such_player", False, "admin_kick, admin_ban, admin_mute: no player of this name is "
                              "known"),
    ("not_connected", False, "admin_kick: the player is not connected (admin_ban keeps it "
                             "out)"),
    ("bad_ban", False, "admin_ban, admin_unban: neither a name nor an address, or an "
                       "address that is not an IPv4 or IPv6 address, or too many bans"),
    ("no_such_ban", False, "admin_unban: no ban in force matches"),
    ("bad_contribution", False, "contribute: a value that is not 64 lowercase hex digits, a "
                                "reveal without a commitment of this seat in the deal_commit "
                                "answered, or one whose SHA-256 is not that commitment"),
    ("contribution_late", False, "contribute: it names a deal_commit whose shuffle has been "
                                 "made (or that never was): it went on without this"),
    ("contribution_twice", False, "contribute: this seat already answered this deal_commit, "
                                  "or already has a commitment waiting for the next shuffle"),
    ("stale_action", False, "the action names a move that is not the current one; nothing "
                            "changed (a fresh your_turn follows when it is still your turn)"),
)


NEVER_SENT: frozenset[str] = frozenset({"bad_shuffle", "illegal_action", "rules_error"})
"""Codes of rules errors that no server request can cause: shuffles are the server's own,
and the two roots are never raised themselves. The table lists only codes a server sends
(tests/server/test_error_codes.py checks it against the server's code)."""


def _rules_codes() -> dict[str, ErrorCode]:
    """Every code of the rules engine's errors, found by walking RulesError's subclasses."""
    found: dict[str, ErrorCode] = {}
    pending: list[type[RulesError]] = [RulesError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.code in NEVER_SENT:
            continue
        doc = (cls.__doc__ or cls.__name__).strip().splitlines()[0]
        found.setdefault(cls.code, ErrorCode(cls.code, False, "rules: " + doc))
    return dict(sorted(found.items()))


ERROR_CODES: dict[str, ErrorCode] = {**_CONNECTION, **_LOBBY, **_rules_codes()}
"""Every error code a server of protocol version 1 sends, in the order of the document's
table. (A connection that does not read is closed without an error: the server logs it
as slow_consumer.)"""


class ProtocolError(Exception):
    """The root of the protocol layer's errors."""

    def __init__(self, message: str, *, code: str = "bad_message") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class LocalProtocolError(ProtocolError):
    """We misused the protocol: an invalid message, or one our state does not allow.

    Raised by :meth:`Connection.send` and by message constructors. It is a bug in the
    caller; nothing was sent and the connection's state did not change.
    """


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol. ``code`` and ``fatal`` say what to answer.

    ``request_id`` is the id of the offending request when it could be read, so that
    the error reply can echo it; ``message_type`` its type, when it names a known one;
    ``table`` its ``table`` field, when that is an integer.
    After a fatal error the connection accepts nothing more but the fatal ``error``
    message (server) and must be closed.
    """

    def __init__(self, message: str, *, code: str, fatal: bool,
                 request_id: int | str | None = None,
                 message_type: str | None = None, table: int | None = None) -> None:
        super().__init__(message, code=code)
        self.fatal = fatal
        self.request_id = request_id
        self.message_type = message_type
        self.table = table

    def __repr__(self) -> str:
        return (f"RemoteProtocolError({self.message!r}, code={self.code!r}, "
                f"fatal={self.fatal}, request_id={self.request_id!r})")
