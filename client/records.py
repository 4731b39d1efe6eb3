"""A finished game's record in words, hand by hand: the one renderer of records.

``rummyhall replay`` prints it from the server's data file, a page per hand; the
console's history opens it from the server's ``record`` (docs/protocol.md, "History").
Both read a :class:`RecordedGame`, replay its journal with the rules engine, and tell
each event in the words of :func:`~rummyhall.client.wording.event_words` (those of the
console's log), with every hand shown and each shuffle's proof checked.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rummyhall.protocol import GameRecord, JournalEntry, action_from_entry
from rummyhall.rules import (
    Card,
    GameOver,
    HandDealt,
    HandScored,
    RulesError,
    Showdown,
    new_game,
    option_specs,
    parse_options,
    sort_key,
)
from rummyhall.rules.fair_deal import DealCheck, verify_recorded

from .wording import CardWords, card_notation, event_words, note_words


@dataclass(frozen=True)
class RecordedGame:
    """What a replay reads of a finished game, wherever the record came from."""

    number: int
    game: str
    table: int
    started: str
    finished: str | None
    seeded: bool
    names: tuple[str, ...]
    options: Mapping[str, Any]
    first_dealer: int
    #: the journal, each entry as the data file keeps it: ``{"kind", "seat", fields}``,
    #: a shuffle ``{"kind": "shuffle", "order": [cards], "proof": {...}}``
    actions: tuple[Mapping[str, Any], ...]

    @classmethod
    def of_export(cls, record: Mapping[str, Any]) -> RecordedGame:
        """From the data file's export record (docs/persistence.md)."""
        return cls(record["id"], record["game"], record["table"], str(record["started"]),
                   record["finished"], bool(record.get("seeded")),
                   tuple(s["name"] for s in record["seats"]), dict(record["options"]),
                   record["first_dealer"], tuple(record["actions"]))

    @classmethod
    def of_wire(cls, record: GameRecord, journal: Sequence[JournalEntry]) -> RecordedGame:
        """From the server's ``record`` message and the whole journal (its parts joined)."""
        game = record.summary
        actions = tuple(dict(e.action) if e.seat is None else {**e.action, "seat": e.seat}
                        for e in journal)
        return cls(game.number, game.game, game.table, utc_text(game.started),
                   None if game.finished is None else utc_text(game.finished),
                   record.seeded, tuple(s.name for s in game.seats), dict(record.options),
                   record.first_dealer, actions)


def utc_text(unix: float) -> str:
    """A time as the data file's records write it (ISO 8601, UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(unix))


@dataclass(frozen=True)
class Replay:
    """A game told in words: ``pages`` are the lines to show before each pause (the head
    and the first hand, then a hand each, the game's end with the last)."""

    pages: tuple[tuple[str, ...], ...]
    #: shuffles that failed their check
    failed: int
    #: the journal does not replay to its end (the last page says where and why)
    broken: bool

    @property
    def lines(self) -> list[str]:
        return [line for page in self.pages for line in page]

    @property
    def status(self) -> int:
        """The exit status of ``rummyhall replay``: 2 for a broken journal or a failed
        shuffle, else 0."""
        return 2 if self.broken or self.failed else 0


def replay_text(recorded: RecordedGame, card: CardWords = card_notation) -> Replay:
    """Replay ``recorded`` with the rules engine and tell it; ``card`` writes a card (the
    notation, ``Td``, or with symbols, ``T♦``)."""
    names = list(recorded.names)
    # (every option, the defaults too: a rebuilt stock says how and when it is the last)
    options = {**_defaults(recorded.game), **recorded.options}
    game = new_game(recorded.game, parse_options(recorded.game, dict(recorded.options)),
                    players=len(names), first_dealer=recorded.first_dealer)
    pages: list[tuple[str, ...]] = []
    page = [f"Game #{recorded.number}: {recorded.game} at table {recorded.table}, "
            f"{recorded.started} to {recorded.finished or '(not finished)'}"
            f"{', seeded' if recorded.seeded else ''}",
            "  seats: " + ", ".join(f"{i} {n}" for i, n in enumerate(names))]
    lines: list[str] = []  # the hand being told
    failed = 0
    checks: list[str] = []  # the shuffles of the hand being told, checked
    for entry in recorded.actions:
        if entry.get("kind") == "shuffle":
            word, ok = shuffle_check(entry)
            checks.append(word)
            if not ok:
                failed += 1
                page.append(word)  # (at once: the journal may not replay past it)
        try:
            events = game.apply(action_from_entry(entry))
        except (RulesError, ValueError, KeyError, TypeError) as exc:
            page += [*lines, f"WARNING: the journal does not replay past here: {exc}"]
            return Replay((*pages, tuple(page)), failed, broken=True)
        for event in events:
            lines += _describe(event, game, names, card, options)
            if isinstance(event, HandScored):
                lines += [f"  {c}" for c in checks]
                checks = []
            if isinstance(event, (HandScored, GameOver)):
                page += lines
                lines = []
                if isinstance(event, HandScored) and not game.is_over:
                    pages.append(tuple(page))
                    page = []
    page += lines
    if not game.is_over:
        page.append("(the journal ends here: the game was not finished)")
    if failed:
        page.append(f"WARNING: {failed} shuffle(s) of this game FAILED their check: the "
                    "deck was not the one its commitments give")
    return Replay((*pages, tuple(page)), failed, broken=False)


def _defaults(game: str) -> dict[str, Any]:
    return {spec.name: spec.default for spec in option_specs(game)}


def _values(d: Mapping[str, str]) -> dict[int, bytes]:
    return {int(seat): bytes.fromhex(value) for seat, value in d.items()}


def shuffle_check(entry: Mapping[str, Any]) -> tuple[str, bool]:
    """A journalled shuffle's check in words, and whether it passed (a shuffle recorded
    without its proof, before verifiable deals, is not a failure)."""
    proof = entry.get("proof")
    if not isinstance(proof, Mapping):
        return "deal not verifiable (recorded without its proof)", True
    what = "deal" if proof.get("shuffle") == "deal" else "stock rebuild"
    try:
        check = verify_recorded(
            commitment_made=bytes.fromhex(proof["commitment"]),
            commitments=_values(proof["commitments"]), secret=bytes.fromhex(proof["secret"]),
            contributions=_values(proof["reveals"]),
            order=[Card.parse(c) for c in entry["order"]], seeded=bool(proof["seeded"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
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


def _cards(cards: Any, card: CardWords, *, sort: bool = False) -> str:
    """Cards as text (``card`` writes each); sorted by suit and rank with ``sort``."""
    shown = sorted(cards, key=sort_key) if sort else list(cards)
    return " ".join(card(c) for c in shown)


def _describe(event: Any, game: Any, names: list[str], card: CardWords,
              options: Mapping[str, Any]) -> list[str]:
    """The event in the words the console's log uses, and for a deal, a showdown and the
    scores the whole picture (a replay shows every hand)."""
    said = "  " + event_words(event, names.__getitem__, card, options=options)
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
