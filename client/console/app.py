"""The console application: ``build_app(model, *, controller, input, output)``.

Built in prompt_toolkit's usual order: the command line and its completer, the
layout, the key bindings, the style, then the :class:`Application`. Tests drive it with
``create_pipe_input()`` and ``DummyOutput()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import ClassVar

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from .controller import COMMANDS, Controller
from .keys import build_key_bindings
from .layout import build_layout
from .model import ConsoleModel, card_text

CARD_COMMANDS = {"discard", "meld", "layoff", "knock", "out"}

COLOR_STYLE = {
    "title": "bg:#005f87 #ffffff bold",
    "banner": "bg:#af0000 #ffffff bold",
    "heading": "bold",
    "dim": "#8a8a8a",
    "suit.red": "#ff3030 bold",
    "suit.black": "bold",
    "suit.joker": "#d75fd7 bold",
    "cursor": "reverse",
    "selected": "underline bg:#5f5f00",
    "playable": "",
    "marks": "#ffaf00",
    "legal": "bg:#008700 #ffffff bold",
    "turn": "#ffaf00 bold",
    "warn": "#ff5f5f",
    "me": "#5fd7ff bold",
    "name": "bold",
    "changed": "#ffaf00 bold",
    "row.selected": "reverse",
    "status": "#87d787",
    "status.error": "#ff5f5f bold",
    "log.chat": "#5fd7ff",
    "log.notice": "bold #ffaf00",
    "log.info": "#8a8a8a",
    "log.error": "#ff5f5f",
    "prompt": "bold",
}

#: Without colour, what matters stays readable: reverse, bold, underline and the marks.
MONO_STYLE = {
    "title": "reverse bold", "banner": "reverse bold", "heading": "bold", "cursor": "reverse",
    "selected": "underline", "legal": "bold", "turn": "bold", "me": "bold", "name": "bold",
    "changed": "bold", "row.selected": "reverse", "status.error": "bold", "prompt": "bold",
}


class CommandCompleter(Completer):
    """Completes command names, then the hand's cards, table numbers or form fields."""

    def __init__(self, model: ConsoleModel) -> None:
        self.model = model

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        words = text.split()
        current = "" if text.endswith(" ") or not words else words[-1]
        if len(words) <= 1 and not text.endswith(" "):
            return self._commands(words, current)
        command = words[0].lower()
        if command in CARD_COMMANDS:
            return self._cards(words, current)
        complete = self._ARGUMENTS.get(command)
        return complete(self, words, current) if complete is not None else ()

    # what follows a command word, one completer per kind of argument (_ARGUMENTS)

    def _commands(self, words: list[str], current: str) -> Iterator[Completion]:
        for name, (_args, meaning) in COMMANDS.items():
            if name.startswith(current.lower()):
                yield Completion(name, -len(current), display_meta=meaning)

    def _cards(self, words: list[str], current: str) -> Iterator[Completion]:
        named = {w.lower() for w in words[1:]}
        for card in self.model.hand():
            word = str(card).lower()
            if word.startswith(current.lower()) and (
                    word not in named or word == current.lower()):
                yield Completion(str(card), -len(current), display=card_text(card))

    def _tables(self, words: list[str], current: str) -> Iterator[Completion]:
        lobby = self.model.source.lobby
        for table in sorted(lobby):
            if str(table).startswith(current):
                yield Completion(str(table), -len(current),
                                 display_meta=f"{lobby[table].game} {lobby[table].state}")

    def _fields(self, words: list[str], current: str) -> Iterator[Completion]:
        form = self.model.form
        for row in form.rows() if form is not None else ():
            if row.startswith(current):
                yield Completion(row + "=", -len(current))

    def _bots(self, words: list[str], current: str) -> Iterator[Completion]:
        for bot in self.model.bots:
            if bot.startswith(current):
                yield Completion(bot, -len(current))

    def _games(self, words: list[str], current: str) -> Iterator[Completion]:
        for game in self.model.games:
            if game.game.startswith(current):
                yield Completion(game.game, -len(current), display_meta=game.title)

    _ARGUMENTS: ClassVar[dict[str, Callable[[CommandCompleter, list[str], str],
                                            Iterable[Completion]]]] = {
        "join": _tables, "watch": _tables, "table": _tables, "set": _fields,
        "bot": _bots, "create": _games,
    }


def build_style(color: bool) -> Style:
    return Style.from_dict(COLOR_STYLE if color else MONO_STYLE)


def build_app(model: ConsoleModel, *, controller: Controller, input: Input | None = None,
              output: Output | None = None) -> Application[None]:
    """The full-screen console for ``model``; its intents go to ``controller``."""

    def accept(buffer: Buffer) -> bool:
        line = buffer.text
        app.layout.focus(main)
        controller.command(line)
        return False  # clears the line

    command = Buffer(completer=CommandCompleter(model), complete_while_typing=True,
                     multiline=False, accept_handler=accept)
    layout, main = build_layout(model, command)

    def focus_main() -> None:
        app.layout.focus(main)

    def focus_command(text: str) -> None:
        command.reset(Document(text, len(text)))
        app.layout.focus(command)

    key_bindings = build_key_bindings(model, controller, command, focus_main, focus_command)
    app: Application[None] = Application(
        layout=layout, key_bindings=key_bindings, style=build_style(model.color),
        full_screen=True, mouse_support=False, input=input, output=output,
        refresh_interval=0.5, color_depth=None if model.color else ColorDepth.MONOCHROME)
    model.on_change = app.invalidate

    def quit() -> None:  # :quit, :exit: at a game where we sit, ask first (as Ctrl-Q)
        if app.is_running and model.ask_to_quit():
            app.exit()

    controller.quit = quit
    return app
