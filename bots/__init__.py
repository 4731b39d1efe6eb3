"""Pure bot strategies: a seat's view and legal actions in, a decision out."""

import random

from .base import Strategy, is_offered, knock_with_melds
from .expert_bot import ExpertBot, ExpertParams
from .random_bot import RandomBot
from .simple_bot import SimpleBot
from .strong_bot import StrongBot, StrongParams

STRATEGIES: tuple[str, ...] = (RandomBot.name, SimpleBot.name, StrongBot.name, ExpertBot.name)


def make_strategy(name: str, rng: random.Random | None = None, *,
                  think_ms: float | None = None) -> Strategy:
    """A new bot of the strategy called ``name``; ``rng`` seeds the ones that use chance.

    ``think_ms`` is the expert's thinking budget per decision (default 100 ms; the other
    levels answer at once). Raises ``ValueError`` for an unknown name or a budget that
    is not a positive number.
    """
    if think_ms is not None and not think_ms > 0:
        raise ValueError(f"a thinking budget must be a positive number of ms, not {think_ms}")
    if name == RandomBot.name:
        return RandomBot(rng)
    if name == SimpleBot.name:
        return SimpleBot()
    if name == StrongBot.name:
        return StrongBot()
    if name == ExpertBot.name:
        params = ExpertParams() if think_ms is None else ExpertParams(budget_ms=think_ms)
        return ExpertBot(params, rng)
    raise ValueError(f"unknown strategy {name!r}; strategies: {', '.join(STRATEGIES)}")


__all__ = ["STRATEGIES", "ExpertBot", "ExpertParams", "RandomBot", "SimpleBot", "Strategy",
           "StrongBot", "StrongParams", "is_offered", "knock_with_melds", "make_strategy"]
