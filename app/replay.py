"""``rummyhall replay GAME``: step through a finished game hand by hand, every hand shown."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from rummyhall.client.records import RecordedGame, replay_text
from rummyhall.client.wording import SUIT_SYMBOLS, CardWords, card_notation, card_symbols

from .datafile import add_data_flag, load_record
from .prompts import ask


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="step through a game hand by hand",
                       description="Replay game number GAME (see `rummyhall history`) from "
                                   "its journal, one hand per step, with every player's "
                                   "cards shown. Enter shows the next hand, q quits.")
    add_data_flag(p)
    p.add_argument("game", type=int, help="the game's number")
    p.add_argument("--no-pause", action="store_true",
                   help="print the whole game without waiting (for scripts)")
    p.add_argument("--ascii", action="store_true",
                   help="write suits as letters (Td, 9c), not symbols (T♦, 9♣); the default "
                        "where the output cannot show the symbols")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    record = load_record(args, "replay")
    if record is None:
        return 1
    pause = None if args.no_pause else _wait
    symbols = not args.ascii and _can_show(SUIT_SYMBOLS)
    return replay_record(record, pause, card_symbols if symbols else card_notation)


def _can_show(text: str) -> bool:
    """Whether standard output's encoding can write ``text``."""
    try:
        text.encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _wait() -> bool:
    """Wait for Enter; False when the user quits (q, or the end of input)."""
    try:
        answer = ask("-- Enter: next hand, q: quit -- ")
    except EOFError:
        return False
    return answer.strip().lower() not in ("q", "quit")


def replay_record(record: dict[str, Any], pause: Callable[[], bool] | None,
                  card: CardWords = card_notation) -> int:
    """Print the game of the data file's ``record`` a hand per step (the words of
    :func:`~rummyhall.client.records.replay_text`); ``pause`` between steps (None: no
    pause); ``card`` writes a card (``Td``, or with symbols ``T♦``). The exit status."""
    told = replay_text(RecordedGame.of_export(record), card)
    for i, page in enumerate(told.pages):
        if i and pause is not None and not pause():
            return 0
        print("\n".join(page))
    return told.status
