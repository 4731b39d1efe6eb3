"""The journal's text of a seat's action: remembered, always what a fresh encoding gives."""

from __future__ import annotations

import json
import random

import pytest

from rummyhall.protocol import action_from_entry, action_to_entry
from rummyhall.rules import Shuffle, new_game
from rummyhall.server import journal


def test_remembered_text_is_the_actions_own_and_reads_back() -> None:
    game = new_game("gin", players=2, first_dealer=0)
    rng = random.Random(7)
    seen = 0
    while not game.is_over and seen < 300:
        if game.to_move is None:  # a shuffle: journalled with its proof, never remembered
            order = list(game.shuffle_cards())
            rng.shuffle(order)
            game.apply(Shuffle(tuple(order)))
            continue
        legal = game.legal_actions()
        action = rng.choice(legal)
        for _ in range(2):  # fresh, then remembered
            text = journal._entry_text(action)
            assert json.loads(text) == action_to_entry(action)
            assert action_from_entry(json.loads(text)) == action
        game.apply(action)
        seen += 1
    assert seen > 0


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "_TEXT_CACHE", 5)
    monkeypatch.setattr(journal, "_TEXT_OF", {})
    game = new_game("gin", players=2, first_dealer=0)
    for action in game.legal_actions() * 3:
        journal._entry_text(action)
        assert len(journal._TEXT_OF) <= 5
