"""Text captures of the real console at 80x24, for the README: ``python tools/screenshot.py``.

It starts a server in this process (127.0.0.1, a free port, a fixed seed, a data file in
a temporary directory), runs the console against it in a terminal of 80x24 and plays
it with keystrokes as a person would: the new-table form, a Gin table with a house bot,
the game, the scores; at each step it draws the screen (prompt_toolkit lays the real
application out, :func:`rummyhall.client.console.snapshot.draw`) and writes it to
``docs/screens/NAME.txt`` (or ``--out DIR``), and the table's into the README.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.input import PipeInput, create_pipe_input

from rummyhall.bots import SimpleBot
from rummyhall.client.console import ConsoleHandle, ConsoleOptions, run_console
from rummyhall.client.console.snapshot import FixedSizeOutput, draw
from rummyhall.server import Settings
from rummyhall.server.in_thread import serving_in_a_thread

COLUMNS, ROWS = 80, 24
OUT = Path(__file__).resolve().parents[1] / "docs" / "screens"
WAIT = 20.0  # seconds: the longest a step may take
README = Path(__file__).resolve().parents[1] / "README.md"
README_SCREEN = "table-gin"  # the capture the README shows, between these marks:
MARK_START, MARK_END = "<!-- screen: table-gin -->", "<!-- end of screen -->"


def show_in_readme(text: str) -> None:
    """Put ``text`` in the README between its screen markers."""
    readme = README.read_text(encoding="utf-8")
    start, end = readme.index(MARK_START), readme.index(MARK_END)
    README.write_text(readme[:start + len(MARK_START)] + "\n```\n" + text + "```\n"
                      + readme[end:], encoding="utf-8")
    print(README)


class Capture:
    """Keys into the console; its screen out to files."""

    def __init__(self, handle: ConsoleHandle, pipe: PipeInput, out: Path) -> None:
        self.h, self.pipe, self.out = handle, pipe, out
        self.model = handle.model

    async def press(self, keys: str) -> None:
        self.pipe.send_text(keys)
        await asyncio.sleep(0.05)

    async def until(self, predicate: Callable[[], object], what: str) -> None:
        end = time.monotonic() + WAIT
        while not predicate():
            if time.monotonic() > end:
                raise SystemExit(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    def save(self, name: str) -> None:
        assert self.h.app is not None
        self.model.clocks.clear()  # (no clock in a capture: it would differ each run)
        screen = draw(self.h.app, COLUMNS, ROWS)  # type: ignore[arg-type]
        if screen.faults:
            raise SystemExit(f"{name}: does not fit: {screen.faults}")
        path = self.out / f"{name}-{COLUMNS}x{ROWS}.txt"
        path.write_text(screen.text() + "\n", encoding="utf-8")
        print(path)
        if name == README_SCREEN and self.out == OUT:
            show_in_readme(screen.text() + "\n")

    async def run(self) -> None:
        m = self.model
        await self.until(lambda: m.games, "the games")
        self.save("lobby-empty")
        await self.press("n")
        await self.until(lambda: m.screen == "form", "the form")
        await self.press(":set game=gin\r")
        await self.until(lambda: m.form is not None and m.form.game.game == "gin", "Gin")
        m.status = ""
        self.save("new-table")
        await self.press("\r")  # Gin, the defaults
        await self.until(lambda: m.screen == "table" and m.info is not None
                         and any(s.player == self.h.session.player_id for s in m.info.seats),
                         "the new table")
        await self.press("b")
        await self.until(lambda: m.info is not None
                         and all(s.kind != "empty" for s in m.info.seats), "a house bot")
        await self.press("g")
        await self.until(lambda: m.state is not None and m.state.my_turn
                         and m.state.legal and m.view is not None and m.view.hand
                         and m.view.to_move == m.view.seat
                         and m.prompted.get(m.state.table) == m.state.move, "our turn")
        m.status = ""
        self.save("table-gin")
        await self.play_to_the_scores()
        self.save("scores-gin")
        await self.press("L")
        await self.until(lambda: m.screen == "lobby" and m.lobby_tables(), "the lobby")
        self.save("lobby")

    async def play_to_the_scores(self) -> None:
        """Play our seat like the simple bot (by the controller) until a hand is scored."""
        m, bot = self.model, SimpleBot()
        state = m.state
        assert state is not None
        for _ in range(500):
            if m.show_scores and state.view is not None and state.view.results:
                return
            if (state.my_turn and state.legal and state.view is not None
                    and m.prompted.get(state.table) == state.move):  # (as the screen has it)
                move = state.move
                action = bot.choose(state.view, list(state.legal))
                self.h.controller.act(lambda seat, action=action: action)  # type: ignore[misc]
                await self.until(lambda move=move: state.move != move or m.show_scores,  # type: ignore[misc]
                                 "the answer")
            else:
                await asyncio.sleep(0.01)
        raise SystemExit("the hand did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the captures go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # (a long pause after a hand: the scores stay on the screen to be captured)
        settings = Settings(host="127.0.0.1", port=0, beacon=False, house_delay=0.0,
                            hand_pause=60.0, seed=2024, log_level="warning",
                            data=str(Path(tmp) / "hall.sqlite3"), name="Rummy Hall")
        with serving_in_a_thread(settings, seconds=WAIT) as port:
            options = ConsoleOptions("127.0.0.1", port, "ada", color=False)
            with create_pipe_input() as pipe:
                async def drive(handle: ConsoleHandle) -> None:
                    await Capture(handle, pipe, args.out).run()

                asyncio.run(run_console(options, input=pipe,
                                        output=FixedSizeOutput(COLUMNS, ROWS), driver=drive))


if __name__ == "__main__":
    main()
