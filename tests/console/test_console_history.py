"""The history screen's pages and records, against a session that only answers history
requests: older games come from the server as the pointer nears the end, and Enter
opens a game's record in the words of ``rummyhall replay``."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

from prompt_toolkit.input import create_pipe_input
from screens import history_model

from rummyhall.bots import SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client import RequestRefused
from rummyhall.client.console.app import build_app
from rummyhall.client.console.controller import HISTORY_GAMES, Controller
from rummyhall.client.console.snapshot import FixedSizeOutput
from rummyhall.client.records import RecordedGame, replay_text
from rummyhall.client.wording import card_symbols
from rummyhall.protocol import GameRecord, JournalEntry, PlayedGame, action_to_entry
from rummyhall.rules import new_game, seat_view

DOWN, END, PAGE_DOWN, PAGE_UP = "\x1b[B", "\x1b[F", "\x1b[6~", "\x1b[5~"


def gin_journal() -> tuple[JournalEntry, ...]:
    """A whole game of Gin to 30 points between two simple bots, as its journal."""
    game = new_game("gin", {"target_score": 30}, players=2, first_dealer=0)
    rng, bot, entries = random.Random(3), SimpleBot(), []
    while not game.is_over:
        seat = game.to_move
        action = (shuffle_for(game, rng) if seat is None
                  else bot.choose(seat_view(game, seat), game.legal_actions()))
        game.apply(action)
        wire = action_to_entry(action)
        seat = wire.pop("seat", None)
        entries.append(JournalEntry(seat=seat, action={k: as_wire(v) for k, v in wire.items()}))
    return tuple(entries)


def as_wire(value: object) -> object:
    """JSON's lists as the tuples of the wire."""
    return tuple(as_wire(v) for v in value) if isinstance(value, list) else value


class HistoryServer:
    """The history requests of a session, over ``games`` games numbered 1 up, newest
    first; it counts the pages asked for."""

    name = "ada"

    def __init__(self, games: tuple[PlayedGame, ...]) -> None:
        self.games = sorted(games, key=lambda g: -g.number)
        self.pages: list[int | None] = []
        self.journal = gin_journal()

    async def list_games_played(self, *, name: str | None = None, limit: int | None = None,
                                before: int | None = None) -> tuple[PlayedGame, ...]:
        self.pages.append(before)
        older = [g for g in self.games if before is None or g.number < before]
        return tuple(older[:limit or 20])

    async def get_record(self, number: int) -> tuple[GameRecord, tuple[JournalEntry, ...]]:
        game = next((g for g in self.games if g.number == number), None)
        if game is None or number % 2:
            raise RequestRefused("no_such_game", f"no finished game has number {number}")
        summary = PlayedGame(number=number, table=game.table, game="gin", state="finished",
                             seats=game.seats[:2], winners=(0,), totals=(30, 0), hands=1,
                             started=game.started, finished=game.finished)
        return GameRecord(summary=summary, options={"target_score": 30}, first_dealer=0,
                          seeded=False, hands=(), start=0, journal=self.journal,
                          next=None), self.journal


def run(games: int, scenario: Callable[[SimpleNamespace], Awaitable[None]]) -> None:
    model = history_model(games)
    model.screen, model.history = "lobby", None
    server = HistoryServer(history_model(games).history or ())
    tasks: list[asyncio.Task[None]] = []
    controller = Controller(model, server,  # type: ignore[arg-type]
                            spawn=lambda fn: tasks.append(asyncio.ensure_future(fn())))

    async def main() -> None:
        with create_pipe_input() as pipe:
            app = build_app(model, controller=controller, input=pipe,
                            output=FixedSizeOutput(80, 24))

            async def press(keys: str, until: Callable[[], bool] = lambda: True) -> None:
                """Press ``keys``; wait for the tasks they started and for ``until`` (a
                lone Esc is told from a key's start by a pause)."""
                pipe.send_text(keys)
                for _ in range(5):
                    await asyncio.sleep(0.005)
                while not until():
                    await asyncio.sleep(0.005)
                await asyncio.gather(*tasks)

            running = asyncio.ensure_future(app.run_async())
            try:
                await scenario(SimpleNamespace(model=model, server=server, press=press))
            finally:
                app.exit()
                await running

    asyncio.run(asyncio.wait_for(main(), 30))


def test_older_games_are_asked_for_as_the_pointer_nears_the_end() -> None:
    async def scenario(t: SimpleNamespace) -> None:
        await t.press("h")
        assert len(t.model.history) == HISTORY_GAMES and t.model.history_more
        assert t.server.pages == [None]
        await t.press(PAGE_DOWN)  # a page down: the pointer moves a screenful of games
        assert 1 < t.model.history_row < HISTORY_GAMES - 5 and t.server.pages == [None]
        await t.press(END)  # near the end: the next page, the games below the last one
        assert t.server.pages == [None, 71]
        assert [g.number for g in t.model.history] == list(range(120, 20, -1))
        await t.press(END)
        await t.press(DOWN)
        assert t.server.pages == [None, 71, 21] and len(t.model.history) == 120
        assert not t.model.history_more  # (the last page was not full: no more asked for)
        await t.press(END + DOWN)
        assert t.server.pages == [None, 71, 21] and t.model.history_row == 119
        await t.press(PAGE_UP)
        assert t.model.history_row < 119

    run(120, scenario)


def test_enter_opens_a_game_in_the_words_of_the_replay_and_esc_goes_back() -> None:
    async def scenario(t: SimpleNamespace) -> None:
        await t.press("h")
        await t.press(DOWN)  # game 29, then Enter: its record is refused (no such game)
        await t.press("\r")
        assert t.model.screen == "record" and t.model.record == (
            "No record: no finished game has number 29",)
        await t.press("\x1b", until=lambda: t.model.screen == "history")
        assert t.model.history_row == 1
        await t.press("\x1b[A\r")  # game 30
        assert t.model.screen == "record" and t.model.record_number == 30
        record, journal = await t.server.get_record(30)
        told = replay_text(RecordedGame.of_wire(record, journal), card_symbols)
        assert t.model.record == tuple(told.lines) and told.status == 0
        assert any(line.startswith("Game over: ") for line in told.lines)
        await t.press(PAGE_DOWN)
        assert t.model.record_top > 0
        await t.press("\x1b[H")  # Home: the top again
        assert t.model.record_top == 0
        await t.press("L")
        assert t.model.screen == "lobby"

    run(30, scenario)
