"""The client side: the connection library, the client's model of a table, the bot runner."""

from .bot import Bot, GameResult, StrategyBot, knock_with_melds, play_table, run_bot
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
    "Bot",
    "ClientError",
    "ConnectionLost",
    "GameResult",
    "RequestRefused",
    "ServerClosed",
    "Session",
    "StrategyBot",
    "TableState",
    "Update",
    "apply_event",
    "apply_turn",
    "knock_with_melds",
    "open_session",
    "play_table",
    "run_bot",
]
