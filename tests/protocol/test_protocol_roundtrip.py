"""Every message type survives send -> bytes -> next_event unchanged (property tests)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from protocol_strategies import message_strategy

from rummyhall.protocol import (
    CLIENT,
    MESSAGES,
    SERVER,
    Connection,
    Hello,
    LoggedIn,
    Login,
    Message,
    Welcome,
)
from rummyhall.protocol.examples import locked_pair, ready_pair

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _through(message: Message) -> object:
    """Send ``message`` from a connection in a state that allows it, to its peer."""
    if isinstance(message, Hello):
        sender = Connection(CLIENT, versions=message.versions)
        receiver = Connection(SERVER, versions=message.versions)
    elif isinstance(message, Welcome):
        receiver = Connection(CLIENT, versions=(message.version,))
        sender = Connection(SERVER, versions=(message.version,),
                            max_frame=message.limits.max_frame)
        sender.receive_data(receiver.send(Hello(versions=(message.version,), name="x",
                                                kind="bot")))
        sender.next_event()
    elif isinstance(message, Login):
        sender, receiver = locked_pair()
    elif isinstance(message, LoggedIn):
        receiver, sender = locked_pair()
        sender.receive_data(receiver.send(Login(proof="0" * 64)))
        sender.next_event()
    else:
        client, server = ready_pair()
        sender, receiver = (client, server) if message.sender is CLIENT else (server, client)
    receiver.receive_data(sender.send(message))
    return receiver.next_event()


def _fields(message: Message) -> dict[str, object]:
    return {name: getattr(message, name) for name in message.__dataclass_fields__}  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", list(MESSAGES))
def test_round_trip(kind: str) -> None:
    @SETTINGS
    @given(message_strategy(kind))
    def check(message: Message) -> None:
        if isinstance(message, Hello):
            message = Hello(**{**_fields(message), "protocol": "rummyhall"})  # type: ignore[arg-type]
        got = _through(message)
        assert got == message
        assert type(got).from_wire(message.to_wire()) == message

    check()
