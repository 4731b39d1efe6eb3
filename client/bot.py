"""The bot API: subclass :class:`Bot`, answer ``choose``, and :func:`run_bot` does the rest.

``run_bot`` connects, creates a table (and fills the other seats with house bots) or
joins one, plays games back to back, and rides out dropped connections with its token.
A bot sees exactly what its seat may see: the :class:`~rummyhall.rules.SeatView` the
client library keeps up to date, and the legal actions the server sent. It answers with
one of them, or in Gin with a knock of them laying its own melds
(:func:`~rummyhall.bots.knock_with_melds`, re-exported here).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import trio

from rummyhall.bots import Strategy, knock_with_melds
from rummyhall.protocol import DEFAULT_PORT
from rummyhall.rules import GAMES, Event, SeatAction, SeatView

from .session import RequestRefused, ServerClosed, Session, Update, open_session
from .trust import ServerTrust

log = logging.getLogger("rummyhall.bot")
_R = TypeVar("_R")

__all__ = ["Bot", "GameResult", "StrategyBot", "knock_with_melds", "play_table", "run_bot"]


class Bot:
    """A bot: override :meth:`choose`; the other hooks are optional.

    A ``Bot`` is also a :class:`rummyhall.bots.Strategy` (it has ``name``, ``needs_view``
    and ``choose``), so the same class plays in ``rummyhall arena`` without a network.
    """

    name = "bot"
    needs_view = True

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        """Return one of ``legal`` (never empty) for the seat whose view is ``view``, or a
        Gin knock of ``legal`` laying the bot's own melds (:func:`knock_with_melds`)."""
        raise NotImplementedError

    def on_event(self, table: int, event: Event, view: SeatView | None) -> None:
        """Called after each event of a table the bot plays at (the view includes it)."""

    def on_game_over(self, table: int, view: SeatView) -> None:
        """Called when a game ends (``view.winners``, ``view.scores``)."""


class StrategyBot(Bot):
    """Run one of the pure strategies of :mod:`rummyhall.bots` as a network bot."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.name = strategy.name

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        return self.strategy.choose(view if self.strategy.needs_view else None, legal)


@dataclass(frozen=True)
class GameResult:
    """How one game ended for the bot's seat."""

    table: int
    seat: int
    winners: tuple[int, ...]
    scores: tuple[int, ...]

    @property
    def won(self) -> bool:
        return self.seat in self.winners


@trio.lowlevel.enable_ki_protection
async def play_table(session: Session, table: int, bot: Bot, *, restart: bool = False,
                     games: int = 1, max_updates: int = 10_000_000,
                     on_result: Callable[[GameResult], object] | None = None
                     ) -> list[GameResult]:
    """Play the bot's seat at ``table`` for ``games`` games (``restart``: the bot is the
    creator and starts each next game); ``on_result`` hears each game's end as it comes.
    Decisions use the table's current state, so a prompt overtaken by events is never
    answered."""
    results: list[GameResult] = []
    answered: int | None = None
    over = False  # the current game's end has been recorded
    for _ in range(max_updates):
        state = session.tables.get(table)
        view = state.view if state is not None else None
        # Every update already queued is heard before the bot decides again: a fast
        # server's reply brings the ok, the events and the next prompt at once, and the
        # bot hears each event before its next move (and before the game's end).
        while (queued := _queued(session)) is not None:
            _hear(session, table, bot, queued, view)
        if state is not None and view is not None:
            if view.phase != "game_over":
                over = False
            elif not over:
                over = True
                if view.seat is not None:
                    results.append(GameResult(table, view.seat, view.winners, view.scores))
                    if on_result is not None:
                        _yours(on_result, results[-1])
                _yours(bot.on_game_over, table, view)
                if len(results) >= games:
                    return results
                if restart:
                    await session.start(table)
                continue
            if state.my_turn and state.legal and state.move != answered:
                answered = state.move
                action = _yours(bot.choose, view, state.legal)
                try:
                    await session.act(table, action)
                except RequestRefused as exc:
                    if exc.code != "stale_action":  # overtaken by a timeout: go on
                        log.warning("table %s: %s refused: %s", table, action, exc.message)
                        answered = None  # the fresh your_turn that follows gets an answer
                continue
        _hear(session, table, bot, await session.next_update(), view)
    raise RuntimeError("the bot stopped after too many updates")


# Ctrl-C. The bot's runner (run_bot, play_table) and the session's tasks are protected
# from KeyboardInterrupt: trio hands it to the main task at its next checkpoint, so it
# never lands in the middle of the runner's own steps. The bot's code is not protected:
# a Ctrl-C stops a bot that thinks too long (or loops forever) right where it is.
@trio.lowlevel.disable_ki_protection
def _yours(callback: Callable[..., _R], *args: object) -> _R:
    """Call the bot's (or the caller's) ``callback``, open to KeyboardInterrupt."""
    return callback(*args)


def _queued(session: Session) -> Update | None:
    """The next update already received, if any (never waits)."""
    try:
        return session.updates().receive_nowait()
    except trio.WouldBlock:
        return None


def _hear(session: Session, table: int, bot: Bot, update: Update,
          view: SeatView | None) -> None:
    """Pass an event of ``table`` to the bot; raise when the connection is closed."""
    if update.kind == "connection" and update.payload == "closed":
        raise session.closed_reason or ServerClosed("the connection is closed")
    if update.kind == "event" and update.table == table:
        _yours(bot.on_event, table, update.payload, view)


@trio.lowlevel.enable_ki_protection
async def run_bot(bot: Bot, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                  name: str | None = None, table: int | None = None, seat: int | None = None,
                  game: str = "gin", players: int | None = None,
                  options: Mapping[str, bool | int | str] | None = None,
                  house_bots: str | None = None, games: int = 1,
                  token: str | None = None,
                  on_result: Callable[[GameResult], object] | None = None,
                  tls: ServerTrust | None = None,
                  on_seated: Callable[[Session, int, int], object] | None = None,
                  password: str | None = None, code: str | None = None
                  ) -> list[GameResult]:
    """Connect and play ``games`` games; return how each ended.

    Without ``table``, the bot creates a table of ``game`` with ``options``, sits in seat
    0, fills the other seats with house bots of strategy ``house_bots`` (the server's
    default when None), and starts. With ``table``, it joins that table (``seat`` or the
    first free one) and plays the games its creator starts. ``on_result`` hears each
    game's end as it comes; ``on_seated`` hears (session, table, seat) once the bot sits
    (and, when it created the table, the house bots sit too). With ``tls`` it connects
    over TLS and checks the server as that :class:`~rummyhall.client.trust.ServerTrust`
    says.
    ``password`` logs in to a hall that has one; ``code`` is the password or invite code
    of a private ``table``.
    """
    async with open_session(host, port, name=name or bot.name, kind="bot",
                            token=token, tls=tls, password=password) as session:
        await session.set_lobby_updates(False)  # a bot needs its own table's updates only
        if table is None:
            seats = players or GAMES[game].min_players
            table = await session.create_table(game, seats, options)
            await session.join(table, 0)
            for other in range(1, seats):
                await session.add_bot(table, other, house_bots)
            if on_seated is not None:
                _yours(on_seated, session, table, 0)
            await session.start(table)
            return await play_table(session, table, bot, restart=True, games=games,
                                    on_result=on_result)
        seated = await session.join(table, seat, code=code)
        if on_seated is not None:
            _yours(on_seated, session, table, seated)
        return await play_table(session, table, bot, games=games, on_result=on_result)


def run(bot: Bot, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
        **kwargs: object) -> list[GameResult]:
    """:func:`run_bot` in a fresh trio run (for scripts)."""
    results: list[GameResult] = trio.run(lambda: run_bot(bot, host, port, **kwargs))  # type: ignore[arg-type]
    return results
