"""``rummyhall arena --server HOST:PORT``: the arena's games played over a real server.

Each game of the schedule becomes a table on the server: every seat is a network bot
client (:class:`rummyhall.client.StrategyBot`) playing through the same protocol as any
other client; the first seat creates the table and starts it. The shuffles are the
server's own (duplicate deals only when the server runs with ``--seed``), so the figures
measure the bots *and* prove them over the wire; the in-process arena remains the way to
cut luck.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

import trio

from rummyhall.bots.arena import ArenaConfig, GameOutcome, schedule, stream
from rummyhall.client import ServerTrust, StrategyBot, open_session, play_table
from rummyhall.client.bot import GameResult
from rummyhall.protocol import DEFAULT_PORT


def parse_server(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``HOST`` (the default port)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, DEFAULT_PORT
    if not port.isdigit() or not 0 < int(port) < 65_536:
        raise argparse.ArgumentTypeError(f"bad port in {text!r}")
    return host or "127.0.0.1", int(port)


async def play_over_server(config: ArenaConfig, host: str, port: int, *, deal_set: int,
                           rotation: int, tag: str, tls: ServerTrust | None = None,
                           seeded: set[bool] | None = None) -> GameOutcome:
    """Play one scheduled game on the server; errors become part of the outcome.

    ``seeded`` gets whether the server said the table's shuffles came from its seed.
    """
    lineup = config.lineup(rotation)
    base = GameOutcome(deal_set, rotation, lineup, 0)
    results: dict[int, GameResult] = {}
    views: dict[int, object] = {}
    created = trio.Event()
    table_box: list[int] = []

    async def seat(index: int) -> None:
        entrant = config.entrants[lineup[index]]
        bot = StrategyBot(entrant.factory(stream(config.seed, deal_set, rotation, "seat",
                                                 index)))
        name = f"{tag}{deal_set}.{rotation}.{index}"
        async with open_session(host, port, name=name, kind="bot", tls=tls) as session:
            if index == 0:
                table = await session.create_table(config.game, config.seats,
                                                   dict(config.options))  # type: ignore[arg-type]
                table_box.append(table)
                await session.join(table, 0)
                created.set()
            else:
                await created.wait()
                await session.join(table_box[0], index)
            joined.append(index)
            if index == 0:
                with trio.fail_after(60):
                    while len(joined) < config.seats:
                        await trio.sleep(0.01)
                await session.start(table_box[0])
            (result,) = await play_table(session, table_box[0], bot, games=1)
            results[index] = result
            views[index] = session.tables[table_box[0]].view
            info = session.tables[table_box[0]].info
            if seeded is not None and info is not None:
                seeded.add(info.seeded)

    joined: list[int] = []
    try:
        with trio.fail_after(600):
            async with trio.open_nursery() as nursery:
                for index in range(config.seats):
                    nursery.start_soon(seat, index)
    except Exception as exc:  # the game could not be played: an error, like a bad bot
        return GameOutcome(deal_set, rotation, lineup, 0, error=f"over the server: {exc!r}")
    final = results[0]
    view = views[0]
    hand_results = getattr(view, "results", ())
    points = [0] * config.seats
    for result in hand_results:
        for s in range(config.seats):
            points[s] += result.points[s]
    hand_points = tuple((points[s], len(hand_results)) for s in range(config.seats))
    return GameOutcome(base.deal_set, rotation, lineup, 0, final.winners, final.scores,
                       len(hand_results), hand_points, 0)


def run_over_server(config: ArenaConfig, host: str, port: int,
                    on_game: Callable[[GameOutcome], None],
                    seeded: set[bool] | None = None, *,
                    tls: ServerTrust | None = None) -> list[GameOutcome]:
    """Play the whole schedule over the server, one game at a time; ``seeded`` gets
    whether each table's shuffles came from the server's seed."""
    tag = f"arena{random.randrange(10**6)}-"

    async def main() -> list[GameOutcome]:
        outcomes = []
        for deal_set, rotation in schedule(config):
            outcome = await play_over_server(config, host, port, deal_set=deal_set,
                                             rotation=rotation, tag=tag, tls=tls,
                                             seeded=seeded)
            outcomes.append(outcome)
            on_game(outcome)
        return outcomes

    return trio.run(main)
