"""Table play over real sockets: illegal and stale actions, spectators, chat, timers,
a reconnect in the middle of a hand."""

from __future__ import annotations

import random

import msgpack
import pytest
import trio
import trio.testing
from fast_settings import with_settings
from hang_guard import HANG_GUARD
from players import RawClient, play_seat, wait_for
from sessions import session_of

from rummyhall.bots import SimpleBot
from rummyhall.bots.selfplay import shuffle_for
from rummyhall.client import RequestRefused, Session, open_session
from rummyhall.protocol import (
    ActionMessage,
    AddBot,
    CreateTable,
    Error,
    EventMessage,
    Hello,
    Join,
    Leave,
    LocalProtocolError,
    Ok,
    Ping,
    Pong,
    Snapshot,
    Start,
    Watch,
    Welcome,
    YourTurn,
)
from rummyhall.rules import Action, Discard, DrawDiscard, DrawStock, Knock, Phase, new_game
from rummyhall.rules.timeout import timeout_action
from rummyhall.server import Hall, Settings
from rummyhall.server.lobby import Lobby
from rummyhall.server.players import Player
from rummyhall.server.table import Table


async def gin_table(session: Session, *, bot_seat: int = 1, **options: object) -> int:
    table = await session.create_table("gin", 2, {"target_score": 30, **options})  # type: ignore[dict-item]
    await session.add_bot(table, bot_seat, "simple")
    await session.join(table, 1 - bot_seat)
    await session.start(table)
    return table


async def my_turn(session: Session, table: int) -> None:
    await wait_for(lambda: session.tables[table].my_turn)


async def raw_first_turn(raw: RawClient) -> YourTurn:
    """Make table 1 (gin, a simple house bot at seat 1), sit at seat 0, start it, and
    read up to our first your_turn, which is returned."""
    await raw.send(CreateTable(game="gin", players=2, id=1))
    await raw.send(AddBot(table=1, seat=1, strategy="simple", id=2))
    await raw.send(Join(table=1, seat=0, id=3))
    await raw.send(Start(table=1, id=4))
    while not isinstance(prompt := await raw.receive(), YourTurn):
        pass
    return prompt


async def test_illegal_and_stale_actions_change_nothing(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table = await gin_table(ada)
        await my_turn(ada, table)
        state = ada.tables[table]
        assert state.view is not None
        before = (state.view.hand, state.view.discard_pile, state.view.move_number)
        # Gin's upcard offer: drawing from the stock is not allowed yet
        with pytest.raises(RequestRefused) as info:
            await ada.act(table, DrawStock(state.seat or 0))
        assert info.value.code == "wrong_phase"
        await my_turn(ada, table)  # a fresh your_turn follows the refusal
        with pytest.raises(RequestRefused) as info:
            await ada.act(table, Discard(0, state.view.hand[0]))
        assert info.value.code == "wrong_phase"
        await my_turn(ada, table)
        # a stale move number
        with pytest.raises(RequestRefused) as info:
            await ada.request(ActionMessage(table=table, move=0, action={"kind": "pass"}))
        assert info.value.code == "stale_action"
        await my_turn(ada, table)
        assert (state.view.hand, state.view.discard_pile, state.view.move_number) == before
        # a card that is not held, after a legal pass/draw
        legal = state.legal
        await ada.act(table, next(a for a in legal if a.kind == "pass"))
        await wait_for(lambda: state.my_turn and any(a.kind == "draw_stock"
                                                     for a in state.legal))
        await ada.act(table, DrawStock(state.seat or 0))
        await my_turn(ada, table)
        not_mine = next(c for c in state.view.discard_pile)
        with pytest.raises(RequestRefused) as info:
            await ada.act(table, Knock(state.seat or 0, not_mine))
        assert info.value.code in ("card_not_held", "cannot_go_out")
        # our own library will not even build a bad action (the server's check of raw
        # frames is in test_limits)
        with pytest.raises(LocalProtocolError):
            ActionMessage(table=table, move=state.move or 0,
                          action={"kind": "discard", "card": "Zz"})
        await play_seat(ada, table, SimpleBot())


async def test_an_action_naming_another_seat_is_refused_not_played_for_ones_own(
        hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table = await gin_table(ada, bot_seat=1)
        await my_turn(ada, table)
        state = ada.tables[table]
        assert state.view is not None and state.seat == 0
        move = state.view.move_number
        for other in (1, 7):
            with pytest.raises(RequestRefused) as info:
                await ada.request(ActionMessage(table=table, move=move,
                                                action={"kind": "pass", "seat": other}))
            assert info.value.code == "not_your_seat"
            await my_turn(ada, table)
            assert state.view.move_number == move
        # naming one's own seat is allowed (and means nothing more)
        await ada.request(ActionMessage(table=table, move=move,
                                        action={"kind": "pass", "seat": 0}))
        await wait_for(lambda: state.view is not None and state.view.move_number > move)
        await play_seat(ada, table, SimpleBot())


async def test_actions_of_other_seats_and_spectators_are_refused(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="eve", kind="spectator") as eve:
        table = await gin_table(ada)
        await eve.watch(table)
        await wait_for(lambda: table in eve.tables and eve.tables[table].view is not None)
        view = eve.tables[table].view
        assert view is not None and view.seat is None and view.hand == ()
        with pytest.raises(RequestRefused) as info:
            await eve.request(ActionMessage(table=table, move=view.move_number,
                                            action={"kind": "pass"}))
        assert info.value.code == "not_seated"
        with pytest.raises(RequestRefused) as info:
            await eve.join(table)
        assert info.value.code == "spectator_only"
        await play_seat(ada, table, SimpleBot())
        await wait_for(lambda: eve.tables[table].view is not None
                       and eve.tables[table].view.phase == "game_over")  # type: ignore[union-attr]
        final = eve.tables[table].view
        assert final is not None and final.winners and final.hand == ()


async def test_chat_at_a_table_and_in_the_lobby(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada, \
            open_session("127.0.0.1", hall.port, name="bob") as bob:
        table = await ada.create_table("gin", 2)
        await ada.join(table)
        await bob.join(table)
        await bob.say("hello table", table=table)
        await ada.say("hello all")
        seen: list[tuple[str, str, int | None]] = []
        with trio.fail_after(HANG_GUARD):
            while len(seen) < 2:
                update = await ada.next_update()
                if update.kind == "chat":
                    seen.append((update.payload.name, update.payload.text, update.table))
        assert seen == [("bob", "hello table", table), ("ada", "hello all", None)]
        with pytest.raises(LocalProtocolError):  # over 500 characters: never sent
            await bob.say("x" * 501)


@pytest.mark.parametrize("settings", [with_settings(turn_seconds=5)])
async def test_a_timeout_plays_the_documented_default(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    # time jumps whenever everything waits (0.05 s of real time is left for the sockets)
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table = await gin_table(ada)
        state = ada.tables[table]
        await wait_for(lambda: state.my_turn, session=ada)
        started = trio.current_time()
        # ada never answers: after 5 s the server passes the upcard for her
        passed: list[object] = []
        with trio.fail_after(60):
            while not passed:
                update = await ada.next_update()
                if update.kind == "event" and update.payload.kind == "pass":
                    passed.append(update.payload)
        assert passed[0].seat == state.seat  # type: ignore[attr-defined]
        assert trio.current_time() - started >= 5
        with pytest.raises(RequestRefused) as info:
                await ada.request(ActionMessage(table=table, move=1, action={"kind": "pass"}))
        assert info.value.code == "stale_action"


async def test_a_reconnect_in_the_middle_of_a_hand(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", reconnect_seconds=10) as ada:
        table = await gin_table(ada)
        state = ada.tables[table]
        bot = SimpleBot()
        for _ in range(3):  # a few decisions into the hand
            await my_turn(ada, table)
            await ada.act(table, bot.choose(state.view, list(state.legal)))
        hand_before = state.view.hand if state.view else ()
        player = ada.player_id
        # drop the TCP connection under the session's feet
        assert ada._stream is not None
        ada._stream.socket.close()
        await wait_for(lambda: not ada.connected)
        await wait_for(lambda: ada.connected)
        assert ada.player_id == player  # resumed with the token: the same player
        await wait_for(lambda: state.view is not None and state.view.hand_no >= 1)
        # (the table takes the new connection in just after the welcome: wait for it)
        await wait_for(lambda: hall.lobby.tables[table].seats[0].info().connected)
        info = hall.lobby.tables[table].seats[0].info()
        assert info.player == player and info.connected
        assert ada.tables[table].view is not None
        assert len(ada.tables[table].view.hand) >= len(hand_before) - 1  # type: ignore[union-attr]
        await play_seat(ada, table, bot)
        view = ada.tables[table].view
        assert view is not None and view.phase == "game_over"


@pytest.mark.parametrize("settings", [with_settings(grace_seconds=90)])
async def test_the_client_reconnects_as_long_as_the_server_holds_its_seat(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """After a drop the session tries again for the table's grace period (90 s here),
    longer than its own ``reconnect_seconds``; then it gives up and says so."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    with trio.socket.socket() as probe:  # a port nothing listens on
        await probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
        async with open_session("127.0.0.1", hall.port, name="ada", reconnect_seconds=10
                                ) as ada:
            table = await gin_table(ada)
            assert ada.seat_held_seconds() == 90
            ada.port = dead  # the server is gone: every attempt fails
            assert ada._stream is not None
            ada._stream.socket.close()
            await wait_for(lambda: ada.reconnect_until is not None, poll=0.01)
            dropped = trio.current_time()
            assert ada.reconnect_until == pytest.approx(dropped + 90, abs=0.1)
            await trio.sleep(80)  # past its own 10 s: still trying, the seat is held
            assert ada.closed_reason is None and trying(ada)
            await wait_for(lambda: ada.closed_reason is not None, timeout=20, poll=0.5)
            assert 90 <= trio.current_time() - dropped < 95
            assert not trying(ada) and ada.tables[table].seat == 0


class SilentLink:
    """A TCP relay to the server that can go silent, as a cut network does: after
    :meth:`cut` nothing passes either way and nothing is closed."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.silent = False
        self.port = 0

    def cut(self) -> None:
        self.silent = True

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._relay_both, listeners)

    async def _relay_both(self, client: trio.SocketStream) -> None:
        server = await trio.open_tcp_stream("127.0.0.1", self.target)
        async with client, server, trio.open_nursery() as nursery:
            nursery.start_soon(self._relay, client, server)
            nursery.start_soon(self._relay, server, client)

    async def _relay(self, source: trio.SocketStream, sink: trio.SocketStream) -> None:
        try:
            async for data in source:
                if not self.silent:
                    await sink.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass


@pytest.mark.parametrize("settings", [with_settings(grace_seconds=90)])
async def test_the_reconnect_window_runs_from_the_servers_last_bytes(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    """A connection gone silent (the network cut, nothing closed) is noticed only when a
    ping gets no answer, 30 s later: the window and its countdown still end 90 s after
    the last bytes from the server, which holds the seat 90 s from then at least."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    link = SilentLink(hall.port)
    async with trio.open_nursery() as nursery:
        await nursery.start(link.serve)
        with trio.socket.socket() as probe:  # a port nothing listens on
            await probe.bind(("127.0.0.1", 0))
            dead = probe.getsockname()[1]
            async with open_session("127.0.0.1", link.port, name="ada",
                                    reconnect_seconds=10) as ada:
                await gin_table(ada)
                link.cut()
                with pytest.raises(trio.TooSlowError):
                    await ada.ping()
                heard = ada.last_heard
                assert heard is not None and trio.current_time() - heard >= 30
                assert ada.connected  # (nothing closed: only the ping tells)
                ada.port = dead  # and the server is out of reach from now on
                ada.drop_connection("no answer to a ping")
                await wait_for(lambda: ada.reconnect_until is not None, poll=0.01)
                assert ada.seat_held_until == pytest.approx(heard + 90)
                assert ada.reconnect_until == pytest.approx(heard + 90)  # (not now + 90)
                await wait_for(lambda: ada.closed_reason is not None, timeout=90, poll=1)
                assert heard + 90 <= trio.current_time() < heard + 95
        nursery.cancel_scope.cancel()


def trying(session: Session) -> bool:
    """The session is trying to reconnect."""
    return session.reconnect_until is not None


async def test_not_your_turn_and_a_new_game_at_the_same_table(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada", kind="bot") as ada, \
            open_session("127.0.0.1", hall.port, name="bob", kind="bot") as bob:
        table = await ada.create_table("gin", 2, {"target_score": 20})
        await ada.join(table, 0)
        await bob.join(table, 1)
        await ada.start(table)
        await wait_for(lambda: (ada.tables[table].my_turn or bob.tables[table].my_turn))
        idle = bob if ada.tables[table].my_turn else ada
        view = idle.tables[table].view
        assert view is not None and view.seat is not None
        with pytest.raises(RequestRefused) as info:
            await idle.request(ActionMessage(table=table, move=view.move_number,
                                             action={"kind": "pass"}))
        assert info.value.code == "not_your_turn"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_seat, bob, table, SimpleBot())
            await play_seat(ada, table, SimpleBot())
        first = ada.tables[table].view
        assert first is not None and first.winners
        with pytest.raises(RequestRefused) as info:
            await bob.start(table)
        assert info.value.code == "not_creator"
        await wait_for(lambda: hall.lobby.tables[table].state == "finished")
        await ada.start(table)  # the same seats play a new game
        await wait_for(lambda: ada.tables[table].view is not None
                       and ada.tables[table].view.phase != "game_over",  # type: ignore[union-attr]
                       session=ada)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_seat, bob, table, SimpleBot())
            await play_seat(ada, table, SimpleBot())
        second = ada.tables[table].view
        assert second is not None and second.winners and second.results


@pytest.mark.parametrize("settings", [with_settings(grace_seconds=30, house_delay=0.2)])
async def test_an_absent_player_is_replaced_after_the_grace_period(
        hall: Hall, settings: Settings, mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    port = hall.port
    async with open_session("127.0.0.1", port, name="host") as host:
        table = await host.create_table("gin", 2, {"target_score": 10})
        await host.add_bot(table, 1)
        await host.watch(table)  # (so that the game goes on without ada: house bots play
        async with open_session("127.0.0.1", port, name="ada", reconnect_seconds=0) as ada:
            await ada.join(table, 0)  # for someone to see)
            await host.start(table)
            await wait_for(lambda: ada.tables[table].my_turn, session=ada)
            token = ada.token
            assert ada._stream is not None
            ada._stream.socket.close()  # gone, and it will not come back by itself
        seat = hall.lobby.tables[table].seats[0]
        await wait_for(lambda: seat.absent_since is not None, poll=0.5)
        gone_at = seat.absent_since
        assert gone_at is not None
        # while the grace period runs the game waits for ada (no timer at this table)
        await wait_for(lambda: seat.stand_in is not None, timeout=120, poll=0.5)
        assert trio.current_time() - gone_at >= 30
        info = hall.lobby.tables[table].info().seats[0]
        assert info.bot == "strong" and not info.connected
        moves = hall.lobby.tables[table].game.move_number  # type: ignore[union-attr]
        await wait_for(lambda: hall.lobby.tables[table].game.move_number > moves + 4,  # type: ignore[union-attr]
                       timeout=120, poll=0.5)
        # ada comes back with her token: her seat is hers again
        async with open_session("127.0.0.1", port, name="ada", token=token) as again:
            await wait_for(lambda: table in again.tables
                           and again.tables[table].view is not None, session=again)
            assert seat.stand_in is None and seat.player is not None
            assert seat.player.id == again.player_id
            await play_seat(again, table, SimpleBot())


async def test_a_failure_after_an_action_stops_only_that_table(hall: Hall) -> None:
    """A bug met once an action has changed the game stops that table (it is kept for a
    restart): the sender hears so, and the server and its other tables go on."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        broken = await gin_table(ada)
        other = await gin_table(ada)
        table = hall.lobby.tables[broken]
        journal = table.before_broadcast
        assert journal is not None

        async def failing(t: Table, action: Action) -> None:
            raise RuntimeError("a bug")  # before the action's ok: after the game changed

        await my_turn(ada, broken)
        table.before_broadcast = failing
        state = ada.tables[broken]
        with pytest.raises(RequestRefused) as info:
            await ada.act(broken, next(a for a in state.legal if a.kind == "pass"))
        assert info.value.code == "internal_error" and "stopped" in info.value.message
        await wait_for(lambda: broken not in hall.lobby.tables)
        assert table.failed
        await play_seat(ada, other, SimpleBot())  # the other table plays to its end


async def test_a_failure_in_a_seat_request_gets_one_reply_and_the_seats_as_they_are(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug met in a join: the game is untouched and the table goes on. Before the ok,
    the refusal does not claim that nothing changed, and the table's summary follows with
    the seat as it now is; after the ok, no second reply follows it."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table_id = await ada.create_table("gin", 2)
        table = hall.lobby.tables[table_id]
        announce = Table._changed
        failures = iter([RuntimeError("a bug")])

        def failing_once(self: Table) -> None:
            exc = next(failures, None)
            if exc is not None:
                raise exc  # the seat is given, its announcement and ok not yet
            announce(self)

        monkeypatch.setattr(Table, "_changed", failing_once)
        with pytest.raises(RequestRefused) as info:
            await ada.join(table_id, 0)
        assert info.value.code == "internal_error"
        assert "nothing changed" not in info.value.message
        await wait_for(lambda: table_id in ada.lobby and ada.lobby[table_id].seats[0].name == "ada")

        def failing(self: Table, player: object, seat: object) -> None:
            raise RuntimeError("a bug")  # after the ok: the snapshot does not go out

        monkeypatch.setattr(Table, "_send_snapshot", failing)
        bob = await RawClient.connect(hall.port)
        await bob.hello("bob")
        await bob.send(Join(table=table_id, seat=1, id=5))
        await bob.send(Ping(id=6))
        replies = []
        while not isinstance(reply := await bob.receive(), Pong):
            if getattr(reply, "id", None) == 5:
                replies.append(reply)
        assert [type(r) for r in replies] == [Ok]  # its ok, and no second reply
        monkeypatch.undo()
        await bob.send(Leave(table=table_id, id=7))
        await bob.aclose()
        assert table_id in hall.lobby.tables and not table.failed
        await wait_for(lambda: table.seats[1].empty)
        await ada.add_bot(table_id, 1, "simple")
        await ada.start(table_id)  # the table goes on, ada in the seat it was announced in
        await play_seat(ada, table_id, SimpleBot())


@pytest.mark.parametrize("game_name", ["gin", "basic", "chicago", "three_thirteen"])
def test_the_timeout_discard_is_never_the_card_just_taken(game_name: str) -> None:
    """Even where the rules allow it (forbid_discarding_taken_card off), the timeout action
    does not throw back the card its seat just took from the discard pile, unless that
    card is all the hand holds."""
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = new_game(game_name, {"forbid_discarding_taken_card": False}, players=2)
        for _ in range(400):
            if game.is_over:
                break
            if game.to_move is None:  # chance: the shuffle
                game.apply(shuffle_for(game, rng))
                continue
            if game.taken is not None and game.phase is Phase.PLAY:
                action = timeout_action(game, game.to_move)
                assert isinstance(action, Discard)
                if len(game.hands[game.to_move]) > 1:  # (else it is all there is)
                    assert action.card != game.taken
                    checked += 1
            legal = game.legal_actions()
            takes = [a for a in legal if isinstance(a, DrawDiscard)]
            game.apply(takes[0] if takes and rng.random() < 0.7 else rng.choice(legal))
    assert checked >= 20


async def test_an_action_refused_unread_is_followed_by_a_fresh_your_turn(hall: Hall) -> None:
    """An action frame the server cannot read (a card written wrong) is refused by the
    protocol layer, before any table sees it: a fresh your_turn follows all the same."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    prompt = await raw_first_turn(raw)
    body = msgpack.packb({"type": "action", "table": 1, "move": prompt.move, "id": 9,
                          "action": {"kind": "discard", "card": "10d"}})
    await raw.send_bytes(len(body).to_bytes(4, "big") + body)
    after = [await raw.receive(), await raw.receive()]
    assert isinstance(after[0], Error) and after[0].code == "bad_card" and after[0].id == 9
    assert isinstance(after[1], YourTurn) and after[1].move == prompt.move
    await raw.aclose()


async def test_a_bad_frame_that_is_no_action_brings_no_fresh_your_turn(hall: Hall) -> None:
    """Only an action refused unread is prompted again: a chat line refused the same way
    at the player's turn gets its error, and nothing more (the next thing is a pong)."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    await raw_first_turn(raw)
    body = msgpack.packb({"type": "say", "text": 7, "id": 9})  # a number for the text
    await raw.send_bytes(len(body).to_bytes(4, "big") + body)
    await raw.send(Ping(id=10))
    after = [await raw.receive(), await raw.receive()]
    assert isinstance(after[0], Error) and after[0].code == "bad_message" and after[0].id == 9
    assert isinstance(after[1], Pong) and after[1].id == 10
    await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(house_delay=0.05)])
async def test_a_player_who_left_may_watch_but_not_act_until_it_joins_again(
        hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table = await gin_table(ada)
        seat = ada.tables[table].seat
        await my_turn(ada, table)
        move = ada.tables[table].move
        await ada.leave(table)  # a house bot plays the seat, which stays ada's
        with pytest.raises(RequestRefused) as info:
            await ada.request(ActionMessage(table=table, move=move or 0,
                                            action={"kind": "pass"}))
        assert info.value.code == "not_seated"
        await ada.watch(table)
        await wait_for(lambda: table in ada.tables and ada.tables[table].view is not None)
        watched = ada.tables[table]
        assert watched.seat is None  # the spectator's view
        seq = watched.seq
        await wait_for(lambda: watched.seq > seq + 2)  # the events keep coming
        await ada.resync(table)  # a resync while watching: the spectator's view again
        await wait_for(lambda: ada.tables[table].seq > seq + 3)
        assert ada.tables[table].seat is None
        await ada.leave(table)  # stops watching
        with pytest.raises(RequestRefused) as info:
            await ada.leave(table)
        assert info.value.code == "not_watching"
        for request in (ada.resync(table), ada.say("hello", table)):
            with pytest.raises(RequestRefused) as info:
                await request  # a seat left is not a place at the table
            assert info.value.code == "not_watching"
        assert await ada.join(table) == seat  # the seat back
        with pytest.raises(RequestRefused) as info:
            await ada.watch(table)
        assert info.value.code == "already_seated"


@pytest.mark.parametrize("settings", [with_settings(house_delay=0.002)])
async def test_a_resumed_connection_gets_its_snapshot_before_any_event(hall: Hall) -> None:
    """While a game runs fast, a spectator drops and resumes again and again: each new
    connection's first message of the table is its snapshot, never an event before it."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="host") as host:
        table = await host.create_table("gin", 2, {"target_score": 500})
        await host.add_bot(table, 0, "simple")
        await host.add_bot(table, 1, "simple")
        raw = await RawClient.connect(hall.port)
        welcome = await raw.hello("eve")
        assert isinstance(welcome, Welcome)
        await raw.send(Watch(table=table, id=1))
        await host.start(table)
        for _ in range(40):
            await wait_for(lambda: hall.lobby.tables[table].seq > 0)
            raw.stream.socket.close()  # dropped: the server notices when it reads
            raw = await RawClient.connect(hall.port)
            await raw.send(Hello(versions=(1,), name="eve", kind="person",
                                 token=session_of(welcome).token))
            assert isinstance(await raw.receive(), Welcome)
            while not isinstance(first := await raw.receive(), (Snapshot, EventMessage)):
                pass
            assert isinstance(first, Snapshot), first
        await raw.aclose()


@pytest.mark.parametrize("settings", [with_settings(turn_seconds=1)])
async def test_a_resumed_seat_gets_its_snapshot_before_its_turn(
        hall: Hall, monkeypatch: pytest.MonkeyPatch,
        mock_clock: trio.testing.MockClock) -> None:
    """The table reaches a resumed player's turn before it has taken the new connection
    in (its "connected" waits behind other work): the your_turn waits for the snapshot."""
    mock_clock.autojump_threshold = 0.01
    assert hall.port
    raw = await RawClient.connect(hall.port)
    welcome = await raw.hello("ada")
    assert isinstance(welcome, Welcome)
    await raw_first_turn(raw)
    connected = Lobby.connected

    async def late(self: Lobby, player: Player) -> None:
        await trio.sleep(2.5)  # a turn of ada's times out and the next one begins meanwhile
        await connected(self, player)

    monkeypatch.setattr(Lobby, "connected", late)
    raw.stream.socket.close()
    raw = await RawClient.connect(hall.port)
    await raw.send(Hello(versions=(1,), name="ada", kind="person",
                         token=session_of(welcome).token))
    assert isinstance(await raw.receive(timeout=30), Welcome)
    while not isinstance(first := await raw.receive(timeout=30),
                         (Snapshot, EventMessage, YourTurn)):
        pass
    assert isinstance(first, Snapshot), first
    await raw.aclose()


@pytest.mark.parametrize("where", ["journal", "snapshots"])
async def test_a_failure_starting_a_game_stops_the_table_after_one_reply(
        hall: Hall, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Once start has made the game, any failure (writing its first shuffle, sending the
    first snapshots) stops the table, kept for a restart: its ok went out, no second
    reply follows, and nothing claims the game did not change."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table_id = await ada.create_table("gin", 2)
        await ada.add_bot(table_id, 1, "simple")
        await ada.join(table_id, 0)
        table = hall.lobby.tables[table_id]

        async def unjournalled(t: Table, action: Action) -> None:
            raise RuntimeError("a bug")  # the first shuffle cannot be journalled

        def unsent(self: Table, player: object, seat: object) -> None:
            raise RuntimeError("a bug")

        if where == "journal":
            table.before_broadcast = unjournalled
        else:
            monkeypatch.setattr(Table, "_send_snapshot", unsent)
        await ada.start(table_id)  # the one reply: its ok
        await wait_for(lambda: table_id not in hall.lobby.tables)
        assert table.failed
        await ada.ping()  # the connection and the server are fine
