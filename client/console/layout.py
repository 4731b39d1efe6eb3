"""The console's screens: the text of each pane, built from the model, and the layout.

Each ``*_text`` function turns the :class:`ConsoleModel` into prompt_toolkit fragments;
:func:`build_layout` arranges them (title, banner, main pane and log, status line,
action bar, command line) the way prompt_toolkit's full-screen examples do.
"""

from __future__ import annotations

import time

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text.utils import split_lines
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
from prompt_toolkit.utils import get_cwidth

from rummyhall.client.session import TableState
from rummyhall.client.wording import note_words
from rummyhall.protocol import PRODUCT, PlayedGame, TableInfo
from rummyhall.rules import SeatView

from .controller import COMMANDS
from .fitting import cut, short_names, text_rows, wrap
from .model import (
    ACTION_KEYS,
    GAME_TITLES,
    ConsoleModel,
    Fragments,
    arrange,
    card_fragment,
    cards_fragments,
    hand_order,
    legal_kinds,
    options_summary,
    pad,
    score_chart,
    score_sheet,
    seat_name,
    seat_names,
    showdown_lines,
    turn_hint,
)

LOG_WIDTH = 28
NBSP = "\u00a0"  # a space that a wrap keeps (fitting.wrap breaks at plain spaces)

KEY_HELP = [
    ("Lobby", [("↑/↓", "pick a table"), ("Enter", "open / join the table"), ("j", "join"),
               ("w", "watch"), ("n", "new table (form)"), ("b / B", "add / remove a house bot"),
               ("g", "start the game"), ("r", "refresh"),
               ("h", "your games played (Enter: one, hand by hand)")]),
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
                  ("Esc", "back / close"), ("Ctrl-Q", "quit (at a game: asks first)")]),
]


def seat_fragments(model: ConsoleModel, table: int, width: int = 16) -> Fragments:
    """The seats of a lobby table: names (in ``width`` columns, told apart), bots,
    connection."""
    info = model.source.lobby.get(table)
    if info is None:
        return []
    names = short_names([s.name or "?" for s in info.seats], width)
    out: Fragments = []
    for i, s in enumerate(info.seats):
        if i:
            out.append(("", ", "))
        if s.kind == "empty":
            out.append(("class:dim", "(empty)"))
        elif s.kind == "house":
            out.append(("", names[i] if s.name else f"{s.bot or 'house'} bot"))
        else:
            out.append(("class:me" if s.player == model.source.player_id else "", names[i]))
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


def lobby_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """The lobby: every table in two lines or more (wrapped at words), as many as fit in
    ``rows`` around the selected one, with how many more there are above and below."""
    server = model.source.server_name
    where = f" on {server}" if server and server != PRODUCT else ""
    out: Fragments = [("class:heading", f" Tables{where}  ·  you are {model.source.name}\n\n")]
    tables = model.lobby_tables()
    if not tables:
        out.append(("", "  No tables yet. Press n to create one.\n"))
    model.selected_lobby_table()
    blocks = [wrap(_lobby_entry(model, row, info), width, indent=8)
              for row, info in enumerate(tables)]
    footer: Fragments = [("class:dim", "\n  Enter open · j join · w watch · n new table\n"
                          "  b add bot · g start · r refresh · h history · ? help\n")]
    hint: Fragments = [("class:dim", "\n  🔒 private: :join TABLE CODE (or :watch TABLE "
                                     "CODE)")] if any(info.lock is not None
                                                      for info in tables) else []
    # the heading's two rows, the footer's and the hint's (each starts on the row the
    # tables' last newline opened)
    room = rows - 2 - text_rows(wrap(footer, width)) + 1 - max(
        text_rows(wrap(hint, width)) - 1, 0)
    out.extend(_scrolled(blocks, model.lobby_row, room))
    out.extend(hint)
    out.extend(footer)
    return out


def _lobby_entry(model: ConsoleModel, row: int, info: TableInfo) -> Fragments:
    mine = info.table in model.source.tables
    pointer = "▶" if row == model.lobby_row else " "
    style = "class:row.selected" if row == model.lobby_row else ""
    title = GAME_TITLES.get(info.game, info.game)
    out: Fragments = [(style, f" {pointer} #{info.table:<3} {title:<15} {info.state:<8}"),
                      ("class:me" if mine else "", " *" if mine else "  "),
                      ("", f" {lock_mark(info)} ")]
    out.extend(seat_fragments(model, info.table))
    timer = f"{info.turn_seconds}s per turn, " if info.turn_seconds else ""
    watchers = f", {info.spectators} watching" if info.spectators else ""
    out.append(("class:dim", f"\n        {timer}"
                f"{options_summary(info.game, info.options, model.defaults(info.game))}"
                f"{watchers}; by {info.creator_name}"))
    return out


def _scrolled(blocks: list[Fragments], selected: int, rows: int) -> Fragments:
    """The blocks that fit in ``rows`` around the selected one, with how many more there
    are above and below (the lobby's tables, the history's games)."""
    first, last = _visible(blocks, selected, rows)
    out: Fragments = []
    if first:
        out.append(("class:dim", f"  ↑ {first} more above\n"))
    for block in blocks[first:last]:
        out.extend(block)
        out.append(("", "\n"))
    if last < len(blocks):
        out.append(("class:dim", f"  ↓ {len(blocks) - last} more below\n"))
    return out


def _visible(blocks: list[Fragments], selected: int, rows: int) -> tuple[int, int]:
    """The blocks [first, last) that fit in ``rows`` with the selected one among them
    (a row each for the "more above/below" lines when some are left out)."""
    heights = [text_rows(b) for b in blocks]
    if sum(heights) <= rows:
        return 0, len(blocks)
    first = last = min(max(selected, 0), len(blocks) - 1) if blocks else 0
    used = heights[first] if blocks else 0
    last = first + 1 if blocks else 0
    room = rows - 2
    while True:  # grow downwards, then upwards, while it fits
        if last < len(blocks) and used + heights[last] <= room:
            used += heights[last]
            last += 1
        elif first > 0 and used + heights[first - 1] <= room:
            first -= 1
            used += heights[first]
        else:
            return first, last


def history_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """The games we played, newest first: each in two lines or more (wrapped at words),
    as many as fit in ``rows`` around the one under the pointer, with how many more."""
    out: Fragments = [("class:heading", f" Your games played  ·  {model.source.name}\n\n")]
    games = model.history
    footer: Fragments = [("class:dim", "\n  ↑/↓ PgUp/PgDn move · Enter: the game, hand by "
                                       "hand · Esc or L: the lobby\n")]
    if games is None:
        out.append(("class:dim", "  Asking the server for your games…\n"))
    elif not games:
        out.append(("", "  No game of yours is in the server's history yet.\n"))
    games = games or ()
    model.history_row = min(max(model.history_row, 0), max(0, len(games) - 1))
    blocks = [wrap(_history_entry(model, row, game), width, indent=8)
              for row, game in enumerate(games)]
    room = rows - 2 - text_rows(wrap(footer, width)) + 1
    listed = _scrolled(blocks, model.history_row, room)
    if model.history_more and games and listed and listed[-1][1].startswith("  ↓"):
        listed[-1] = ("class:dim", listed[-1][1].replace(" below\n", " below, and older "
                                                           "ones on the server\n"))
    out.extend(listed)
    out.extend(footer)
    return out


def record_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """A game's record opened from the history, in the words of ``rummyhall replay``:
    its lines wrapped at words to ``width``, the rows from ``record_top`` that fit."""
    footer: Fragments = [("class:dim", "\n  ↑/↓ PgUp/PgDn Home/End scroll · Esc: your "
                                       "games · L: the lobby\n")]
    room = max(1, rows - 2 - text_rows(wrap(footer, width)) + 1)
    if model.record is None:
        body: list[Fragments] = [[("class:dim", "  Asking the server for the game's "
                                                "record…")]]
    else:
        body = [line for text in model.record for line in split_lines(wrap(
            [("", text)], width, indent=4))]
    model.record_top = min(max(model.record_top, 0), max(0, len(body) - room))
    shown = body[model.record_top:model.record_top + room]
    where = (f"rows {model.record_top + 1}–{model.record_top + len(shown)} of {len(body)}"
             if model.record is not None and len(body) > room else "")
    out: Fragments = [("class:heading", f" Game #{model.record_number}, hand by hand"),
                      ("class:dim", f"  ·  {where}" if where else ""), ("", "\n\n")]
    for line in shown:
        out.extend(line)
        out.append(("", "\n"))
    out.extend(footer)
    return out


def _history_entry(model: ConsoleModel, row: int, game: PlayedGame) -> Fragments:
    """A game played: its number, game, date and hands, then every seat with its final
    total (ours marked) and who won; a name and its total are never parted by a wrap."""
    pointer = "▶" if row == model.history_row else " "
    style = "class:row.selected" if row == model.history_row else ""
    title = GAME_TITLES.get(game.game, game.game)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.finished or game.started))
    hands = f"{game.hands} hand" + ("" if game.hands == 1 else "s")
    out: Fragments = [(style, f" {pointer} #{game.number:<4} {title:<15} {when}"),
                      ("class:dim", f"  {hands}\n        ")]
    me = model.source.player_id
    names = [NBSP.join(n.split(" ")) for n in short_names([s.name for s in game.seats], 16)]
    names = ["you" if me is not None and s.player == me else n
             for s, n in zip(game.seats, names, strict=True)]
    for i, seat in enumerate(game.seats):
        if i:
            out.append(("", " · "))
        total = (f"{NBSP}{game.totals[seat.seat]}" if seat.seat < len(game.totals) else "")
        out.append(("class:me" if names[i] == "you" else "", names[i] + total))
    won = ", ".join(names[i] for i, s in enumerate(game.seats) if s.seat in game.winners)
    if game.state != "finished":
        out.append(("class:dim", "; still playing"))
    else:
        out.append(("class:turn" if won == "you" else "",
                    f"; {won}{NBSP}won" if won else "; nobody won"))
    return out


def form_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """The create-table form: as many fields as fit around the current one, and what the
    current one means and allows."""
    form = model.form
    if form is None:
        return []
    head = wrap([("class:heading", f" New table: {form.game.title}"), ("class:dim",
                 "   ↑/↓ field · ←/→ change · :set NAME=VALUE · Enter create · Esc")], width)
    fields = form.rows()
    name = fields[form.row]
    opt = form.option(name)
    about: Fragments
    if opt is not None:
        about = [("class:dim", f" {opt.meaning}\n allowed: {opt.allowed}")]
    elif name == "game":
        g = form.game
        about = [("class:dim", f" {g.title}: {g.min_players} to {g.max_players} players")]
    elif name == "players":
        about = [("class:dim", f" {form.game.min_players} to {form.game.max_players} players")]
    elif name == "sit":
        about = [("class:dim", " take the first seat once the table is made")]
    else:
        about = [("class:dim", " time per decision; 0 = no timer; ←/→ step by 15 s")]
    about = wrap(about, width)
    shown = max(3, min(len(fields), rows - text_rows(head) - text_rows(about) - 4))
    first = max(0, min(form.row - shown // 2, len(fields) - shown))
    out: Fragments = [*head, ("", "\n\n")]
    for i, field_name in enumerate(fields[first:first + shown], start=first):
        value = form.value(field_name)
        field_opt = form.option(field_name)
        changed = field_opt is not None and field_opt.default != value
        style = "class:row.selected" if i == form.row else ""
        out.append((style, f" {'▶' if i == form.row else ' '} {field_name:<26} "))
        out.append((style + (" class:changed" if changed else ""),
                    f"{_value(value) + (' *' if changed else ''):<16}"))
        if changed and field_opt is not None:
            out.append(("class:dim", f" default {_value(field_opt.default)}"))
        out.append(("", "\n"))
    if len(fields) > shown:
        out.append(("class:dim", f"   ({len(fields)} fields; {first + 1}-"
                    f"{min(first + shown, len(fields))} shown; * = changed)\n"))
    out.append(("", "\n"))
    out.extend(about)
    out.append(("", "\n"))
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
    names = seat_names(info, view.players, 12)
    out: Fragments = []
    for seat in range(view.players):
        if seat == view.seat:
            continue
        s = info.seats[seat] if info is not None and seat < len(info.seats) else None
        to_move = view.to_move == seat and view.phase not in ("deal", "game_over")
        out.append(("class:turn" if to_move else "", " ▶ " if to_move else "   "))
        out.append(("class:name", pad(names[seat], 12)))
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


def table_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """The table screen: heading, opponents, the piles, the table's melds, the hand and
    what is awaited (or the waiting screen, or the scores)."""
    state = model.state
    if model.table is None:
        return [("", " No table.\n")]
    if state is None or state.view is None:
        return waiting_text(model)
    if model.show_scores:
        return scores_text(model, width, rows)
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
    names = seat_names(info, view.players, 8, view.seat)
    for i, (owner, cards) in enumerate(view.melds[-8:], start=max(0, len(view.melds) - 8)):
        out.append(("", f"  #{i:<2} {pad(names[owner], 8)} "))
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
    out = model.went_out.get(state.table)
    last = "" if out is None else (
        f"{seat_name(info, out, view.seat)} went out: this is your last turn. "
        if state.my_turn else f"{seat_name(info, out, view.seat)} went out: last turns. ")
    if state.my_turn:
        clock = model.clock_text(model.table) if model.table is not None else ""
        return [("class:turn", " " + last + turn_hint(state, state.legal)
                 + (f"  ({clock})" if clock else "") + "\n")]
    if view.to_move is not None and view.phase not in ("deal",):
        return [("class:dim", f" {last}waiting for "
                              f"{seat_name(info, view.to_move, view.seat)}\n")]
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
            who = [("", f"{s.name} (a house bot)" if s.name else
                    f"house bot ({s.bot or 'simple'})")]
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


def scores_pages(model: ConsoleModel, width: int, rows: int) -> list[Fragments]:
    """The scores screen, in pages that fit ``rows``: the score sheet and the chart (every
    seat), then the last hand (the hands shown, the score's notes); one page when all fit."""
    view, info = model.view, model.info
    assert view is not None
    totals: Fragments = []
    chart = score_chart(view, info, width - 1)
    sheet = score_sheet(view, info, width - 1, rows=rows - len(chart) - 4)
    for line in [*sheet, "", *chart]:
        totals.append(("", " " + line + "\n"))
    if view.phase == "game_over":
        winners = ", ".join(seat_name(info, s, view.seat) for s in view.winners) or "nobody"
        totals.append(("class:turn", f" Game over: {winners} won.\n"))
    last: Fragments = []
    showdown = view.last_showdown or (
        model.showdowns.get(model.table) if model.table is not None else None)
    names = seat_names(info, view.players, 16)
    if showdown is not None:
        for line in showdown_lines(showdown, info, view.seat):
            last.append(("", " " + line + "\n"))
    if view.results:
        hand = view.results[-1]
        last.append(("class:heading", f" Hand {hand.hand_no}: {hand.outcome}\n"))
        for note in hand.notes:
            last.append(("", f"  · {note_words(note, names.__getitem__)}\n"))
    totals, last = wrap(totals, width), wrap(last, width)
    if not last:
        return [totals]
    if text_rows(last) + text_rows(totals) + 1 <= rows:
        return [[*last, ("", "\n"), *totals]]
    return [totals, last]


def scores_text(model: ConsoleModel, width: int = 80, rows: int = 1_000) -> Fragments:
    """One page of the scores (Tab turns the page, then goes back to the table)."""
    pages = scores_pages(model, width, rows - 1)
    page = min(model.scores_page, len(pages) - 1)
    more = (f"{page + 1}/{len(pages)}, Tab: more" if page < len(pages) - 1 else
            f"{page + 1}/{len(pages)}, Tab: the table" if len(pages) > 1 else "Tab: the table")
    head = "Scores" if len(pages) == 1 or page == 0 else "Last hand"
    return [("class:heading", f" {head}"), ("class:dim", f"   ({more})\n"), *pages[page]]


MIN_SIZE = (60, 16)  # columns, rows: the table screen needs this much


def log_width(columns: int) -> int:
    """The log pane's width: it grows with the terminal (24 to 48 columns)."""
    return min(48, max(24, columns * 3 // 10))


def shows_log(model: ConsoleModel, columns: int) -> bool:
    return model.screen not in ("form", "record") and not model.show_help and columns >= 70


def status_rows(model: ConsoleModel, columns: int) -> int:
    """The status line's rows: a long refusal is shown whole (wrapped), up to three rows."""
    return min(3, text_rows(status_text(model, columns)))


def banner_rows(model: ConsoleModel, columns: int) -> int:
    text = model.banner_text()
    return 0 if text is None else min(2, text_rows(wrap([("", f" {text}")], columns)))


def main_size(model: ConsoleModel, size: Size) -> Size:
    """The main window's size in a terminal of ``size``: what the title, the banner, the
    status line, the action bar, the command line and the log leave."""
    columns = size.columns - (log_width(size.columns) + 1 if shows_log(model, size.columns)
                              else 0)
    rows = size.rows - 3 - status_rows(model, size.columns) - banner_rows(model, size.columns)
    return Size(rows=max(1, rows), columns=max(1, columns))


def main_text(model: ConsoleModel, size: Size | None = None) -> Fragments:
    """The main window: help, form, table or lobby, fitted (wrapped at words) to the room
    it has in a terminal of ``size`` (else the running application's)."""
    size = size or get_app().output.get_size()
    if size.columns < MIN_SIZE[0] or size.rows < MIN_SIZE[1]:
        return wrap([("class:warn", f" The terminal is {size.columns}×{size.rows}: Rummy "
                                    f"Hall needs {MIN_SIZE[0]}×{MIN_SIZE[1]} at least. Make "
                                    "it bigger (Ctrl-Q quits).\n")], size.columns)
    room = main_size(model, size)
    if model.show_help:
        text = help_text(model, size)
    elif model.screen == "form":
        text = form_text(model, room.columns, room.rows)
    elif model.screen == "table":
        text = table_text(model, room.columns, room.rows)
    elif model.screen == "history":
        text = history_text(model, room.columns, room.rows)
    elif model.screen == "record":
        text = record_text(model, room.columns, room.rows)
    else:
        text = lobby_text(model, room.columns, room.rows)
    if text and text[-1][1].endswith("\n"):  # (a last newline opens no row)
        text = [*text[:-1], (text[-1][0], text[-1][1][:-1])]
    return wrap(text, room.columns)


def title_text(model: ConsoleModel, columns: int = 80) -> Fragments:
    """The title bar: the server (unless it is just "Rummy Hall"), who, where, online."""
    src = model.source
    where = {"lobby": "lobby", "form": "new table", "history": "history",
             "record": f"game #{model.record_number}"}.get(model.screen,
                                                         f"table {model.table}")
    state = "connected" if src.connected else "offline"
    server = src.server_name or "?"
    parts = [PRODUCT] + ([server] if server != PRODUCT else [])
    tail = f"  [{state}]  ? help "
    name_room = columns - get_cwidth(" " + " · ".join([*parts, "", where]) + tail)
    name = cut(src.name, max(6, name_room))
    return [("class:title", " " + " · ".join([*parts, name, where])), ("class:title", tail)]


def status_text(model: ConsoleModel, columns: int = 80) -> Fragments:
    """The status line, wrapped at words to ``columns``: a refusal is read whole."""
    return wrap([("class:status.error" if model.status_error else "class:status",
                  " " + model.status)], columns)


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


def log_text(model: ConsoleModel, width: int = LOG_WIDTH, rows: int = 1_000) -> Fragments:
    """The log's last ``rows`` rows: its latest entries, each wrapped at words to
    ``width`` (the oldest one shown may lose its first rows)."""
    entries: list[Fragments] = []
    used = 0
    shown_table = model.table if model.screen == "table" else None  # (lobby: all tagged)
    for entry in reversed(list(model.log)[-120:]):
        lines = wrap([(f"class:log.{entry.kind}", entry.shown(shown_table))], width)
        entries.append(lines)
        used += text_rows(lines)
        if used >= rows:
            break
    shown = [line for lines in reversed(entries) for line in split_lines(lines)][-rows:]
    out: Fragments = []
    for line in shown:
        out.extend(line)
        out.append(("", "\n"))
    if out:
        out.pop()
    return out


def build_layout(model: ConsoleModel, command: Buffer) -> tuple[Layout, Window]:
    """The whole screen; returns the layout and the main (focusable) window."""
    def size() -> Size:
        return get_app().output.get_size()

    main = Window(FormattedTextControl(lambda: main_text(model), focusable=True,
                                       show_cursor=False), wrap_lines=True)

    def log_fragments() -> Fragments:
        room = main_size(model, size())
        return log_text(model, log_width(size().columns), room.rows)

    # (log_text gives the rows that fit, the latest last)
    log = Window(FormattedTextControl(log_fragments, show_cursor=False), wrap_lines=True,
                     width=lambda: Dimension.exact(log_width(size().columns)))
    banner = ConditionalContainer(
        Window(FormattedTextControl(lambda: wrap([("class:banner", f" {model.banner_text()}")],
                                                 size().columns)),
               height=lambda: Dimension.exact(max(1, banner_rows(model, size().columns))),
               style="class:banner"),
        filter=Condition(lambda: model.banner is not None))
    command_line = Window(BufferControl(command, input_processors=[BeforeInput(
        lambda: [("class:prompt", "> " if model.screen == "table" else ": ")])]), height=1)
    body = HSplit([
        Window(FormattedTextControl(lambda: title_text(model, size().columns)), height=1,
               style="class:title"),
        banner,
        VSplit([main, ConditionalContainer(
            VSplit([Window(width=1, char="│", style="class:dim"), log]),
            filter=Condition(lambda: shows_log(model, size().columns)))]),
        Window(FormattedTextControl(lambda: status_text(model, size().columns)),
               height=lambda: Dimension.exact(status_rows(model, size().columns))),
        Window(FormattedTextControl(lambda: action_bar(model)), height=1),
        command_line,
    ])
    root = FloatContainer(body, floats=[
        Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8,
                                                                  scroll_offset=1))])
    return Layout(root, focused_element=main), main
