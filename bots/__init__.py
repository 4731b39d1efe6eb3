"""Pure bot strategies: a seat's view and legal actions in, a decision out."""

import random

from .base import Strategy
from .random_bot import RandomBot
from .simple_bot import SimpleBot

STRATEGIES: tuple[str, ...] = (RandomBot.name, SimpleBot.name)


def make_strategy(name: str, rng: random.Random | None = None) -> Strategy:
    """A new bot of the strategy called ``name``; ``rng`` seeds the ones that use chance."""
    if name == RandomBot.name:
        return RandomBot(rng)
    if name == SimpleBot.name:
        return SimpleBot()
    raise ValueError(f"unknown strategy {name!r}; strategies: {', '.join(STRATEGIES)}")

__all__ = ["STRATEGIES", "RandomBot", "SimpleBot", "Strategy", "make_strategy"]
