"""The strategy interface: a seat's view and its legal actions in, one action out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rummyhall.rules import SeatAction, SeatView


class Strategy(Protocol):
    """A bot's decision function. It sees only what its seat may see.

    ``needs_view`` false lets a runner skip building the view (for the random bot).
    """

    name: str
    needs_view: bool

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        """Return one of ``legal`` (never empty)."""
        ...
