"""The console drawn into a screen of a fixed size, as text: for tests and captures.

:func:`draw` has prompt_toolkit lay the application's containers out on a
:class:`~prompt_toolkit.layout.screen.Screen` of the size asked (the way its renderer
does before it writes to the terminal), then reads the characters back, and checks each
window: a line wider than its window (cut, or wrapped in the middle of a word by
prompt_toolkit) or more lines than fit (text below the screen) is a *fault*. A window
that shows the tail of its text on purpose (the log) is a :class:`TailWindow`.
"""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.formatted_text.utils import fragment_list_width
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.controls import DummyControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput


class FixedSizeOutput(DummyOutput):
    """An output that writes nothing and tells a fixed size (what the layout reads)."""

    def __init__(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


@dataclass(frozen=True)
class Drawn:
    """A drawn screen: its rows of text, and what did not fit."""

    lines: list[str]
    faults: list[str]

    def text(self) -> str:
        return "\n".join(self.lines)


def draw(app: Application[object], columns: int, rows: int) -> Drawn:
    """``app``'s screen at ``columns`` x ``rows`` (its output must tell that size, see
    :class:`FixedSizeOutput`, for the texts that read it)."""
    windows = list(app.layout.find_all_windows())
    for window in windows:
        window.render_info = None  # (a window hidden now keeps the last drawing's)
    # a fresh drawing: the controls keep their texts per render (by this counter), and a
    # running app may not have redrawn since the model changed
    app.render_counter += 1
    screen = Screen()
    with set_app(app):
        app.layout.container.write_to_screen(screen, MouseHandlers(),
                                             WritePosition(0, 0, columns, rows),
                                             parent_style="", erase_bg=False, z_index=None)
        screen.draw_all_floats()
    lines = ["".join(screen.data_buffer[y][x].char for x in range(columns)).rstrip()
             for y in range(rows)]
    return Drawn(lines, [fault for window in windows for fault in _faults(window)])


def _faults(window: Window) -> list[str]:
    info = window.render_info
    if info is None or isinstance(window.content, DummyControl):  # not shown; a filler
        return []
    content = info.ui_content
    out = []
    for i in range(content.line_count):
        line = content.get_line(i)
        if fragment_list_width(line) > info.window_width:
            out.append(f"wider than its window ({info.window_width}): "
                       f"{fragment_list_to_text(line)!r}")
    if content.line_count > info.window_height:
        below = [fragment_list_to_text(content.get_line(i))
                 for i in range(info.window_height, content.line_count)]
        out.append(f"{content.line_count} lines in {info.window_height} rows; not shown: "
                   f"{below!r}")
    return out
