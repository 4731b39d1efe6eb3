"""The console's pure view-model: hand grouping, score chart, the create form."""

from __future__ import annotations

import dataclasses
import io
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
import trio.testing
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text

from rummyhall.cli import main
from rummyhall.client import DealVerdict, RequestRefused, ServerClosed, Session, Update
from rummyhall.client.console.controller import COMMANDS, Controller
from rummyhall.client.console.layout import CHROME, KEY_HELP, help_pages, main_text, seat_fragments
from rummyhall.client.console.model import (
    ConsoleModel,
    CreateForm,
    LogEntry,
    card_text,
    fit,
    flat_hand,
    hand_order,
    note_text,
    option_allows,
    score_chart,
    score_sheet,
    server_text,
    showdown_lines,
)
from rummyhall.protocol import GameInfo, OptionInfo, SeatInfo, TableInfo, Turn
from rummyhall.protocol.payloads import games_catalogue
from rummyhall.rules import (
    DrawStock,
    Drew,
    HandScored,
    Knock,
    Passed,
    Reveal,
    SeatView,
    Showdown,
    WentOut,
    new_game,
    parse_cards,
    seat_view,
)
from rummyhall.rules.fair_deal import DealCheck


def gin_view(cards: str) -> SeatView:
    view = seat_view(new_game("gin", {}, players=2), 0)
    return dataclasses.replace(view, hand=parse_cards(cards))


def test_the_hand_is_grouped_into_its_best_melds_then_the_deadwood() -> None:
    view = gin_view("4h 5h 6h 7h 7s 7d 8c 9c Tc 3s")
    groups = [[str(c) for c in g] for g in hand_order(view)]
    assert groups[-1] == ["3s"]
    assert sorted(map(sorted, groups[:-1])) == sorted(
        [sorted(["8c", "9c", "Tc"]), sorted(["7d", "7h", "7s"]), sorted(["4h", "5h", "6h"])])
    assert len(flat_hand(view)) == 10
    assert card_text(parse_cards("Td")[0]) == "T♦"


def test_the_score_sheet_and_chart() -> None:
    view = gin_view("4h")
    results = (HandScored(1, "knock", (0,), (20, 0), (20, 0), ("a",)),
               HandScored(2, "gin", (1,), (0, 45), (20, 45), ("b",)))
    view = dataclasses.replace(view, results=results, scores=(20, 45))
    sheet = score_sheet(view, None)
    assert sheet[1].split()[:3] == ["1", "knock", "+20"]
    assert sheet[-1].split() == ["total", "20", "45"]
    chart = score_chart(view, None)
    assert chart[0].startswith("seat 0") and chart[0].endswith(" 20")
    assert chart[1].endswith(" 45") and len(chart[1].split()[2]) == 2


def test_the_form_steps_and_checks_typed_values() -> None:
    knock = OptionInfo(name="knock_limit", type="int", default=10, meaning="m",
                       allowed="an integer from 0 to 10", choices=(), low=0, high=10)
    nxt = OptionInfo(name="next_dealer", type="enum", default="loser", meaning="m",
                     allowed="loser, winner", choices=("loser", "winner"))
    form = CreateForm((GameInfo(game="gin", title="Gin Rummy", min_players=2, max_players=2,
                                options=(knock, nxt)),))
    form.row = form.rows().index("knock_limit")
    form.step(1)
    assert form.value("knock_limit") == 10  # clamped by the arrows
    form.step(-1)
    assert form.options() == {"knock_limit": 9}
    assert form.set_text("knock_limit", "99") == "knock_limit: an integer from 0 to 10"
    assert form.options() == {"knock_limit": 9}  # checked as typed: nothing changed
    assert form.set_text("knock_limit", "3") is None and form.options() == {"knock_limit": 3}
    form.row = form.rows().index("next_dealer")
    form.step(1)
    assert form.value("next_dealer") == "winner"
    assert form.set_text("nope", "1") is not None


def test_the_lobby_shows_ratings() -> None:
    seats = (SeatInfo(seat=0, kind="person", player=7, name="ada", connected=True, bot=None,
                      rating=31),
             SeatInfo(seat=1, kind="house", player=None, name="strong bot", connected=True,
                      bot="strong"))
    info = TableInfo(table=1, game="gin", options={}, seats=seats, state="waiting",
                     spectators=0, creator=7, creator_name="ada", turn_seconds=0,
                     grace_seconds=120)
    source = SimpleNamespace(name="ada", player_id=7, server_name="hall", connected=True,
                             tables={}, lobby={1: info})
    text = "".join(part[1] for part in seat_fragments(ConsoleModel(source), 1))
    assert "ada [31]" in text and "strong bot" in text


def test_an_action_typed_offline_is_refused_at_once() -> None:
    source = SimpleNamespace(name="ada", player_id=7, server_name="hall", connected=False,
                             tables={}, lobby={})
    model = ConsoleModel(source)
    sent: list[object] = []
    controller = Controller(model, source, spawn=sent.append)  # type: ignore[arg-type]
    controller.draw_stock()
    assert not sent  # nothing queued for later
    assert model.status_error and model.status.startswith("offline")


def test_a_servers_refusal_names_cards_as_the_screen_shows_them() -> None:
    assert server_text("7d is not in your hand") == "7♦ is not in your hand"
    assert server_text("Td#1 and As, then JK") == "T♦ and A♠, then JK"
    assert server_text("Add 2nd seat; 10d") == "Add 2nd seat; 10d"  # words stay words


def test_the_cursor_stays_on_its_card_when_the_hand_is_sorted_again() -> None:
    state = SimpleNamespace(view=gin_view("2c 9d Kh"), seat=0, info=None)
    source = SimpleNamespace(tables={1: state}, lobby={})
    model = ConsoleModel(source)
    model.open_table(1)
    while model.cursor_card() != parse_cards("Kh")[0]:
        model.move_cursor(1)
    state.view = dataclasses.replace(state.view, hand=parse_cards("2c 9d Kh 5s"))  # a draw
    assert model.cursor_card() == parse_cards("Kh")[0]
    model.move_cursor(-1)
    assert model.cursor_card() == parse_cards("9d")[0]
    model.cursor_home()
    assert model.cursor_card() == flat_hand(state.view)[0]


def test_ones_turn_brings_the_hand_back_over_the_scores() -> None:
    state = SimpleNamespace(view=gin_view("2c 9d Kh"), seat=0, info=None, move=3)
    model = ConsoleModel(SimpleNamespace(tables={1: state}, lobby={}))
    model.open_table(1)
    model.show_scores = True  # as a hand's scores open the sheet
    model.on_update(Update("turn", 1, Turn(table=1, seat=1, move=3, time_left_ms=None)))
    assert model.show_scores  # another seat's turn: the scores may stay
    model.on_update(Update("your_turn", 1, state))
    assert not model.show_scores


def test_card_words_as_the_screen_shows_them_and_one_card_where_one_is_meant() -> None:
    state = SimpleNamespace(view=gin_view("Th 9d Kh"), seat=0, info=None)
    source = SimpleNamespace(tables={1: state}, lobby={}, connected=True)
    model = ConsoleModel(source)
    model.open_table(1)
    sent: list[object] = []
    controller = Controller(model, source, spawn=sent.append)  # type: ignore[arg-type]
    assert controller._cards(["T♥", "k♥"]) == list(parse_cards("Th Kh"))
    assert controller._cards(["10♥"]) == list(parse_cards("Th"))
    controller.discard(["Th", "Kh"])
    assert not sent and model.status_error and "one card" in model.status


def test_a_value_out_of_range_is_refused_in_the_status_line() -> None:
    """The message cannot be built (a number past the protocol's range): the console
    says so and goes on, as for a server's refusal."""
    session = Session("127.0.0.1", 9, "ada")
    model = ConsoleModel(session)
    tasks: list[Callable[[], Awaitable[None]]] = []
    controller = Controller(model, session, spawn=tasks.append)
    controller.join(3_000_000_000)
    controller.say("x" * 501)
    for task in tasks:
        trio.run(task)
    assert model.status_error and model.status.startswith("not sent: say.text")


def test_notes_and_the_closing_banner_speak_in_names() -> None:
    seats = (SeatInfo(seat=0, kind="person", player=1, name="ada", connected=True, bot=None),
             SeatInfo(seat=1, kind="house", player=None, name="strong bot", connected=True,
                      bot="strong"))
    info = TableInfo(table=1, game="gin", options={}, seats=seats, state="playing",
                     spectators=0, creator=1, creator_name="ada", turn_seconds=0,
                     grace_seconds=120)
    assert note_text("seat 0 scores 29 - 10 = 19", info) == "ada scores 29 - 10 = 19"
    assert note_text("undercut: seat 1 scores 25", info) == "undercut: strong bot scores 25"
    source = SimpleNamespace(tables={}, lobby={}, connected=False,
                             closed_reason=ServerClosed("you connected again elsewhere",
                                                        "session_replaced"))
    model = ConsoleModel(source)
    model.on_update(Update("connection", payload="closed"))
    assert model.banner is not None and "you connected again elsewhere" in model.banner


def test_a_move_the_server_made_for_us_says_the_time_ran_out() -> None:
    state = SimpleNamespace(view=gin_view("2c 9d Kh"), seat=0, info=None, move=3)
    model = ConsoleModel(SimpleNamespace(tables={1: state}, lobby={}))
    model.open_table(1)
    model.on_update(Update("your_turn", 1, state))
    model.on_update(Update("event", 1, Passed(0)))  # we sent nothing: the timeout's pass
    assert model.log[-1].text == "you passed on the upcard (time ran out)"
    state.move = 5
    model.on_update(Update("your_turn", 1, state))
    model.acted[1] = 5  # as the controller notes what it sends
    model.on_update(Update("event", 1, Drew(0, "stock", None, 20)))
    assert "time ran out" not in model.log[-1].text
    model.on_update(Update("event", 1, Passed(1)))  # another seat's move
    assert "time ran out" not in model.log[-1].text


def test_short_columns_keep_two_bots_of_one_strategy_apart() -> None:
    assert fit("strong bot 1", 7) == "stron…1" and fit("strong bot 2", 7) == "stron…2"
    assert fit("margaret", 7) == "margar…" and fit("ada", 7) == "ada"


def test_play_without_a_terminal_says_so(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # (a pipe: not a terminal)
    for argv in (["play", "--server", "127.0.0.1:9", "--name", "ada"], ["play"]):
        assert main(argv) == 2  # before any question (server, name) or LAN search
        out, err = capsys.readouterr()
        assert "needs a terminal" in err and not out


def test_play_logs_to_its_file_never_over_the_screen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The client's log lines (a deal check that failed, a connection lost) go to the
    console's log file, never to standard error, where they would draw over the screen;
    a log that cannot be opened is refused before anything else."""
    terminal = io.StringIO("")
    terminal.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stdin", terminal)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    logger = logging.getLogger("rummyhall")
    before = (list(logger.handlers), logger.level, logger.propagate)
    log = tmp_path / "logs" / "console.log"
    with socket.socket() as closed:  # a port nobody listens on: play gives up at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    try:
        assert main(["play", "--server", f"127.0.0.1:{port}", "--name", "ada",
                     "--log", str(log), "--log-level", "info"]) == 1
        logging.getLogger("rummyhall.client").warning("table 3: the deal check failed")
        logging.getLogger("rummyhall.client").debug("below the level")
    finally:
        for handler in logger.handlers[len(before[0]):]:
            handler.close()
        logger.handlers[:], logger.level, logger.propagate = before
    text = log.read_text(encoding="utf-8")
    assert "WARNING rummyhall.client: table 3: the deal check failed" in text
    assert "below the level" not in text
    assert "deal check" not in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["play", "--server", f"127.0.0.1:{port}", "--name", "ada",
                 "--log", str(tmp_path / "file" / "console.log")]) == 2
    assert "--log:" in capsys.readouterr().err


def test_a_terminal_too_small_says_so() -> None:
    model = ConsoleModel(SimpleNamespace(name="ada", player_id=1, server_name="hall",
                                         connected=True, tables={}, lobby={}))
    small = "".join(f[1] for f in main_text(model, Size(rows=12, columns=40)))
    assert "40×12" in small and "60×16" in small
    assert "Tables on hall" in "".join(f[1] for f in main_text(model, Size(24, 80)))


def test_a_refused_action_still_lets_a_timeout_show() -> None:
    """We sent an action for this move and it was refused: when the clock then runs out,
    the move the server makes for us is marked as such."""
    state = SimpleNamespace(view=gin_view("2c 9d Kh"), seat=0, info=None, move=3, legal=(),
                            table=1)

    async def refuse(table: int, action: object) -> None:
        raise RequestRefused("wrong_phase", "not now")

    source = SimpleNamespace(tables={1: state}, lobby={}, connected=True, act=refuse)
    model = ConsoleModel(source)
    model.open_table(1)
    model.on_update(Update("your_turn", 1, state))
    tasks: list[Callable[[], Awaitable[None]]] = []
    Controller(model, source, spawn=tasks.append).draw_stock()  # type: ignore[arg-type]
    assert model.acted == {1: 3}
    for task in tasks:
        trio.run(task)
    assert 1 not in model.acted and model.status == "not now"
    model.on_update(Update("your_turn", 1, state))  # the fresh prompt after the refusal
    model.on_update(Update("event", 1, Passed(0)))
    assert model.log[-1].text.endswith("(time ran out)")


def test_the_help_fits_a_small_terminal_in_pages() -> None:
    for columns, rows in ((60, 16), (60, 20), (80, 24), (120, 40)):
        pages = help_pages(columns, rows)
        assert all(len(lines) <= rows - CHROME for _, lines in pages)
        assert all(len(line) < columns for _, lines in pages for line in lines)
        text = "\n".join(line for _, lines in pages for line in lines)
        assert all(meaning in text for _, keys in KEY_HELP for _, meaning in keys)
        assert all(f"{name}" in text for name in COMMANDS)
    assert len(help_pages(120, 40)) == 2  # a roomy terminal: keys, then commands


def refused(model: ConsoleModel) -> bool:
    """The status line holds a refusal (a call, so that checks in a row stay reachable)."""
    return bool(model.status_error)


def test_gin_melds_set_aside_with_m_are_laid_by_the_knock() -> None:
    """Choose melds (select, m), then knock (k): the knock carries them."""
    state = SimpleNamespace(view=gin_view("3c 4c 5c 3d 4d 5d 3h 4h 5h 2s Kh"), seat=0,
                            info=None, move=5, legal=(), table=1)
    sent_actions: list[object] = []

    async def act(table: int, action: object) -> None:
        sent_actions.append(action)

    source = SimpleNamespace(tables={1: state}, lobby={}, connected=True, act=act)
    model = ConsoleModel(source)
    model.open_table(1)
    tasks: list[Callable[[], Awaitable[None]]] = []
    controller = Controller(model, source, spawn=tasks.append)  # type: ignore[arg-type]
    controller.meld(["2s", "Kh", "5h"])  # not a meld
    assert refused(model) and "not a set or a run" in model.status
    assert model.knock_melds == []
    for run in ("3c 4c 5c", "3d 4d 5d", "3h 4h 5h"):
        model.selected = set(parse_cards(run))
        controller.meld()
        assert not refused(model), model.status
        assert not model.selected
    assert [" ".join(map(str, m)) for m in model.knock_melds] == [
        "3c 4c 5c", "3d 4d 5d", "3h 4h 5h"]
    controller.meld(["3c", "3d", "3h"])  # cards already set aside
    assert refused(model) and "already" in model.status and len(model.knock_melds) == 3
    controller.knock(["Kh"])
    for task in tasks:
        trio.run(task)
    (knock,) = sent_actions
    assert isinstance(knock, Knock) and knock.card == parse_cards("Kh")[0]
    assert knock.melds == tuple(parse_cards(m) for m in ("3c 4c 5c", "3d 4d 5d", "3h 4h 5h"))
    assert model.knock_melds == []  # laid: cleared for the next hand
    # without melds set aside the knock lets the server lay the best arrangement
    controller.knock(["Kh"])
    for task in tasks[1:]:
        trio.run(task)
    assert isinstance(sent_actions[-1], Knock) and sent_actions[-1].melds is None
    # one card and no selection clears what was set aside
    model.knock_melds = [parse_cards("3c 4c 5c")]
    model.selected = set()
    controller.meld(["2s"])
    assert model.knock_melds == [] and not refused(model)


def test_the_last_hand_says_which_seats_were_not_shown() -> None:
    show = Showdown((Reveal(0, (parse_cards("3c 4c 5c"),), (), parse_cards("Kd"), 10),
                     Reveal(1, (), (), (), 0, "hidden"), Reveal(2, (), (), (), 0, "out")))
    lines = showdown_lines(show, None, 0)
    assert "[3♣ 4♣ 5♣]" in lines[0] and "= 10" in lines[1]
    assert lines[2].endswith("cards not shown") and lines[3].endswith("not dealt in")


@pytest.mark.parametrize("game", [g["game"] for g in games_catalogue()])
def test_the_form_only_ever_shows_allowed_values(game: str) -> None:
    """Stepping with the arrows through every field of every game never leaves the
    allowed values; a typed value out of them is refused with what is allowed."""
    games = tuple(GameInfo.from_wire(g) for g in games_catalogue())
    form = CreateForm(games)
    form.select_game(next(i for i, g in enumerate(games) if g.game == game))
    for row, name in enumerate(form.rows()):
        if name == "game":
            continue
        form.row = row
        for delta in [1] * 30 + [-1] * 60:
            form.step(delta)
            value = form.value(name)
            opt = form.option(name)
            if opt is not None:
                assert option_allows(opt, value), (name, value)
            elif name == "players":
                assert form.game.min_players <= int(value) <= form.game.max_players
            elif name == "turn_seconds":
                assert 0 <= int(value) <= 3600
    assert form.set_text("players", "9") is not None and form.players <= 8
    assert form.set_text("turn_seconds", "-5") is not None
    assert form.set_text("sit", "maybe") == "sit: yes or no"
    for opt in form.game.options:
        wrong = "nonsense" if opt.type != "enum" else "7"
        assert form.set_text(opt.name, wrong) == f"{opt.name}: {opt.allowed}"


def test_going_out_is_told_once_and_the_last_turns_to_every_seat() -> None:
    view = dataclasses.replace(seat_view(new_game("three_thirteen", {}, players=3), 0),
                               hand=parse_cards("2c 9d Kh"))
    state = SimpleNamespace(table=1, view=view, seat=0, info=None, move=None, legal=(),
                            my_turn=False)
    model = ConsoleModel(SimpleNamespace(tables={1: state}, lobby={}, player_id=7))
    model.open_table(1)
    model.on_update(Update("event", 1, WentOut(2, parse_cards("Ac")[0])))
    assert model.log[-1].text == ("seat 2 went out, discarding A♣: everyone else plays "
                                  "one last turn")
    view = dataclasses.replace(view, to_move=1, phase="draw")
    state.view = view
    assert "seat 2 went out: last turns. waiting for seat 1" in fragment_list_to_text(
        main_text(model, Size(rows=40, columns=100)))
    state.my_turn, state.legal = True, (DrawStock(0),)
    assert "this is your last turn" in fragment_list_to_text(
        main_text(model, Size(rows=40, columns=100)))
    scored = HandScored(1, "round", (2,), (9, 12, 0), (9, 12, 0),
                        ("seat 2 went out", "seat 0 has 9 unmelded"))
    model.on_update(Update("event", 1, scored))
    told = [e.text for e in model.log]
    assert sum("went out" in t for t in told) == 1  # not again in the score's notes
    assert told[-1] == "  seat 0 has 9 unmelded"


def test_the_log_tags_the_lines_of_another_table() -> None:
    model = ConsoleModel(SimpleNamespace(tables={}, lobby={}, player_id=7))
    model.log.append(LogEntry("event", "ada discarded T♦", 3))
    model.log.append(LogEntry("chat", "<bob> hi", None))
    model.table = 3
    assert [e.shown(model.table) for e in model.log] == ["ada discarded T♦", "<bob> hi"]
    model.table = 4
    assert [e.shown(model.table) for e in model.log] == ["#3 ada discarded T♦", "<bob> hi"]


def test_each_checked_shuffle_shows_its_mark_and_a_failed_one_a_loud_warning() -> None:
    state = SimpleNamespace(view=gin_view("2c 9d Kh"), seat=0, info=None, move=3)
    model = ConsoleModel(SimpleNamespace(tables={1: state}, lobby={}))
    model.open_table(1)
    good = DealVerdict(1, "deal", DealCheck(True, checked=12, mine_used=True))
    model.on_update(Update("deal_check", 1, good))
    assert model.log[-1].kind == "info" and "✓ hand 1: deal verified, 12 cards" in \
        model.log[-1].text
    assert "WARNING" not in (model.banner or "")
    bad = DealVerdict(2, "deal", DealCheck(False, ("card 3 seen (Kh) is not where the "
                                                   "revealed shuffle puts it",)))
    model.on_update(Update("deal_check", 1, bad))
    assert model.log[-1].kind == "error" and "FAILED" in model.log[-1].text
    assert model.banner is not None and "WARNING" in model.banner
    withheld = DealVerdict(3, "rebuild", DealCheck(True, withheld=(1,), checked=2))
    model.on_update(Update("deal_check", 1, withheld))
    assert "seat 1 committed and did not reveal" in model.log[-1].text
    assert "without a contribution of ours" in model.log[-1].text


def test_the_reconnect_banner_counts_down_the_seat_then_the_tries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """While the server holds our seat the banner counts that down; past it (the client
    tries a while longer, its own reconnect_seconds) it counts the tries."""
    import time  # noqa: PLC0415 (the banner reads time.monotonic)

    now = 1000.0  # (a clock that stands still: the half seconds below never run out)
    monkeypatch.setattr(time, "monotonic", lambda: now)
    model = ConsoleModel(SimpleNamespace(tables={}, lobby={}, player_id=7))
    model.on_update(Update("connection", payload="lost"))
    model.reconnect_until, model.seat_held_until = now + 150.5, now + 90.5
    assert model.banner_text() == ("Connection lost: reconnecting… Your seat is held 1:31 "
                                   "more, then a house bot plays it.")
    model.seat_held_until = now - 1  # the seat went to a house bot: still trying
    assert model.banner_text() == "Connection lost: reconnecting… Trying 2:31 more."
    model.seat_held_until = None  # no seat held at all
    assert model.banner_text() == "Connection lost: reconnecting… Trying 2:31 more."
    model.on_update(Update("connection", payload="resumed"))
    assert model.banner_text() is None and model.seat_held_until is None


async def test_a_ping_with_no_answer_drops_the_connection(
        autojump_clock: trio.testing.MockClock) -> None:
    """The network cut without a word: the console's keepalive gives the connection up,
    so that the session reconnects (while the server still holds the seat)."""
    from rummyhall.client.console.run import _keepalive  # noqa: PLC0415

    dropped: list[str] = []

    class Unanswered:
        welcome = None

        async def ping(self) -> None:
            await trio.sleep(30)
            raise trio.TooSlowError

        def drop_connection(self, why: str) -> None:
            dropped.append(why)

    with trio.move_on_after(100):
        await _keepalive(Unanswered())  # type: ignore[arg-type]
    assert dropped and set(dropped) == {"no answer to a ping"}
