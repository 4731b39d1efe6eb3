"""Console screens with hard content, built without a server: each game at its largest
seat count in the middle of a hand, with long names, scores and a busy log."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import replace
from types import SimpleNamespace

from prompt_toolkit.application import Application
from prompt_toolkit.input import DummyInput

from rummyhall.bots import SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client import TableState, Update
from rummyhall.client.console.app import build_app
from rummyhall.client.console.controller import Controller
from rummyhall.client.console.model import ConsoleModel, CreateForm, LogEntry
from rummyhall.client.console.snapshot import Drawn, FixedSizeOutput, draw
from rummyhall.client.records import RecordedGame, replay_text
from rummyhall.client.wording import card_symbols
from rummyhall.protocol import (
    GameInfo,
    PlayedGame,
    PlayedSeat,
    SeatInfo,
    TableInfo,
    action_to_entry,
)
from rummyhall.protocol.messages import TableLock
from rummyhall.protocol.payloads import games_catalogue
from rummyhall.protocol.proofs import KDF
from rummyhall.rules import GAMES, Event, Game, new_game, seat_view

SIZES = [(80, 24), (100, 30), (132, 43)]
GAME_INFOS = tuple(GameInfo.from_wire(g) for g in games_catalogue())
ME = 7
#: the longest name the server allows (32), two names that share a long beginning, bots
NAMES = ["ada", "Bartholomew-Fitzgerald-Montague", "Bartholomew-Fitzgerald-Monroe",
         "strong bot", "strong bot 2", "simple bot", "zoë", "random bot"]


def seats(players: int) -> tuple[SeatInfo, ...]:
    out = []
    for seat in range(players):
        name = NAMES[seat]
        house = name.endswith(("bot", "bot 2"))
        out.append(SeatInfo(seat=seat, kind="house" if house else "person",
                            player=None if house else ME + seat, name=name,
                            connected=seat != 2, bot=name.split()[0] if house else None,
                            rating=None if house else 1234 + seat))
    return tuple(out)


def table_info(table: int, game: str, players: int, state: str = "playing") -> TableInfo:
    return TableInfo(table=table, game=game, options={"target_score": 250} if game in (
                         "gin", "basic") else {}, seats=seats(players), state=state,
                     spectators=3, creator=ME, creator_name="ada", turn_seconds=45,
                     grace_seconds=120)


def play_into(game: Game, rng: random.Random, hands: int, moves: int) -> list[Event]:
    """``hands`` hands scored, then ``moves`` moves into the next one; the events."""
    bot = SimpleBot()
    events: list[Event] = []
    while len(game.results) < hands and not game.is_over:
        events += step(game, bot, rng)
    for _ in range(moves):
        if game.is_over or len(game.results) > hands:
            break
        events += step(game, bot, rng)
    return events


def step(game: Game, bot: SimpleBot, rng: random.Random) -> list[Event]:
    seat = game.to_move
    if seat is None:
        return game.apply(shuffle_for(game, rng))
    return game.apply(bot.choose(seat_view(game, seat), game.legal_actions()))


def table_model(game_name: str, *, hands: int = 3, moves: int = 9) -> ConsoleModel:
    """Our seat 0 of ``game_name`` at its largest seat count, mid-hand after some hands,
    the log full of its events."""
    players = GAMES[game_name].max_players
    rng = random.Random(7)
    game = new_game(game_name, {}, players=players, first_dealer=0)
    events = play_into(game, rng, hands, moves)
    info = table_info(5, game_name, players)
    state = TableState(5, info=info, view=seat_view(game, 0))
    if game.to_move == 0:
        state.legal, state.move = tuple(game.legal_actions()), game.move_number
    model = lobby_model({5: state})
    model.open_table(5)
    for event in events[-60:]:
        model.on_update(Update("event", 5, event))
    model.show_scores = False
    model.log.append(LogEntry("chat", "#2 <zoë> anyone for a game of Three Thirteen later?"))
    model.status = ("illegal_discard: you may not discard the card you took from the pile "
                    "this turn (Q♥); discard another card")
    model.status_error = True
    return model


def lobby_model(tables: dict[int, TableState] | None = None) -> ConsoleModel:
    lobby = {t: table_info(t, g, GAMES[g].max_players, state)
             for t, (g, state) in enumerate([("gin", "playing"), ("basic", "waiting"),
                                             ("chicago", "playing"),
                                             ("three_thirteen", "finished")], start=1)}
    for table, state in (tables or {}).items():
        if state.info is not None:
            lobby[table] = state.info
    source = SimpleNamespace(name="ada", player_id=ME, server_name="Rummy Hall",
                             connected=True, tables=tables or {}, lobby=lobby,
                             closed_reason=None)
    model = ConsoleModel(source)
    model.games = GAME_INFOS
    model.bots = ("simple", "strong", "random")
    return model


def form_model() -> ConsoleModel:
    model = lobby_model()
    model.form = CreateForm(GAME_INFOS)
    model.form.select_game(1)  # Basic Rummy: the most options
    model.screen = "form"
    return model


def history_model(games: int = 30) -> ConsoleModel:
    """The history screen: ``games`` games played, newest first, each of every game at
    up to its largest seat count, with the long names and our seat among them."""
    model = lobby_model()
    played = []
    for number in range(games, 0, -1):
        game = list(GAMES)[number % len(GAMES)]
        players = min(GAMES[game].max_players, 2 + number % 7)
        people = seats(players)
        totals = tuple(100 - 37 * s + number for s in range(players))
        played.append(PlayedGame(
            number=number, table=number % 5 + 1, game=game, state="finished",
            seats=tuple(PlayedSeat(seat=s.seat, name=s.name or "?", kind=s.kind,
                                   player=s.player) for s in people),
            winners=(number % players,), totals=totals, hands=number % 12 + 1,
            started=1_790_000_000 + 3_600 * number, finished=1_790_001_800 + 3_600 * number))
    model.history = tuple(played)
    model.screen = "history"
    return model


def record_model() -> ConsoleModel:
    """A game's record opened from the history: Three Thirteen at its largest seat count
    (the longest hands) with the long names, a few hands in."""
    model = history_model()
    players = GAMES["three_thirteen"].max_players
    game = new_game("three_thirteen", {}, players=players, first_dealer=0)
    rng, bot, actions = random.Random(11), SimpleBot(), []
    while len(game.results) < 3:
        seat = game.to_move
        action = (shuffle_for(game, rng) if seat is None
                  else bot.choose(seat_view(game, seat), game.legal_actions()))
        game.apply(action)
        actions.append(action_to_entry(action))
    recorded = RecordedGame(30, "three_thirteen", 4, "2026-09-21T10:00:00Z", None, False,
                            tuple(NAMES[:players]), {}, 0, tuple(actions))
    model.screen, model.record_number = "record", 30
    model.record = tuple(replay_text(recorded, card_symbols).lines)
    return model


def app_for(model: ConsoleModel, columns: int, rows: int) -> Application[None]:
    controller = Controller(model, model.source, spawn=lambda fn: None)  # type: ignore[arg-type]
    return build_app(model, controller=controller, input=DummyInput(),
                     output=FixedSizeOutput(columns, rows))


def screens() -> Iterator[tuple[str, ConsoleModel]]:
    """Every screen, by name."""
    yield "lobby", lobby_model()
    yield "form", form_model()
    for game in GAMES:
        yield f"table-{game}", table_model(game)
        scores = table_model(game)
        scores.show_scores = True
        yield f"scores-{game}", scores
    yield "table-three_thirteen-last-round", table_model("three_thirteen", hands=10, moves=14)
    waiting = lobby_model({2: TableState(2, info=table_info(2, "basic", 6, "waiting"))})
    waiting.open_table(2)
    yield "table-waiting", waiting
    yield "history", history_model()
    yield "history-empty", history_model(0)
    yield "record", record_model()
    asked = history_model()
    asked.screen, asked.record_number = "record", 30  # (its record not come yet)
    yield "record-asked", asked
    helped = lobby_model()
    helped.show_help = True
    yield "help", helped
    yield "lobby-private-full", private_lobby_model()


def private_lobby_model(tables: int = 40) -> ConsoleModel:
    """A lobby of more tables than fit, every third one private (its hint line shown)."""
    model = lobby_model()
    lock = TableLock(kdf=KDF, salt="00" * 16, iterations=100_000,
                     invite=True, watch_code=False)
    for t in range(1, tables + 1):
        info = table_info(t, "gin", 2, "waiting")
        model.source.lobby[t] = replace(info, lock=lock if t % 3 == 0 else None)
    model.lobby_row = tables // 2
    return model


def drawn(model: ConsoleModel, columns: int, rows: int) -> Drawn:
    """The model's screen at that size (in an event loop: the command line's buffer loads
    its history in a task)."""
    async def run() -> Drawn:
        return draw(app_for(model, columns, rows), columns, rows)  # type: ignore[arg-type]

    return asyncio.run(run())
