"""The console's view-model: what the screens show, as pure state and pure formatting.

The game state is the client library's (:class:`~rummyhall.client.Session` keeps every
table's :class:`~rummyhall.client.TableState` up to date); :class:`ConsoleModel` only adds
what belongs to the screen: which screen and table are shown, the card cursor and the
selection, the event log and chat, the create-table form, the clocks and the banner.
Everything that turns game state into text lives here as plain functions that return
prompt_toolkit style fragments, so tests can read the screen without a terminal.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from rummyhall.client.fairness import DealVerdict
from rummyhall.client.session import TableState, Update
from rummyhall.client.wording import SUIT_SYMBOLS, card_symbols, event_words, note_words
from rummyhall.protocol import Chat, GameInfo, Notice, OptionInfo, PlayedGame, TableInfo, Turn
from rummyhall.rules import (
    Arrangement,
    Card,
    Event,
    GameOver,
    HandDealt,
    HandScored,
    SeatAction,
    SeatView,
    Showdown,
    WentOut,
    best_arrangement,
    view_meld_rules,
)

from .fitting import short_names

Fragments = StyleAndTextTuples

GAME_TITLES = {"basic": "Basic Rummy", "gin": "Gin Rummy", "chicago": "Chicago Rummy",
               "three_thirteen": "Three Thirteen"}
SUIT_STYLES = ("class:suit.black", "class:suit.red", "class:suit.red", "class:suit.black")
LOG_LINES = 300
LOG_NAME = 16  # a name in the log takes at most this many columns (the log is 24 or more)
SPARK = "▁▂▃▄▅▆▇█"


class GameSource(Protocol):
    """What the console reads of the client library (a :class:`Session` is one)."""

    name: str
    player_id: int | None
    server_name: str | None
    connected: bool
    tables: dict[int, TableState]
    lobby: dict[int, TableInfo]


# ---------------------------------------------------------------------- cards


def card_text(card: int) -> str:
    """A card in two characters: ``T♦``, ``A♠``; ``JK`` for a joker."""
    return card_symbols(card)


_CARD_IN_TEXT = re.compile(r"\b([2-9TJQKA])([cdhs])(?:#\d+)?\b")


def server_text(text: str) -> str:
    """A server's message with its cards written as the screen shows them (``7d`` is
    ``7♦``), so that a refusal names the card the player sees."""
    return _CARD_IN_TEXT.sub(lambda m: m[1] + SUIT_SYMBOLS["cdhs".index(m[2])], text)


def card_fragment(card: int, extra: str = "") -> tuple[str, str]:
    """A card as a styled fragment (red or black suit, plus ``extra`` classes)."""
    c = Card(card)
    style = "class:suit.joker" if c.is_joker else SUIT_STYLES[c.suit]
    return (f"{style} {extra}".strip(), card_text(c))


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def cards_fragments(cards: Sequence[int]) -> Fragments:
    out: Fragments = []
    for i, c in enumerate(cards):
        if i:
            out.append(("", " "))
        out.append(card_fragment(c))
    return out


def arrange(view: SeatView) -> Arrangement:
    """The seat's hand in its best melds and the deadwood left."""
    return best_arrangement(view.hand, view_meld_rules(view))


def hand_order(view: SeatView) -> list[list[Card]]:
    """The hand as display groups: each best meld, then the deadwood (sorted)."""
    if not view.hand:
        return []
    a = arrange(view)
    groups = [list(m) for m in a.melds]
    groups.sort(key=min)
    if a.deadwood:
        groups.append(list(a.deadwood))
    return groups


def flat_hand(view: SeatView) -> list[Card]:
    """The hand in display order (the cursor walks this list)."""
    return [c for g in hand_order(view) for c in g]


# ---------------------------------------------------------------------- names


def seat_name(info: TableInfo | None, seat: int | None, me: int | None = None) -> str:
    if seat is None:
        return "nobody"
    if me is not None and seat == me:
        return "you"
    if info is not None and 0 <= seat < len(info.seats) and info.seats[seat].name:
        name = str(info.seats[seat].name)
        twins = sum(1 for s in info.seats if s.name == name)
        return f"{name} {seat}" if twins > 1 else name  # two "simple bot"s
    return f"seat {seat}"


def note_text(note: str, info: TableInfo | None) -> str:
    """A scoring note of the rules engine ("seat 1 scores 25") with the seats' names (as
    short as the log's)."""
    players = len(info.seats) if info is not None else 0
    names = seat_names(info, players, LOG_NAME)
    return note_words(note, lambda seat: names[seat] if 0 <= seat < players
                      else seat_name(info, seat))


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, keeping a final seat number ("strong bot 2"
    becomes "stron…2", so that two bots of one strategy stay apart)."""
    if len(text) <= width:
        return text
    head, _, tail = text.rpartition(" ")
    if head and tail.isdigit() and len(tail) < width - 1:
        return text[:width - len(tail) - 1] + "…" + tail
    return text[:width - 1] + "…"


def options_summary(game: str, options: Mapping[str, bool | int | str],
                    defaults: Mapping[str, bool | int | str] | None = None) -> str:
    """The options that differ from the defaults (all of them when defaults are unknown)."""
    shown = {k: v for k, v in options.items() if defaults is None or defaults.get(k) != v}
    if not shown:
        return "default rules"
    return ", ".join(f"{k}={_value_text(v)}" for k, v in sorted(shown.items()))


def _value_text(value: bool | int | str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# ---------------------------------------------------------------------- events


def event_line(event: Event, info: TableInfo | None, me: int | None) -> str:
    """One event as a line of the log (the words of :mod:`rummyhall.client.wording`)."""
    players = len(info.seats) if info is not None else 0
    names = seat_names(info, players, LOG_NAME, me)

    def who(seat: int) -> str:
        return names[seat] if 0 <= seat < players else seat_name(info, seat, me)

    return event_words(event, who, card_text,
                       options=info.options if info is not None else None)


# ---------------------------------------------------------------------- scores


def seat_names(info: TableInfo | None, players: int, width: int,
               me: int | None = None) -> list[str]:
    """Every seat's name in at most ``width`` columns, told apart (see
    :func:`~.fitting.short_names`)."""
    return short_names([seat_name(info, s, me) for s in range(players)], width)


def score_sheet(view: SeatView, info: TableInfo | None, width: int = 80,
                rows: int = 1_000) -> list[str]:
    """The running score sheet: one row per scored hand (the latest that fit in ``rows``),
    then the totals; every seat's column fits in ``width``."""
    col = min(8, max(5, (width - 11) // max(1, view.players)))
    word = max(4, min(9, width - col * view.players - 6))  # the outcome's column
    names = seat_names(info, view.players, col - 1)
    head = pad("hand outcome", word + 6) + "".join(pad(n, col, right=True) for n in names)
    body = [f"{r.hand_no:>4} {r.outcome[:word]:<{word}} " + "".join(
        f"{p:>+{col}}" if p else f"{'.':>{col}}" for p in r.points) for r in view.results]
    room = max(1, rows - 2)
    if len(body) > room:
        body = ["   …", *body[-(room - 1):]] if room > 1 else body[-1:]
    total = pad("     total", word + 6) + "".join(f"{t:>{col}}" for t in view.scores)
    return [head, *body, total]


def score_chart(view: SeatView, info: TableInfo | None, width: int = 45) -> list[str]:
    """A small chart: each seat's total after every hand, as a sparkline, and its total:
    a line per seat, every seat, in ``width`` columns."""
    if not view.results:
        return ["(no hand scored yet)"]
    names = seat_names(info, view.players, 8)
    spark_width = max(3, min(30, width - 8 - 2 - 6))
    series = [[r.totals[s] for r in view.results] for s in range(view.players)]
    top = max((v for row in series for v in row), default=0)
    low = min((v for row in series for v in row), default=0)
    span = max(top - low, 1)
    lines = []
    for s, row in enumerate(series):
        row = row[-spark_width:]
        spark = "".join(SPARK[min(7, (v - low) * 8 // (span + 1))] for v in row)
        lines.append(f"{pad(names[s], 8)} {spark} {row[-1]}")
    return lines


def pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` columns (on the left with ``right``)."""
    fill = " " * max(0, width - get_cwidth(text))
    return fill + text if right else text + fill


def showdown_lines(showdown: Showdown, info: TableInfo | None, me: int | None) -> list[str]:
    """The revealed hands: melds, layoffs and deadwood with its points."""
    lines = []
    for r in showdown.reveals:
        if r.state != "shown":  # a dead or void hand shows nothing; a seat out of the hand
            lines.append(f"{seat_name(info, r.seat, me)}: " + (
                "not dealt in" if r.state == "out" else "cards not shown"))
            continue
        melds = "  ".join("[" + cards_text(m) + "]" for m in r.melds) or "no melds"
        lines.append(f"{seat_name(info, r.seat, me)}: {melds}")
        extra = ""
        if r.layoffs:
            extra = "laid off " + " ".join(f"{card_text(c)}→#{i}" for c, i in r.layoffs) + "; "
        lines.append(f"   {extra}deadwood {cards_text(r.deadwood) or '-'} = {r.points}")
    return lines


# ---------------------------------------------------------------------- actions


@dataclass(frozen=True)
class ActionKey:
    """One action of the action bar: its key, its label, and the action kinds it sends."""

    key: str
    label: str
    kinds: tuple[str, ...]


ACTION_KEYS = {
    "gin": (ActionKey("s", "stock", ("draw_stock",)), ActionKey("p", "pile", ("draw_discard",)),
            ActionKey("x", "pass", ("pass",)), ActionKey("d", "discard", ("discard",)),
            ActionKey("m", "set meld", ("knock",)),
            ActionKey("k", "knock", ("knock",)), ActionKey("K", "big gin", ("knock",))),
    "basic": (ActionKey("s", "stock", ("draw_stock",)), ActionKey("p", "pile", ("draw_discard",)),
              ActionKey("m", "meld", ("meld",)), ActionKey("l", "lay off", ("layoff",)),
              ActionKey("d", "discard", ("discard",))),
    "chicago": (ActionKey("s", "stock", ("draw_stock",)),
                ActionKey("p", "pile", ("draw_discard",)),
                ActionKey("r", "rummy", ("declare_rummy",)),
                ActionKey("d", "discard", ("discard",)), ActionKey("k", "knock", ("knock",))),
    "three_thirteen": (ActionKey("s", "stock", ("draw_stock",)),
                       ActionKey("p", "pile", ("draw_discard",)),
                       ActionKey("d", "discard", ("discard",)),
                       ActionKey("o", "go out", ("go_out",))),
}


def legal_kinds(state: TableState) -> set[str]:
    """The kinds of the legal actions of the pending turn (empty when not our turn)."""
    return {a.kind for a in state.legal}


def turn_hint(state: TableState, legal: Sequence[SeatAction]) -> str:
    """What the player may do now, in words."""
    kinds = {a.kind for a in legal}
    if not kinds:
        return ""
    if "pass" in kinds:
        return "Your turn: take the upcard (p) or pass (x)"
    if "draw_stock" in kinds or "draw_discard" in kinds:
        extra = " or declare rummy (r)" if "declare_rummy" in kinds else ""
        return f"Your turn: draw from the stock (s) or the pile (p){extra}"
    words = ["meld (m)"] if "meld" in kinds else []
    if "layoff" in kinds:
        words.append("lay off (l)")
    words.append("discard (d)")
    if "knock" in kinds:
        words.append("knock (k)")
    if "go_out" in kinds:
        words.append("go out (o)")
    return "Your turn: " + ", ".join(words)


# ---------------------------------------------------------------------- the form


@dataclass
class CreateForm:
    """The create-table form: a game, its player count, the timer and every option."""

    games: tuple[GameInfo, ...]
    game_index: int = 0
    players: int = 2
    turn_seconds: int = 0
    values: dict[str, bool | int | str] = field(default_factory=dict)
    row: int = 0
    sit: bool = True
    #: open, password (``code`` is the table password) or invite (the server makes one)
    privacy: str = "open"
    code: str = field(default="", repr=False)
    #: a private table's spectators need the code too (else anybody may watch)
    watch_code: bool = True

    @property
    def game(self) -> GameInfo:
        return self.games[self.game_index]

    def rows(self) -> list[str]:
        """The names of the form's rows: fixed fields, then the game's options."""
        return ["game", "players", "turn_seconds", "sit", "privacy", "code", "watch_code",
                *(o.name for o in self.game.options)]

    def option(self, name: str) -> OptionInfo | None:
        return next((o for o in self.game.options if o.name == name), None)

    def value(self, name: str) -> bool | int | str:
        if name == "game":
            return self.game.game
        if name == "players":
            return self.players
        if name == "turn_seconds":
            return self.turn_seconds
        if name == "sit":
            return self.sit
        if name == "privacy":
            return self.privacy
        if name == "code":  # (never shown: a password typed with :set code=...)
            return "*" * len(self.code) if self.code else "(:set code=...)"
        if name == "watch_code":
            return self.watch_code
        opt = self.option(name)
        assert opt is not None
        return self.values.get(name, opt.default)

    def select_game(self, index: int) -> None:
        self.game_index = index % len(self.games)
        self.players = self.game.min_players
        self.values = {}
        self.row = min(self.row, len(self.rows()) - 1)

    def step(self, delta: int) -> None:
        """Change the value of the current row: next or previous choice, or +/- 1."""
        name = self.rows()[self.row]
        if name == "game":
            self.select_game(self.game_index + delta)
        elif name == "players":
            g = self.game
            self.players = min(max(self.players + delta, g.min_players), g.max_players)
        elif name == "turn_seconds":
            self.turn_seconds = min(max(0, self.turn_seconds + 15 * delta), MAX_TURN_SECONDS)
        elif name == "sit":
            self.sit = not self.sit
        elif name == "privacy":
            i = PRIVACY.index(self.privacy)
            self.privacy = PRIVACY[(i + delta) % len(PRIVACY)]
        elif name == "watch_code":
            self.watch_code = not self.watch_code
        elif name == "code":
            pass  # typed, not stepped
        else:
            opt = self.option(name)
            assert opt is not None
            self.values[name] = _step_option(opt, self.value(name), delta)

    def set_text(self, name: str, text: str) -> str | None:
        """Set a row from typed text, checked as typed: only an allowed value is taken.

        Returns why not (and changes nothing) for a row that does not exist or a value
        that the row does not allow; None once set.
        """
        if name not in self.rows():
            return f"no field {name!r}; fields: {', '.join(self.rows())}"
        lowered = text.strip().lower()
        if name in ("code", "privacy"):
            return self._set_privacy(name, text)
        if name == "game":
            for i, g in enumerate(self.games):
                if g.game == lowered:
                    self.select_game(i)
                    return None
            return f"no game {text!r}; games: {', '.join(g.game for g in self.games)}"
        value = _typed(text)
        if name == "players":
            g = self.game
            if not _is_int(value) or not g.min_players <= int(value) <= g.max_players:
                return (f"players: {g.title} is for {g.min_players} to {g.max_players} "
                        "players")
            self.players = int(value)
        elif name == "turn_seconds":
            if not _is_int(value) or not 0 <= int(value) <= MAX_TURN_SECONDS:
                return f"turn_seconds: a number of seconds from 0 (no timer) to " \
                       f"{MAX_TURN_SECONDS}"
            self.turn_seconds = int(value)
        elif name == "sit":
            if not isinstance(value, bool):
                return "sit: yes or no"
            self.sit = value
        elif name == "watch_code":
            if not isinstance(value, bool):
                return "watch_code: yes or no"
            self.watch_code = value
        else:
            opt = self.option(name)
            assert opt is not None
            if not option_allows(opt, value):
                return f"{name}: {opt.allowed}"
            self.values[name] = value
        self.row = self.rows().index(name)
        return None

    def _set_privacy(self, name: str, text: str) -> str | None:
        """``code`` (a table password: the table becomes a password table) or ``privacy``."""
        if name == "code":
            self.code = text.strip()
            if self.code and self.privacy == "open":
                self.privacy = "password"
        elif text.strip().lower() in PRIVACY:
            self.privacy = text.strip().lower()
        else:
            return f"privacy is one of {', '.join(PRIVACY)}"
        self.row = self.rows().index(name)
        return None

    def options(self) -> dict[str, bool | int | str]:
        """The options that differ from the defaults (what create_table sends)."""
        return {k: v for k, v in self.values.items()
                if (o := self.option(k)) is not None and o.default != v}


MAX_TURN_SECONDS = 3_600  # the form's longest timer (the protocol allows a day)


def _typed(text: str) -> bool | int | str:
    """Typed text as a value: yes/no words as booleans, a number as an integer."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    try:
        return int(lowered)
    except ValueError:
        return lowered


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def option_allows(opt: OptionInfo, value: bool | int | str) -> bool:
    """Whether ``value`` is one of the values the option allows (as the server checks)."""
    if opt.type == "bool":
        return isinstance(value, bool)
    if opt.type == "enum":
        return isinstance(value, str) and value in opt.choices
    if opt.type == "int_or_auto" and value == "auto":
        return True
    if not _is_int(value):
        return False
    assert isinstance(value, int)
    if opt.values:
        return value in opt.values
    return ((opt.low is None or value >= opt.low) and (opt.high is None or value <= opt.high))


PRIVACY = ("open", "password", "invite")
"""A new table's privacy: open to all, a password (the form's code), or an invite code."""


def _step_option(opt: OptionInfo, value: bool | int | str, delta: int) -> bool | int | str:
    if opt.type == "bool":
        return not value
    if opt.type == "enum" and opt.choices:
        i = opt.choices.index(str(value)) if value in opt.choices else 0
        return opt.choices[(i + delta) % len(opt.choices)]
    if opt.values:
        vals = list(opt.values)
        i = vals.index(value) if value in vals else 0
        return vals[(i + delta) % len(vals)]
    if opt.type == "int_or_auto" and value == "auto":
        return opt.low if delta > 0 and opt.low is not None else "auto"
    if isinstance(value, int):
        new = value + delta
        if opt.type == "int_or_auto" and opt.low is not None and new < opt.low:
            return "auto"
        if opt.low is not None:
            new = max(new, opt.low)
        if opt.high is not None:
            new = min(new, opt.high)
        return new
    return value


# ---------------------------------------------------------------------- the model


def _clock(seconds: float) -> str:
    """A countdown as m:ss, rounded up (0:00 only at the end)."""
    left = max(0, int(seconds + 0.999))
    return f"{left // 60}:{left % 60:02d}"


@dataclass
class LogEntry:
    """A line of the log; ``table`` is the table it tells of (shown as "#3" while
    another table, or the lobby, is on the screen)."""

    kind: str  # event, chat, notice, info, error (a refusal, a deal that failed its check)
    text: str
    table: int | None = None

    def shown(self, current: int | None) -> str:
        """The line as the log shows it while table ``current`` is on the screen."""
        return self.text if self.table is None or self.table == current else (
            f"#{self.table} {self.text}")


@dataclass
class ConsoleModel:
    """The console's state on top of the session's game state (which it only reads)."""

    source: GameSource
    color: bool = True
    screen: str = "lobby"  # lobby, table, form, history, record
    table: int | None = None
    lobby_row: int = 0
    cursor: int = 0
    #: the card under the cursor: the cursor stays on it when the hand is sorted again
    cursor_at: Card | None = None
    selected: set[Card] = field(default_factory=set)
    #: Gin: the melds set aside (m) for the next knock (k), which lays them itself
    knock_melds: list[tuple[Card, ...]] = field(default_factory=list)
    status: str = ""
    status_error: bool = False
    log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    banner: str | None = None
    #: while reconnecting: when the client gives up, and until when the server holds
    #: our seats at least (None: none held), both on time.monotonic()
    reconnect_until: float | None = None
    seat_held_until: float | None = None
    games: tuple[GameInfo, ...] = ()
    bots: tuple[str, ...] = ()
    form: CreateForm | None = None
    #: the history screen: our games played, newest first (None: not come yet), and the
    #: one under its pointer
    history: tuple[PlayedGame, ...] | None = None
    history_row: int = 0
    #: older games may be on the server (the last page asked for came full)
    history_more: bool = False
    #: the record screen: the game opened from the history, its record in the words of
    #: ``rummyhall replay`` (None: not come yet) and the first of its rows shown
    record_number: int | None = None
    record: tuple[str, ...] | None = None
    record_top: int = 0
    show_help: bool = False
    #: Ctrl-Q (or :quit) was asked at a game where we sit: a second one quits
    confirm_quit: bool = False
    help_page: int = 0
    show_scores: bool = False
    scores_page: int = 0
    #: table -> (seat to move, time.monotonic() deadline or None)
    clocks: dict[int, tuple[int, float | None]] = field(default_factory=dict)
    #: table -> the latest showdown (the view forgets it at the next deal; the screen not)
    showdowns: dict[int, Showdown] = field(default_factory=dict)
    #: table -> the seat that went out this hand (Three Thirteen's last turns)
    went_out: dict[int, int] = field(default_factory=dict)
    finished: bool = False
    #: table -> the move of our pending your_turn, and of the last action we sent
    prompted: dict[int, int | None] = field(default_factory=dict)
    acted: dict[int, int | None] = field(default_factory=dict)
    on_change: Callable[[], None] = lambda: None

    # ------------------------------------------------------------------ reading

    @property
    def state(self) -> TableState | None:
        return self.source.tables.get(self.table) if self.table is not None else None

    @property
    def view(self) -> SeatView | None:
        state = self.state
        return state.view if state is not None else None

    @property
    def info(self) -> TableInfo | None:
        if self.table is None:
            return None
        state = self.state
        if state is not None and state.info is not None:
            return state.info
        return self.source.lobby.get(self.table)

    def lobby_tables(self) -> list[TableInfo]:
        return [self.source.lobby[t] for t in sorted(self.source.lobby)]

    def selected_lobby_table(self) -> TableInfo | None:
        tables = self.lobby_tables()
        if not tables:
            return None
        self.lobby_row = min(max(self.lobby_row, 0), len(tables) - 1)
        return tables[self.lobby_row]

    def hand(self) -> list[Card]:
        view = self.view
        return flat_hand(view) if view is not None else []

    def cursor_card(self) -> Card | None:
        """The card under the cursor: the one it was put on while that is in the hand (a
        draw sorts the hand again), else the one at its place."""
        hand = self.hand()
        return self._place_cursor(hand) if hand else None

    def _place_cursor(self, hand: list[Card]) -> Card:
        """Set the cursor's place in ``hand`` (not empty) from its card; that card."""
        if self.cursor_at in hand:
            self.cursor = hand.index(self.cursor_at)
        else:
            self.cursor = min(max(self.cursor, 0), len(hand) - 1)
            self.cursor_at = hand[self.cursor]
        return hand[self.cursor]

    def chosen_cards(self) -> list[Card]:
        """The selected cards still in the hand, else the card under the cursor."""
        hand = self.hand()
        chosen = [c for c in hand if c in self.selected]
        if chosen:
            return chosen
        card = self.cursor_card()
        return [card] if card is not None else []

    def defaults(self, game: str) -> dict[str, bool | int | str] | None:
        for g in self.games:
            if g.game == game:
                return {o.name: o.default for o in g.options}
        return None

    def my_seat_tables(self) -> list[int]:
        return sorted(t for t, s in self.source.tables.items() if s.view is not None
                      or s.info is not None)

    def clock_text(self, table: int) -> str | None:
        """The turn clock of ``table`` as m:ss, when a timer runs."""
        entry = self.clocks.get(table)
        if entry is None or entry[1] is None:
            return None
        left = max(0, int(entry[1] - time.monotonic() + 0.999))
        return f"{left // 60}:{left % 60:02d}"

    def quit_warning(self) -> str:
        """What quitting costs now: at a game where we sit, the seat goes to a house bot
        after the table's grace period (empty: nothing is lost)."""
        sitting = [t for t, s in self.source.tables.items() if s.view is not None
                   and s.view.seat is not None and s.view.phase != "game_over"
                   and (s.info is None or s.info.state == "playing")]
        if not sitting:
            return ""
        grace = max(s.info.grace_seconds for t in sitting
                    if (s := self.source.tables[t]).info is not None) if any(
            self.source.tables[t].info is not None for t in sitting) else None
        after = f"{grace} s" if grace is not None else "the grace period"
        where = f"table {sitting[0]}" if len(sitting) == 1 else "your tables"
        return (f"Quit? You sit at {where}: a house bot plays your seat after {after} "
                "(come back before, and it is yours again).")

    def ask_to_quit(self) -> bool:
        """Ctrl-Q, ``:quit`` or ``:exit``: whether to quit now. At a game where we sit the
        first asks (the status line says what quitting costs) and the second quits."""
        if self.confirm_quit:
            return True
        warning = self.quit_warning()
        if not warning:
            return True
        self.confirm_quit = True
        self.status, self.status_error = warning + (
            " Ctrl-Q or :quit again (or y) quits; any other key stays."), True
        self.on_change()
        return False

    def stay(self) -> None:
        """Another key or command after :meth:`ask_to_quit` asked: we stay."""
        if self.confirm_quit:
            self.confirm_quit = False
            self.status, self.status_error = "", False

    def banner_text(self) -> str | None:
        """The banner, with the reconnection's countdown while there is one."""
        if self.banner is None or self.reconnect_until is None or self.finished:
            return self.banner
        now = time.monotonic()
        if self.seat_held_until is not None and self.seat_held_until > now:
            return (f"{self.banner} Your seat is held {_clock(self.seat_held_until - now)} "
                    "more, then a house bot plays it.")
        return f"{self.banner} Trying {_clock(self.reconnect_until - now)} more."

    # ------------------------------------------------------------------ changing

    def say(self, text: str, *, error: bool = False) -> None:
        """Put a line in the status bar (and the log)."""
        self.status, self.status_error = text, error
        if not error:  # a refusal stays in the status line only: the log is the game's
            self.log.append(LogEntry("info", text))
        self.on_change()

    def open_table(self, table: int) -> None:
        self.table, self.screen = table, "table"
        self.cursor, self.cursor_at, self.selected = 0, None, set()
        self.knock_melds = []
        self.show_scores = False
        self.on_change()

    def move_cursor(self, delta: int) -> None:
        hand = self.hand()  # (arranged into melds: once per key)
        if hand:
            self._place_cursor(hand)
            self.cursor = (self.cursor + delta) % len(hand)
            self.cursor_at = hand[self.cursor]
        self.on_change()

    def cursor_home(self) -> None:
        hand = self.hand()
        if hand:
            self.cursor, self.cursor_at = 0, hand[0]
        self.on_change()

    def toggle_selected(self) -> None:
        card = self.cursor_card()
        if card is not None:
            self.selected ^= {card}
        self.on_change()

    def on_update(self, update: Update, seconds_left: float | None = None) -> None:
        """Take one update of the session into the screen state.

        ``seconds_left`` is the time left to act, for turn and your_turn updates (the
        session counts in trio's clock; the screen counts in ``time.monotonic``). Each
        kind of update has its handler in ``_UPDATE_HANDLERS``; other kinds only redraw.
        """
        deadline = time.monotonic() + seconds_left if seconds_left is not None else None
        handler = _UPDATE_HANDLERS.get(update.kind)
        if handler is not None:
            handler(self, update, deadline)
        self.on_change()

    # the handlers of on_update, one per kind of update (_UPDATE_HANDLERS)

    def _on_connection(self, update: Update, deadline: float | None) -> None:
        if update.payload == "lost":
            self.banner = "Connection lost: reconnecting…"
        elif update.payload == "resumed":
            self.banner, self.reconnect_until, self.seat_held_until = None, None, None
            self.log.append(LogEntry("info", "reconnected"))
            if self.status_error:
                self.status, self.status_error = "", False  # (an offline refusal)
        else:
            reason = getattr(self.source, "closed_reason", None)
            why = f": {reason}" if reason is not None and str(reason) else ""
            self.banner = f"Disconnected from the server{why} (press Ctrl-Q to quit)"
            self.finished = True

    def _on_chat(self, update: Update, deadline: float | None) -> None:
        msg = update.payload
        if isinstance(msg, Chat):
            self.log.append(LogEntry("chat", f"<{msg.name}> {msg.text}", msg.table))

    def _on_notice(self, update: Update, deadline: float | None) -> None:
        msg = update.payload
        if isinstance(msg, Notice):  # the host speaking: in the log and the status line
            self.log.append(LogEntry("notice", f"[host] {msg.text}"))
            self.status, self.status_error = f"[host] {msg.text}", False

    def _on_event(self, update: Update, deadline: float | None) -> None:
        table = update.table
        if table is None:
            return
        state = self.source.tables.get(table)
        info = state.info if state is not None else None
        me = state.seat if state is not None else None
        event = update.payload
        # a move of our seat that we did not send: the server's timeout action
        prompted = self.prompted.pop(table, None)
        timed_out = (me is not None and getattr(event, "seat", None) == me
                     and prompted is not None and self.acted.get(table) != prompted)
        line = event_line(event, info, me) + (" (time ran out)" if timed_out else "")
        if isinstance(event, WentOut):  # (Three Thirteen: the others play one more turn)
            self.went_out[table] = event.seat
        self.log.append(LogEntry("event", line, table))
        if isinstance(event, (HandScored, GameOver)):
            out = self.went_out.pop(table, None)  # told once: not again in the notes
            self.log.extend(LogEntry("event", "  " + note_text(n, info), table)
                            for n in event.notes if out is None or n != f"seat {out} went out")
            if table == self.table:
                self.show_scores, self.scores_page = True, 0
        elif isinstance(event, Showdown):
            self.showdowns[table] = event
        elif isinstance(event, HandDealt):
            self.went_out.pop(table, None)
            if table == self.table:
                self.selected = set()
                self.knock_melds = []
        self.clocks.pop(table, None)

    def _on_turn(self, update: Update, deadline: float | None) -> None:
        if isinstance(update.payload, Turn) and update.table is not None:
            self.clocks[update.table] = (update.payload.seat, deadline)

    def _on_your_turn(self, update: Update, deadline: float | None) -> None:
        table = update.table
        if table is None:
            return
        state = self.source.tables.get(table)
        if state is not None and state.seat is not None:
            self.clocks[table] = (state.seat, deadline)
            self.prompted[table] = state.move
        if table == self.table:
            self.show_scores = False  # the keys play: the hand must be in sight

    def _on_snapshot(self, update: Update, deadline: float | None) -> None:
        table = update.table
        if table is not None and self.table is None:
            state = self.source.tables.get(table)
            if state is not None and state.seat is not None:
                self.open_table(table)  # resumed into a seat: show it

    def _on_deal_check(self, update: Update, deadline: float | None) -> None:
        """A hand's shuffle checked (docs/protocol.md, "Verifiable deals"): the mark in
        the log, or a loud warning there and in the banner."""
        verdict = update.payload
        if not isinstance(verdict, DealVerdict):
            return
        where = f"#{update.table} " if update.table != self.table else ""
        if verdict.ok:
            self.log.append(LogEntry("info", f"{where}✓ {verdict.words()}"))
            return
        self.log.append(LogEntry("error", f"{where}{verdict.words()}"))
        self.banner = (f"{where}WARNING: hand {verdict.hand}'s deal failed its check: the "
                       "cards were not the ones the server committed to (see the log)")

    def _on_table_removed(self, update: Update, deadline: float | None) -> None:
        table = update.table
        if table == self.table and table not in self.source.tables:
            self.screen, self.table = "lobby", None


#: update kind -> ConsoleModel's handler (see ConsoleModel.on_update)
_UPDATE_HANDLERS: dict[str, Callable[[ConsoleModel, Update, float | None], None]] = {
    "connection": ConsoleModel._on_connection, "chat": ConsoleModel._on_chat,
    "notice": ConsoleModel._on_notice,
    "event": ConsoleModel._on_event, "turn": ConsoleModel._on_turn,
    "your_turn": ConsoleModel._on_your_turn, "snapshot": ConsoleModel._on_snapshot,
    "table_removed": ConsoleModel._on_table_removed, "deal_check": ConsoleModel._on_deal_check,
}
