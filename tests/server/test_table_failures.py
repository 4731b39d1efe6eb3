"""A bug inside the rules' apply stops its table; a refusal by the rules needs no repair.

Game.apply refuses an action before changing anything (tests/rules/test_atomic_moves.py),
so a table answers a refused action and goes on. Anything else escaping apply (a bug in
the rules, or a refusal after the move began) may have left the game half-changed: the
table stops, as a table that failed (its journal keeps it for a restart), and the
player's request gets its one reply saying so.
"""

from __future__ import annotations

import pytest
from players import RawClient, play_seat, wait_for

from rummyhall.bots import SimpleBot
from rummyhall.client import RequestRefused, open_session
from rummyhall.protocol import (
    ActionMessage,
    AddBot,
    CreateTable,
    Error,
    Join,
    Ok,
    Ping,
    Pong,
    Start,
    YourTurn,
)
from rummyhall.rules import Action, Discard, Event, Game, IllegalDiscard
from rummyhall.server import Hall
from rummyhall.server.table import Table


@pytest.mark.parametrize("failure", [RuntimeError("a bug in the rules"),
                                     IllegalDiscard("refused after the move began")])
async def test_a_failure_inside_apply_stops_the_table(
        hall: Hall, failure: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        broken = await ada.create_table("gin", 2, {"target_score": 30})
        other = await ada.create_table("gin", 2, {"target_score": 30})
        for table_id in (broken, other):
            await ada.add_bot(table_id, 1, "simple")
            await ada.join(table_id, 0)
            await ada.start(table_id)
        table = hall.lobby.tables[broken]
        game = table.game
        assert game is not None
        await wait_for(lambda: ada.tables[broken].my_turn)

        # The game's handler of a pass, for this game only (the class's table of handlers:
        # a compiled build's games are native objects, whose methods cannot be replaced).
        handlers = type(game)._handlers
        verify, play = handlers["pass"]

        def half_applied(self: Game, action: Action) -> list[Event]:
            if self is not game:
                return play(self, action)
            self.move_number += 1  # the move began ...
            raise failure         # ... and failed half-way

        monkeypatch.setitem(handlers, "pass", (verify, half_applied))
        state = ada.tables[broken]
        with pytest.raises(RequestRefused) as info:
            await ada.act(broken, next(a for a in state.legal if a.kind == "pass"))
        assert info.value.code == "internal_error" and "stopped" in info.value.message
        await wait_for(lambda: broken not in hall.lobby.tables)
        assert table.failed
        await play_seat(ada, other, SimpleBot())  # the other table plays to its end


async def test_a_refused_action_is_answered_and_the_table_goes_on(hall: Hall) -> None:
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="ada") as ada:
        table_id = await ada.create_table("gin", 2, {"target_score": 30})
        await ada.add_bot(table_id, 1, "simple")
        await ada.join(table_id, 0)
        await ada.start(table_id)
        await wait_for(lambda: ada.tables[table_id].my_turn)
        state = ada.tables[table_id]
        assert state.view is not None
        card = state.view.hand[0]
        with pytest.raises(RequestRefused) as info:
            await ada.act(table_id, Discard(state.seat or 0, card))  # before drawing
        assert info.value.code != "internal_error"
        assert table_id in hall.lobby.tables and not hall.lobby.tables[table_id].failed
        await play_seat(ada, table_id, SimpleBot())


async def test_a_failure_after_the_ok_sends_no_second_reply(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """One reply per request: an action acknowledged (its ok sent) and then failing (here
    in the broadcast of its events) stops the table, but its sender gets no second reply
    for that request; the table's removal tells the rest."""
    assert hall.port
    ada = await RawClient.connect(hall.port)
    await ada.hello("ada")
    await ada.send(CreateTable(game="gin", players=2, options={"target_score": 30}, id=1))
    created = await ada.receive()
    assert isinstance(created, Ok) and created.table is not None
    table_id = created.table
    for message in (AddBot(table=table_id, seat=1, strategy="simple", id=2),
                    Join(table=table_id, seat=0, id=3), Start(table=table_id, id=4)):
        await ada.send(message)
    prompt = None
    while prompt is None:
        reply = await ada.receive()
        if isinstance(reply, YourTurn) and reply.table == table_id:
            prompt = reply

    def failing(self: Table, events: object) -> None:
        raise RuntimeError("a bug after the ok")

    monkeypatch.setattr(Table, "_broadcast", failing)
    action = next(a for a in prompt.legal if a["kind"] == "pass")
    await ada.send(ActionMessage(table=table_id, move=prompt.move, action=action, id=9))
    await ada.send(Ping(id=10))
    replies = []
    while not isinstance(reply := await ada.receive(), Pong):
        if getattr(reply, "id", None) == 9:
            replies.append(reply)
    assert [type(r) for r in replies] == [Ok]
    await wait_for(lambda: table_id not in hall.lobby.tables)
    await ada.aclose()


async def test_a_request_to_a_table_that_is_closing_gets_its_one_reply(hall: Hall) -> None:
    """Between its close and its removal from the lobby a table takes no more requests:
    one sent then is answered with no_such_table at once, not left without a reply."""
    assert hall.port
    raw = await RawClient.connect(hall.port)
    await raw.hello("ada")
    number = await raw.create_table()
    hall.lobby.tables[number].close()  # (its inbox is shut; listed until its next change)
    await raw.send(Join(table=number, seat=0, id=2))
    await raw.send(Ping(id=3))
    replies = [await raw.receive(), await raw.receive()]
    refusal, pong = replies
    assert isinstance(refusal, Error) and (refusal.code, refusal.id) == ("no_such_table", 2)
    assert not refusal.fatal  # (a refusal of one request: the connection goes on)
    assert isinstance(pong, Pong) and pong.id == 3
    await raw.aclose()
