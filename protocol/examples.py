"""Example messages and a whole hand of Gin on the wire, made with the real rules engine.

docs/protocol.md's examples and its transcript, and the conformance kit
(``conformance.json`` beside this module), are generated from here by
tests/protocol/gen_docs.py; tests check that they stay in step.

The transcript: two clients, ada and bob, meet at a Gin table (each frame where the
server sends it: tests/server/test_transcript_order.py replays it); the deal is the
verifiable shuffle of :data:`KIT_SECRET` and ada's contribution :data:`KIT_ADA` (bob's
client does not contribute), revealed when the hand ends; the second shuffle's
announcement follows the deal, and ada answers it during the hand; each seat plays a simple policy
(pass the upcard, draw from the stock, knock when it may, else discard the card leaving
the least deadwood). What each client receives is filtered by :func:`rummyhall.rules.event_for` and
:func:`rummyhall.rules.seat_view` before it is encoded.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Final

from rummyhall.rules import (
    Card,
    DeclareRummy,
    DrawDiscard,
    DrawStock,
    Eliminated,
    Event,
    Game,
    GameOver,
    GoOut,
    Knock,
    LaidOff,
    LayOff,
    Meld,
    Melded,
    PassUpcard,
    SeatAction,
    Shuffle,
    StockRebuilt,
    WentOut,
    best_discard,
    event_for,
    make_deck,
    new_game,
    options_to_dict,
    parse_cards,
    seat_view,
)
from rummyhall.rules import (
    Discard as DiscardAction,
)
from rummyhall.rules import (
    HandScored as HandScoredEvent,
)
from rummyhall.rules.fair_deal import DOMAIN, canonical_order, deal_key, deal_order

from .connection import Connection
from .limits import MINOR, PRODUCT
from .messages import (
    CLIENT,
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
    Challenge,
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
    LoggedIn,
    Login,
    Message,
    NewLock,
    Notice,
    Ok,
    OptionInfo,
    Ping,
    PlayedGame,
    PlayedSeat,
    Pong,
    RatingInfo,
    Ratings,
    RemoveBot,
    Resync,
    Role,
    Say,
    SeatInfo,
    Session,
    Snapshot,
    Start,
    TableInfo,
    TableLock,
    TableRemoved,
    Tables,
    TableUpdate,
    Turn,
    Watch,
    Welcome,
    YourTurn,
)
from .payloads import action_to_wire, event_to_wire, games_catalogue, view_to_wire
from .proofs import KDF, LOGIN_LABEL, Verifier, admin_proof, derive, make_proof, table_label

#: The transcript's shuffle: the server's secret, and ada's contributions to the first
#: deal and to the next shuffle (bob's client does not contribute).
KIT_SECRET: Final = hashlib.sha256(b"rummyhall kit: the server's secret").digest()
KIT_ADA: Final = hashlib.sha256(b"rummyhall kit: ada's contribution").digest()
KIT_ADA_NEXT: Final = hashlib.sha256(b"rummyhall kit: ada's next contribution").digest()
KIT_ADA_THIRD: Final = hashlib.sha256(b"rummyhall kit: ada's third contribution").digest()
#: The secret of the second shuffle, announced as soon as the first is made.
KIT_SECRET_2: Final = hashlib.sha256(b"rummyhall kit: the server's second secret").digest()
WINDOW_MS: Final = 2000
TABLE: Final = 1
TURN_MS: Final = 60_000
TOKENS: Final = {"ada": "6a1f0c9e2b7d4e8fa3c5b0d9e1f2a7c4",
                 "bob": "0f9e8d7c6b5a49382716a5b4c3d2e1f0"}
PLAYERS: Final = {"ada": 1, "bob": 2}
ADMIN_PLAYERS: Final = {"bob": 1, "host": 2}
"""The player ids of the admin transcript (a server of its own: bob comes first)."""
NONCES: Final = {"ada": "3b8e1f0a9c2d4e6f8a0b1c2d3e4f5a6b",
                 "bob": "c0ffee11d2e3f405a6b7c8d9e0f1a2b3",
                 "host": "9d4c2b1a0f8e7d6c5b4a39281706f5e4",
                 "eve": "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"}
ADMIN_CREDENTIAL: Final = "5f" * 32
"""The example admin credential of the admin transcript (a real one is 256 random bits)."""
FEATURES: Final = ("bots", "chat", "lobby_updates", "private_tables", "resume", "spectators",
                   "turn_timers")


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a transcript: who sent it, on which client's connection, what."""

    sender: Role
    client: str
    message: Message


HALL_PASSWORD: Final = "correct horse battery staple"
HALL_SALT: Final = "5a17c0ffee5a17c0ffee5a17c0ffee00"
TABLE_PASSWORD: Final = "tuesday club"
TABLE_SALT: Final = "7ab1e5a17ab1e5a17ab1e5a17ab1e500"
EXAMPLE_ITERATIONS: Final = 4096
"""PBKDF2's rounds in the examples (small, to check by hand; use 600000)."""


def _welcome(name: str, features: tuple[str, ...] = FEATURES,
             token: str | None = None, player: int | None = None) -> Welcome:
    return Welcome(version=1, minor=MINOR, server=PRODUCT, limits=Limits(),
                   features=features, nonce=NONCES[name],
                   session=Session(player=player or PLAYERS[name],
                                   token=token or TOKENS[name], resumed=False))


def _locked_welcome(name: str) -> Welcome:
    return Welcome(version=1, minor=MINOR, server=PRODUCT, limits=Limits(),
                   features=FEATURES, nonce=NONCES[name], session=None,
                   login=Challenge(kdf=KDF, salt=HALL_SALT, iterations=EXAMPLE_ITERATIONS))


def locked_pair(name: str = "ada") -> tuple[Connection, Connection]:
    """A client and a server :class:`Connection` of a hall with a password, in LOGIN."""
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(Hello(versions=(1,), name=name, kind="person",
                                          minor=MINOR)))
    server.next_event()
    client.receive_data(server.send(_locked_welcome(name)))
    client.next_event()
    return client, server


def password_transcript() -> list[Frame]:
    """A login to a hall whose password is :data:`HALL_PASSWORD`: ada proves it; eve,
    who replays ada's proof on her own connection, is refused (its nonce differs)."""
    keys = derive(HALL_PASSWORD, bytes.fromhex(HALL_SALT), EXAMPLE_ITERATIONS)
    proof = make_proof(keys, LOGIN_LABEL, NONCES["ada"])
    return [
        Frame(CLIENT, "ada", Hello(versions=(1,), name="ada", kind="person",
                                   client="example 1.0", minor=MINOR)),
        Frame(SERVER, "ada", _locked_welcome("ada")),
        Frame(CLIENT, "ada", Login(proof=proof, id=1)),
        Frame(SERVER, "ada", LoggedIn(session=Session(player=PLAYERS["ada"],
                                                      token=TOKENS["ada"], resumed=False),
                                      id=1)),
        Frame(CLIENT, "eve", Hello(versions=(1,), name="eve", kind="person", minor=MINOR)),
        Frame(SERVER, "eve", _locked_welcome("eve")),
        Frame(CLIENT, "eve", Login(proof=proof, id=1)),
        Frame(SERVER, "eve", Error(code="wrong_password", fatal=True, id=1,
                                   message="wrong password")),
    ]


def table_verifier() -> Verifier:
    """The verifier ada's client sends for the example's private table."""
    return Verifier.of(TABLE_PASSWORD, bytes.fromhex(TABLE_SALT), EXAMPLE_ITERATIONS)


def private_table_transcript() -> list[Frame]:
    """ada creates a table with the password :data:`TABLE_PASSWORD`; bob's join without
    the code is refused; with the proof of the code (keyed over his nonce) he sits."""
    verifier = table_verifier()
    lock = TableLock(kdf=KDF, salt=TABLE_SALT, iterations=EXAMPLE_ITERATIONS, invite=False,
                     watch_code=True)
    keys = derive(TABLE_PASSWORD, bytes.fromhex(TABLE_SALT), EXAMPLE_ITERATIONS)
    seats: list[str | None] = [None, None]
    frames = [
        Frame(CLIENT, "ada", CreateTable(game="gin", players=2, turn_seconds=60, id=1,
                                         lock=NewLock(kdf=KDF, salt=TABLE_SALT,
                                                      iterations=EXAMPLE_ITERATIONS,
                                                      stored_key=verifier.stored_key.hex()))),
        Frame(SERVER, "ada", Ok(id=1, table=TABLE)),
    ]
    frames += [Frame(SERVER, n, TableUpdate(info=_info(None, seats, "waiting", lock)))
               for n in ("ada", "bob")]
    frames += [
        Frame(CLIENT, "bob", Join(table=TABLE, seat=1, id=2)),
        Frame(SERVER, "bob", Error(code="code_required", fatal=False, id=2,
                                   message="table 1 is private: join with the proof of its "
                                           "code")),
        Frame(CLIENT, "bob", Join(table=TABLE, seat=1, id=3,
                                  proof=make_proof(keys, table_label(TABLE), NONCES["bob"]))),
        Frame(SERVER, "bob", Ok(id=3, table=TABLE, seat=1)),
    ]
    seats[1] = "bob"
    frames.append(Frame(SERVER, "bob", Snapshot(table=TABLE, seq=0,
                                                info=_info(None, seats, "waiting", lock),
                                                view=None)))
    return frames


def _seat(seat: int, name: str | None) -> SeatInfo:
    if name is None:
        return SeatInfo(seat=seat, kind="empty", player=None, name=None, connected=False,
                        bot=None)
    return SeatInfo(seat=seat, kind="person", player=PLAYERS[name], name=name, connected=True,
                    bot=None)


def _info(game: Game | None, seats: list[str | None], state: str,
          lock: TableLock | None = None) -> TableInfo:
    options = options_to_dict(game.options) if game is not None else \
        options_to_dict(new_game("gin", players=2).options)
    return TableInfo(table=TABLE, game="gin", options=options,
                     seats=tuple(_seat(i, n) for i, n in enumerate(seats)), state=state,
                     spectators=0, creator=PLAYERS["ada"], creator_name="ada",
                     turn_seconds=TURN_MS // 1000, grace_seconds=120, lock=lock)


def ready_pair(name: str = "ada") -> tuple[Connection, Connection]:
    """A client and a server :class:`Connection` past the handshake (for tests, benches)."""
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(Hello(versions=(1,), name=name, kind="person")))
    server.next_event()
    client.receive_data(server.send(_welcome(name)))
    client.next_event()
    return client, server


def _policy(game: Game) -> SeatAction:
    """Pass the upcard, draw from the stock, knock when allowed, else the best discard."""
    legal = game.legal_actions()
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return knocks[0]
    if str(game.phase) == "upcard":
        return next(a for a in legal if isinstance(a, PassUpcard))
    if str(game.phase) == "draw":
        return next(a for a in legal if isinstance(a, DrawStock))
    seat = game.to_move
    assert seat is not None
    card, _ = best_discard(game.hands[seat], game.meld_rules, forbidden=game.taken)
    return DiscardAction(seat, card)


def gin_transcript() -> list[Frame]:
    """Every frame of two clients' session: handshake, lobby, and one hand of Gin."""
    frames: list[Frame] = []
    names = ("ada", "bob")

    def c(name: str, message: Message) -> None:
        frames.append(Frame(CLIENT, name, message))

    def s(name: str, message: Message) -> None:
        frames.append(Frame(SERVER, name, message))

    for name in names:
        c(name, Hello(versions=(1,), name=name, kind="person", client="example 1.0"))
        s(name, _welcome(name))
    c("ada", CreateTable(game="gin", players=2, turn_seconds=60, id=1))
    s("ada", Ok(id=1, table=TABLE))
    seats: list[str | None] = [None, None]
    for name in names:
        s(name, TableUpdate(info=_info(None, seats, "waiting")))
    for number, name in enumerate(names):
        c(name, Join(table=TABLE, seat=number, id=2))
        seats[number] = name
        s(name, Ok(id=2, table=TABLE, seat=number))
        s(name, Snapshot(table=TABLE, seq=0, info=_info(None, seats, "waiting"), view=None))
        for other in names:
            s(other, TableUpdate(info=_info(None, seats, "waiting")))
    digest = hashlib.sha256
    c("ada", Contribute(table=TABLE, next=digest(KIT_ADA).hexdigest(), id=30))
    s("ada", Ok(id=30, table=TABLE))
    c("ada", Start(table=TABLE, id=3))
    s("ada", Ok(id=3, table=TABLE))
    game = new_game("gin", players=2)
    info = _info(game, seats, "playing")
    for seat, name in enumerate(names):
        s(name, Snapshot(table=TABLE, seq=0, info=info, view=view_to_wire(seat_view(game, seat))))
    events, revealed = _kit_deal(game, frames)
    seq, events = len(events), []  # (the deal's events are in the frames already)
    request = 10
    lobby_pending = True  # the lobby gathers its changes a moment: the update comes later
    while True:
        for event in events:
            seq += 1
            for seat, name in enumerate(names):
                s(name, EventMessage(table=TABLE, seq=seq,
                                     event=event_to_wire(event_for(event, seat))))
        if any(isinstance(e, HandScoredEvent) for e in events):
            break
        mover = game.to_move
        assert mover is not None
        for name in names:
            s(name, Turn(table=TABLE, seat=mover, move=game.move_number, time_left_ms=TURN_MS))
        s(names[mover], YourTurn(table=TABLE, move=game.move_number,
                                 legal=tuple(action_to_wire(a) for a in game.legal_actions()),
                                 time_left_ms=TURN_MS))
        if lobby_pending:
            for name in names:
                s(name, TableUpdate(info=info))
            lobby_pending = False
            _kit_second_contribution(frames)
        action = _policy(game)
        request += 1
        c(names[mover], ActionMessage(table=TABLE, move=game.move_number,
                                      action=action_to_wire(action), id=request))
        s(names[mover], Ok(id=request, table=TABLE))
        events = game.apply(action)
    frames.extend(Frame(SERVER, name, revealed) for name in names)  # the hand is over
    return frames


def admin_transcript() -> list[Frame]:
    """The host logs in with the admin credential and kicks bob (whose seat waits)."""
    host = "host"  # the connection of `rummyhall admin`
    return [
        Frame(CLIENT, "bob", Hello(versions=(1,), name="bob", kind="person",
                                   client="example 1.0")),
        Frame(SERVER, "bob", _welcome("bob", (*FEATURES, "admin"),
                                      player=ADMIN_PLAYERS["bob"])),
        Frame(CLIENT, host, Hello(versions=(1,), name="rummyhall admin", kind="spectator",
                                  client="rummyhall admin")),
        Frame(SERVER, host, _welcome(host, (*FEATURES, "admin"),
                                     token="77e0c1d2b3a4958677e0c1d2b3a49586",
                                     player=ADMIN_PLAYERS[host])),
        Frame(CLIENT, host, LobbyUpdates(on=False, id=1)),
        Frame(SERVER, host, Ok(id=1)),
        Frame(CLIENT, host, AdminLogin(proof=admin_proof(ADMIN_CREDENTIAL, NONCES[host]),
                                       id=2)),
        Frame(SERVER, host, Ok(id=2)),
        Frame(CLIENT, host, AdminKick(name="bob", seat="wait", reason="spoiling the table",
                                      id=3)),
        Frame(SERVER, "bob", Error(
            code="kicked", message="the host closed your connection: spoiling the table",
            fatal=True)),
        Frame(SERVER, host, Ok(id=3)),
    ]


def _kit_deal(game: Game, frames: list[Frame]) -> tuple[list[Event], DealRevealed]:
    """The first deal's frames (its commitment, ada's contribution); its events, and its
    reveal (sent when the hand ends)."""
    digest = hashlib.sha256
    commitment = digest(KIT_SECRET).hexdigest()
    for name in ("ada", "bob"):
        frames.append(Frame(SERVER, name, DealCommit(
            table=TABLE, commitment=commitment, seeded=False,
            commitments=(digest(KIT_ADA).hexdigest(), None), window_ms=WINDOW_MS)))
    frames.append(Frame(CLIENT, "ada", Contribute(
        table=TABLE, commitment=commitment, reveal=KIT_ADA.hex(),
        next=digest(KIT_ADA_NEXT).hexdigest(), id=31)))
    frames.append(Frame(SERVER, "ada", Ok(id=31, table=TABLE)))
    cards = canonical_order(game.shuffle_cards())
    events = game.apply(Shuffle(deal_order(KIT_SECRET, {0: KIT_ADA}, cards)))
    for seq, event in enumerate(events, 1):
        for seat, name in enumerate(("ada", "bob")):
            frames.append(Frame(SERVER, name, EventMessage(
                table=TABLE, seq=seq, event=event_to_wire(event_for(event, seat)))))
    for name in ("ada", "bob"):  # the next shuffle is announced at once
        frames.append(Frame(SERVER, name, DealCommit(
            table=TABLE, commitment=digest(KIT_SECRET_2).hexdigest(), seeded=False,
            commitments=(digest(KIT_ADA_NEXT).hexdigest(), None), window_ms=WINDOW_MS)))
    revealed = DealRevealed(table=TABLE, hand=1, shuffle="deal", commitment=commitment,
                            secret=KIT_SECRET.hex(), contributions=(KIT_ADA.hex(), None),
                            cards=tuple(str(c) for c in cards), seeded=False)
    return events, revealed


def _kit_second_contribution(frames: list[Frame]) -> None:
    """ada answers the second shuffle's announcement during the hand."""
    digest = hashlib.sha256
    frames.append(Frame(CLIENT, "ada", Contribute(
        table=TABLE, commitment=digest(KIT_SECRET_2).hexdigest(), reveal=KIT_ADA_NEXT.hex(),
        next=digest(KIT_ADA_THIRD).hexdigest(), id=32)))
    frames.append(Frame(SERVER, "ada", Ok(id=32, table=TABLE)))


# ------------------------------------------------------------------ one example per type


def _games() -> Games:
    gin = next(g for g in games_catalogue() if g["game"] == "gin")
    options = tuple(OptionInfo(**o) for o in gin["options"][:2])
    return Games(games=(GameInfo(game="gin", title=gin["title"], min_players=2, max_players=2,
                                 options=options),), bots=("simple", "random"), id=4)


def message_examples() -> dict[str, list[Message]]:
    """At least one example of every message type (the transcript's first, or made here)."""
    found: dict[str, list[Message]] = {}
    for frame in gin_transcript():
        found.setdefault(frame.message.type, [frame.message])
    game_seats: list[str | None] = ["ada", None]
    waiting = _info(None, game_seats, "waiting")
    extra: list[Message] = [
        Ping(id=7), Pong(id=7), Bye(), ListGames(id=4), _games(), ListTables(id=5),
        Tables(tables=(waiting,), id=5), Leave(table=TABLE, id=8), Watch(table=TABLE, id=9),
        AddBot(table=TABLE, seat=1, strategy="simple", id=6), RemoveBot(table=TABLE, seat=1, id=7),
        Say(text="good luck!", table=TABLE, id=12), Chat(player=1, name="ada", text="good luck!",
                                                        table=TABLE),
        TableRemoved(table=TABLE), Resync(table=TABLE, id=13, since=7),
        LobbyUpdates(on=False, id=14),
        Error(code="stale_action", message="move 5 is over; the current move is 6", fatal=False,
              id=11),
        Error(code="server_shutdown", message="the server is shutting down", fatal=True),
        # Gin: the knocker lays his own melds (docs/protocol.md, "Gin Rummy")
        ActionMessage(table=TABLE, move=6, id=17, action={
            "kind": "knock", "card": "Kh",
            "melds": (("3c", "4c", "5c"), ("3d", "4d", "5d"), ("3h", "4h", "5h"))}),
        # absent means nil: a big gin (a knock whose card is nil) with the card left out
        ActionMessage(table=TABLE, move=6, id=18, action={"kind": "knock"}),
    ]
    extra += _history_examples()
    extra += _admin_examples()
    extra += [f.message for f in password_transcript() + private_table_transcript()]
    extra.append(Ok(id=1, table=TABLE, invite="k7pq-3mzx-9vfd"))
    for message in extra:
        found.setdefault(message.type, []).append(message)
    return found


def _history_examples() -> list[Message]:
    """list_games_played, games_played, get_record, record, list_ratings, ratings."""
    seats = (PlayedSeat(seat=0, name="ada", kind="person", player=PLAYERS["ada"]),
             PlayedSeat(seat=1, name="simple bot", kind="house"))
    played = PlayedGame(number=42, table=TABLE, game="gin", state="finished", seats=seats,
                        winners=(0,), totals=(131, 38), hands=5, started=1_767_225_600,
                        finished=1_767_226_500)
    deal = Shuffle(tuple(parse_cards("Ac 2c 3c")))
    journal = (JournalEntry(seat=None, action={"kind": "shuffle",
                                               "order": tuple(str(c) for c in deal.order)}),
               JournalEntry(seat=1, action=action_to_wire(PassUpcard(1))))
    return [
        ListGamesPlayed(limit=10, id=20),
        GamesPlayed(games=(played,), id=20),
        GetRecord(number=42, id=21),
        GameRecord(summary=played, options={"target_score": 100}, first_dealer=0, seeded=False,
                   hands=(HandResult(hand_no=1, outcome="knock", winners=(0,),
                                     points=(14, 0), totals=(14, 0)),),
                   start=0, journal=journal, next=2, id=21),
        ListRatings(game="gin", id=22),
        Ratings(ratings=(RatingInfo(name="ada", game="gin", rating=9, skill=27, games=12,
                                    player=1),),
                id=22),
    ]


def _admin_examples() -> list[Message]:
    """The host's controls (their replies are ok and error, but admin_bans's)."""
    ban = BanInfo(name="mallory", player=7, address="192.168.1.23", until=1_767_229_200,
                  reason="cheating", since=1_767_225_600)
    return [
        AdminBan(name="mallory", address="192.168.1.23", seconds=3600, seat="bot",
                 reason="cheating", id=31),
        AdminUnban(name="mallory", id=32),
        AdminClose(table=TABLE, reason="closing time", id=33),
        AdminMute(name="mallory", seconds=600, id=34),
        AdminNotice(text="the hall closes in ten minutes", id=35),
        AdminBans(id=36),
        Bans(bans=(ban,), id=36),
        Notice(text="the hall closes in ten minutes"),
        Notice(text="the host closed table 1: closing time", table=TABLE),
        AdminLogin(proof=admin_proof(ADMIN_CREDENTIAL, NONCES["host"]), id=2),
        AdminKick(name="bob", seat="wait", reason="spoiling the table", id=3),
    ]


def event_examples() -> dict[str, dict[str, Any]]:
    """A wire example of every event kind (from the transcript, or made here)."""
    found: dict[str, dict[str, Any]] = {}
    for frame in gin_transcript():
        if isinstance(frame.message, EventMessage) and frame.client == "ada":
            found.setdefault(frame.message.event["kind"], frame.message.event)
    c = parse_cards
    made: list[Event] = [
        Melded(0, 0, c("7h 8h 9h")), LaidOff(1, 0, c("Th"), c("7h 8h 9h Th")),
        StockRebuilt(29, c("Kd")[0], 1), WentOut(2, c("Qs")[0]),
        Eliminated((3,)), GameOver((1,), (0, 112), ("seat 1 reached 112",)),
    ]
    for event in made:
        found.setdefault(event.kind, event_to_wire(event))
    assert "showdown" in found and isinstance(found.get("showdown"), dict)
    return found


def action_examples() -> dict[str, dict[str, Any]]:
    """A wire example of every action kind."""
    c = parse_cards
    actions: list[SeatAction] = [
        DrawStock(0), PassUpcard(0), DiscardAction(0, c("Td")[0]), Meld(0, c("7h 8h 9h")),
        LayOff(0, c("Th"), 0), Knock(0, c("3c")[0]), GoOut(0, c("Qs")[0]),
    ]
    actions[1:1] = [DrawDiscard(0)]
    actions.append(DeclareRummy(0))
    return {a.kind: action_to_wire(a) for a in actions}



def deal_examples() -> list[dict[str, Any]]:
    """Worked examples of the verifiable shuffle (docs/protocol.md, "Verifiable deals"),
    every intermediate value given, for a client in another language to check itself."""
    digest = hashlib.sha256
    cases: list[tuple[str, tuple[Card, ...], bytes, dict[int, bytes]]] = [
        ("the transcript's deal: one deck, ada (seat 0) contributes", make_deck(),
         KIT_SECRET, {0: KIT_ADA}),
        ("Three Thirteen's 2 decks with 2 jokers each, seats 2 and 0 contribute",
         make_deck(2, 2), KIT_SECRET, {2: KIT_ADA_NEXT, 0: KIT_ADA}),
        ("a rebuilt stock of 7 cards (two 5d, a joker, a second-deck 9h), no contribution",
         parse_cards("5d 5d JK Ac Ks 9h#1 2c"), KIT_ADA_NEXT, {}),
    ]
    out = []
    for name, cards, secret, contributions in cases:
        message = DOMAIN + b"".join(bytes([seat]) + contributions[seat]
                                    for seat in sorted(contributions))
        key = deal_key(secret, contributions)
        out.append({
            "about": name, "secret": secret.hex(), "commitment": digest(secret).hexdigest(),
            "contributions": {str(seat): v.hex() for seat, v in sorted(contributions.items())},
            "commitments": {str(seat): digest(v).hexdigest()
                            for seat, v in sorted(contributions.items())},
            "cards": [str(c) for c in canonical_order(cards)],
            "key_message": message.hex(), "key": key.hex(),
            "block_0": hmac.new(key, bytes(8), hashlib.sha256).hexdigest(),
            "order": [str(c) for c in deal_order(secret, contributions, cards)],
        })
    return out
