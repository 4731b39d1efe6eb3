"""Test helpers: clients that play their seat with a built-in strategy over the network."""

from __future__ import annotations

from collections.abc import Callable

import trio
from hang_guard import HANG_GUARD

from rummyhall.bots import Strategy
from rummyhall.client import RequestRefused, Session
from rummyhall.protocol import CLIENT, CLOSED, Connection, CreateTable, Error, Hello, Message, Ok


async def play_seat(session: Session, table: int, strategy: Strategy, *,
                    max_updates: int = 200_000) -> None:
    """Answer every your_turn of ``table`` with ``strategy`` until the game is over.

    Decisions are taken from the table's current state (updates only wake the loop), so
    a prompt overtaken by later events is never answered.
    """
    answered: int | None = None
    for _ in range(max_updates):
        state = session.tables.get(table)
        if state is not None and state.view is not None:
            if state.view.phase == "game_over":
                return
            if state.my_turn and state.legal and state.move != answered:
                answered = state.move
                action = strategy.choose(state.view if strategy.needs_view else None,
                                         list(state.legal))
                try:
                    await session.act(table, action)
                except RequestRefused as exc:
                    if exc.code != "stale_action":  # overtaken by a timeout: go on
                        raise
                continue
        await session.next_update(timeout=30)
    raise AssertionError("the game did not end")


async def wait_for(predicate: Callable[[], object], timeout: float = HANG_GUARD, *,
                   session: Session | None = None, poll: float = 0.005) -> None:
    """Wait until ``predicate()`` holds: after each update of ``session`` when given,
    else polling every ``poll`` seconds (use a coarse poll under a mock clock)."""
    with trio.fail_after(timeout):
        while not predicate():
            if session is not None:
                await session.next_update()
            else:
                await trio.sleep(poll)


class RawClient:
    """A hand-driven client on a raw socket, for tests of bad input and limits."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.conn = Connection(CLIENT)

    @classmethod
    async def connect(cls, port: int) -> RawClient:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def hello(self, name: str, kind: str = "person") -> Message:
        await self.send(Hello(versions=(1,), name=name, kind=kind))
        return await self.receive()

    async def create_table(self, game: str = "gin", players: int = 2,
                           request_id: int = 1) -> int:
        """Create a table (its ok is read here) and return its number."""
        await self.send(CreateTable(game=game, players=players, id=request_id))
        created = await self.receive()
        assert isinstance(created, Ok) and created.table is not None, created
        return created.table

    async def send(self, message: Message) -> None:
        await self.stream.send_all(self.conn.send(message))

    async def request(self, message: Message,
                      pushed: Callable[[Message], object] | None = None) -> Ok | Error:
        """Send a request; its reply (the pushes before it are skipped, each given to
        ``pushed`` first when it is given)."""
        await self.send(message)
        request_id = getattr(message, "id", None)
        while True:
            reply = await self.receive()
            if isinstance(reply, Ok | Error) and reply.id == request_id:
                return reply
            if pushed is not None:
                pushed(reply)

    async def send_bytes(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def receive(self, timeout: float = HANG_GUARD) -> Message:
        """The next message; raises EOFError when the server closed the connection."""
        with trio.fail_after(timeout):
            while True:
                event = self.conn.next_event()
                if isinstance(event, Message):
                    return event
                if event is CLOSED:
                    raise EOFError("closed")
                try:
                    data = await self.stream.receive_some(65_536)
                except trio.BrokenResourceError:
                    data = b""
                self.conn.receive_data(bytes(data))

    async def receive_until_closed(self, timeout: float = HANG_GUARD) -> list[Message]:
        """Every message until the server closes the connection (then ours is closed too)."""
        got: list[Message] = []
        try:
            while True:
                got.append(await self.receive(timeout))
        except EOFError:
            await self.aclose()
            return got

    async def aclose(self) -> None:
        await self.stream.aclose()
