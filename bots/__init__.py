"""Pure bot strategies: a seat's view and legal actions in, a decision out."""

import random

from .base import Strategy, is_offered, knock_with_melds
from .expert_bot import CLOCKS, ExpertBot, ExpertParams
from .random_bot import RandomBot
from .simple_bot import SimpleBot
from .strong_bot import StrongBot, StrongParams

STRATEGIES: tuple[str, ...] = (RandomBot.name, SimpleBot.name, StrongBot.name, ExpertBot.name)


def make_strategy(name: str, rng: random.Random | None = None, *,
                  think_ms: float | None = None, clock: str = "wall",
                  worlds: int | None = None) -> Strategy:
    """A new bot of the strategy called ``name``; ``rng`` seeds the ones that use chance.

    The expert's search (the other levels answer at once): ``think_ms`` is its thinking
    budget per decision (default 100 ms), counted by ``clock``: ``"wall"`` time (a
    server's house bots, which must answer in time) or the deciding thread's ``"cpu"``
    time (the arena: the same work whatever the machine's load, still capped at five
    times the budget of wall time); ``worlds`` instead bounds each decision by that many
    sampled worlds and no clock at all (the same seed then gives the same games on any
    machine). Raises ``ValueError`` for an unknown name or clock, a budget that is not a
    positive number, or a world count below 1.
    """
    if think_ms is not None and not think_ms > 0:
        raise ValueError(f"a thinking budget must be a positive number of ms, not {think_ms}")
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}; clocks: {', '.join(CLOCKS)}")
    if worlds is not None and worlds < 1:
        raise ValueError(f"a world count must be at least 1, not {worlds}")
    if name == RandomBot.name:
        return RandomBot(rng)
    if name == SimpleBot.name:
        return SimpleBot()
    if name == StrongBot.name:
        return StrongBot()
    if name == ExpertBot.name:
        if worlds is not None:
            return ExpertBot(ExpertParams(budget_ms=None, max_worlds=worlds), rng)
        budget = ExpertParams().budget_ms if think_ms is None else think_ms
        return ExpertBot(ExpertParams(budget_ms=budget, clock=clock), rng)
    raise ValueError(f"unknown strategy {name!r}; strategies: {', '.join(STRATEGIES)}")


__all__ = ["CLOCKS", "STRATEGIES", "ExpertBot", "ExpertParams", "RandomBot", "SimpleBot",
           "Strategy", "StrongBot", "StrongParams", "is_offered", "knock_with_melds",
           "make_strategy"]
