"""The console's screens: the text of each pane, built from the model, and the layout.

Each ``*_text`` function turns the :class:`ConsoleModel` into prompt_toolkit fragments;
:func:`build_layout` arranges them (title, banner, main pane and log, status line,
action bar, command line) the way prompt_toolkit's full-screen examples do.
"""

from __future__ import annotations

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput

from rummyhall.client.session import TableState
from rummyhall.protocol import TableInfo
from rummyhall.rules import SeatView

from .controller import COMMANDS
from .model import (
    ACTION_KEYS,
    GAME_TITLES,
    ConsoleModel,
    Fragments,
    arrange,
    card_fragment,
    cards_fragments,
    fit,
    hand_order,
    legal_kinds,
    note_text,
    options_summary,
    score_chart,
    score_sheet,
    seat_name,
    showdown_lines,
    turn_hint,
)

LOG_WIDTH = 28

KEY_HELP = [
    ("Lobby", [("↑/↓", "pick a table"), ("Enter", "open / join the table"), ("j", "join"),
               ("w", "watch"), ("n", "new table (form)"), ("b / B", "add / remove a house bot"),
               ("g", "start the game"), ("r", "refresh")]),
    ("Table", [("←/→", "move over your cards"), ("Home", "to the first card"),
               ("Space", "select cards (for m and l)"),
               ("s / p", "draw: stock / discard pile"), ("x", "pass (Gin upcard)"),
               ("d", "discard the cursor's card"),
               ("m", "meld the selected cards (Gin: for the knock)"),
               ("l", "lay off on a table meld"), ("k / o", "knock / go out with it"),
               ("K", "big gin (Gin)"), ("r", "Chicago: rummy; else refresh"),
               ("Tab", "scores and last hand"), ("L", "lobby"),
               ("b / g", "add bot / start (or again)")]),
    ("Anywhere", [(":", "command line (Tab completes)"), ("t", "chat"), ("?", "this help"),
                  ("Esc", "back / close"), ("Ctrl-Q", "quit")]),
]


def seat_fragments(model: ConsoleModel, table: int) -> Fragments:
    """The seats of a lobby table: names, bots, connection."""
    info = model.source.lobby.get(table)
    if info is None:
        return []
    out: Fragments = []
    for i, s in enumerate(info.seats):
        if i:
            out.append(("", ", "))
        if s.kind == "empty":
            out.append(("class:dim", "(empty)"))
        elif s.kind == "house":
            out.append(("", f"{s.bot or 'house'} bot"))
        else:
            out.append(("class:me" if s.player == model.source.player_id else "",
                        s.name or "?"))
            if s.rating is not None:
                out.append(("class:dim", f" [{s.rating}]"))
            if not s.connected:
                out.append(("class:warn", " (away)"))
            elif s.bot:
                out.append(("class:dim", f" ({s.bot} plays)"))
    return out


def lock_mark(info: TableInfo) -> str:
    """🔒 for a private table (a password or an invite code needed to sit), else blank."""
    return "🔒" if info.lock is not None else "  "


def lobby_text(model: ConsoleModel) -> Fragments:
    out: Fragments = [("class:heading", f" Tables on {model.source.server_name or 'the server'}"
                       f"  ·  you are {model.source.name}\n\n")]
    tables = model.lobby_tables()
    if not tables:
        out.append(("", "  No tables yet. Press n to create one.\n"))
    model.selected_lobby_table()
    for row, info in enumerate(tables):
        mine = info.table in model.source.tables
        pointer = "▶" if row == model.lobby_row else " "
        style = "class:row.selected" if row == model.lobby_row else ""
        title = GAME_TITLES.get(info.game, info.game)
        out.append((style, f" {pointer} #{info.table:<3} {title:<15} {info.state:<8}"))
        out.append(("class:me" if mine else "", " *" if mine else "  "))
        out.append(("", f" {lock_mark(info)} "))
        out.extend(seat_fragments(model, info.table))
        out.append(("", "\n"))
        timer = f"{info.turn_seconds}s per turn, " if info.turn_seconds else ""
        watchers = f", {info.spectators} watching" if info.spectators else ""
        out.append(("class:dim", f"        {timer}"
                    f"{options_summary(info.game, info.options, model.defaults(info.game))}"
                    f"{watchers}; by {info.creator_name}\n"))
    out.append(("", "\n"))
    if any(info.lock is not None for info in tables):
        out.append(("class:dim", "  🔒 private: :join TABLE CODE (or :watch TABLE CODE)\n"))
    out.append(("class:dim", "  Enter open · j join · w watch · n new table\n"
                "  b add bot · g start · r refresh · ? help\n"))
    return out


def form_text(model: ConsoleModel) -> Fragments:
    form = model.form
    if form is None:
        return []
    out: Fragments = [("class:heading", f" New table: {form.game.title}"), ("class:dim",
                      "   ↑/↓ field · ←/→ change · :set NAME=VALUE · Enter create · Esc\n\n")]
    rows = form.rows()
    shown = 12
    first = max(0, min(form.row - shown // 2, len(rows) - shown))
    for i, name in enumerate(rows[first:first + shown], start=first):
        value = form.value(name)
        opt = form.option(name)
        changed = opt is not None and opt.default != value
        style = "class:row.selected" if i == form.row else ""
        out.append((style, f" {'▶' if i == form.row else ' '} {name:<26} "))
        out.append((style + (" class:changed" if changed else ""),
                    f"{_value(value) + (' *' if changed else ''):<16}"))
        if changed and opt is not None:
            out.append(("class:dim", f" default {_value(opt.default)}"))
        out.append(("", "\n"))
    if len(rows) > shown:
        out.append(("class:dim", f"   ({len(rows)} fields; {first + 1}-"
                    f"{min(first + shown, len(rows))} shown; * = changed)\n"))
    name = rows[form.row]
    opt = form.option(name)
    out.append(("", "\n"))
    if opt is not None:
        out.append(("class:dim", f" {opt.meaning}\n allowed: {opt.allowed}\n"))
    elif name == "game":
        g = form.game
        out.append(("class:dim", f" {g.title}: {g.min_players} to {g.max_players} players\n"))
    elif name == "sit":
        out.append(("class:dim", " take the first seat once the table is made\n"))
    elif name == "turn_seconds":
        out.append(("class:dim", " time per decision; 0 = no timer\n"))
    return out


def _value(value: bool | int | str) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _columns(left: list[str], right: list[str]) -> list[str]:
    """Two lists side by side, the right one after the longest line of the left."""
    width = max((len(a) for a in left), default=0) + 2
    rows = max(len(left), len(right))
    left = left + [""] * (rows - len(left))
    right = right + [""] * (rows - len(right))
    return [f"{a:<{width}}{b}".rstrip() for a, b in zip(left, right, strict=True)]


CHROME = 5  # rows around the main window: title, status, action bar, command line, heading


def help_pages(columns: int, rows: int) -> list[tuple[str, list[str]]]:
    """The help's pages (heading, lines): the keys, then the commands; side by side where
    the terminal is wide enough, else one list after the other; as many pages as the rows
    need."""
    def section(name: str, keys: list[tuple[str, str]]) -> list[str]:
        return [f"{name}:", *(f"  {key:<7} {meaning}" for key, meaning in keys)]

    sections = dict(KEY_HELP)
    table = section("Table", sections["Table"])
    rest = [*section("Lobby", sections["Lobby"]), "", *section("Anywhere", sections["Anywhere"])]
    items = [f"{name} {args}".strip() + f": {meaning}"
             for name, (args, meaning) in COMMANDS.items()]
    half = (len(items) + 1) // 2
    keys, commands = " Keys", " Commands, after : (Tab completes)"
    side = [(keys, _columns(table, rest)), (commands, _columns(items[:half], items[half:]))]
    if all(len(line) < columns for _, lines in side for line in lines):
        lists = side
    else:
        lists = [(keys, [*table, "", *rest]), (commands, items)]
    per_page = max(4, rows - CHROME)
    return [(head, lines[i:i + per_page])
            for head, lines in lists for i in range(0, len(lines), per_page)]


def help_text(model: ConsoleModel, size: Size) -> Fragments:
    """One page of the help (? turns the page, then closes; Esc closes)."""
    pages = help_pages(size.columns, size.rows)
    page = min(model.help_page, len(pages) - 1)
    head, lines = pages[page]
    more = "? again: more" if page < len(pages) - 1 else "? again closes"
    return [("class:heading", f"{head} ({page + 1}/{len(pages)}; {more}; Esc closes)\n"),
            ("", "\n".join(" " + line for line in lines) + "\n")]


def _opponents(model: ConsoleModel) -> Fragments:
    view, info = model.view, model.info
    assert view is not None and model.table is not None
    clock = model.clock_text(model.table)
    out: Fragments = []
    for seat in range(view.players):
        if seat == view.seat:
            continue
        s = info.seats[seat] if info is not None and seat < len(info.seats) else None
        to_move = view.to_move == seat and view.phase not in ("deal", "game_over")
        out.append(("class:turn" if to_move else "", " ▶ " if to_move else "   "))
        out.append(("class:name", f"{seat_name(info, seat):<12}"))
        away = s is not None and s.kind != "house" and not s.connected
        out.append(("class:warn" if away else "class:dim",
                    " away " if away else (" bot  " if s is not None and s.kind == "house"
                                           else "      ")))
        out.append(("", f"{view.hand_sizes[seat]:>2} cards  {view.scores[seat]:>4} pts"))
        if not view.active[seat]:
            out.append(("class:dim", "  (out)"))
        if view.dealer == seat:
            out.append(("class:dim", "  dealer"))
        if to_move and clock:
            out.append(("class:turn", f"  {clock}"))
        out.append(("", "\n"))
    return out


def _hand(model: ConsoleModel) -> Fragments:
    view = model.view
    assert view is not None
    groups = hand_order(view)
    hand = [c for g in groups for c in g]
    cursor = model.cursor_card()
    state = model.state
    legal = state.legal if state is not None else ()
    discardable = {a.card for a in legal if a.kind == "discard"}  # type: ignore[union-attr]
    arrangement = arrange(view)
    out: Fragments = [("class:heading", " Your hand"),
                      ("", f"  deadwood {arrangement.points}"),
                      ("", f" · score {view.scores[view.seat] if view.seat is not None else 0}"),
                      ("\n", "\n")]
    line: Fragments = [("", " ")]
    marks = " "
    for gi, group in enumerate(groups):
        melded = gi < len(arrangement.melds)
        if gi:
            sep = " │ " if melded or gi == len(arrangement.melds) else "  "
            line.append(("class:dim", sep))
            marks += " " * len(sep)
        for ci, card in enumerate(group):
            if ci:
                line.append(("", " "))
                marks += " "
            extra = []
            if card == cursor:
                extra.append("class:cursor")
            if card in model.selected:
                extra.append("class:selected")
            if discardable and card in discardable:
                extra.append("class:playable")
            line.append(card_fragment(card, " ".join(extra)))
            marks += "^" if card == cursor else ("*" if card in model.selected else " ")
            marks += " "
    out.extend(line)
    out.append(("", "\n"))
    out.append(("class:marks", marks.rstrip() + "\n"))
    if not hand:
        out.append(("class:dim", " (no cards)\n"))
    if model.selected:
        chosen = [c for c in hand if c in model.selected]
        out.append(("class:dim", " selected: "))
        out.extend(cards_fragments(chosen))
        out.append(("", "\n"))
    return out


def table_text(model: ConsoleModel) -> Fragments:
    """The table screen: heading, opponents, the piles, the table's melds, the hand and
    what is awaited (or the waiting screen, or the scores)."""
    state = model.state
    if model.table is None:
        return [("", " No table.\n")]
    if state is None or state.view is None:
        return waiting_text(model)
    if model.show_scores:
        return scores_text(model)
    view = state.view
    out = _table_heading(model, view)
    out.extend(_opponents(model))
    out.append(("", "\n"))
    out.extend(_piles(state, view))
    out.extend(_table_melds(model.info, view))
    out.append(("", "\n"))
    if view.seat is None:
        out.append(("class:dim", " You are watching: hands show at the showdown.\n"))
    else:
        out.extend(_hand(model))
    out.append(("", "\n"))
    out.extend(_awaited(model, state, view))
    return out


def _table_heading(model: ConsoleModel, view: SeatView) -> Fragments:
    title = GAME_TITLES.get(view.game, view.game)
    where = f" hand {view.hand_no}" + (f", round {view.round}" if view.round else "")
    out: Fragments = [("class:heading", f" {title} · table {model.table} ·{where}")]
    if view.wild_rank:
        out.append(("class:dim", f" · wild {'?A23456789TJQK'[view.wild_rank]}s"))
    if view.game == "chicago" and view.seat is not None:
        out.append(("class:dim", f" · knock limit {view.knock_limits[view.seat]}"))
        if not view.active[view.seat]:
            out.append(("class:warn", " · you are out"))
    out.append(("", "\n"))
    return out


def _piles(state: TableState, view: SeatView) -> Fragments:
    """The stock's count, the discard pile's top (marked when it may be taken) and the
    cards under it, and the card taken from it this turn."""
    pile = view.discard_pile
    out: Fragments = [("", f" Stock {view.stock_count:>2}   Pile ")]
    if pile:
        legal = legal_kinds(state)
        out.append(card_fragment(pile[-1], "class:playable" if "draw_discard" in legal else ""))
        under = pile[-6:-1]
        if under:
            out.append(("class:dim", "   under: "))
            out.extend(cards_fragments(list(reversed(under))))
    else:
        out.append(("class:dim", "(empty)"))
    if view.taken is not None and view.to_move == view.seat:
        out.append(("class:dim", "   taken: "))
        out.append(card_fragment(view.taken))
    out.append(("", "\n"))
    return out


def _table_melds(info: TableInfo | None, view: SeatView) -> Fragments:
    """The melds on the table (Basic Rummy), the last eight, numbered."""
    if not view.melds:
        return []
    out: Fragments = [("class:heading", " Table melds\n")]
    for i, (owner, cards) in enumerate(view.melds[-8:], start=max(0, len(view.melds) - 8)):
        out.append(("", f"  #{i:<2} {fit(seat_name(info, owner, view.seat), 8):<8} "))
        out.extend(cards_fragments(cards))
        out.append(("", "\n"))
    return out


def _awaited(model: ConsoleModel, state: TableState, view: SeatView) -> Fragments:
    """What the table waits for: the game's end, our move (and its clock) or another's."""
    info = model.info
    if view.phase == "game_over":
        winners = ", ".join(seat_name(info, s, view.seat) for s in view.winners) or "nobody"
        return [("class:turn", f" Game over: {winners} won. Tab: the scores · "
                               "g: play again · L: lobby\n")]
    if state.my_turn:
        clock = model.clock_text(model.table) if model.table is not None else ""
        return [("class:turn", " " + turn_hint(state, state.legal)
                 + (f"  ({clock})" if clock else "") + "\n")]
    if view.to_move is not None and view.phase not in ("deal",):
        return [("class:dim", f" waiting for {seat_name(info, view.to_move, view.seat)}\n")]
    if view.phase == "deal" and view.results:
        return [("class:dim", " hand over: Tab shows the scores\n")]
    return []


def waiting_text(model: ConsoleModel) -> Fragments:
    info = model.info
    if info is None:
        return [("", f" Table {model.table}: waiting for news from the server…\n")]
    title = GAME_TITLES.get(info.game, info.game)
    out: Fragments = [("class:heading", f" {title} · table {info.table} · {info.state}\n"),
                      ("class:dim", " " + options_summary(info.game, info.options,
                                                         model.defaults(info.game)) + "\n\n")]
    for s in info.seats:
        who: Fragments
        if s.kind == "empty":
            who = [("class:dim", "(empty)")]
        elif s.kind == "house":
            who = [("", f"house bot ({s.bot or 'simple'})")]
        else:
            who = [("class:me" if s.player == model.source.player_id else "", s.name or "?")]
        if s.rating is not None:
            who.append(("class:dim", f"  rating {s.rating}"))
        out.append(("", f"  seat {s.seat}: "))
        out.extend(who)
        out.append(("", "\n"))
    out.append(("", "\n"))
    if info.state == "waiting":
        creator = info.creator == model.source.player_id
        if creator:
            out.append(("", " b add a house bot · B remove one\n"
                        " g start (when every seat is filled)\n"))
        else:
            out.append(("", f" waiting for {info.creator_name} to start the game\n"))
        if not any(s.player == model.source.player_id for s in info.seats):
            out.append(("", " j join this table\n"))
    return out


def scores_text(model: ConsoleModel) -> Fragments:
    view, info = model.view, model.info
    assert view is not None
    out: Fragments = [("class:heading", " Last hand and scores"),
                      ("class:dim", "   (Tab: back to the table)\n")]
    showdown = view.last_showdown or (
        model.showdowns.get(model.table) if model.table is not None else None)
    if showdown is not None:
        for line in showdown_lines(showdown, info, view.seat):
            out.append(("", " " + line + "\n"))
    if view.results:
        last = view.results[-1]
        out.append(("class:heading", f" Hand {last.hand_no}: {last.outcome}\n"))
        for note in last.notes:
            out.append(("", f"  · {note_text(note, info)}\n"))
    out.append(("", "\n"))
    sheet = score_sheet(view, info)
    if len(sheet) > 10:
        sheet = [sheet[0], "   …", *sheet[-8:]]
    for line in sheet:
        out.append(("", " " + line + "\n"))
    out.append(("", "\n"))
    for line in score_chart(view, info):
        out.append(("", " " + line + "\n"))
    if view.phase == "game_over":
        winners = ", ".join(seat_name(info, s, view.seat) for s in view.winners) or "nobody"
        out.append(("class:turn", f"\n Game over: {winners} won.\n"))
    return out


MIN_SIZE = (60, 16)  # columns, rows: the table screen needs this much


def main_text(model: ConsoleModel, size: Size | None = None) -> Fragments:
    """The main window: help, form, table or lobby; ``size`` the terminal's (else the
    running application's)."""
    size = size or get_app().output.get_size()
    if size.columns < MIN_SIZE[0] or size.rows < MIN_SIZE[1]:
        return [("class:warn", f" The terminal is {size.columns}×{size.rows}: Rummy Hall "
                               f"needs {MIN_SIZE[0]}×{MIN_SIZE[1]} at least. Make it "
                               "bigger (Ctrl-Q quits).\n")]
    if model.show_help:
        return help_text(model, size)
    if model.screen == "form":
        return form_text(model)
    if model.screen == "table":
        return table_text(model)
    return lobby_text(model)


def title_text(model: ConsoleModel) -> Fragments:
    src = model.source
    where = {"lobby": "lobby", "form": "new table"}.get(model.screen, f"table {model.table}")
    state = "connected" if src.connected else "offline"
    return [("class:title", f" Rummy Hall · {src.server_name or '?'} · {src.name} · {where}"),
            ("class:title", f"  [{state}]  ? help ")]


def status_text(model: ConsoleModel) -> Fragments:
    return [("class:status.error" if model.status_error else "class:status",
             " " + model.status)]


def action_bar(model: ConsoleModel) -> Fragments:
    """The actions of the game, the legal ones highlighted and bracketed."""
    view, state = model.view, model.state
    if model.screen != "table" or view is None or state is None or view.seat is None:
        return [("class:dim", " : command · t chat · ? help · Ctrl-Q quit")]
    legal = legal_kinds(state)
    out: Fragments = []
    for ak in ACTION_KEYS.get(view.game, ()):
        on = any(k in legal for k in ak.kinds)
        if ak.key == "K":
            on = any(a.kind == "knock" and a.card is None  # type: ignore[union-attr]
                     for a in state.legal)
        elif ak.key == "k":
            on = any(a.kind == "knock" and a.card is not None  # type: ignore[union-attr]
                     for a in state.legal)
        out.append(("class:legal" if on else "class:dim",
                    f"[{ak.key}]{ak.label}" if on else f" {ak.key} {ak.label}"))
        out.append(("", " "))
    out.append(("class:dim", "  ? help"))
    return out


def log_text(model: ConsoleModel) -> Fragments:
    out: Fragments = []
    for entry in list(model.log)[-120:]:
        out.append((f"class:log.{entry.kind}", entry.text + "\n"))
    return out


def build_layout(model: ConsoleModel, command: Buffer) -> tuple[Layout, Window]:
    """The whole screen; returns the layout and the main (focusable) window."""
    def main_cursor() -> Point:
        """Where the main window keeps its view: the selected table of a long lobby."""
        if model.screen == "lobby" and not model.show_help:
            return Point(0, 3 + 2 * model.lobby_row)  # (its second line: both in sight)
        return Point(0, 0)

    main = Window(FormattedTextControl(lambda: main_text(model), focusable=True,
                                       get_cursor_position=main_cursor, show_cursor=False),
                  wrap_lines=True)

    def log_cursor() -> Point:
        return Point(0, max(0, sum(e.text.count("\n") + 1 for e in list(model.log)[-120:]) - 1))

    log = Window(FormattedTextControl(lambda: log_text(model), get_cursor_position=log_cursor,
                                      show_cursor=False),
                 wrap_lines=True, width=Dimension.exact(LOG_WIDTH))
    banner = ConditionalContainer(
        Window(FormattedTextControl(lambda: [("class:banner", f" {model.banner} ")]),
               height=1, style="class:banner"),
        filter=Condition(lambda: model.banner is not None))
    command_line = Window(BufferControl(command, input_processors=[BeforeInput(
        lambda: [("class:prompt", "> " if model.screen == "table" else ": ")])]), height=1)
    body = HSplit([
        Window(FormattedTextControl(lambda: title_text(model)), height=1, style="class:title"),
        banner,
        VSplit([main, ConditionalContainer(
            VSplit([Window(width=1, char="│", style="class:dim"), log]),
            filter=Condition(lambda: model.screen != "form" and not model.show_help
                             and get_app().output.get_size().columns >= 70))]),
        Window(FormattedTextControl(lambda: status_text(model)), height=1),
        Window(FormattedTextControl(lambda: action_bar(model)), height=1),
        command_line,
    ])
    root = FloatContainer(body, floats=[
        Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8,
                                                                  scroll_offset=1))])
    return Layout(root, focused_element=main), main
