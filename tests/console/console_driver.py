"""Driving the console by keystrokes, as a person would, from the asyncio side.

Real time, on purpose: the console is prompt_toolkit's asyncio application with trio as
its guest, and asyncio has no mock clock. So a test never waits for a time: it waits for
what it expects to see (:meth:`Person.wait`, a condition polled every 5 ms and bounded by
a hang guard, never asserted as a duration); the few milliseconds after a key press
only give the application turns to read it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from hang_guard import HANG_GUARD
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import PipeInput

from rummyhall.bots import SimpleBot
from rummyhall.client import TableState
from rummyhall.client.console import ConsoleHandle
from rummyhall.client.console.layout import action_bar, log_text, main_text, status_text
from rummyhall.rules import Card, SeatAction

RIGHT = "\x1b[C"
HOME = "\x1b[H"


class Person:
    """Presses keys into the console and reads its screen."""

    def __init__(self, handle: ConsoleHandle, pipe: PipeInput) -> None:
        self.h = handle
        self.pipe = pipe
        self.model = handle.model
        self.bot = SimpleBot()

    async def press(self, keys: str) -> None:
        self.pipe.send_text(keys)
        for _ in range(3):
            await asyncio.sleep(0.005)

    async def type_command(self, line: str) -> None:
        await self.press(":" + line + "\r")

    async def wait(self, predicate: Callable[[], object], timeout: float = HANG_GUARD,
                   what: str = "") -> None:
        end = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what or predicate}\n"
                                     + self.screen())
            await asyncio.sleep(0.005)

    def screen(self) -> str:
        m = self.model
        return "\n".join(fragment_list_to_text(f(m)) for f in (
            main_text, status_text, action_bar, log_text))

    @property
    def state(self) -> TableState:
        table = self.model.table
        assert table is not None
        return self.h.session.tables[table]

    async def cursor_to(self, card: Card) -> None:
        hand = self.model.hand()
        target = hand.index(card)
        self.model.cursor_card()  # (where the cursor is now: on its card)
        moves = (target - self.model.cursor) % len(hand)
        await self.press(RIGHT * moves)
        await self.wait(lambda: self.model.cursor_card() == card, what=f"cursor on {card}")

    async def do(self, action: SeatAction) -> None:
        """Play ``action`` with the keys of the action bar (a layoff by command line)."""
        kind = action.kind
        if kind in ("draw_stock", "draw_discard", "pass", "declare_rummy"):
            await self.press({"draw_stock": "s", "draw_discard": "p", "pass": "x",
                              "declare_rummy": "r"}[kind])
        elif kind in ("discard", "knock", "go_out"):
            card = getattr(action, "card", None)
            if card is None:
                await self.press("K")
                return
            await self.cursor_to(card)
            await self.press({"discard": "d", "knock": "k", "go_out": "o"}[kind])
        elif kind == "meld":
            for card in action.cards:  # type: ignore[union-attr]
                await self.cursor_to(card)
                await self.press(" ")
            await self.wait(lambda: len(self.model.selected) == len(action.cards),  # type: ignore[union-attr]
                            what="selection")
            await self.press("m")
        elif kind == "layoff":
            cards = " ".join(str(c) for c in action.cards)  # type: ignore[union-attr]
            await self.type_command(f"layoff {cards} {action.meld}")  # type: ignore[union-attr]
        else:
            raise AssertionError(f"no key for {action}")

    async def play_hand(self, max_turns: int = 400) -> None:
        """Play our seat until the hand in progress is scored, choosing like the simple bot."""
        state = self.state
        assert state.view is not None
        hands_done = len(state.view.results)
        for _ in range(max_turns):
            await self.wait(lambda: (state.my_turn and state.legal) or (
                state.view is not None and (len(state.view.results) > hands_done
                                            or state.view.phase == "game_over")),
                what="our turn or the end of the hand")
            assert state.view is not None
            if len(state.view.results) > hands_done or state.view.phase == "game_over":
                return
            move = state.move
            action = self.bot.choose(state.view, list(state.legal))
            await self.do(action)
            await self.wait(lambda move=move: state.move != move or self.model.status_error,  # type: ignore[misc]
                            what=f"the answer to {action}")
            assert not self.model.status_error, self.model.status
        raise AssertionError("the hand did not end")


Scenario = Callable[[Person], Awaitable[None]]
