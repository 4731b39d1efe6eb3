"""The console's key bindings: every action has a key; ``:`` opens the command line.

Keys act on the screen shown (lobby, form or table) and only while the command line
is not focused; there, Enter runs the line, Tab completes and Esc goes back.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .controller import Controller
from .layout import help_pages, main_size, scores_pages
from .model import ConsoleModel


def build_key_bindings(model: ConsoleModel, controller: Controller, command: Buffer,
                       focus_main: Callable[[], None],
                       focus_command: Callable[[str], None]) -> KeyBindings:
    """The key bindings of the whole application: those of every screen, then each
    screen's own (the lobby's, the create-table form's, a table's)."""
    keys = _Keys(model, controller, command)
    _bind_anywhere(keys, focus_main, focus_command)
    _bind_lobby(keys)
    _bind_form(keys)
    _bind_table(keys)
    _bind_history(keys)
    return keys.kb


class _Keys:
    """The bindings being built and the filters they share."""

    def __init__(self, model: ConsoleModel, controller: Controller, command: Buffer) -> None:
        self.kb = KeyBindings()
        self.model, self.controller, self.command = model, controller, command
        self.typing = has_focus(command)
        self.keys = ~self.typing
        self.lobby, self.form, self.table, self.history = (
            self.screen(n) for n in ("lobby", "form", "table", "history"))
        self.waiting = self.table & Condition(lambda: model.view is None)
        # a game over at the shown table: g starts the next one (the creator's to start)
        self.over = self.table & Condition(
            lambda: model.view is not None and model.view.phase == "game_over")

    def screen(self, name: str) -> Filter:
        return self.keys & Condition(lambda: self.model.screen == name)

    def bind(self, *names: str, filter: Filter) -> Callable[[Callable[[], object]], None]:
        """Bind ``names`` to a plain function (the help closes on any key)."""
        model = self.model

        def register(fn: Callable[[], object]) -> None:
            @self.kb.add(*names, filter=filter)
            def _(event: KeyPressEvent) -> None:
                model.show_help = False
                model.stay()  # (another key: we stay)
                fn()
                model.on_change()
        return register


def _bind_anywhere(k: _Keys, focus_main: Callable[[], None],
                   focus_command: Callable[[str], None]) -> None:
    kb, model, command = k.kb, k.model, k.command

    asked = Condition(lambda: model.confirm_quit)

    # (first: a binding added later wins, so every other key keeps its meaning; on the
    # command line the keys are typed, and the command run decides: see Controller)
    @kb.add("<any>", filter=asked & k.keys)
    def _(event: KeyPressEvent) -> None:
        model.stay()

    @kb.add("c-q")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        # at a game where we sit, ask first: the seat goes to a house bot (as :quit does)
        if model.ask_to_quit():
            event.app.exit()

    @kb.add("y", filter=asked & k.keys, eager=True)
    def _(event: KeyPressEvent) -> None:
        event.app.exit()

    @kb.add("?", filter=k.keys)
    def _(event: KeyPressEvent) -> None:
        # the help's pages in turn (as many as the terminal's size needs), then closed
        size = event.app.output.get_size()
        if not model.show_help:
            model.show_help, model.help_page = True, 0
        elif model.help_page < len(help_pages(size.columns, size.rows)) - 1:
            model.help_page += 1
        else:
            model.show_help = False

    @kb.add(":", filter=k.keys)
    def _(event: KeyPressEvent) -> None:
        focus_command("")

    @kb.add("t", filter=k.keys)
    def _(event: KeyPressEvent) -> None:
        focus_command("say ")

    @kb.add("escape", filter=k.keys, eager=True)
    def _(event: KeyPressEvent) -> None:
        _escape(model)

    @kb.add("escape", filter=k.typing, eager=True)
    def _(event: KeyPressEvent) -> None:
        model.stay()
        command.reset()
        focus_main()

    @kb.add("tab", filter=k.typing)
    def _(event: KeyPressEvent) -> None:
        if command.complete_state:
            command.complete_next()
        else:
            command.start_completion(select_first=True)


def _escape(model: ConsoleModel) -> None:
    """Esc closes what is open, innermost first: the help, the form, the scores, a choice."""
    if model.show_help:
        model.show_help = False
    elif model.screen == "form":
        model.form, model.screen = None, "lobby"
    elif model.screen == "history":
        model.screen = "lobby"
    elif model.screen == "record":  # back to the games, the pointer where it was
        model.screen, model.record_number, model.record = "history", None, None
    elif model.screen == "table" and model.show_scores:
        model.show_scores = False
    elif model.screen == "table" and model.selected:
        model.selected = set()
    model.status = ""


def _bind_lobby(k: _Keys) -> None:
    model, controller, lobby, waiting = k.model, k.controller, k.lobby, k.waiting

    def lobby_move(delta: int) -> None:
        model.lobby_row += delta
        model.selected_lobby_table()

    k.bind("up", filter=lobby)(lambda: lobby_move(-1))
    k.bind("down", filter=lobby)(lambda: lobby_move(1))

    def open_selected() -> None:
        info = model.selected_lobby_table()
        if info is None:
            model.say("no table: press n to create one", error=True)
        elif info.table in controller.session.tables:
            model.open_table(info.table)
        elif info.state == "waiting" and any(s.kind == "empty" for s in info.seats):
            controller.join(info.table)
        else:
            controller.watch(info.table)

    def with_selected(fn: Callable[[int], None]) -> Callable[[], None]:
        def run() -> None:
            info = model.selected_lobby_table()
            if info is None:
                model.say("no table selected", error=True)
            else:
                fn(info.table)
        return run

    k.bind("enter", filter=lobby)(open_selected)
    k.bind("j", filter=lobby)(with_selected(controller.join))
    k.bind("w", filter=lobby)(with_selected(controller.watch))
    k.bind("n", filter=lobby)(controller.open_form)
    k.bind("r", filter=lobby)(controller.refresh)
    k.bind("h", filter=lobby)(controller.history)
    k.bind("b", filter=lobby | waiting)(controller.add_bot)
    k.bind("B", filter=lobby | waiting)(controller.remove_bot)
    k.bind("g", filter=lobby | waiting | k.over)(controller.start)

    def join_shown() -> None:
        if model.table is not None:
            controller.join(model.table)

    k.bind("j", filter=waiting)(join_shown)


def _bind_form(k: _Keys) -> None:
    model, form = k.model, k.form

    def form_do(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            if model.form is not None:
                fn()
        return run

    def form_row(delta: int) -> None:
        assert model.form is not None
        model.form.row = (model.form.row + delta) % len(model.form.rows())

    k.bind("up", filter=form)(form_do(lambda: form_row(-1)))
    k.bind("down", filter=form)(form_do(lambda: form_row(1)))
    k.bind("left", filter=form)(form_do(lambda: model.form.step(-1)))  # type: ignore[union-attr]
    k.bind("right", filter=form)(form_do(lambda: model.form.step(1)))  # type: ignore[union-attr]
    k.bind("space", filter=form)(form_do(lambda: model.form.step(1)))  # type: ignore[union-attr]
    k.bind("enter", filter=form)(k.controller.create)


def _bind_table(k: _Keys) -> None:
    model, controller, table = k.model, k.controller, k.table
    k.bind("left", filter=table)(lambda: model.move_cursor(-1))
    k.bind("right", filter=table)(lambda: model.move_cursor(1))
    k.bind("home", filter=table)(model.cursor_home)
    k.bind("space", filter=table)(model.toggle_selected)
    for key, intent in [("s", controller.draw_stock), ("p", controller.draw_pile),
                        ("x", controller.pass_upcard), ("d", controller.discard),
                        ("m", controller.meld), ("l", controller.lay_off),
                        ("k", controller.knock), ("K", controller.big_gin),
                        ("o", controller.go_out), ("r", controller.rummy_or_refresh)]:
        k.bind(key, filter=table)(intent)

    def toggle_scores() -> None:
        """The scores, their pages in turn (as many as the terminal needs), the table."""
        if not model.show_scores or model.view is None:
            model.show_scores, model.scores_page = model.view is not None, 0
            return
        room = main_size(model, get_app().output.get_size())
        if model.scores_page < len(scores_pages(model, room.columns, room.rows - 1)) - 1:
            model.scores_page += 1
        else:
            model.show_scores = False

    k.bind("tab", filter=table)(toggle_scores)

    def to_lobby() -> None:
        model.screen = "lobby"
        controller.refresh()

    k.bind("L", filter=table)(to_lobby)


#: the history asks the server for older games when the pointer comes this near the end
HISTORY_AHEAD = 5


def _page_rows(model: ConsoleModel) -> int:
    """The rows a page key moves over: the main window's, less its heading and footer."""
    return max(1, main_size(model, get_app().output.get_size()).rows - 5)


def _bind_history(k: _Keys) -> None:
    model, controller, history = k.model, k.controller, k.history
    record = k.keys & Condition(lambda: model.screen == "record")

    def move(delta: int) -> None:
        games = model.history or ()
        model.history_row = min(max(model.history_row + delta, 0), max(0, len(games) - 1))
        if model.history_row >= len(games) - HISTORY_AHEAD:
            controller.more_history()  # (older games, from the server)

    k.bind("up", filter=history)(lambda: move(-1))
    k.bind("down", filter=history)(lambda: move(1))
    # a game takes two rows or three: a page moves over as many as a screen shows
    k.bind("pageup", filter=history)(lambda: move(-max(1, _page_rows(model) // 3)))
    k.bind("pagedown", filter=history)(lambda: move(max(1, _page_rows(model) // 3)))
    k.bind("home", filter=history)(lambda: move(-len(model.history or ())))
    k.bind("end", filter=history)(lambda: move(len(model.history or ())))
    k.bind("enter", filter=history)(controller.open_record)

    def to_lobby() -> None:
        model.screen = "lobby"

    k.bind("L", filter=history | record)(to_lobby)

    def scroll(delta: int) -> None:  # (the layout keeps the last page in sight)
        model.record_top = max(0, model.record_top + delta)

    k.bind("up", filter=record)(lambda: scroll(-1))
    k.bind("down", filter=record)(lambda: scroll(1))
    k.bind("pageup", filter=record)(lambda: scroll(-_page_rows(model)))
    k.bind("pagedown", filter=record)(lambda: scroll(_page_rows(model)))
    k.bind("space", filter=record)(lambda: scroll(_page_rows(model)))
    k.bind("home", filter=record)(lambda: scroll(-len(model.record or ()) * 4))
    k.bind("end", filter=record)(lambda: scroll(len(model.record or ()) * 4))
