"""The random bot: a uniformly random legal action."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rummyhall.rules import SeatAction, SeatView


class RandomBot:
    """Plays a uniformly random legal action; the floor every other bot must beat."""

    name = "random"
    needs_view = False

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        return self.rng.choice(legal)
