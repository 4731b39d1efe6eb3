"""The crash test: bots play while the server is SIGKILLed and restarted on its data file.

At the end every game finished, every action a client had acknowledged is in the journal
at the move it answered, and each game's journal replays to exactly the view its
clients last saw (and to the number of events they received).
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import trio
from hang_guard import HANG_GUARD
from persistence_helpers import Server, free_port

from rummyhall.bots import make_strategy
from rummyhall.client import open_session
from rummyhall.client.session import ClientError, Session
from rummyhall.protocol import action_from_entry, action_to_entry, view_to_wire
from rummyhall.rules import SeatAction, seat_view
from rummyhall.server.journal import replay
from rummyhall.server.store import Store

KILLS = 5


@dataclass
class Seen:
    """What one client saw and had acknowledged."""

    table: int
    session: Session
    acked: list[tuple[int, int, dict[str, object]]] = field(default_factory=list)


@dataclass
class Progress:
    """The actions acknowledged so far over every seat, and an event for the next one."""

    acked: int = 0
    changed: trio.Event = field(default_factory=trio.Event)

    def tick(self, acked: int = 1) -> None:
        self.acked += acked
        self.changed.set()
        self.changed = trio.Event()

    async def wait_beyond(self, count: int, done: list[trio.Event]) -> bool:
        """Wait until more than ``count`` actions are acknowledged: False if every game
        ended first."""
        while self.acked <= count:
            if all(e.is_set() for e in done):
                return False
            await self.changed.wait()
        return True


async def play(seen: Seen, done: trio.Event, progress: Progress) -> None:
    """Play the seat with a simple bot until the game is over (through reconnections)."""
    bot = make_strategy("simple")
    session = seen.session
    while True:
        state = session.tables.get(seen.table)
        if state is not None and state.view is not None and state.view.phase == "game_over":
            done.set()
            progress.tick(0)  # (a waiter sees that the games may all be over)
            return
        if state is not None and state.my_turn and state.view is not None \
                and state.seat is not None and session.connected:
            move, seat = state.move, state.seat
            assert move is not None
            action: SeatAction = bot.choose(state.view, state.legal)
            try:
                await session.act(seen.table, action)
            except ClientError:
                continue  # lost with the server, or stale after a restart: not acknowledged
            seen.acked.append((seat, move, action_to_entry(action)))
            progress.tick()
            continue
        # Not a time bound: a poll interval, so that a session that lost its server and
        # got it back looks at its table again even when no update comes meanwhile.
        with trio.move_on_after(0.2):
            await session.next_update()



async def run_table(port: int, n: int, game: str, options: dict[str, int | bool | str],
                    house: bool, *, out: list[Seen], done: list[trio.Event],
                    finish: trio.Event, progress: Progress) -> None:
    async with open_session(port=port, name=f"a{n}", kind="bot") as a, \
            open_session(port=port, name=f"b{n}", kind="bot") as b:
        table = await a.create_table(game, 3 if house else 2, options=options)
        await a.join(table, 0)
        await b.join(table, 1)
        if house:
            await a.add_bot(table, 2, "simple")
        await a.start(table)
        seats = [Seen(table, a), Seen(table, b)]
        out.extend(seats)
        events = [trio.Event(), trio.Event()]
        done.extend(events)
        progress.tick(0)  # (the test waits for every table to be under way)
        async with trio.open_nursery() as nursery:
            for seen, event in zip(seats, events, strict=True):
                nursery.start_soon(play, seen, event, progress)
        # Stay connected until the test has looked at what the clients saw.
        await finish.wait()


async def test_sigkill_at_random_moments_loses_no_acknowledged_action(tmp_path: Path) -> None:
    data = tmp_path / "hall.sqlite3"
    port = free_port()
    server = Server(data, port)
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    seen: list[Seen] = []
    done: list[trio.Event] = []
    kills = 0
    progress = Progress()
    await server.start()
    try:
        with trio.fail_after(5 * HANG_GUARD):  # (the whole test: its work bounds it)
            async with trio.open_nursery() as nursery:
                tables: list[tuple[str, dict[str, int | bool | str], bool]] = [
                    # long enough games that the kills land while they are played
                    ("gin", {"target_score": 200}, False), ("gin", {"target_score": 200}, False),
                    ("gin", {"target_score": 200}, False), ("basic", {"target_score": 100}, True)]
                finish = trio.Event()
                for n, (game, options, house) in enumerate(tables):
                    nursery.start_soon(functools.partial(
                        run_table, port, n, game, options, house, out=seen, done=done,
                        finish=finish, progress=progress))
                while len(done) < 2 * len(tables):
                    await progress.changed.wait()
                # Each kill lands after a random number of acknowledged actions (the
                # "moment" counted in work, so a loaded machine moves it no more than an
                # idle one), wherever the server is then: in a commit, a broadcast, a
                # deal. The restart comes at once: the clients reconnect on their own.
                for _ in range(KILLS):
                    if not await progress.wait_beyond(
                            progress.acked + rng.randint(1, 40), done):
                        break
                    server.kill()
                    kills += 1
                    await server.start()
                for event in done:
                    await event.wait()
                check(data, seen, seed)
                finish.set()
    finally:
        code = server.stop()
    assert code == 0
    assert kills >= 3, f"the games ended before the server was killed (seed {seed})"


def check(data: Path, seen: list[Seen], seed: int) -> None:
    store = Store.open(str(data))  # the server runs: a second connection, WAL readers
    try:
        by_table = {g["table"]: g["id"] for g in store.games(limit=100)}
        for s in seen:
            number = by_table.get(s.table)
            assert number is not None, f"table {s.table}: no finished game (seed {seed})"
            record = store.record(number)
            assert record is not None and record["state"] == "finished"
            game, _, events = replay(record["game"], record["options"],
                                           len(record["seats"]), record["first_dealer"],
                                           record["actions"])
            assert game.is_over
            state = s.session.tables[s.table]
            assert state.seat is not None and state.view is not None
            assert state.seq == events, (s.table, state.seq, events, seed)
            # The client's model of the view follows events; the move number it learns from
            # turn prompts, and none follows the end of the game.
            mine = {**view_to_wire(state.view), "move_number": None}
            assert mine == {**view_to_wire(seat_view(game, state.seat)), "move_number": None}, \
                (s.table, state.seat, seed)
            # Every acknowledged action is in the journal, at the move it answered.
            journalled = set()
            g, _, _ = replay(record["game"], record["options"], len(record["seats"]),
                             record["first_dealer"], [])
            for d in record["actions"]:
                if d["kind"] != "shuffle":
                    journalled.add((d["seat"], g.move_number, json.dumps(d, sort_keys=True)))
                g.apply(action_from_entry(d))
            for seat, move, action in s.acked:
                key = (seat, move, json.dumps(action, sort_keys=True))
                assert key in journalled, (s.table, key, seed)
    finally:
        store.close()
