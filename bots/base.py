"""The strategy interface: a seat's view and its legal actions in, one action out."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from rummyhall.rules import Card, Knock, SeatAction, SeatView


class Strategy(Protocol):
    """A bot's decision function. It sees only what its seat may see.

    ``needs_view`` false lets a runner skip building the view (for the random bot).
    """

    name: str
    needs_view: bool

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        """Return one of ``legal`` (never empty), or a Gin knock of ``legal`` with the
        knocker's own melds (:func:`knock_with_melds`)."""
        ...


def knock_with_melds(knock: Knock, melds: Sequence[Sequence[Card]]) -> Knock:
    """``knock`` (one of the legal actions) laying ``melds``: the knocker's own arrangement
    of the cards he keeps, the rest being his deadwood (Gin; docs/rules.md, "The showdown").
    The rules check the melds when the knock is played."""
    return dataclasses.replace(knock, melds=tuple(tuple(m) for m in melds))


def is_offered(action: SeatAction, legal: Sequence[SeatAction]) -> bool:
    """True if ``action`` is one of ``legal``, or one of its knocks with melds named."""
    if action in legal:
        return True
    return isinstance(action, Knock) and action.melds is not None and \
        dataclasses.replace(action, melds=None) in legal
