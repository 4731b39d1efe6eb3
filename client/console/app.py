"""The console application: ``build_app(model, *, controller, input, output)``.

Built in prompt_toolkit's usual order: the command line and its completer, the
layout, the key bindings, the style, then the :class:`Application`. Tests drive it with
``create_pipe_input()`` and ``DummyOutput()``.
"""

from __future__ import annotations

from collections.abc import Iterable

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
            for name, (_args, meaning) in COMMANDS.items():
                if name.startswith(current.lower()):
                    yield Completion(name, -len(current), display_meta=meaning)
            return
        command = words[0].lower()
        if command in CARD_COMMANDS:
            named = {w.lower() for w in words[1:]}
            for card in self.model.hand():
                word = str(card)
                if word.lower().startswith(current.lower()) and (
                        word.lower() not in named or word.lower() == current.lower()):
                    yield Completion(word, -len(current), display=card_text(card))
        elif command in ("join", "watch", "table"):
            for table in sorted(self.model.source.lobby):
                if str(table).startswith(current):
                    info = self.model.source.lobby[table]
                    yield Completion(str(table), -len(current),
                                     display_meta=f"{info.game} {info.state}")
        elif command == "set" and self.model.form is not None:
            for row in self.model.form.rows():
                if row.startswith(current):
                    yield Completion(row + "=", -len(current))
        elif command == "bot":
            for bot in self.model.bots:
                if bot.startswith(current):
                    yield Completion(bot, -len(current))
        elif command == "create":
            for game in self.model.games:
                if game.game.startswith(current):
                    yield Completion(game.game, -len(current), display_meta=game.title)


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

    def quit() -> None:
        if app.is_running:
            app.exit()

    controller.quit = quit
    return app
