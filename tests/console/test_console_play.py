"""The console driven by keystrokes against a real server on loopback."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from console_driver import Person, Scenario
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from rummyhall.client import ServerClosed
from rummyhall.client.console import ConsoleHandle, ConsoleOptions, run_console
from rummyhall.client.console.layout import title_text
from rummyhall.client.console.model import note_text

LIMIT = 40.0


def run(port: int, scenario: Scenario, *, name: str = "ada", token: str | None = None,
        tokens: list[str] | None = None) -> None:
    """Run the console against ``port`` with ``scenario`` pressing the keys."""
    def remember(token: str) -> None:
        if tokens is not None:
            tokens.append(token)

    options = ConsoleOptions("127.0.0.1", port, name, token=token, reconnect_seconds=10,
                             on_token=remember)
    with create_pipe_input() as pipe:
        async def drive(handle: ConsoleHandle) -> None:
            await scenario(Person(handle, pipe))

        asyncio.run(asyncio.wait_for(run_console(options, input=pipe, output=DummyOutput(),
                                                 driver=drive), LIMIT))


async def new_table(p: Person, game: str, **options: object) -> None:
    """Create a table with the form, sit, add a house bot and start."""
    await p.wait(lambda: p.model.games, what="the games")
    await p.press("n")
    await p.wait(lambda: p.model.screen == "form")
    await p.type_command(f"set game={game}")
    for name, value in options.items():
        await p.type_command(f"set {name}={value}")
    await p.press("\r")
    await p.wait(lambda: p.model.screen == "table" and p.model.info is not None
                 and any(s.player == p.h.session.player_id for s in p.model.info.seats),
                 what="seated at the new table")
    await p.press("b")
    await p.wait(lambda: p.model.info is not None
                 and all(s.kind != "empty" for s in p.model.info.seats), what="a bot seated")
    await p.press("g")
    await p.wait(lambda: p.model.view is not None and p.model.view.hand_no >= 1,
                 what="the deal")


def test_a_hand_of_gin(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin", target_score=10)
        assert "Gin Rummy" in p.screen()
        await p.play_hand()
        assert p.model.view is not None and p.model.view.results
        await p.wait(lambda: p.model.show_scores)
        text = p.screen()
        note = note_text(p.model.view.results[0].notes[0], p.model.info)
        assert note in text and "seat " not in note  # the engine's words, with the names
        # a hand to 10 points ends the game: g plays again at the same table
        await p.wait(lambda: p.model.view is not None and p.model.view.phase == "game_over",
                     what="the game over")
        await p.press("\t")  # back to the table, where the game-over line says how
        await p.wait(lambda: "g: play again" in " ".join(p.screen().split()),  # (wrapped at words)
                     what="the game-over line")
        await p.press("g")
        await p.wait(lambda: p.model.view is not None and p.model.view.phase != "game_over"
                     and not p.model.view.results, what="the next game")

    run(server_port, scenario)


async def game_over(p: Person) -> tuple[int, ...]:
    """Play the game at the shown table to its end; its final totals."""
    while True:
        await p.play_hand()
        view = p.model.view
        assert view is not None
        if view.phase == "game_over":
            return view.scores


async def history(p: Person, keys: str, games: int) -> None:
    """Open the history with ``keys`` and wait until it has ``games`` games (asking again
    with :history: the journal writes a game's end in a moment of its own)."""
    for attempt in range(200):
        await p.press(keys if not attempt else ":history\r")
        await p.wait(lambda: p.model.screen == "history" and p.model.history is not None,
                     what="the history")
        if len(p.model.history or ()) >= games:
            return
    raise AssertionError(p.screen())


def test_the_history_shows_the_games_played_newest_first(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin", target_score=10)
        first = await game_over(p)
        await p.press("L")
        await p.wait(lambda: p.model.screen == "lobby", what="the lobby")
        await history(p, "h", 1)  # the lobby's key
        text = " ".join(p.screen().split())  # (wrapped at words)
        assert p.model.history is not None
        played = p.model.history[0]
        assert played.game == "gin" and played.totals == first
        assert f"#{played.number} Gin Rummy" in text
        me = next(s.seat for s in played.seats if s.player == p.h.session.player_id)
        bot = next(s for s in played.seats if s.seat != me)
        winner = "you" if me in played.winners else bot.name
        assert f"you {first[me]}" in text and f"{bot.name} {first[bot.seat]}" in text
        assert f"; {winner} won" in text and f"{played.hands} hand" in text
        await p.press("\x1b")  # Esc: back to the lobby
        await p.wait(lambda: p.model.screen == "lobby", what="the lobby again")
        await p.press("\r")  # our table again, and a second game there
        await p.wait(lambda: p.model.screen == "table", what="the table")
        await p.press("g")
        await p.wait(lambda: p.model.view is not None and p.model.view.phase != "game_over",
                     what="the next game")
        second = await game_over(p)
        await history(p, ":history\r", 2)
        games = p.model.history
        assert games is not None and games[0].number > games[1].number  # the newest first
        assert games[0].totals == second and games[1].number == played.number
        text = p.screen()
        assert text.index(f"▶ #{games[0].number}") < text.index(f"#{played.number}")
        await p.press("\x1b[B")  # ↓: the pointer on the older game
        await p.wait(lambda: f"▶ #{played.number}" in p.screen(), what="the pointer moved")
        await p.press("L")
        await p.wait(lambda: p.model.screen == "lobby", what="L: the lobby")

    run(server_port, scenario)


def test_enter_on_a_game_of_the_history_opens_its_record_as_the_replay_tells_it(
        server_port: int, tmp_path: Path) -> None:
    opened: dict[str, object] = {}

    async def scenario(p: Person) -> None:
        await new_table(p, "gin", target_score=10)
        await game_over(p)
        await history(p, ":history\r", 1)
        assert p.model.history is not None
        number = p.model.history[0].number
        await p.press("\r")  # Enter: the game, hand by hand
        await p.wait(lambda: p.model.screen == "record" and p.model.record is not None,
                     what="the record")
        assert f"game #{number}" in fragment_list_to_text(title_text(p.model))
        opened["number"], opened["lines"] = number, p.model.record
        assert f"Game #{number}: gin" in p.screen()
        await p.press("\x1b[6~")  # PgDn: further down the record
        await p.wait(lambda: p.model.record_top > 0, what="the record scrolled")
        await p.press("\x1b")  # Esc: back to the games, the pointer where it was
        await p.wait(lambda: p.model.screen == "history", what="the history again")
        assert p.model.history_row == 0 and p.model.record is None

    run(server_port, scenario)
    replay = subprocess.run([sys.executable, "-m", "rummyhall", "replay", str(opened["number"]),
                             "--no-pause", "--data", str(tmp_path / "hall.db")],
                            capture_output=True, text=True, timeout=60, check=True,
                            env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert tuple(replay.stdout.splitlines()) == opened["lines"]  # the same words, line by line
    assert any(line.startswith("Game over: ") for line in replay.stdout.splitlines())


def test_a_hand_of_basic_rummy(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "basic", target_score=10)
        assert "Basic Rummy" in p.screen()
        await p.play_hand()
        view = p.model.view
        assert view is not None and view.results
        note = note_text(view.results[0].notes[0], p.model.info)
        # the session's state has the result before the console's log has its lines
        await p.wait(lambda: note in p.screen(), what=f"the note {note!r} in the log")

    run(server_port, scenario)


@pytest.mark.parametrize(("game", "title"), [("chicago", "Chicago Rummy"),
                                             ("three_thirteen", "Three Thirteen")])
def test_a_hand_of_chicago_and_of_three_thirteen(server_port: int, game: str,
                                                 title: str) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, game)
        assert title in p.screen()
        await p.play_hand()
        view = p.model.view
        assert view is not None and view.results

    run(server_port, scenario)


def test_an_illegal_move_is_refused_with_the_reason_and_changes_nothing(
        server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        state = p.state
        await p.wait(lambda: state.my_turn and state.legal, what="our turn")
        assert state.view is not None
        before = (state.view.hand, state.view.discard_pile, state.move)
        cursor = p.model.cursor
        assert "[x]pass" in p.screen() and "[p]pile" in p.screen()  # the legal ones
        await p.press("s")  # Gin's upcard offer: the stock may not be drawn yet
        await p.wait(lambda: p.model.status_error, what="the refusal")
        assert "drawing from the stock is not allowed now: the upcard is offered" \
            in p.model.status
        await p.wait(lambda: state.my_turn, what="a fresh your_turn")
        assert (state.view.hand, state.view.discard_pile, state.move) == before
        assert p.model.cursor == cursor and p.model.screen == "table"
        await p.type_command("discard " + str(state.view.hand[0]))  # also refused
        await p.wait(lambda: "discarding is not allowed" in p.model.status, what="refusal 2")
        await p.wait(lambda: state.my_turn, what="a fresh your_turn")
        assert (state.view.hand, state.view.discard_pile, state.move) == before
        await p.press("x")  # a legal pass clears the error and the game goes on
        await p.wait(lambda: state.move != before[2], what="the pass")

    run(server_port, scenario)


def test_chat_at_the_table(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        await p.press("t")
        await p.press("good luck, bot\r")
        await p.wait(lambda: any(e.kind == "chat" and "<ada> good luck, bot" in e.text
                                 for e in p.model.log), what="the chat line")
        assert "<ada> good luck, bot" in p.screen()

    run(server_port, scenario)


def test_a_dropped_connection_shows_a_banner_and_resumes(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        state = p.state
        await p.wait(lambda: state.my_turn and state.legal, what="our turn")
        session = p.h.session
        stream = session._stream
        assert stream is not None
        p.h.in_trio(stream.socket.close)  # the network drops
        await p.wait(lambda: p.model.banner is not None, what="the banner")
        assert "reconnecting" in (p.model.banner or "")
        # the server holds the seat for the table's grace period (120 s): it counts down
        assert re.search(r"Your seat is held (2:00|1:5\d) more, then a house bot plays it",
                         p.model.banner_text() or ""), p.model.banner_text()
        await p.wait(lambda: p.model.banner is None and session.connected, what="resumed")
        assert p.model.table == state.table
        await p.play_hand()  # and the hand goes on to its end
        assert p.model.view is not None and p.model.view.results

    run(server_port, scenario)


@pytest.mark.parametrize("server_port", [{"house_delay": 0.3}], indirect=True)
def test_a_restarted_client_sits_again_with_its_token(server_port: int) -> None:
    """The client quit (bye: a house bot took the seat); started again, it sits again."""
    tokens: list[str] = []
    seen: dict[str, int] = {}

    async def first(p: Person) -> None:
        await new_table(p, "gin")
        assert p.model.table is not None
        seen["table"] = p.model.table

    async def second(p: Person) -> None:
        await p.wait(lambda: p.model.table == seen["table"] and p.model.view is not None,
                     what="the table shown again")
        assert p.model.screen == "table"
        state = p.state
        await p.wait(lambda: state.my_turn and state.legal, what="our seat back")
        move = state.move
        await p.do(state.legal[0])
        await p.wait(lambda: state.move != move, what="our action")

    run(server_port, first, tokens=tokens)
    assert tokens
    run(server_port, second, token=tokens[-1])


def test_a_crashed_client_resumes_its_held_seat(server_port: int) -> None:
    """The client died without a bye: the seat is held; the token brings it back."""
    tokens: list[str] = []
    seen: dict[str, int] = {}

    async def first(p: Person) -> None:
        await new_table(p, "gin")
        state = p.state
        await p.wait(lambda: state.my_turn, what="our turn")
        seen["table"] = state.table
        session = p.h.session

        def crash() -> None:
            session.closed_reason = ServerClosed("killed")  # no bye, no reconnect
            assert session._stream is not None
            session._stream.socket.close()

        p.h.in_trio(crash)
        await p.wait(lambda: p.model.finished, what="the end of the session")

    async def second(p: Person) -> None:
        await p.wait(lambda: p.model.table == seen["table"] and p.model.view is not None,
                     what="the table shown again")
        await p.play_hand()

    run(server_port, first, tokens=tokens)
    run(server_port, second, token=tokens[-1])


def test_the_form_refuses_a_bad_value_as_typed(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.games, what="the games")
        await p.press("n")
        await p.wait(lambda: p.model.screen == "form")
        await p.type_command("set game=gin knock_limit=99")
        await p.wait(lambda: p.model.status_error, what="the refusal, as typed")
        assert "knock_limit" in p.model.status and "0 to 10" in p.model.status
        assert p.model.screen == "form" and p.model.form is not None
        assert p.model.form.value("knock_limit") == 10  # nothing changed
        await p.type_command("set knock_limit=7")
        await p.wait(lambda: "default 10" in p.screen(), what="the default shown")
        assert "7 *" in p.screen()
        await p.press("\r")
        await p.wait(lambda: p.model.screen == "table" and p.model.info is not None,
                     what="the table")
        assert p.model.info is not None and p.model.info.options["knock_limit"] == 7

    run(server_port, scenario)


@pytest.mark.parametrize("server_port", [{"house_delay": 0.3}], indirect=True)
def test_a_seat_left_with_leave_stays_left(server_port: int) -> None:
    """:leave hands the seat to a house bot; going back to the lobby does not sit the
    player again (only a restarted client takes its seat back by itself)."""
    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        table = p.model.table
        await p.type_command("leave")
        await p.wait(lambda: p.model.screen == "lobby", what="back in the lobby")
        session = p.h.session
        listed: list[object] = []
        list_tables = session.list_tables

        async def counted() -> object:  # each refresh lists the tables once
            tables = await list_tables()
            listed.append(tables)
            return tables

        session.list_tables = counted  # type: ignore[assignment,method-assign]
        for _ in range(2):
            await p.press("r")  # a refresh of the lobby
            await p.type_command("lobby")
        await p.wait(lambda: len(listed) == 4, what="the four refreshes answered")
        assert p.model.screen == "lobby" and table not in p.h.session.tables
        assert table in p.h.session.lobby  # (still being played, by two house bots)
        assert not any("you sit here again" in e.text for e in p.model.log)

    run(server_port, scenario)


def test_r_refreshes_a_table_where_there_is_no_rummy_to_declare(server_port: int) -> None:
    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        table = p.model.table
        await p.press("r")
        await p.wait(lambda: p.model.status == f"table {table} refreshed", what="the refresh")
        assert not p.model.status_error and p.model.screen == "table"

    run(server_port, scenario)


def test_ctrl_q_at_a_game_where_we_sit_asks_first(server_port: int) -> None:
    reached: list[str] = []  # (a quit too soon ends the scenario early: the run ends)

    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        await p.press("\x11")  # Ctrl-Q
        await p.wait(lambda: p.model.confirm_quit, what="the question")
        assert "a house bot plays your seat after 120 s" in p.model.status
        assert p.h.app is not None and p.h.app.is_running
        await p.press("\x1b[C")  # another key: we stay
        await p.wait(lambda: not p.model.confirm_quit, what="staying")
        assert p.h.app.is_running
        await p.press("\x11")
        await p.wait(lambda: p.model.confirm_quit, what="the question again")
        reached.append("asked twice")
        await p.press("\x11")  # the second Ctrl-Q quits: the app ends (and so the run)
        await p.wait(lambda: False, timeout=10, what="the app to quit")

    run(server_port, scenario)
    assert reached == ["asked twice"]


def test_quit_and_exit_at_a_game_where_we_sit_ask_first_as_ctrl_q_does(
        server_port: int) -> None:
    reached: list[str] = []  # (a quit too soon ends the scenario early: the run ends)

    async def scenario(p: Person) -> None:
        await new_table(p, "gin")
        await p.type_command("quit")
        await p.wait(lambda: p.model.confirm_quit, what="the question")
        assert "a house bot plays your seat after 120 s" in p.model.status
        assert ":quit again" in p.model.status
        assert p.h.app is not None and p.h.app.is_running
        await p.type_command("scores")  # another command: we stay
        await p.wait(lambda: not p.model.confirm_quit, what="staying")
        assert p.h.app.is_running and p.model.show_scores
        await p.type_command("exit")
        await p.wait(lambda: p.model.confirm_quit, what="the question again")
        await p.press(":")  # (the command line opens on the question and keeps it)
        await p.press("\x1b")  # Esc: we stay
        await p.wait(lambda: not p.model.confirm_quit, what="staying again")
        await p.press("\x11")  # Ctrl-Q asks, and :quit then quits
        await p.wait(lambda: p.model.confirm_quit, what="the question, by Ctrl-Q")
        reached.append("asked thrice")
        await p.type_command("quit")
        await p.wait(lambda: False, timeout=10, what="the app to quit")

    run(server_port, scenario)
    assert reached == ["asked thrice"]


@pytest.mark.parametrize("how", [":quit", "Ctrl-Q"])
def test_quitting_in_the_lobby_quits_at_once(server_port: int, how: str) -> None:
    async def scenario(p: Person) -> None:
        await p.wait(lambda: p.model.games, what="the games")
        if how == ":quit":
            await p.type_command("quit")
        else:
            await p.press("\x11")
        await p.wait(lambda: False, timeout=10, what="the app to quit")

    run(server_port, scenario)
