"""Hidden information: every frame queued for every connection during whole bot games of
the four games is checked against the true game state at that moment (a hand's shuffles
are revealed once it is over: docs/protocol.md, "Verifiable deals")."""

from __future__ import annotations

from collections.abc import Iterator

import msgpack
import pytest
import trio
from players import play_seat

from rummyhall.bots import SimpleBot
from rummyhall.client import open_session
from rummyhall.protocol import MAX_SERVER_FRAME, encode_frame
from rummyhall.rules import Card, CardError, Phase
from rummyhall.server import Hall
from rummyhall.server.players import Outbox, Outgoing, Player, Prepared

GAMES: list[tuple[str, int, dict[str, object]]] = [
    ("gin", 2, {"target_score": 60}), ("basic", 4, {"max_hands": 2}),
    ("chicago", 5, {"elimination_score": 60}), ("three_thirteen", 3, {})]


def cards_in(value: object) -> Iterator[int]:
    """Every card named anywhere in a wire value."""
    if isinstance(value, str):
        try:
            yield int(Card.parse(value))
        except CardError:
            return
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from cards_in(item)


def hidden_from(hall: Hall, player: Player) -> set[int]:
    """The cards ``player`` may not see now, at every table it sits at or watches."""
    hidden: set[int] = set()
    for table in hall.lobby.tables.values():
        seat = table.seat_of(player)
        if seat is None and player not in table.spectators:
            continue
        game = table.game
        if game is None:
            continue
        hidden.update(int(c) for c in game.stock)
        if game.phase in (Phase.DEAL, Phase.GAME_OVER):
            continue  # the hands were just shown down
        if game.phase is Phase.REBUILD:
            hidden.update(int(c) for c in game.shuffle_cards())  # the old discards, unordered
            hidden.difference_update(int(c) for c in game.discard)
        for index, hand in enumerate(game.hands):
            if seat is None or index != seat.index:
                hidden.update(int(c) for c in hand if c != game.taken)
    return hidden


async def test_no_frame_shows_another_hand_or_the_stock(hall: Hall,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert hall.port
    port = hall.port
    frames: list[tuple[str, str]] = []
    leaks: list[str] = []
    original = Outbox.put

    def recording_put(self: Outbox, outgoing: Outgoing) -> bool:
        owner = next((p for p in hall.lobby.players.connected() if p.outbox is self), None)
        if owner is not None:
            messages = outgoing.messages if isinstance(outgoing, Prepared) else (outgoing,)
            if isinstance(outgoing, Prepared):  # the bytes sent are the messages'
                assert outgoing.data == b"".join(
                    encode_frame(msgpack.packb(m.to_wire()), MAX_SERVER_FRAME)
                    for m in messages)
            for message in messages:
                if message.type == "deal_revealed":  # the hand's shuffles, once it is over:
                    table = hall.lobby.tables[message.table]  # type: ignore[attr-defined]
                    assert table.game is not None and table.game.phase in (
                        Phase.DEAL, Phase.GAME_OVER), "a shuffle revealed before its hand ended"
                    frames.append((owner.name, message.type))
                    continue  # (its cards are the deck's, and its order that of a hand over)
                shown = set(cards_in(message.to_wire()))
                leaked = shown & hidden_from(hall, owner)
                frames.append((owner.name, message.type))
                if leaked:
                    leaks.append(f"{owner.name} got {message.type} with "
                                 f"{sorted(str(Card(c)) for c in leaked)}")
        return original(self, outgoing)

    monkeypatch.setattr(Outbox, "put", recording_put)

    async def one_game(game: str, players: int, options: dict[str, object], n: int) -> None:
        async with open_session("127.0.0.1", port, name=f"c{n}", kind="bot") as creator, \
                open_session("127.0.0.1", port, name=f"w{n}", kind="spectator") as watcher:
            table = await creator.create_table(game, players, options)  # type: ignore[arg-type]
            for seat in range(2, players):
                await creator.add_bot(table, seat, "simple")
            await creator.join(table, 0)
            await watcher.watch(table)
            async with open_session("127.0.0.1", port, name=f"o{n}", kind="bot") as other:
                await other.join(table, 1)
                await creator.start(table)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(play_seat, other, table, SimpleBot())
                    await play_seat(creator, table, SimpleBot())

    async with trio.open_nursery() as nursery:
        for n, (game, players, options) in enumerate(GAMES * 2):
            nursery.start_soon(one_game, game, players, options, n)
    assert not leaks, leaks[:5]
    kinds = {kind for _, kind in frames}
    assert {"snapshot", "event", "your_turn", "turn"} <= kinds
    assert len(frames) > 2000
