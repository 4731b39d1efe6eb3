"""Round trips per second through rummyhall.protocol, next to bare msgpack (prints, never asserts).

A round trip is: message object -> Connection.send -> bytes -> Connection.receive_data ->
Connection.next_event -> message object, between a server and a client connection in the
READY state. The bare figure packs and unpacks the very dict our layer puts on the wire,
with msgpack.packb / msgpack.unpackb and their defaults: the floor our layer adds to.

Each figure is measured in ``ROUNDS`` short runs, the bare one and ours in turn, so that a
burst of load from other processes falls on both. The rate printed is the best run (the
``timeit`` convention: slower runs are the ones something else disturbed), and the cost
is that of the best runs; the median cost of the paired runs is printed beside it.

Run: python bench/bench_protocol.py [seconds per figure]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import msgpack

from rummyhall.protocol import (
    NEED_DATA,
    Connection,
    EventMessage,
    Message,
    YourTurn,
    action_to_wire,
    event_to_wire,
)
from rummyhall.protocol.examples import ready_pair
from rummyhall.rules import Card, Discard, Drew, Knock, parse_cards

ROUNDS = 10


def your_turn() -> YourTurn:
    """Gin, 11 cards in hand after the draw: 11 discards and 9 knocks (20 legal actions)."""
    hand = parse_cards("Ac 2c 3c 4d 5d 6d 7h 8h 9h Ks Qs")
    legal = [Discard(0, c) for c in hand] + [Knock(0, c) for c in hand[:9]]
    return YourTurn(table=3, move=17, legal=tuple(action_to_wire(a) for a in legal),
                    time_left_ms=59_000)


def event() -> EventMessage:
    return EventMessage(table=3, seq=41, event=event_to_wire(
        Drew(1, "stock", Card.parse("7h"), 20)))


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls of ``fn`` per second, measured over about ``seconds``."""
    n, start = 0, time.perf_counter()
    batch = 1000
    while True:
        for _ in range(batch):
            fn()
        n += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def through_layer(message: Message, sender: Connection,
                  receiver: Connection) -> Callable[[], object]:
    def trip() -> object:
        receiver.receive_data(sender.send(message))
        received = receiver.next_event()
        assert received is not NEED_DATA
        return received
    return trip


def bare(message: Message) -> Callable[[], object]:
    wire = message.to_wire()

    def trip() -> object:
        return msgpack.unpackb(msgpack.packb(wire))
    return trip


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    client, server = ready_pair()
    print(f"{'message':12s} {'bytes':>6s} {'bare msgpack/s':>15s} {'our layer/s':>12s} "
          f"{'cost':>6s} {'median':>7s}")
    for name, message in (("your_turn", your_turn()), ("event", event())):
        assert through_layer(message, server, client)() == message
        size = len(msgpack.packb(message.to_wire()))
        floors, ours = [], []
        for _ in range(ROUNDS):
            floors.append(rate(bare(message), seconds / ROUNDS))
            ours.append(rate(through_layer(message, server, client), seconds / ROUNDS))
        median = statistics.median(f / o for f, o in zip(floors, ours, strict=True))
        print(f"{name:12s} {size:6d} {max(floors):15,.0f} {max(ours):12,.0f} "
              f"{max(floors) / max(ours):5.2f}x {median:6.2f}x")


if __name__ == "__main__":
    main()
