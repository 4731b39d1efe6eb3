"""The command line: each word reaches its handler with its arguments (COMMAND_HANDLERS)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from rummyhall.client.console.app import CommandCompleter
from rummyhall.client.console.controller import COMMAND_HANDLERS, COMMANDS, Controller
from rummyhall.client.console.model import ConsoleModel
from rummyhall.rules import SeatView, new_game, seat_view
from rummyhall.rules.actions import Shuffle

INTENTS = ["draw_stock", "draw_pile", "pass_upcard", "declare_rummy", "big_gin", "start",
           "leave", "refresh", "discard", "meld", "lay_off", "knock", "go_out", "join",
           "watch", "add_bot", "remove_bot", "open_form", "say"]


class Recording(Controller):
    """A controller whose intents are recorded instead of sent."""

    def __init__(self, model: ConsoleModel, session: Any) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        super().__init__(model, session, spawn=lambda _: None,
                         quit=lambda: self.calls.append(("quit", ())))
        for name in INTENTS:
            setattr(self, name, self._recorder(name))

    def _recorder(self, name: str) -> Any:
        return lambda *args: self.calls.append((name, args))


def gin_view() -> SeatView:
    game = new_game("gin", players=2, first_dealer=0)
    game.apply(Shuffle(game.shuffle_cards()))
    return seat_view(game, 1)


def controller(view: SeatView | None = None, tables: dict[int, Any] | None = None) -> Recording:
    state = SimpleNamespace(view=view, seat=1, info=None)
    source = SimpleNamespace(tables=tables if tables is not None else {4: state}, lobby={},
                             connected=True)
    model = ConsoleModel(source)
    if view is not None:
        model.open_table(4)
    return Recording(model, source)


def test_every_command_of_the_help_has_a_handler() -> None:
    assert set(COMMANDS) <= set(COMMAND_HANDLERS)


@pytest.mark.parametrize(("line", "call"), [
    ("stock", ("draw_stock", ())), ("draw", ("draw_stock", ())), ("take", ("draw_pile", ())),
    (":pass", ("pass_upcard", ())), ("/rummy", ("declare_rummy", ())),
    ("START", ("start", ())), ("leave", ("leave", ())), ("refresh", ("refresh", ())),
    ("discard Td", ("discard", (["Td"],))), ("meld 5h 6h 7h", ("meld", (["5h", "6h", "7h"],))),
    ("layoff 8h 2", ("lay_off", (["8h", "2"],))), ("out Ks", ("go_out", (["Ks"],))),
    ("knock 3c", ("knock", (["3c"],))), ("join 7 1", ("join", (7, 1, None))),
    ("join 7", ("join", (7, None, None))),
    ("join 7 tuesday club", ("join", (7, None, "tuesday club"))),
    ("join 7 1 k7pq-3mzx-9vfd", ("join", (7, 1, "k7pq-3mzx-9vfd"))),
    ("watch 9", ("watch", (9, None))), ("watch 9 2024", ("watch", (9, "2024"))),
    ("bot 1 strong", ("add_bot", (1, "strong"))), ("bot 2 expert", ("add_bot", (2, "expert"))),
    ("bot", ("add_bot", (None, None))), ("unbot 2", ("remove_bot", (2,))),
    ("create gin", ("open_form", ("gin",))), ("create", ("open_form", (None,))),
    ("say hello 'all'", ("say", ("hello 'all'",))), ("' hi", ("say", ("hi",))),
    ("quit", ("quit", ())), ("exit", ("quit", ())),
])
def test_a_command_reaches_its_handler(line: str, call: tuple[str, tuple[object, ...]]) -> None:
    c = controller()
    c.command(line)
    assert c.calls == [call]


def test_knock_with_no_card_chosen_in_gin_is_big_gin() -> None:
    c = controller(dataclasses.replace(gin_view(), hand=()))  # nothing under the cursor
    c.command("knock")
    assert c.calls == [("big_gin", ())]


def test_join_without_a_table_takes_the_current_one() -> None:
    c = controller(gin_view())
    c.command("join")
    assert c.calls == [("join", (4, None, None))]


def test_the_screen_commands_change_the_screen() -> None:
    c = controller(gin_view())
    c.command("scores")
    assert c.model.show_scores
    c.command("help")
    assert c.model.show_help
    c.command("?")
    assert [c.model.show_help] == [False]  # (a list: mypy narrowed the attribute above)
    c.command("lobby")
    assert c.model.screen == "lobby" and c.calls == [("refresh", ())]
    c.command("table 4")
    assert c.model.screen == "table" and c.model.table == 4
    c.command("table 12")
    assert c.model.status_error and "neither sit" in c.model.status


def test_an_unknown_command_or_an_empty_line() -> None:
    c = controller()
    c.command("   ")
    assert not c.model.status and not c.calls
    c.command("fly away")
    assert c.model.status_error and "unknown command 'fly'" in c.model.status
    assert not c.calls


def completions(c: Recording, text: str) -> list[str]:
    completer = CommandCompleter(c.model)
    return [x.text for x in completer.get_completions(Document(text, len(text)), CompleteEvent())]


def test_the_command_line_completes_commands_cards_tables_bots_and_games() -> None:
    view = gin_view()
    c = controller(view)
    assert completions(c, "st") == ["stock", "start"]
    hand = sorted(str(card) for card in view.hand)
    assert sorted(completions(c, "discard ")) == hand
    first = hand[0]
    assert first not in completions(c, f"meld {first} ")  # a card named once
    lobby: dict[int, Any] = {3: SimpleNamespace(game="gin", state="waiting"),
                             12: SimpleNamespace(game="basic", state="playing")}
    c.model.source.lobby = lobby
    assert completions(c, "join ") == ["3", "12"]
    assert completions(c, "watch 1") == ["12"]
    c.model.bots = ("random", "simple", "strong", "expert")  # the server's levels
    assert completions(c, "bot s") == ["simple", "strong"]
    assert completions(c, "bot 2 e") == ["expert"]
    games: tuple[Any, ...] = (SimpleNamespace(game="gin", title="Gin Rummy"),)
    c.model.games = games
    assert completions(c, "create g") == ["gin"]
    assert completions(c, "set ") == []  # no form open
    assert completions(c, "lobby ") == []
