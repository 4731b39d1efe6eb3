"""The console's key bindings: every action has a key; ``:`` opens the command line.

Keys act on the screen shown (lobby, form or table) and only while the command line
is not focused; there, Enter runs the line, Tab completes and Esc goes back.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .controller import Controller
from .layout import help_pages
from .model import ConsoleModel


def build_key_bindings(model: ConsoleModel, controller: Controller, command: Buffer,
                       focus_main: Callable[[], None],
                       focus_command: Callable[[str], None]) -> KeyBindings:
    """The key bindings of the whole application."""
    kb = KeyBindings()
    typing = has_focus(command)
    keys = ~typing

    def screen(name: str) -> Filter:
        return keys & Condition(lambda: model.screen == name)

    lobby, form, table = screen("lobby"), screen("form"), screen("table")
    waiting = table & Condition(lambda: model.view is None)
    # a game over at the shown table: g starts the next one (the creator's to start)
    over = table & Condition(lambda: model.view is not None and model.view.phase == "game_over")

    def bind(*names: str, filter: Filter = keys) -> Callable[[Callable[[], object]], None]:
        """Bind ``names`` to a plain function (the help closes on any key)."""
        def register(fn: Callable[[], object]) -> None:
            @kb.add(*names, filter=filter)
            def _(event: KeyPressEvent) -> None:
                model.show_help = False
                fn()
                model.on_change()
        return register

    # ---------------------------------------------------------------- anywhere

    @kb.add("c-q")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        event.app.exit()

    @kb.add("?", filter=keys)
    def _(event: KeyPressEvent) -> None:
        # the help's pages in turn (as many as the terminal's size needs), then closed
        size = event.app.output.get_size()
        if not model.show_help:
            model.show_help, model.help_page = True, 0
        elif model.help_page < len(help_pages(size.columns, size.rows)) - 1:
            model.help_page += 1
        else:
            model.show_help = False

    @kb.add(":", filter=keys)
    def _(event: KeyPressEvent) -> None:
        focus_command("")

    @kb.add("t", filter=keys)
    def _(event: KeyPressEvent) -> None:
        focus_command("say ")

    @kb.add("escape", filter=keys, eager=True)
    def _(event: KeyPressEvent) -> None:
        if model.show_help:
            model.show_help = False
        elif model.screen == "form":
            model.form, model.screen = None, "lobby"
        elif model.screen == "table" and model.show_scores:
            model.show_scores = False
        elif model.screen == "table" and model.selected:
            model.selected = set()
        model.status = ""

    @kb.add("escape", filter=typing, eager=True)
    def _(event: KeyPressEvent) -> None:
        command.reset()
        focus_main()

    @kb.add("tab", filter=typing)
    def _(event: KeyPressEvent) -> None:
        if command.complete_state:
            command.complete_next()
        else:
            command.start_completion(select_first=True)

    # ---------------------------------------------------------------- lobby

    def lobby_move(delta: int) -> None:
        model.lobby_row += delta
        model.selected_lobby_table()

    bind("up", filter=lobby)(lambda: lobby_move(-1))
    bind("down", filter=lobby)(lambda: lobby_move(1))

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

    bind("enter", filter=lobby)(open_selected)
    bind("j", filter=lobby)(with_selected(controller.join))
    bind("w", filter=lobby)(with_selected(controller.watch))
    bind("n", filter=lobby)(controller.open_form)
    bind("r", filter=lobby)(controller.refresh)
    bind("b", filter=lobby | waiting)(controller.add_bot)
    bind("B", filter=lobby | waiting)(controller.remove_bot)
    bind("g", filter=lobby | waiting | over)(controller.start)
    def join_shown() -> None:
        if model.table is not None:
            controller.join(model.table)

    bind("j", filter=waiting)(join_shown)

    # ---------------------------------------------------------------- form

    def form_do(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            if model.form is not None:
                fn()
        return run

    def form_row(delta: int) -> None:
        assert model.form is not None
        model.form.row = (model.form.row + delta) % len(model.form.rows())

    bind("up", filter=form)(form_do(lambda: form_row(-1)))
    bind("down", filter=form)(form_do(lambda: form_row(1)))
    bind("left", filter=form)(form_do(lambda: model.form.step(-1)))  # type: ignore[union-attr]
    bind("right", filter=form)(form_do(lambda: model.form.step(1)))  # type: ignore[union-attr]
    bind("space", filter=form)(form_do(lambda: model.form.step(1)))  # type: ignore[union-attr]
    bind("enter", filter=form)(controller.create)

    # ---------------------------------------------------------------- table

    bind("left", filter=table)(lambda: model.move_cursor(-1))
    bind("right", filter=table)(lambda: model.move_cursor(1))
    bind("home", filter=table)(model.cursor_home)
    bind("space", filter=table)(model.toggle_selected)
    bind("s", filter=table)(controller.draw_stock)
    bind("p", filter=table)(controller.draw_pile)
    bind("x", filter=table)(controller.pass_upcard)
    bind("d", filter=table)(controller.discard)
    bind("m", filter=table)(controller.meld)
    bind("l", filter=table)(controller.lay_off)
    bind("k", filter=table)(controller.knock)
    bind("K", filter=table)(controller.big_gin)
    bind("o", filter=table)(controller.go_out)
    bind("r", filter=table)(controller.rummy_or_refresh)

    def toggle_scores() -> None:
        model.show_scores = not model.show_scores

    bind("tab", filter=table)(toggle_scores)

    def to_lobby() -> None:
        model.screen = "lobby"
        controller.refresh()

    bind("L", filter=table)(to_lobby)
    return kb
