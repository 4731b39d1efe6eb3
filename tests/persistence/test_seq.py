"""A table's event numbers only grow, across any number of SIGKILLs and restarts.

One client plays a seat of a Gin table against a house bot while the server is killed
at every kind of point (mid-hand with the turn timer running, during the pause between
two hands, between two games, mid-hand in a later game) and restarted on its data file.
The client records every snapshot and event it receives: after each resumption every
seq is beyond any seen before, and a ``resync`` from a seq it holds gives exactly the
events it saw after that seq, as its seat saw them.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import trio
from hang_guard import HANG_GUARD
from persistence_helpers import Server, free_port

from rummyhall.bots import make_strategy
from rummyhall.client import open_session
from rummyhall.client.session import ClientError, Session
from rummyhall.protocol import EventMessage, Message, Snapshot

KINDS = ("mid_hand", "hand_pause", "between_games", "later_mid_hand")


class Recorder:
    """Every snapshot and event of the table, in the order received (a resync's replay
    apart)."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int, dict[str, Any] | None]] = []
        self.replayed: list[tuple[int, dict[str, Any]]] | None = None  # during a resync

    def record(self, msg: Message) -> None:
        if isinstance(msg, Snapshot):
            self.log.append(("snapshot", msg.seq, None))
        elif isinstance(msg, EventMessage):
            if self.replayed is not None:
                self.replayed.append((msg.seq, dict(msg.event)))
            else:
                self.log.append(("event", msg.seq, dict(msg.event)))

    def events(self) -> dict[int, dict[str, Any]]:
        return {seq: event for kind, seq, event in self.log if event is not None}

    @property
    def last_kind(self) -> str | None:
        return next((e["kind"] for k, _, e in reversed(self.log) if e is not None), None)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    dispatch = Session._dispatch

    async def recording(self: Session, msg: Message) -> None:
        rec.record(msg)
        await dispatch(self, msg)

    monkeypatch.setattr(Session, "_dispatch", recording)
    return rec


async def test_seq_never_goes_back_across_restarts(tmp_path: Path, recorder: Recorder) -> None:
    server = Server(tmp_path / "hall.sqlite3", free_port(), "--hand-pause", "1",
                    "--turn-seconds", "60", "--seed", "5")
    done: list[str] = []
    games = 0
    bot = make_strategy("simple")
    await server.start()
    try:
        with trio.fail_after(5 * HANG_GUARD):  # (the whole test: its work bounds it)
            async with open_session(port=server.port, name="ada") as ada:
                table = await ada.create_table("gin", 2, options={"target_score": 40})
                await ada.join(table, 0)
                await ada.add_bot(table, 1, "simple")
                await ada.start(table)
                while True:
                    state = ada.tables.get(table)
                    view = state.view if state is not None else None
                    kind = _point(state, recorder, games, done)
                    if kind is not None:
                        done.append(kind)
                        await _restart(server, ada, recorder, table, check_resync=kind in (
                            "mid_hand", "later_mid_hand"))
                        continue
                    if view is not None and view.phase == "game_over":
                        games += 1
                        if all(k in done for k in KINDS):
                            break
                        await ada.start(table)  # the next game at the same table
                        continue
                    if state is not None and state.my_turn and view is not None \
                            and ada.connected:
                        # (a stale move after a restart is refused: prompted again)
                        with contextlib.suppress(ClientError):
                            await ada.act(table, bot.choose(view, state.legal))
                        continue
                    # (a poll interval, not a bound: after a restart no update may come
                    # until the client looks at its table again)
                    with trio.move_on_after(0.5):
                        await ada.next_update()
    finally:
        assert server.stop() == 0
    assert set(done) == set(KINDS), done
    _check_numbers(recorder.log)


def _point(state: Any, rec: Recorder, games: int, done: list[str]) -> str | None:
    """The kind of point the table is at, if it is one not killed at yet."""
    view = state.view if state is not None else None
    if view is None:
        return None
    if "mid_hand" not in done and games == 0 and state.my_turn and view.move_number > 6:
        return "mid_hand"
    if "hand_pause" not in done and rec.last_kind == "hand_scored" and \
            view.phase != "game_over":
        return "hand_pause"  # (the next deal waits a second)
    if "between_games" not in done and view.phase == "game_over":
        return "between_games"
    if "later_mid_hand" not in done and games >= 1 and state.my_turn and \
            view.move_number > 6 and "between_games" in done:
        return "later_mid_hand"
    return None


async def _restart(server: Server, ada: Session, rec: Recorder, table: int, *,
                   check_resync: bool) -> None:
    """Kill the server, start it again, wait for the client's snapshot after it."""
    seen = len(rec.log)
    server.kill()
    await server.start()
    while not (ada.connected and any(k == "snapshot" for k, _, _ in rec.log[seen:])):
        with trio.move_on_after(0.5):
            await ada.next_update()
    if not check_resync:
        return
    # the seat is to move: nothing happens at the table until it does
    snapshot = max(seq for k, seq, _ in rec.log if k == "snapshot")
    events = rec.events()
    since = min(seq for seq in events if seq > _game_start(rec.log)) + 2
    rec.replayed = []
    await ada.resync(table, since)
    while len(rec.replayed) < snapshot - since:
        await ada.next_update()
    replayed, rec.replayed = rec.replayed, None
    assert [seq for seq, _ in replayed] == list(range(since + 1, snapshot + 1))
    for seq, event in replayed:
        assert event == events[seq], (seq, event, events[seq])


def _game_start(log: list[tuple[str, int, dict[str, Any] | None]]) -> int:
    """The seq before the current game's first event (its deal of hand 1)."""
    start = 0
    previous = 0
    for _, seq, event in log:
        if event is not None and event["kind"] == "deal" and event["hand_no"] == 1:
            start = previous
        previous = seq
    return start


def _check_numbers(log: list[tuple[str, int, dict[str, Any] | None]]) -> None:
    """Events strictly increasing over the whole run; a snapshot never behind them."""
    high = 0
    for kind, seq, _ in log:
        if kind == "event":
            assert seq > high, (seq, high)
        else:
            assert seq >= high, (seq, high)
        high = max(high, seq)
