"""The client side: the connection library, the client's model of a table, the bot runner."""

from .model import apply_event, apply_turn
from .session import (
    ClientError,
    ConnectionLost,
    RequestRefused,
    ServerClosed,
    Session,
    TableState,
    Update,
    open_session,
)

__all__ = [
    "ClientError", "ConnectionLost", "RequestRefused", "ServerClosed", "Session",
    "TableState", "Update", "apply_event", "apply_turn", "open_session",
]
