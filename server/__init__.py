"""The trio server: the lobby, the tables, the sessions, the LAN beacon."""

from .config import ConfigError, Settings
from .hall import Hall, serve_until_signalled

__all__ = ["ConfigError", "Hall", "Settings", "serve_until_signalled"]
