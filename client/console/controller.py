"""The console's intents: what a key or a command asks, sent through the session.

The key bindings and the command line call :class:`Controller` methods, which are plain
synchronous functions: they read the screen state, build a request and hand it to
``spawn``, which runs it as a trio task (the UI runs on asyncio; see :mod:`.run`). A
refused request shows the server's reason in the status line and changes nothing else.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rummyhall.client.records import RecordedGame, replay_text
from rummyhall.client.session import ClientError, RequestRefused, Session
from rummyhall.client.wording import card_symbols
from rummyhall.protocol import LocalProtocolError
from rummyhall.rules import (
    Card,
    CardError,
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    GoOut,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    RulesError,
    SeatAction,
    can_lay_off,
    meld_kind,
    order_meld,
    view_meld_rules,
)

from .model import ConsoleModel, CreateForm, LogEntry, cards_text, server_text

#: the history screen asks for this many games at once (the protocol allows 100), and
#: lists at most HISTORY_MOST (`rummyhall history` on the server's machine lists them all)
HISTORY_GAMES = 50
HISTORY_MOST = 2_000
Spawn = Callable[[Callable[[], Awaitable[None]]], None]
#: a card as the screen shows it (7♦) is typed as well as its letters (7d)
SUIT_LETTERS = str.maketrans({"♣": "c", "♦": "d", "♥": "h", "♠": "s"})

COMMANDS = {
    # command: (arguments, meaning) -- the help screen and the completer read this
    "stock": ("", "draw from the stock"),
    "pile": ("", "take the discard"),
    "pass": ("", "Gin: refuse the upcard"),
    "discard": ("CARD", "discard a card"),
    "meld": ("CARDS", "lay a meld (Basic); Gin: set it aside to knock"),
    "layoff": ("CARDS [MELD]", "lay off on meld #"),
    "knock": ("CARD", "knock (Gin, Chicago)"),
    "biggin": ("", "Gin: big gin"),
    "out": ("CARD", "go out (3-13)"),
    "rummy": ("", "Chicago: declare rummy"),
    "say": ("TEXT", "chat"),
    "join": ("TABLE [SEAT] [CODE]", "sit at a table"),
    "watch": ("TABLE [CODE]", "watch a table"),
    "bot": ("[SEAT] [BOT]", "add a house bot"),
    "unbot": ("SEAT", "remove a house bot"),
    "start": ("", "start the game"),
    "create": ("[GAME]", "the create-table form"),
    "set": ("NAME=VALUE", "set a form field"),
    "leave": ("", "leave (a bot keeps the seat)"),
    "lobby": ("", "back to the lobby"),
    "table": ("[TABLE]", "show one of your tables"),
    "scores": ("", "show or hide the scores"),
    "history": ("", "your games played, newest first"),
    "help": ("", "show or hide the help"),
    "quit": ("", "leave Rummy Hall"),
}


class Controller:
    """Turns the player's intents into requests (see the module docstring)."""

    def __init__(self, model: ConsoleModel, session: Session, spawn: Spawn,
                 quit: Callable[[], None] = lambda: None) -> None:
        self.model = model
        self.session = session
        self.spawn = spawn
        self.quit = quit
        self._listed = False  # the lobby has been listed once (see refresh)
        self._asking_history = False  # a page of the history is being asked for
        #: Commands that exist only on this console (the host's: see .admin).
        self.extra_commands: dict[str, Handler] = {}

    # ------------------------------------------------------------------ plumbing

    def _request(self, make: Callable[[], Awaitable[object]], done: str | None = None,
                 after: Callable[[object], None] | None = None,
                 refused: Callable[[], None] | None = None) -> None:
        model = self.model

        async def run() -> None:
            try:
                result = await make()
            except RequestRefused as exc:
                model.say(server_text(exc.message), error=True)
                if refused is not None:
                    refused()
                return
            except (ClientError, LocalProtocolError) as exc:  # (a value out of range)
                model.say(f"not sent: {exc}", error=True)
                return
            if done:
                model.say(done)
            if after is not None:
                after(result)
            model.on_change()

        self.spawn(run)

    def request(self, make: Callable[[], Awaitable[object]], done: str | None = None,
                after: Callable[[object], None] | None = None) -> None:
        """Run a request in a task: ``done`` and ``after`` once it succeeded, the server's
        reason in the status line when it was refused (for the console's extensions)."""
        self._request(make, done, after)

    def _seat(self) -> tuple[int, int] | None:
        """(table, seat) of the shown table, or None (and a message) without a seat."""
        state = self.model.state
        if state is None or state.view is None:
            self.model.say("no game here: join a table and start it", error=True)
            return None
        if state.seat is None:
            self.model.say("you are watching this table", error=True)
            return None
        return state.table, state.seat

    def act(self, make: Callable[[int], SeatAction | None]) -> None:
        """Send an action of our seat at the shown table (the server judges it).

        Offline, the action is refused at once: sent after the reconnection it would
        answer a move that is long gone (the server would call it stale).
        """
        if not self.session.connected:
            self.model.say("offline: the action was not sent" + (
                "; the connection is closed" if self.model.finished else
                "; wait for the reconnection"), error=True)
            return
        where = self._seat()
        if where is None:
            return
        table, seat = where
        action = make(seat)
        if action is None:
            return
        model = self.model
        state = self.session.tables.get(table)
        # (noted before sending: its events may come before the reply is handled)
        model.acted[table] = state.move if state is not None else None

        def clear(_: object) -> None:
            model.selected = set()
            model.status = ""
            if isinstance(action, Knock):
                model.knock_melds = []

        def unsent() -> None:  # refused: that move is still ours to make, or to miss
            model.acted.pop(table, None)

        self._request(lambda: self.session.act(table, action), after=clear, refused=unsent)

    def _cards(self, words: list[str]) -> list[Card] | None:
        """Cards named by the player, matched against the hand (``th``, ``10h``, ``Th``)."""
        hand = self.model.hand()
        out: list[Card] = []
        for word in words:
            text = word.strip().translate(SUIT_LETTERS)
            if len(text) >= 2 and text.upper() != "JK":
                text = text[:-1].upper() + text[-1].lower()
            try:
                card = Card.parse(text)
            except CardError as exc:
                self.model.say(str(exc), error=True)
                return None
            # a second physical copy (two decks) shows the same: take one in the hand
            same = [c for c in hand if c.face == card.face and c not in out]
            out.append(same[0] if same and card not in hand else card)
        return out

    def _one_card(self, words: list[str]) -> Card | None:
        if len(words) > 1:
            self.model.say("name one card for this", error=True)
            return None
        if words:
            cards = self._cards(words)
            return cards[0] if cards else None
        chosen = self.model.chosen_cards()
        if len(chosen) != 1:
            self.model.say("pick one card (move with ←/→)" if not chosen else
                           "select just one card for this", error=True)
            return None
        return chosen[0]

    # ------------------------------------------------------------------ table actions

    def draw_stock(self) -> None:
        self.act(DrawStock)

    def draw_pile(self) -> None:
        self.act(DrawDiscard)

    def pass_upcard(self) -> None:
        self.act(PassUpcard)

    def declare_rummy(self) -> None:
        self.act(DeclareRummy)

    def rummy_or_refresh(self) -> None:
        """``r`` at a table: Chicago's rummy; elsewhere, as in the lobby, a refresh (a
        fresh snapshot of the table)."""
        view = self.model.view
        if view is not None and view.game == "chicago" and view.seat is not None:
            self.declare_rummy()
            return
        table = self.model.table
        if table is not None:
            self._request(lambda: self.session.resync(table), done=f"table {table} refreshed")

    def discard(self, words: list[str] | None = None) -> None:
        card = self._one_card(words or [])
        if card is not None:
            self.act(lambda seat: Discard(seat, card))

    def knock(self, words: list[str] | None = None) -> None:
        """Knock discarding one card; in Gin with the melds set aside (m), laying them."""
        card = self._one_card(words or [])
        if card is not None:
            melds = self._knock_melds()
            self.act(lambda seat: Knock(seat, card, melds))

    def big_gin(self) -> None:
        melds = self._knock_melds()
        self.act(lambda seat: Knock(seat, None, melds))

    def _knock_melds(self) -> tuple[tuple[Card, ...], ...] | None:
        melds = self.model.knock_melds
        return tuple(melds) if melds else None

    def knock_meld(self, cards: list[Card]) -> None:
        """Gin: set ``cards`` aside as a meld the next knock lays (docs/rules.md: the
        knocker chooses his arrangement). One card alone clears the melds set aside."""
        model, view = self.model, self.model.view
        if view is None:
            return
        if len(cards) == 1 and not model.selected:
            if model.knock_melds:
                model.knock_melds = []
                model.say("the melds set aside are cleared: k lays the best arrangement")
            else:
                model.say("select the cards of a meld (space), then m", error=True)
            return
        taken = {c for meld in model.knock_melds for c in meld}
        if taken & set(cards):
            model.say(f"{cards_text(sorted(taken & set(cards)))} is already in a meld set "
                      "aside", error=True)
            return
        rules = view_meld_rules(view)
        if meld_kind(cards, rules) is None:
            model.say(f"{cards_text(cards)} is not a set or a run", error=True)
            return
        model.knock_melds = [*model.knock_melds, order_meld(cards, rules)]
        model.selected = set()
        shown = " | ".join(cards_text(m) for m in model.knock_melds)
        model.say(f"to lay when you knock: {shown} (k knocks, m on one card clears)")

    def go_out(self, words: list[str] | None = None) -> None:
        card = self._one_card(words or [])
        if card is not None:
            self.act(lambda seat: GoOut(seat, card))

    def meld(self, words: list[str] | None = None) -> None:
        cards = self._cards(words) if words else self.model.chosen_cards()
        if not cards:
            return
        view = self.model.view
        if view is not None and view.game == "gin":  # no melding in Gin: set aside to knock
            self.knock_meld(cards)
            return
        self.act(lambda seat: Meld(seat, tuple(cards)))

    def lay_off(self, words: list[str] | None = None) -> None:
        words = list(words or [])
        target: int | None = None
        if words and words[-1].lstrip("#").isdigit():
            target = int(words.pop().lstrip("#"))
        cards = self._cards(words) if words else self.model.chosen_cards()
        view = self.model.view
        if not cards or view is None:
            return
        if target is None:
            rules = view_meld_rules(view)
            fits = [i for i, (_, meld) in enumerate(view.melds)
                    if can_lay_off(meld, tuple(cards), rules)]
            if not fits and not view.melds:
                self.model.say("there is no meld on the table to lay off on", error=True)
                return
            target = fits[0] if fits else 0
        meld_no = target
        self.act(lambda seat: LayOff(seat, tuple(cards), meld_no))

    # ------------------------------------------------------------------ lobby

    def refresh(self) -> None:
        model = self.model

        async def run() -> None:
            try:
                games = await self.session.list_games()
                model.games, model.bots = games.games, games.bots
                tables = await self.session.list_tables()
            except ClientError as exc:
                model.say(f"could not list the tables: {exc}", error=True)
                return
            model.on_change()
            if self._listed:
                return
            self._listed = True
            # at the start only: a seat of ours in a running game that we left (a restart
            # of the client, after its bye): a house bot keeps it until we join again, so
            # rejoin. (A seat left with :leave from here stays left.)
            me = self.session.player_id
            ours = [t.table for t in tables if t.state == "playing"
                    and t.table not in self.session.tables
                    and any(s.player == me for s in t.seats)]
            for table in ours:
                try:
                    await self.session.join(table)
                except ClientError as exc:
                    model.say(f"could not sit again at table {table}: {exc}", error=True)
                    continue
                model.log.append(LogEntry("info", "you sit here again", table))
                if model.table is None:
                    model.open_table(table)

        self.spawn(run)

    def join(self, table: int, seat: int | None = None, code: str | None = None) -> None:
        model = self.model

        def opened(result: object) -> None:
            model.open_table(table)
            model.say(f"you sit at table {table}, seat {result}")

        self._request(lambda: self.session.join(table, seat, code=code), after=opened)

    def watch(self, table: int, code: str | None = None) -> None:
        model = self.model

        def opened(_: object) -> None:
            model.open_table(table)
            model.say(f"you watch table {table}")

        self._request(lambda: self.session.watch(table, code=code), after=opened)

    def _current_table(self) -> int | None:
        if self.model.screen == "table" and self.model.table is not None:
            return self.model.table
        info = self.model.selected_lobby_table()
        if info is None:
            self.model.say("no table selected", error=True)
            return None
        return info.table

    def add_bot(self, seat: int | None = None, strategy: str | None = None) -> None:
        table = self._current_table()
        if table is None:
            return
        info = self.model.source.lobby.get(table)
        if seat is None and info is not None:
            seat = next((s.seat for s in info.seats if s.kind == "empty"), None)
        if seat is None:
            self.model.say("no empty seat", error=True)
            return
        chosen = seat
        self._request(lambda: self.session.add_bot(table, chosen, strategy),
                      done=f"a house bot sits in seat {seat} of table {table}")

    def remove_bot(self, seat: int | None = None) -> None:
        table = self._current_table()
        if table is None:
            return
        info = self.model.source.lobby.get(table)
        if seat is None and info is not None:
            seat = next((s.seat for s in reversed(info.seats) if s.kind == "house"), None)
        if seat is None:
            self.model.say("no house bot to remove", error=True)
            return
        chosen = seat
        self._request(lambda: self.session.remove_bot(table, chosen),
                      done=f"the house bot left seat {seat}")

    def start(self) -> None:
        table = self._current_table()
        if table is None:
            return
        model = self.model

        def opened(_: object) -> None:
            if table in self.session.tables:
                model.open_table(table)

        self._request(lambda: self.session.start(table), done=f"table {table} started",
                      after=opened)

    def leave(self) -> None:
        table = self.model.table
        if table is None:
            return
        model = self.model

        def gone(_: object) -> None:
            model.screen, model.table = "lobby", None

        self._request(lambda: self.session.leave(table), done=f"you left table {table}",
                      after=gone)

    def say(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        table = self.model.table if self.model.screen == "table" else None
        self._request(lambda: self.session.say(text, table))

    def history(self) -> None:
        """The history screen: the games we played (where our name sat), newest first,
        as the server's journal keeps them; a page of them, the next asked for as the
        pointer nears the end (:meth:`more_history`)."""
        model = self.model
        model.screen, model.history, model.history_row = "history", None, 0
        model.history_more = False
        self._history_page(None)

    def more_history(self) -> None:
        """The next page of the history (older games), once the pointer nears the end of
        those listed and the server may have more."""
        model, games = self.model, self.model.history
        if games is None or not model.history_more or self._asking_history:
            return
        if len(games) >= HISTORY_MOST:
            model.history_more = False
            model.say(f"the history lists your {HISTORY_MOST} latest games")
            return
        self._history_page(games[-1].number)

    def _history_page(self, before: int | None) -> None:
        model = self.model
        self._asking_history = True

        async def run() -> None:
            try:
                games = await self.session.list_games_played(
                    name=self.session.name, limit=HISTORY_GAMES, before=before)
            except RequestRefused as exc:
                model.say(f"no history: {server_text(exc.message)}", error=True)
                games = ()
            except ClientError as exc:
                model.say(f"could not get your games: {exc}", error=True)
                games = ()
            finally:
                self._asking_history = False
            shown = model.history or ()
            if model.screen in ("history", "record") and (
                    before is None or (shown and shown[-1].number == before)):
                model.history = (*shown, *games) if before is not None else games
                model.history_more = len(games) == HISTORY_GAMES
            model.on_change()

        self.spawn(run)

    def open_record(self) -> None:
        """The record of the game under the history's pointer, hand by hand, in the words
        of ``rummyhall replay`` (its journal replayed here: every hand shown)."""
        model = self.model
        games = model.history or ()
        if not games:
            return
        game = games[min(max(model.history_row, 0), len(games) - 1)]
        if game.state != "finished":
            model.say(f"game #{game.number} is still being played: its record is kept when "
                      "it ends", error=True)
            return
        model.screen, model.record_number, model.record, model.record_top = (
            "record", game.number, None, 0)

        async def run() -> None:
            try:
                record, journal = await self.session.get_record(game.number)
                lines = tuple(replay_text(RecordedGame.of_wire(record, journal),
                                          card_symbols).lines)
            except RequestRefused as exc:
                lines = (f"No record: {server_text(exc.message)}",)
            except ClientError as exc:
                lines = (f"Could not get the record: {exc}",)
            except (RulesError, ValueError, KeyError, TypeError) as exc:  # (not a game)
                lines = (f"The record cannot be replayed: {exc}",)
            if model.record_number == game.number:
                model.record = lines
            model.on_change()

        self.spawn(run)

    # ------------------------------------------------------------------ the form

    def open_form(self, game: str | None = None) -> None:
        model = self.model
        if not model.games:
            model.say("the server's games are not known yet: try again", error=True)
            self.refresh()
            return
        form = CreateForm(model.games)
        form.select_game(0)
        if game is not None:
            error = form.set_text("game", game)
            if error:
                model.say(error, error=True)
        model.form, model.screen = form, "form"
        model.on_change()

    def create(self) -> None:
        form = self.model.form
        if form is None:
            return
        model = self.model
        game, players, options = form.game.game, form.players, form.options()
        turn, sit = form.turn_seconds, form.sit
        password = form.code if form.privacy == "password" else None
        if form.privacy == "password" and not password:
            model.say("a password table needs its password: :set code=...", error=True)
            return
        private = form.privacy != "open"

        async def run() -> None:
            try:
                table = await self.session.create_table(
                    game, players, options, turn_seconds=turn, password=password,
                    invite=form.privacy == "invite",
                    watch_code=form.watch_code if private else None)
            except RequestRefused as exc:
                model.say(server_text(exc.message), error=True)  # the form stays as it was
                return
            except (ClientError, LocalProtocolError) as exc:  # (a value out of range)
                model.say(f"not sent: {exc}", error=True)
                return
            model.form = None
            model.table, model.screen = table, "table"
            invite = self.session.invites.get(table)
            if invite is not None:
                model.say(f"table {table} is invite-only: share its code {invite}")
            elif password is not None:
                model.say(f"table {table} is private: players join with its password")
            if not sit:
                model.say(f"table {table} created: add house bots (b) and start (g)")
            else:
                try:
                    seat = await self.session.join(table)
                    model.open_table(table)
                    model.say(f"table {table} created; you sit in seat {seat}: add house "
                              "bots (b), then start (g)")
                except ClientError as exc:
                    model.say(str(exc), error=True)

        self.spawn(run)

    # ------------------------------------------------------------------ the command line

    def command(self, line: str) -> None:
        """Run one command line (see COMMANDS; each word's handler is in COMMAND_HANDLERS)."""
        line = line.strip()
        if not line:
            return
        word, _, rest = line.partition(" ")
        word = word.lower().lstrip(":/")
        if word not in QUIT_WORDS:
            self.model.stay()  # (asked whether to quit: another command, we stay)
        handler = COMMAND_HANDLERS.get(word) or self.extra_commands.get(word)
        if handler is None:
            self.model.say(f"unknown command {word!r}: press ? for help", error=True)
        else:
            handler(self, CommandWords.of(rest))
        self.model.on_change()

    # the handlers of the command line, one per command word (COMMAND_HANDLERS)

    def _cmd_say(self, words: CommandWords) -> None:
        self.say(words.rest)

    def _cmd_knock(self, words: CommandWords) -> None:
        model = self.model
        if not words.args and model.view and model.view.game == "gin" \
                and not model.chosen_cards():
            self.big_gin()  # knock with nothing chosen in Gin: the player means big gin
        else:
            self.knock(words.args)

    def _cmd_join(self, words: CommandWords) -> None:
        numbers, code = _numbers_and_code(words, 2)
        table = numbers[0] if numbers else self._current_table()
        if table is not None:
            self.join(table, numbers[1] if len(numbers) > 1 else None, code)

    def _cmd_watch(self, words: CommandWords) -> None:
        numbers, code = _numbers_and_code(words, 1)
        table = numbers[0] if numbers else self._current_table()
        if table is not None:
            self.watch(table, code)

    def _cmd_bot(self, words: CommandWords) -> None:
        strategy = next((a for a in words.args if not a.isdigit()), None)
        self.add_bot(words.ints[0] if words.ints else None, strategy)

    def _cmd_unbot(self, words: CommandWords) -> None:
        self.remove_bot(words.ints[0] if words.ints else None)

    def _cmd_create(self, words: CommandWords) -> None:
        self.open_form(words.args[0] if words.args else None)

    def _cmd_set(self, words: CommandWords) -> None:
        self._set(words.args)

    def _cmd_lobby(self, words: CommandWords) -> None:
        self.model.screen = "lobby"
        self.refresh()

    def _cmd_table(self, words: CommandWords) -> None:
        model = self.model
        table = words.ints[0] if words.ints else model.table
        if table is None or table not in self.session.tables:
            model.say("you neither sit at nor watch that table", error=True)
        else:
            model.open_table(table)

    def _cmd_scores(self, words: CommandWords) -> None:
        self.model.show_scores = not self.model.show_scores

    def _cmd_help(self, words: CommandWords) -> None:
        self.model.show_help = not self.model.show_help

    def _set(self, args: list[str]) -> None:
        form = self.model.form
        if form is None:
            self.model.say("open the create-table form first (n)", error=True)
            return
        for arg in args:
            name, sep, value = arg.partition("=")
            if not sep:
                self.model.say(f"expected NAME=VALUE, got {arg!r}", error=True)
                return
            error = form.set_text(name.strip(), value)
            if error:
                self.model.say(error, error=True)
                return
        # (a table password is a secret: the echo of the line does not show it)
        shown = ["code=***" if a.partition("=")[0].strip() == "code" else a for a in args]
        self.model.say("set " + ", ".join(shown))

    def describe_selection(self) -> str:
        return cards_text(self.model.chosen_cards())


@dataclass(frozen=True)
class CommandWords:
    """A command line's words after the command: as typed, split, and its numbers."""

    rest: str
    args: list[str]
    ints: list[int]

    @classmethod
    def of(cls, rest: str) -> CommandWords:
        try:
            args = shlex.split(rest)
        except ValueError:  # an unclosed quote: split on spaces
            args = rest.split()
        return cls(rest, args, [int(a) for a in args if a.isdigit()])


def _numbers_and_code(words: CommandWords, numbers: int) -> tuple[list[int], str | None]:
    """The leading numbers of a join or watch (at most ``numbers``), and the rest: a
    private table's code (``:join 3 1 tuesday club``), None when nothing follows."""
    taken: list[int] = []
    args = list(words.args)
    while args and args[0].isdigit() and len(taken) < numbers:
        taken.append(int(args.pop(0)))
    return taken, " ".join(args) or None


Handler = Callable[[Controller, CommandWords], None]
#: the commands that quit (asking first at a game where we sit, as Ctrl-Q does)
QUIT_WORDS = ("quit", "exit")


def _plain(name: str) -> Handler:
    """A command that takes no words: the controller's method ``name``."""
    return lambda controller, _: getattr(controller, name)()


def _with_cards(name: str) -> Handler:
    """A command whose words are cards."""
    return lambda controller, words: getattr(controller, name)(words.args)


def _with_words(name: str) -> Handler:
    """A command that reads its words itself (a ``_cmd_`` method)."""
    return lambda controller, words: getattr(controller, name)(words)


#: command word -> handler; aliases share their command's handler. Handlers find their
#: method by name, so that a subclass's (a test's) methods are the ones called.
COMMAND_HANDLERS: dict[str, Handler] = {
    "stock": _plain("draw_stock"), "draw": _plain("draw_stock"),
    "pile": _plain("draw_pile"), "take": _plain("draw_pile"),
    "pass": _plain("pass_upcard"), "rummy": _plain("declare_rummy"),
    "biggin": _plain("big_gin"), "start": _plain("start"), "leave": _plain("leave"),
    "refresh": _plain("refresh"), "quit": _plain("quit"), "exit": _plain("quit"),
    "discard": _with_cards("discard"), "meld": _with_cards("meld"),
    "layoff": _with_cards("lay_off"), "out": _with_cards("go_out"),
    "knock": _with_words("_cmd_knock"),
    "say": _with_words("_cmd_say"), "chat": _with_words("_cmd_say"),
    "'": _with_words("_cmd_say"),
    "join": _with_words("_cmd_join"), "watch": _with_words("_cmd_watch"),
    "bot": _with_words("_cmd_bot"), "unbot": _with_words("_cmd_unbot"),
    "create": _with_words("_cmd_create"), "set": _with_words("_cmd_set"),
    "lobby": _with_words("_cmd_lobby"), "table": _with_words("_cmd_table"),
    "scores": _with_words("_cmd_scores"), "help": _with_words("_cmd_help"),
    "history": _plain("history"), "games": _plain("history"),
    "?": _with_words("_cmd_help"),
}
