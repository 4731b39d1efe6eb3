"""The client side: the connection library, the client's model of a table, the bot runner."""

from .bot import Bot, GameResult, StrategyBot, knock_with_melds, play_table, run_bot
from .credentials import HallCredential
from .errors import ClientError
from .fairness import DealTracker, DealVerdict, verify_deal
from .model import apply_event, apply_turn
from .session import (
    ConnectionLost,
    RequestRefused,
    ServerClosed,
    Session,
    TableState,
    Update,
    open_session,
)
from .trust import KnownServers, NotTLS, ServerTrust, TLSError, UntrustedServer

__all__ = [
    "Bot",
    "ClientError",
    "ConnectionLost",
    "DealTracker",
    "DealVerdict",
    "GameResult",
    "HallCredential",
    "KnownServers",
    "NotTLS",
    "RequestRefused",
    "ServerClosed",
    "ServerTrust",
    "Session",
    "StrategyBot",
    "TLSError",
    "TableState",
    "UntrustedServer",
    "Update",
    "apply_event",
    "apply_turn",
    "knock_with_melds",
    "open_session",
    "play_table",
    "run_bot",
    "verify_deal",
]
