"""One table: its seats, its game, its timers, and the one task that owns them.

Theory of operation
-------------------
Sessions never touch a table's state: they put a :class:`Command` (the player and the
protocol message) into the table's bounded inbox. :meth:`Table.run` takes commands one
at a time and answers each with ``ok`` or ``error`` to the sender, so a table's order of
events is simply the order of its inbox, and every action is checked by the rules
engine before anything changes.

Time is handled with deadlines, not polling: the run loop waits for the next command
until the earliest of the turn deadline, a house bot's move, an absent player's grace
expiry and the pause between hands, then handles whichever came due.

Every message about the game is built from the rules engine's per-seat view
(:func:`~rummyhall.rules.seat_view`, :func:`~rummyhall.rules.event_for`): a seat gets
its own view, a spectator the view of nobody. House bots play through the same seat
view and legal actions a remote client gets.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import trio

from rummyhall.bots import Strategy, make_strategy
from rummyhall.bots.expert_bot import ExpertBot
from rummyhall.protocol import (
    ActionMessage,
    AddBot,
    Contribute,
    EventMessage,
    Join,
    Leave,
    Message,
    Ok,
    RemoteProtocolError,
    RemoveBot,
    Resync,
    SeatInfo,
    Snapshot,
    Start,
    TableInfo,
    TableLock,
    Turn,
    Watch,
    YourTurn,
    action_from_wire,
    action_to_wire,
    event_to_wire,
    view_to_wire,
)
from rummyhall.protocol import Error as ErrorMessage
from rummyhall.protocol.proofs import KDF
from rummyhall.rules import (
    Action,
    Event,
    Game,
    GameOptions,
    HandScored,
    Phase,
    RulesError,
    SeatAction,
    Shuffle,
    event_for,
    new_game,
    options_to_dict,
    seat_view,
)
from rummyhall.rules.fair_deal import SECRET_BYTES, canonical_order, deal_order
from rummyhall.rules.timeout import timeout_action

from .access import TableCode
from .alarms import Alarms
from .config import Settings
from .dealing import DealProof, Round
from .players import Outbox, Player, Prepared

log = logging.getLogger("rummyhall.table")

INBOX_SIZE = 512
KEPT_EVENTS = 1_000
"""The events a table keeps for resyncs, at least (at most twice as many): a resync from
an older seq gets a snapshot, so a resync's reply stays small (a game that never ends
does not grow without bound), and what a client missed costs at most that many events."""


_WIRE_OF: dict[SeatAction, dict[str, Any]] = {}
_WIRE_CACHE = 20_000  # actions remembered (a few kilobytes each at most)


def _legal_wire(action: SeatAction) -> dict[str, Any]:
    """The wire form of a legal action, remembered: the same discards, knocks and draws
    come up in prompt after prompt. The maps are shared: nothing may change them."""
    wire = _WIRE_OF.get(action)
    if wire is None:
        if len(_WIRE_OF) >= _WIRE_CACHE:
            _WIRE_OF.clear()
        wire = _WIRE_OF[action] = action_to_wire(action)
    return wire


def new_secret(rng: random.Random) -> bytes:
    """A shuffle's fresh secret: from the operating system's CSPRNG (``SystemRandom``), or
    from a seeded server's generator (a seeded game says so in its commitments)."""
    return rng.randbytes(SECRET_BYTES)


class TableError(Exception):
    """A lobby request the table refuses: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str, *, retry_ms: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_ms = retry_ms  # rate_limited: how long until it is taken again


class TableBroken(Exception):
    """A failure after an action changed the game: the table cannot go on consistently.

    The table stops (as a table that failed: its journal is kept, and a restart brings it
    back from its last committed action).
    """


@dataclass
class Command:
    """A request for a table: ``message`` from ``player`` (None: the server itself)."""

    player: Player | None
    #: a protocol message, or "connected", "disconnected", "prompt", "evict" (of a
    #: player), "alarm" (the alarm clock's, with no player: a timer may be due)
    message: Message | str
    done: trio.Event | None = None  # set once handled (the session waits: replies in order)
    #: The connection that asked (its replies go there, never to a newer connection of
    #: the same player, which did not ask); None: the player's connection now.
    outbox: Outbox | None = None


def _taken_in(player: Player, outbox: Outbox | None) -> bool:
    """``player`` is connected by ``outbox``, the connection a table took in."""
    return outbox is not None and player.outbox is outbox and not outbox.closed


class Seat:
    """A seat: empty, a player's, or a house bot's.

    A player's seat stays the player's for the whole game. While the player is away (its
    connection dropped and the grace period is over, or it left the table) a *stand-in*
    house bot plays it; the player takes it back by resuming or joining again.
    """

    def __init__(self, index: int) -> None:
        self.index = index
        self.player: Player | None = None
        self.house: Strategy | None = None  # a house bot sitting here
        self.stand_in: Strategy | None = None  # a house bot playing for the absent player
        self.absent_since: float | None = None  # the grace period runs from then
        self.left = False  # the player left the table during the game
        # the player's connection this table has taken in (sent it a snapshot): a newer
        # one gets nothing before its own snapshot
        self.outbox: Outbox | None = None

    @property
    def empty(self) -> bool:
        return self.player is None and self.house is None

    @property
    def bot(self) -> Strategy | None:
        """The house bot that plays this seat now, if any."""
        return self.house or self.stand_in

    def info(self) -> SeatInfo:
        p = self.player
        kind = "house" if self.house else ("empty" if p is None else
                                           ("bot" if p.kind == "bot" else "person"))
        name = self.house.name if self.house else (p.name if p else None)
        bot = self.bot.name if self.bot else None
        return SeatInfo(seat=self.index, kind=kind, player=p.id if p else None,
                        name=name if not self.house else f"{name} bot",
                        connected=self.house is not None or self.present, bot=bot)

    @property
    def present(self) -> bool:
        """A player sits here, is connected (by the connection this table took in) and
        has not left."""
        p = self.player
        return p is not None and not self.left and _taken_in(p, self.outbox)


class Table:
    """A table and its game. Create with the lobby; run :meth:`run` in a task."""

    def __init__(self, table_id: int, game: str, options: GameOptions, players: int,
                 creator: Player, *, turn_seconds: int, grace_seconds: int,
                 settings: Settings, on_change: Callable[[Table], None], alarms: Alarms,
                 rng: random.Random | None = None) -> None:
        self.id = table_id
        self.game_name = game
        self.options = options
        self.creator = creator
        self.turn_seconds = turn_seconds
        self.grace_seconds = grace_seconds
        self.settings = settings
        self.seats = [Seat(i) for i in range(players)]
        self.spectators: dict[Player, Outbox | None] = {}  # with the connection taken in
        self.game: Game | None = None
        self.state = "waiting"
        self.seq = 0
        #: How many actions of the current game were played, shuffles included (the
        #: journal numbers them so): a count, so that a long game holds no list of them.
        self.played = 0
        #: The events of the current game, in order, the last KEPT_EVENTS to twice that
        #: (KEPT_EVENTS right after a restart; a resync from a seq gives those after
        #: it); ``game_seq`` is the table's event number before the first of them.
        self.events: list[Event] = []
        self.game_seq = 0
        self.rng = rng or random.SystemRandom()
        self.seeded = rng is not None
        self._on_change = on_change
        self.inbox, self._receive = trio.open_memory_channel[Command](INBOX_SIZE)
        self._alarms = alarms
        self.wake_at = math.inf  # the earliest timer, while the run loop waits (inf: busy)
        self.alarm_at = math.inf  # this table's live entry in the alarm clock (inf: none)
        self.deadline = math.inf  # the seat to move must have acted by then
        self.bot_due = math.inf  # a house bot plays then
        self.pause_until = math.inf  # the next deal waits until then
        self.closed = False
        self.failed = False  # closed by a bug (its journal is kept for a restart)
        self._answered = False  # the command being handled has had its reply
        self._asker: Outbox | None = None  # the connection that sent that command
        #: Called with each action before its messages are queued (the journal, issue 5:
        #: it stages the action's rows, and nothing queued from here is written before
        #: they are committed).
        self.before_broadcast: Callable[[Table, Action], Awaitable[None]] | None = None
        self.first_dealer = 0  # of the current game (its journal replays from it)
        #: A private table's lock (None: open), and the players who proved its code.
        self.code: TableCode | None = None
        self.admitted: set[int] = set()
        #: The rating of a seat's sitter (its player, or its house bot), shown in the
        #: lobby (the journal sets it).
        self.rating_of: Callable[[SeatInfo], int | None] | None = None
        #: Verifiable deals: each seat's commitment to its contribution to the next
        #: shuffle, the round gathering the contributions of the shuffle to come, the
        #: proofs of the current hand's shuffles (published when it ends), and the proof
        #: of the shuffle being journalled.
        self.pending_commits: dict[int, bytes] = {}
        self.round: Round | None = None
        self.hand_proofs: list[DealProof] = []
        self.shuffle_proof: DealProof | None = None
        self._paused_hand = 0  # the hand after which the pause between hands was made
        #: Since when nobody has been at this table during its game (inf: someone is, or
        #: no game is in play); the table closes ``abandoned_seconds`` after it.
        self.unattended_since = math.inf
        self.stalled = False  # a house bot's move waits for someone to be at the table
        #: Who may think in a worker thread (the lobby's one limiter for all tables).
        self.thinking: trio.CapacityLimiter | None = None

    # ------------------------------------------------------------------ queries

    def house_name(self, seat: Seat) -> str:
        """A house bot's name at this table: its strategy's, numbered from the second of one
        strategy on ("strong bot", "strong bot 2"), so that names (and ratings) stay apart."""
        assert seat.house is not None
        same = sum(1 for s in self.seats[:seat.index]
                   if s.house is not None and s.house.name == seat.house.name)
        return f"{seat.house.name} bot" + (f" {same + 1}" if same else "")

    def info(self) -> TableInfo:
        seats = tuple(dataclasses.replace(seat.info(), name=self.house_name(seat))
                      if seat.house is not None else seat.info() for seat in self.seats)
        if self.rating_of is not None:
            seats = tuple(dataclasses.replace(s, rating=self.rating_of(s))
                          if s.kind != "empty" else s for s in seats)
        return TableInfo(table=self.id, game=self.game_name,
                         options=options_to_dict(self.options),
                         seats=seats, state=self.state,
                         spectators=len(self.spectators), creator=self.creator.id,
                         creator_name=self.creator.name, turn_seconds=self.turn_seconds,
                         grace_seconds=self.grace_seconds, seeded=self.seeded,
                         lock=self._lock_info())

    def _lock_info(self) -> TableLock | None:
        code = self.code
        if code is None:
            return None
        v = code.verifier
        return TableLock(kdf=KDF, salt=v.salt.hex(), iterations=v.iterations,
                         invite=code.invite, watch_code=code.watch_code)

    def needs_code(self, player: Player, watching: bool) -> bool:
        """True if ``player`` must prove the code to join (or watch) this table: it is
        private, and the player is not its creator, has no seat here, and has not proved
        the code already."""
        code = self.code
        return (code is not None and (code.watch_code or not watching)
                and player is not self.creator and player.id not in self.admitted
                and self.seat_of(player) is None)

    def seat_of(self, player: Player) -> Seat | None:
        """The seat that is ``player``'s (one it left during the game included)."""
        return next((s for s in self.seats if s.player is player), None)

    def sits(self, player: Player) -> Seat | None:
        """The seat ``player`` sits in and plays (not one it left)."""
        seat = self.seat_of(player)
        return seat if seat is not None and not seat.left else None

    def attended(self) -> bool:
        """Someone is at this table: a player connected in its seat, or a spectator."""
        for seat in self.seats:  # (a loop, not any(): this runs after every action)
            if seat.present:
                return True
        return bool(self.spectators) and any(
            _taken_in(p, box) for p, box in self.spectators.items())

    def audience(self) -> list[tuple[Player, int | None]]:
        """Every connected player who sees this table, with the seat whose view they get."""
        seen: list[tuple[Player, int | None]] = [
            (s.player, s.index) for s in self.seats if s.player is not None and s.present]
        seen += [(p, None) for p, box in self.spectators.items() if _taken_in(p, box)]
        return seen

    # ------------------------------------------------------------------ the task

    async def run(self) -> None:
        """Handle commands and timers until the table is closed.

        A bug met here is logged and closes this table only: the others play on.
        """
        try:
            if self.game is not None and self.state == "playing":
                if self.round is None:  # (a restored table: the next shuffle's round
                    self._open_round()  # was lost; its seats are told at their snapshot)
                await self._advance()  # a table restored from the journal carries on
                self._look_around()  # (nobody is back yet: it counts towards closing)
            while not self.closed:
                wake = min(self.deadline, self.bot_due, self.pause_until, self._grace_due(),
                           self._round_due(),
                           self.unattended_since + self.settings.abandoned_seconds)
                if wake <= trio.current_time():
                    await trio.lowlevel.checkpoint()  # (a timer due at once holds up nobody)
                    # a command already waiting goes first, then the timer: house bots
                    # that play at once (house_delay 0) must not keep the inbox unread
                    try:
                        waiting = self._receive.receive_nowait()
                    except trio.WouldBlock:
                        pass
                    else:
                        await self._command(waiting)
                    await self._on_timer(trio.current_time())  # (each timer checks itself)
                    continue
                # (no cancel scope per wait: the hall's alarm clock puts a wake-up in the
                # inbox when the instant comes, see .alarms)
                self.wake_at = wake
                self._alarms.set(self, wake)
                command = await self._receive.receive()
                self.wake_at = math.inf
                await self._command(command)
        except (trio.EndOfChannel, trio.ClosedResourceError):
            pass
        except Exception:
            log.exception("table %s failed and is closed", self.id)
            self.failed = True
        finally:
            self.close()
            self._refuse_queued()
            if self.failed:
                self._changed()  # the lobby takes a failed table off its list

    def wake_up(self) -> None:
        """The alarm clock's call: the instant this table waits for has come (a wake-up
        in its inbox; none if the inbox is full: the table is busy, and looks at its
        timers before it waits again)."""
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError,
                                 trio.BrokenResourceError):
            self.inbox.send_nowait(Command(None, "alarm"))

    async def _command(self, command: Command) -> None:
        await self._handle(command)
        if self._shuffle_ready():  # (a seat it waited for left, or dropped)
            await self._advance()
        self._look_around()

    def _look_around(self) -> None:
        """After each command (who is at the table may have changed): a game nobody is at
        starts counting towards its closing; one that someone came back to goes on."""
        if self.state != "playing" or self.attended():
            self.unattended_since = math.inf
            if self.stalled:
                self.stalled = False
                self._schedule()  # (the house bot to move plays after its delay)
        elif self.unattended_since == math.inf:
            self.unattended_since = trio.current_time()

    def _waits_for_chance(self) -> bool:
        game = self.game
        return game is not None and not game.is_over and game.to_move is None and \
            self.state == "playing"

    def _gone(self) -> frozenset[int]:
        """The seats a round no longer waits for: absent, or played by a house bot."""
        return frozenset(s.index for s in self.seats if not s.present or s.bot is not None)

    def _round_complete(self) -> bool:
        rnd = self.round
        return rnd is not None and rnd.complete(trio.current_time(), self._gone())

    def _shuffle_ready(self) -> bool:
        """The game waits for a shuffle whose round has stopped waiting (not in the pause
        between hands)."""
        return self._waits_for_chance() and self.pause_until == math.inf and \
            self._round_complete()

    def _round_due(self) -> float:
        """When a shuffle the game waits for stops waiting for its contributions (not
        before the pause's end: the pause between hands comes first, and its end looks at
        the round; and not while a seat is to move: the round then waits for no one)."""
        rnd, game = self.round, self.game
        if rnd is None or self.pause_until != math.inf or game is None or game.is_over \
                or game.to_move is not None:
            return math.inf
        return rnd.due

    def _refuse_queued(self) -> None:
        """Answer every request still queued at a closed table (each gets one reply)."""
        while True:
            try:
                command = self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            if command.player is not None and not isinstance(command.message, str):
                command.player.send(ErrorMessage(
                    code="no_such_table", message=f"table {self.id} was closed", fatal=False,
                    id=getattr(command.message, "id", None)))
            if command.done is not None:
                command.done.set()

    def close(self) -> None:
        self.closed = True
        self.inbox.close()

    async def _handle(self, command: Command) -> None:
        try:
            await self._handle_command(command)
        finally:
            if command.done is not None:
                command.done.set()

    async def _handle_command(self, command: Command) -> None:
        player, message = command.player, command.message
        if isinstance(message, str):  # the server's own: "connected", "disconnected",
            if player is None:  # "prompt" (the player's action was refused unread), "evict";
                return  # "alarm": the run loop looks at the timers next
            if message == "prompt":
                self._prompt_again(player)
            elif message == "evict":
                self._evict(player)
            else:
                self._presence(player, message == "connected")
            return
        assert player is not None
        request_id = getattr(message, "id", None)
        self._answered = False
        self._asker = command.outbox
        try:
            handler = self._handlers[type(message)]
            reply = await handler(self, player, message)
        except (TableError, RemoteProtocolError) as exc:
            self._reply(player, ErrorMessage(code=exc.code, message=exc.message, fatal=False,
                                             id=request_id))
            if isinstance(message, ActionMessage):
                self._prompt_again(player)  # the legal alternatives and the current move
            return
        except TableBroken:
            if not self._answered:  # (one reply per request: after its ok, the table's
                self._reply(player, ErrorMessage(  # removal tells the rest)
                    code="internal_error", message="the server failed while handling "
                    "this action, and the table is stopped", fatal=False, id=request_id))
            raise  # the run loop stops the table
        except Exception:  # a bug that left the game as it was: the table goes on
            log.exception("table %s: failed to handle %r", self.id, message)
            if not self._answered:  # (one reply per request)
                self._reply(player, ErrorMessage(
                    code="internal_error", message="the server failed to handle this "
                    "request; the game did not change, and the lobby shows the table as it "
                    "now is",
                    fatal=False, id=request_id))
            self._changed()  # the seats may have: the lobby announces them as they are
            return
        if reply is not None:
            self._reply(player, reply)

    def _reply(self, player: Player, reply: Message) -> None:
        """Send the reply of the command being handled to the connection that asked."""
        asker = self._asker
        if asker is None:
            player.send(reply)
        elif asker is player.outbox:
            asker.put(reply)
        # (else that connection was replaced meanwhile: the newer one did not ask)

    # ------------------------------------------------------------------ lobby requests

    async def _join(self, player: Player, msg: Join) -> None:
        if player.kind == "spectator":
            raise TableError("spectator_only", "a spectator connection may not sit")
        mine = self.seat_of(player)
        if mine is not None and mine.left and self.state == "playing":
            return self._come_back(player, mine, msg)
        if mine is not None:
            raise TableError("already_seated", f"you already sit in seat {mine.index}")
        if self.state != "waiting":
            raise TableError("already_started", "the game has started: its seats are fixed")
        if msg.seat is None:
            seat = next((s for s in self.seats if s.empty), None)
            if seat is None:
                raise TableError("table_full", "every seat is taken")
        else:
            if msg.seat >= len(self.seats):
                raise TableError("no_such_seat", f"this table has seats 0 to "
                                                 f"{len(self.seats) - 1}")
            seat = self.seats[msg.seat]
            if not seat.empty:
                raise TableError("seat_taken", f"seat {msg.seat} is taken")
        seat.player, seat.outbox = player, player.outbox
        self.pending_commits.pop(seat.index, None)  # (a commitment of whoever sat before)
        self.spectators.pop(player, None)
        player.tables.add(self.id)
        self._changed()
        self._answer(player, Ok(id=msg.id, table=self.id, seat=seat.index))
        self._send_snapshot(player, seat.index)
        return None

    def _come_back(self, player: Player, seat: Seat, msg: Join) -> None:
        """A player who left during the game takes its seat back."""
        seat.left, seat.stand_in, seat.absent_since = False, None, None
        seat.outbox = player.outbox
        self.spectators.pop(player, None)
        player.tables.add(self.id)
        self._changed()
        self._answer(player, Ok(id=msg.id, table=self.id, seat=seat.index))
        self._send_snapshot(player, seat.index)
        self._reschedule(seat)

    async def _leave(self, player: Player, msg: Leave) -> Ok:
        seat = self.seat_of(player)
        if seat is None or seat.left:  # (a seat left stays the player's, to come back to)
            if player not in self.spectators:
                raise TableError("not_watching", "you neither sit nor watch at this table")
            self.spectators.pop(player, None)
        elif self.state in ("waiting", "finished"):
            seat.player = None
            self.pending_commits.pop(seat.index, None)
        else:  # during a game the seat stays the player's; a house bot plays it meanwhile
            seat.left, seat.absent_since = True, None
            seat.stand_in = seat.stand_in or self._stand_in()
            self._reschedule(seat)
        player.tables.discard(self.id)
        self._changed()
        return Ok(id=msg.id, table=self.id)

    def _evict(self, player: Player) -> None:
        """The host took the player's seat (a kick or ban with ``seat: bot``): as if it had
        left, with no reply (its connection is closed). During a game a house bot plays
        the seat at once; it may join again to take it back."""
        seat = self.seat_of(player)
        if seat is None or seat.left:
            self.spectators.pop(player, None)
        elif self.state in ("waiting", "finished"):
            seat.player, seat.absent_since = None, None
        else:
            seat.left, seat.absent_since = True, None
            seat.stand_in = seat.stand_in or self._stand_in()
            self._reschedule(seat)
        player.tables.discard(self.id)
        self._changed()

    async def _watch(self, player: Player, msg: Watch) -> None:
        seat = self.sits(player)
        if seat is not None:
            raise TableError("already_seated", f"you sit in seat {seat.index} of this table")
        new = player not in self.spectators  # (a player who left its seat may watch)
        self.spectators[player] = player.outbox
        if new:
            player.tables.add(self.id)
            self._changed()
        self._answer(player, Ok(id=msg.id, table=self.id))
        self._send_snapshot(player, None)

    def _creator_only(self, player: Player, what: str) -> None:
        if player is not self.creator:
            raise TableError("not_creator", f"only the table's creator may {what}")
        if self.state == "playing":
            raise TableError("already_started", "the game has started: seats are fixed")

    async def _add_bot(self, player: Player, msg: AddBot) -> Ok:
        self._creator_only(player, "add house bots")
        if msg.seat >= len(self.seats):
            raise TableError("no_such_seat", f"this table has seats 0 to {len(self.seats) - 1}")
        seat = self.seats[msg.seat]
        if not seat.empty:
            raise TableError("seat_taken", f"seat {msg.seat} is taken")
        name = msg.strategy or self.settings.stand_in
        try:
            seat.house = make_strategy(name, random.Random(self.rng.random()))
        except ValueError as exc:
            raise TableError("unknown_strategy", str(exc)) from None
        self._changed()
        return Ok(id=msg.id, table=self.id, seat=msg.seat)

    async def _remove_bot(self, player: Player, msg: RemoveBot) -> Ok:
        self._creator_only(player, "remove house bots")
        if msg.seat >= len(self.seats) or self.seats[msg.seat].house is None:
            raise TableError("seat_empty", f"no house bot sits in seat {msg.seat}")
        self.seats[msg.seat].house = None
        self._changed()
        return Ok(id=msg.id, table=self.id, seat=msg.seat)

    async def _start(self, player: Player, msg: Start) -> None:
        self._creator_only(player, "start the game")
        if any(s.empty for s in self.seats):
            raise TableError("seats_empty", "every seat must be filled: join or add house bots")
        first = self.first_dealer = self.rng.randrange(len(self.seats))
        game = new_game(self.game_name, self.options, players=len(self.seats),
                        first_dealer=first)
        try:  # from here the game has begun: a failure cannot simply be undone
            self.game, self.played, self.state = game, 0, "playing"
            self.round, self.hand_proofs, self._paused_hand = None, [], 0
            self.events, self.game_seq = [], self.seq
            self.pause_until = math.inf
            now = trio.current_time()
            for seat in self.seats:  # players away at the start: a stand-in, or their grace
                if seat.player is not None and not seat.present and seat.stand_in is None:
                    if seat.left:
                        seat.stand_in = self._stand_in()
                    else:
                        seat.absent_since = now
            self._changed()
            self._answer(player, Ok(id=msg.id, table=self.id))
            for p, index in self.audience():
                self._send_snapshot(p, index)
            await self._advance()
        except Exception as exc:
            raise TableBroken(f"table {self.id} failed starting its game") from exc

    async def _resync(self, player: Player, msg: Resync) -> None:
        seat = self.sits(player)
        if seat is None and player not in self.spectators:
            raise TableError("not_watching", "you neither sit nor watch at this table")
        self._answer(player, Ok(id=msg.id, table=self.id))
        index = seat.index if seat else None
        since = msg.since
        if since is not None and self.game is not None and \
                self.game_seq <= since <= self.seq:
            # exactly the events after ``since``, as this seat sees them (the current
            # game's, those kept; an earlier seq: a snapshot instead), as one reply: their
            # size is charged to the asker's rate, as a snapshot's is
            missed = [EventMessage(table=self.id, seq=n,
                                   event=event_to_wire(event_for(event, index)))
                      for n, event in enumerate(self.events[since - self.game_seq:],
                                                since + 1)]
            if missed:
                player.send(Prepared.answer(*missed))
        else:
            self._send_snapshot(player, index)
        self._prompt_again(player)

    # ------------------------------------------------------------------ play

    async def _action(self, player: Player, msg: ActionMessage) -> None:
        seat = self.seat_of(player)
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        if seat.left:
            raise TableError("not_seated", f"you left seat {seat.index}: join the table "
                                           "again to play it")
        if player.kind == "spectator":
            raise TableError("spectator_only", "a spectator connection may not play")
        game = self.game
        if game is None or self.state != "playing":
            raise TableError("not_started" if self.state == "waiting" else "game_over",
                             "the game is not being played")
        action = action_from_wire(msg.action, seat.index)
        if msg.move != game.move_number:
            raise TableError("stale_action", f"that answers move {msg.move}; the game is at "
                                             f"move {game.move_number}")
        await self._play(action, lambda: self._answer(player, Ok(id=msg.id, table=self.id)))

    async def _play(self, action: Action,
                    accepted: Callable[[], object] | None = None) -> None:
        """Apply one action (refused with the rules' reason), publish it, move on.

        The action is journalled, then acknowledged (``accepted``: the ``ok`` of a
        client's action), then its events go to everyone (docs/protocol.md, section 7);
        none of it is written to a socket before the journal has committed the action.
        """
        game = self.game
        assert game is not None
        move = game.move_number
        try:
            events = game.apply(action)
        except RulesError as exc:
            # Refused by its checks, which run before any change: Game.apply changed nothing
            # (tests/rules/test_atomic_moves.py), so the refusal is all there is to do. A
            # refusal after the move began would be a bug in the rules: the table stops.
            if game.move_number != move:
                raise TableBroken(f"table {self.id}: {action!r} refused half-applied") from exc
            raise TableError(exc.code, str(exc)) from None
        except Exception as exc:  # a bug inside the rules: the game may be half-changed
            raise TableBroken(f"table {self.id} failed applying {action!r}") from exc
        try:
            self.played += 1
            if self.before_broadcast is not None:
                await self.before_broadcast(self, action)
            if accepted is not None:
                accepted()
            self._broadcast(events)
            await self._advance()
        except Exception as exc:  # the game has changed: it cannot simply go on
            raise TableBroken(f"table {self.id} failed after {action!r}") from exc

    async def _advance(self) -> None:
        """Play chance (shuffles) and prompt the seat to move; end the game when it ends."""
        game = self.game
        self.deadline = self.bot_due = math.inf
        while game is not None and not game.is_over and game.to_move is None:
            if self.round is None:  # (the first shuffle of a game, or after a restart)
                self._open_round()
            if game.phase is Phase.DEAL and game.hand_no and self.settings.hand_pause > 0 \
                    and self._paused_hand != game.hand_no:
                if self.pause_until == math.inf:
                    self.pause_until = trio.current_time() + self.settings.hand_pause
                return
            assert self.round is not None
            if not self._round_complete():
                return  # the run loop wakes at its window's end, or a contribution ends it
            self.pause_until = math.inf
            await self._play_chance(game)
        if game is None:
            return
        if game.is_over:
            self.round = None  # (no shuffle comes: its contributions are never used)
            self.state = "finished"
            self._changed()
            return
        self._schedule()

    def _open_round(self) -> None:
        """Announce the next shuffle: commit to its secret, list the commitments of the
        seats it waits for (present, and played by their player), start its window.

        A round opens as soon as the shuffle before it is made (the first of a game, when
        the game starts), so its contributions come in during the hand, and the next
        shuffle, a deal or a rebuild of the stock, rarely waits for them."""
        # (a seeded server takes no contribution: its games replay from its seed alone)
        window = 0.0 if self.seeded else self.settings.contribution_seconds
        waiting = {s.index for s in self.seats if window > 0 and s.index in
                   self.pending_commits and s.present and s.bot is None}
        listed = {i: self.pending_commits.pop(i) for i in sorted(waiting)}
        proof = DealProof(0, "", new_secret(self.rng), self.seeded, listed, {}, ())
        self.round = Round(proof, trio.current_time() + window, frozenset(waiting))
        announcement = Prepared(self.round.announcement(self.id, len(self.seats),
                                                        int(window * 1000)))
        for p, _ in self.audience():
            p.send(announcement)

    async def _play_chance(self, game: Game) -> None:
        rnd, self.round = self.round, None
        assert rnd is not None
        proof = rnd.proof
        dealing = game.phase is Phase.DEAL
        proof.hand = game.hand_no + 1 if dealing else game.hand_no
        proof.kind = "deal" if dealing else "rebuild"
        proof.cards = tuple(canonical_order(game.shuffle_cards()))
        shuffle = Shuffle(deal_order(proof.secret, proof.reveals, proof.cards))
        events = game.apply(shuffle)
        self.played += 1
        self.shuffle_proof = proof
        if self.before_broadcast is not None:
            await self.before_broadcast(self, shuffle)
        self.shuffle_proof = None
        self.hand_proofs = [*self.hand_proofs, proof] if proof.kind == "rebuild" else [proof]
        self._broadcast(events)
        if not game.is_over:
            self._open_round()  # the next shuffle's, at once (before the turn's prompt)

    def _reveal_hand(self) -> None:
        """The hand has ended: publish the proof of each of its shuffles."""
        proofs, self.hand_proofs = self.hand_proofs, []
        audience = self.audience()
        for proof in proofs:
            message = Prepared(proof.revealed(self.id, len(self.seats)))
            for p, _ in audience:
                p.send(message)

    def _schedule(self) -> None:
        """Prompt the seat to move and set its clock (or its house bot's move)."""
        game = self.game
        if game is None or game.is_over or game.to_move is None:
            return
        seat = self.seats[game.to_move]
        now = trio.current_time()
        self.deadline = self.bot_due = math.inf
        self.stalled = False
        if seat.bot is not None:
            self.bot_due = now + self.settings.house_delay
        else:
            limit = self._turn_limit(seat)
            if limit:
                self.deadline = now + limit
        left = None if self.deadline == math.inf else int((self.deadline - now) * 1000)
        turn = Prepared(Turn(table=self.id, seat=seat.index, move=game.move_number,
                             time_left_ms=left))
        for p, _ in self.audience():
            p.send(turn)
        if seat.player is not None and seat.bot is None and seat.present:
            self._send_your_turn(seat.player, seat.index, left)  # (else at its snapshot)

    def _turn_limit(self, seat: Seat) -> int:
        if seat.player is not None and seat.player.kind == "bot":
            return self.turn_seconds or self.settings.bot_turn_seconds
        return self.turn_seconds

    def _send_your_turn(self, player: Player, seat: int, left: int | None) -> None:
        assert self.game is not None
        legal = tuple(_legal_wire(a) for a in self.game.legal_actions())
        player.send(YourTurn(table=self.id, move=self.game.move_number, legal=legal,
                             time_left_ms=left))

    def _prompt_again(self, player: Player) -> None:
        game = self.game
        seat = self.seat_of(player)
        if game is None or seat is None or game.to_move != seat.index or seat.bot is not None \
                or game.is_over or not seat.present:
            return
        now = trio.current_time()
        left = None if self.deadline == math.inf else max(0, int((self.deadline - now) * 1000))
        self._send_your_turn(player, seat.index, left)

    async def _on_timer(self, now: float) -> None:
        game = self.game
        if now >= self.unattended_since + self.settings.abandoned_seconds:
            log.info("table %s: nobody has been at it for %g s; closed", self.id,
                     self.settings.abandoned_seconds)
            self.close()
            self._changed()  # the lobby removes it
            return
        if now >= self.pause_until:
            self.pause_until = math.inf
            if game is not None and game.phase is Phase.DEAL:
                self._paused_hand = game.hand_no
                await self._advance()
            return
        if now >= self._round_due():
            await self._advance()
            return
        for seat in self.seats:
            if seat.absent_since is not None and now >= seat.absent_since + self.grace_seconds:
                seat.absent_since = None
                if self.state == "waiting":  # nothing to play yet: the seat is free again
                    if seat.player is not None:
                        seat.player.tables.discard(self.id)
                    seat.player = None
                    self.pending_commits.pop(seat.index, None)
                else:
                    seat.stand_in = self._stand_in()
                self._changed()
                self._reschedule(seat)
        if game is None or game.to_move is None:
            return
        seat = self.seats[game.to_move]
        if now >= self.bot_due and seat.bot is not None:
            if not self.attended():  # house bots play only for someone to see it
                self.bot_due = math.inf
                self.stalled = True
                self._look_around()  # (nobody: the closing's count starts, if not yet)
                return
            await self._bot_move(seat, seat.bot)
        elif now >= self.deadline:
            log.info("table %s: seat %s timed out", self.id, seat.index)
            await self._play(timeout_action(game, seat.index))

    async def _bot_move(self, seat: Seat, bot: Strategy) -> None:
        assert self.game is not None
        legal = self.game.legal_actions()
        view = seat_view(self.game, seat.index) if bot.needs_view else None
        action: SeatAction
        if isinstance(bot, ExpertBot):
            # a bot that searches thinks for up to its budget: in a worker thread, so that
            # the other tables (and this table's own inbox) are not held up meanwhile, one
            # such bot of the whole server at a time (the lobby's limiter)
            action = await trio.to_thread.run_sync(bot.choose, view, legal,
                                                   limiter=self.thinking)
        else:
            action = bot.choose(view, legal)
        await self._play(action)

    def _stand_in(self) -> Strategy:
        return make_strategy(self.settings.stand_in, random.Random(self.rng.random()))

    async def _contribute(self, player: Player, msg: Contribute) -> None:
        """A seat's contribution to the shuffle being prepared, and/or its commitment to
        its contribution to the next one. Checked whole before anything changes."""
        if player.kind == "spectator":
            raise TableError("spectator_only", "a spectator connection may not contribute")
        seat = self.sits(player)
        if seat is None:
            raise TableError("not_seated", "only a seated player contributes to the shuffle")
        if self.state == "finished":
            raise TableError("game_over", "the game has ended: there is no shuffle to come")
        index, rnd = seat.index, self.round
        reveal = self._checked_reveal(index, msg)
        if msg.next is not None and index in self.pending_commits:
            raise TableError("contribution_twice", f"seat {index} already has a commitment "
                             "for the next shuffle")
        if rnd is not None and msg.commitment is not None:
            rnd.answered.add(index)
            if reveal is not None:
                rnd.proof.reveals[index] = reveal
        if msg.next is not None:
            self.pending_commits[index] = bytes.fromhex(msg.next)
        self._answer(player, Ok(id=msg.id, table=self.id))
        if rnd is not None and rnd is self.round and self._shuffle_ready():
            try:
                await self._advance()  # every seat waited for has answered: shuffle now
            except Exception as exc:  # the game may have changed: it cannot simply go on
                raise TableBroken(f"table {self.id} failed shuffling") from exc

    def _checked_reveal(self, index: int, msg: Contribute) -> bytes | None:
        """The contribution ``msg`` reveals for seat ``index``; raises the refusal."""
        rnd = self.round
        if msg.commitment is None:
            if msg.reveal is not None:
                raise TableError("bad_contribution", "a reveal names the deal_commit it "
                                 "answers (its commitment)")
            return None
        if rnd is None or msg.commitment != rnd.commitment_hex:
            raise TableError("contribution_late", "that deal_commit's shuffle has been made "
                             "(or it never was): it went on without you")
        if index in rnd.answered:
            raise TableError("contribution_twice",
                             f"seat {index} already answered this deal_commit")
        if msg.reveal is None:
            return None
        reveal = bytes.fromhex(msg.reveal)
        why = rnd.check_reveal(index, reveal)
        if why is not None:
            raise TableError("bad_contribution", why)
        return reveal

    # ------------------------------------------------------------------ presence

    def _presence(self, player: Player, connected: bool) -> None:
        seat = self.seat_of(player)
        if seat is None or seat.left:
            # a spectator stays one across a drop: it gets a fresh snapshot when back
            if not connected and player in self.spectators:
                self.spectators.pop(player, None)
                self._changed()
            elif connected and self.id in player.tables:
                self.spectators[player] = player.outbox
                self._changed()
                self._send_snapshot(player, None)
            return
        if connected:
            seat.absent_since = None
            seat.stand_in = None
            seat.outbox = player.outbox  # taken in: from here it gets what the table sends
            self._changed()
            self._send_snapshot(player, seat.index)
            if self.bot_due != math.inf or self.stalled:
                self._reschedule(seat)  # a stand-in was about to play: the player's turn now
            else:
                self._prompt_again(player)
        else:
            if self.state in ("playing", "waiting"):  # (waiting: the seat is freed after it)
                seat.absent_since = trio.current_time()
            self._changed()

    def _reschedule(self, seat: Seat) -> None:
        """Prompt ``seat`` afresh if it is the one to move (who plays it has changed)."""
        game = self.game
        if game is not None and not game.is_over and game.to_move == seat.index:
            self._schedule()

    def _grace_due(self) -> float:
        due = [s.absent_since + self.grace_seconds for s in self.seats
               if s.absent_since is not None]
        return min(due, default=math.inf)

    # ------------------------------------------------------------------ output

    def _broadcast(self, events: list[Event]) -> None:
        audience = self.audience()
        self.events += events
        if len(self.events) > 2 * KEPT_EVENTS:  # (the oldest go: a resync before them
            gone = len(self.events) - KEPT_EVENTS  # gets a snapshot)
            del self.events[:gone]
            self.game_seq += gone
        ended = any(isinstance(e, HandScored) for e in events)
        for event in events:
            self.seq += 1
            # encoded once per distinct view: once for all when nothing of it is hidden
            # (event_for gives the event itself), else once per seat that sees it otherwise
            public: Prepared | None = None
            cache: dict[int | None, Prepared] = {}
            for player, seat in audience:
                message = cache.get(seat)
                if message is None:
                    seen = event_for(event, seat)
                    if seen is not event:
                        message = self._event_message(seen)
                    elif public is None:
                        message = public = self._event_message(event)
                    else:
                        message = public
                    cache[seat] = message
                player.send(message)
        if ended:
            self._reveal_hand()

    def _event_message(self, event: Event) -> Prepared:
        return Prepared(EventMessage(table=self.id, seq=self.seq, event=event_to_wire(event)))

    def _send_snapshot(self, player: Player, seat: int | None) -> None:
        view: dict[str, Any] | None = None
        if self.game is not None:
            view = view_to_wire(seat_view(self.game, seat))
        player.send(Snapshot(table=self.id, seq=self.seq, info=self.info(), view=view))
        rnd = self.round
        if rnd is not None:  # the next shuffle's announcement too
            left = max(0, int((rnd.due - trio.current_time()) * 1000))
            player.send(rnd.announcement(self.id, len(self.seats), left))

    def _changed(self) -> None:
        self._on_change(self)

    def _answer(self, player: Player, reply: Ok) -> None:
        """Send the reply of the command being handled before its handler is done (the
        snapshot or the events follow it): from here a failure sends no second reply."""
        self._reply(player, reply)
        self._answered = True

    _handlers: ClassVar[dict[type[Message],
                             Callable[[Table, Player, Any], Awaitable[Message | None]]]] = {
        Join: _join, Leave: _leave, Watch: _watch, AddBot: _add_bot, RemoveBot: _remove_bot,
        Start: _start, Resync: _resync, ActionMessage: _action, Contribute: _contribute,
    }
