"""Verifiable deals over real sockets: contributions, their refusals, the window, the
reveals, and each seat's check of every shuffle it played."""

from __future__ import annotations

import contextlib
import hashlib

import msgpack
import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient, play_seat, wait_for

from rummyhall.bots import SimpleBot
from rummyhall.client import RequestRefused, Session, open_session
from rummyhall.client.fairness import DealVerdict
from rummyhall.protocol import (
    AddBot,
    Contribute,
    CreateTable,
    DealCommit,
    Error,
    EventMessage,
    Join,
    Message,
    Ok,
    Start,
    Watch,
)
from rummyhall.rules import Card, HandDealt, HandScored
from rummyhall.rules.fair_deal import deal_order
from rummyhall.server import Hall, Settings

UNSEEDED = pytest.mark.parametrize("settings", [with_settings(seed=None)])
# On the real clock, a window long enough that a reveal slowed by a loaded machine still
# makes its deal (a round ends as soon as every contribution is in, so nothing waits it out).
UNSEEDED_LONG = pytest.mark.parametrize(
    "settings", [with_settings(seed=None, contribution_seconds=30.0)])


@UNSEEDED_LONG
async def test_two_players_contribute_and_verify_every_shuffle(hall: Hall, settings: Settings
                                                               ) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bob") as bob:
        table = await ada.create_table("gin", 2, {"target_score": 30})
        await bob.join(table, 1)
        await ada.join(table, 0)
        await ada.start(table)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_seat, ada, table, SimpleBot())
            nursery.start_soon(play_seat, bob, table, SimpleBot())
        for session in (ada, bob):
            verdicts = session.deals[table].verdicts
            assert verdicts, "no shuffle was revealed"
            assert all(v.ok for v in verdicts), [v.words() for v in verdicts]
            assert all(v.check.mine_used for v in verdicts), [v.words() for v in verdicts]
            assert sum(v.check.checked for v in verdicts) >= 11 * len(verdicts)


async def _until(raw: RawClient, kind: type[Message]) -> Message:
    for _ in range(200):
        got = await raw.receive()
        if isinstance(got, kind):
            return got
    raise AssertionError(f"no {kind.__name__}")


async def _error(raw: RawClient, message: Message) -> Error:
    await raw.send(message)
    got = await _until(raw, Error)
    assert isinstance(got, Error)
    return got


async def _seated_at_gin(raw: RawClient) -> int:
    """A two-seat Gin table made by ``raw``, a simple house bot in seat 1, ``raw`` in
    seat 0 (requests 1 to 3); the table's number."""
    await raw.send(CreateTable(game="gin", players=2, id=1))
    created = await _until(raw, Ok)
    assert isinstance(created, Ok) and created.table is not None
    table = created.table
    await raw.send(AddBot(table=table, seat=1, strategy="simple", id=2))
    await _until(raw, Ok)
    await raw.send(Join(table=table, seat=0, id=3))
    await _until(raw, Ok)
    return table


def _digest(value: bytes) -> str:
    return hashlib.sha256(value).hexdigest()


@UNSEEDED_LONG
async def test_bad_contributions_are_refused_and_change_nothing(hall: Hall, settings: Settings
                                                               ) -> None:
    assert hall.port
    raw, other = await RawClient.connect(hall.port), await RawClient.connect(hall.port)
    await raw.hello("ada")
    await other.hello("eve")
    table = await _seated_at_gin(raw)
    mine, later = b"\x01" * 32, b"\x02" * 32
    # a watcher has no seat; a value of the wrong size or type; a reveal naming no commit
    await other.send(Watch(table=table, id=1))
    await _until(other, Ok)
    assert (await _error(other, Contribute(table=table, next=_digest(mine), id=2))
            ).code == "not_seated"
    bad = {"type": "contribute", "table": table, "next": "ab" * 31, "id": 4}
    await raw.send_bytes(_frame(bad))
    assert (await _until(raw, Error)).code == "bad_contribution"  # type: ignore[attr-defined]
    await raw.send_bytes(_frame({**bad, "next": 12}))
    assert (await _until(raw, Error)).code == "bad_contribution"  # type: ignore[attr-defined]
    assert (await _error(raw, Contribute(table=table, reveal=mine.hex(), id=5))
            ).code == "bad_contribution"
    await raw.send(Contribute(table=table, next=_digest(mine), id=6))
    await _until(raw, Ok)
    twice = await _error(raw, Contribute(table=table, next=_digest(later), id=7))
    assert twice.code == "contribution_twice"
    await raw.send(Start(table=table, id=8))
    announced = await _until(raw, DealCommit)
    assert isinstance(announced, DealCommit)
    assert announced.commitments == (_digest(mine), None) and not announced.seeded
    wrong = await _error(raw, Contribute(table=table, commitment=announced.commitment,
                                         reveal=later.hex(), id=9))
    assert wrong.code == "bad_contribution"
    await raw.send(Contribute(table=table, commitment=announced.commitment, reveal=mine.hex(),
                              next=_digest(later), id=10))
    await _until(raw, Ok)
    dealt = await _until(raw, EventMessage)
    assert isinstance(dealt, EventMessage) and dealt.event["kind"] == "deal"
    late = await _error(raw, Contribute(table=table, commitment=announced.commitment,
                                        reveal=mine.hex(), id=11))
    assert late.code == "contribution_late"
    # the deal is the documented function of the secret and our contribution (seen at
    # the hand's end): the refusals changed nothing
    table_obj = hall.lobby.tables[table]
    proof = table_obj.hand_proofs[0]
    assert proof.reveals == {0: mine}
    assert table_obj.round is not None and table_obj.round.proof.commitments == {
        0: hashlib.sha256(later).digest()}  # (the next shuffle's, announced at once)

    hand = [Card.parse(c) for c in dealt.event["hands"][0]]
    order = deal_order(proof.secret, {0: mine}, proof.cards)
    assert hand == [order[2 * k + (1 if dealt.event["dealer"] == 0 else 0)] for k in range(10)]
    for client in (raw, other):
        await client.aclose()


def _frame(message: dict[str, object]) -> bytes:
    body: bytes = msgpack.packb(message)
    return len(body).to_bytes(4, "big") + body


@UNSEEDED
async def test_a_seat_that_commits_and_does_not_reveal_holds_the_deal_its_window_only(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    table = await _seated_at_gin(raw)
    await raw.send(Contribute(table=table, next=_digest(b"\x05" * 32), id=4))
    await _until(raw, Ok)
    await raw.send(Start(table=table, id=5))
    announced = await _until(raw, DealCommit)
    assert isinstance(announced, DealCommit) and announced.window_ms == 2000
    start = trio.current_time()
    dealt = await _until(raw, EventMessage)
    assert isinstance(dealt, EventMessage) and dealt.event["kind"] == "deal"
    assert trio.current_time() - start >= 2.0  # it waited the window, and no longer
    assert trio.current_time() - start < 3.0
    assert hall.lobby.tables[table].hand_proofs[0].reveals == {}
    await raw.aclose()


async def verdicts_of_a_game(ada: Session) -> list[DealVerdict]:
    """Play a one-hand gin game at seat 0 against a simple house bot: ada's verdicts on
    its deals."""
    table = await ada.create_table("gin", 2, {"target_score": 1})
    await ada.add_bot(table, 1, "simple")
    await ada.join(table, 0)
    await ada.start(table)
    await play_seat(ada, table, SimpleBot())
    return ada.deals[table].verdicts


@UNSEEDED_LONG
async def test_the_reveals_come_when_the_hand_ends(hall: Hall, settings: Settings) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        verdicts = await verdicts_of_a_game(ada)
        assert verdicts and all(v.ok and v.check.mine_used for v in verdicts)
        assert "verified" in verdicts[0].words()


async def test_a_seeded_server_says_so_and_takes_no_contribution(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        verdicts = await verdicts_of_a_game(ada)
        assert verdicts and all(v.ok and v.check.seeded for v in verdicts)
        assert all(v.check.mine_used is None for v in verdicts)
        assert "seeded" in verdicts[0].words()


@UNSEEDED
async def test_a_later_deal_waits_for_no_contribution(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """The next shuffle is announced as soon as a shuffle is made, so the seats'
    contributions arrive during the hand: with a 2 s window, the next deal still comes
    the moment the hand ends (in mock time), with both seats' contributions in it."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bob") as bob:
        table = await ada.create_table("gin", 2, {"target_score": 200})
        await bob.join(table, 1)
        await ada.join(table, 0)
        await ada.start(table)
        ended_at: list[float] = []
        gaps: list[float] = []

        async def watch() -> None:
            while len(gaps) < 2:
                update = await ada.next_update()
                if update.kind == "event" and isinstance(update.payload, HandScored):
                    ended_at.append(trio.current_time())
                elif update.kind == "event" and isinstance(update.payload, HandDealt) \
                        and ended_at:
                    gaps.append(trio.current_time() - ended_at[-1])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_seat, bob, table, SimpleBot())
            # in the middle of the first hand, the next shuffle's contributions are in
            await wait_for(lambda: ada.tables[table].my_turn, poll=0.05)
            server_table = hall.lobby.tables[table]
            await wait_for(lambda: server_table.round is not None and
                           server_table.round.answered == {0, 1}, poll=0.05)
            nursery.start_soon(_play_from_state, ada, table)
            await watch()
            nursery.cancel_scope.cancel()
        assert all(gap < 0.5 for gap in gaps), gaps  # (a wait would be the 2 s window)
        proofs = hall.lobby.tables[table].hand_proofs
        assert proofs and set(proofs[0].reveals) == {0, 1}


async def _play_from_state(session: Session, table: int) -> None:
    """Play ``session``'s seat from its table state, never reading its updates (a test
    reads them)."""
    bot = SimpleBot()
    answered = None
    while True:
        state = session.tables.get(table)
        if state is not None and state.view is not None and state.my_turn and state.legal \
                and state.move != answered:
            answered = state.move
            with contextlib.suppress(RequestRefused):
                await session.act(table, bot.choose(state.view, list(state.legal)))
        await trio.sleep(0.01)
