"""``rummyhall replay GAME``: step through a finished game hand by hand, every hand shown."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from rummyhall.client.wording import (
    SUIT_SYMBOLS,
    CardWords,
    card_notation,
    card_symbols,
    event_words,
    note_words,
)
from rummyhall.rules import (
    Card,
    GameOver,
    HandDealt,
    HandScored,
    RulesError,
    Showdown,
    new_game,
    parse_options,
    sort_key,
)
from rummyhall.rules.fair_deal import DealCheck, verify_recorded
from rummyhall.server.journal import action_from_json

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


def _cards(cards: Any, card: CardWords, *, sort: bool = False) -> str:
    """Cards as text (``card`` writes each); sorted by suit and rank with ``sort``."""
    shown = sorted(cards, key=sort_key) if sort else list(cards)
    return " ".join(card(c) for c in shown)


def replay_record(record: dict[str, Any], pause: Callable[[], bool] | None,
                  card: CardWords = card_notation) -> int:
    """Print the game one hand per step; ``pause`` between steps (None: no pause);
    ``card`` writes a card (the notation, ``Td``, or with symbols, ``T♦``)."""
    names = [s["name"] for s in record["seats"]]
    game = new_game(record["game"], parse_options(record["game"], dict(record["options"])),
                    players=len(names), first_dealer=record["first_dealer"])
    print(f"Game #{record['id']}: {record['game']} at table {record['table']}, "
          f"{record['started']} to {record['finished'] or '(not finished)'}"
          f"{', seeded' if record.get('seeded') else ''}")
    print("  seats: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))
    lines: list[str] = []
    failed = 0
    checks: list[str] = []  # the shuffles of the hand being printed, checked
    for entry in record["actions"]:
        if entry.get("kind") == "shuffle":
            word, ok = shuffle_check(entry)
            checks.append(word)
            if not ok:
                failed += 1
                print(word)  # (at once: the journal may not replay past it)
        try:
            events = game.apply(action_from_json(entry))
        except (RulesError, ValueError, KeyError) as exc:
            print("\n".join(lines))
            print(f"WARNING: the journal does not replay past here: {exc}")
            return 2
        for event in events:
            lines += _describe(event, game, names, card)
            if isinstance(event, HandScored):
                lines += [f"  {c}" for c in checks]
                checks = []
            if isinstance(event, (HandScored, GameOver)):
                print("\n".join(lines))
                lines = []
                if isinstance(event, HandScored) and pause is not None and not game.is_over \
                        and not pause():
                    return 0
    if lines:
        print("\n".join(lines))
    if not game.is_over:
        print("(the journal ends here: the game was not finished)")
    if failed:
        print(f"WARNING: {failed} shuffle(s) of this game FAILED their check: the deck was "
              "not the one its commitments give")
        return 2
    return 0


def _values(d: dict[str, str]) -> dict[int, bytes]:
    return {int(seat): bytes.fromhex(value) for seat, value in d.items()}


def shuffle_check(entry: dict[str, Any]) -> tuple[str, bool]:
    """A journalled shuffle's check in words, and whether it passed (a shuffle recorded
    without its proof, before verifiable deals, is not a failure)."""
    proof = entry.get("proof")
    if not isinstance(proof, dict):
        return "deal not verifiable (recorded without its proof)", True
    what = "deal" if proof.get("shuffle") == "deal" else "stock rebuild"
    try:
        check = verify_recorded(
            commitment_made=bytes.fromhex(proof["commitment"]),
            commitments=_values(proof["commitments"]), secret=bytes.fromhex(proof["secret"]),
            contributions=_values(proof["reveals"]),
            order=[Card.parse(c) for c in entry["order"]], seeded=bool(proof["seeded"]))
    except (KeyError, TypeError, ValueError) as exc:
        return f"WARNING: {what} FAILED its check: its proof cannot be read ({exc})", False
    return _words(what, check), check.ok


def _words(what: str, check: DealCheck) -> str:
    if not check.ok:
        return f"WARNING: {what} FAILED its check: " + "; ".join(check.problems)
    notes = [f"seat {s} committed and did not reveal" for s in check.withheld]
    if check.seeded:
        notes.append("seeded server: proves nothing")
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"{what} verified: {check.checked} cards{tail}"


def _describe(event: Any, game: Any, names: list[str], card: CardWords) -> list[str]:
    """The event in the words the console's log uses, and for a deal, a showdown and the
    scores the whole picture (a replay shows every hand)."""
    said = "  " + event_words(event, names.__getitem__, card)
    if isinstance(event, HandDealt):
        out = ["", f"Hand {event.hand_no}" + (f" (round {event.round})" if event.round else "")
               + f", dealer {names[event.dealer]}"]
        out += [f"  {names[i]:<20} {_cards(h, card, sort=True) or '-'}"
                for i, h in enumerate(event.hands)]
        return [*out, f"  upcard {card(event.upcard)}, stock {len(game.stock)}"]
    if isinstance(event, Showdown):
        out = [said]
        for r in event.reveals:
            melds = "  ".join(_cards(m, card) for m in r.melds) or "-"
            out.append(f"    {names[r.seat]:<20} melds {melds}; deadwood "
                       f"{_cards(r.deadwood, card) or '-'} ({r.points})")
        return out
    if isinstance(event, HandScored):
        notes = [f"    {note_words(n, names.__getitem__)}" for n in event.notes]
        totals = ", ".join(f"{names[i]} {t}" for i, t in enumerate(event.totals))
        return [said, *notes, f"  totals {totals}"]
    if isinstance(event, GameOver):
        won = ", ".join(names[w] for w in event.winners) or "nobody"
        return ["", f"Game over: {won} won; totals "
                + ", ".join(f"{names[i]} {t}" for i, t in enumerate(event.totals))]
    return [said]
