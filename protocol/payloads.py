"""The game on the wire: actions, events and seat views, derived from the rules' dataclasses.

The wire form of a rules object is built generically from its dataclass: a map of its
fields (an action's ``seat`` left out: the server knows who sends), plus ``kind`` for
actions and events; a :class:`~rummyhall.rules.Card` is its text ("Td", "9c#1", "JK"), a
tuple is an array, None (a hidden card, a missing value) is nil. The schemas that check
the wire forms come from the same dataclasses' type hints, so a field added to a rules
event flows to the wire, its schema and the document's tables without code here.

What a seat may see is decided before this module, by :func:`rummyhall.rules.event_for`
and :func:`rummyhall.rules.seat_view`: these functions serialise whatever they are given.

    >>> from rummyhall.rules import Card, Discard
    >>> action_to_wire(Discard(1, Card.parse("Td")))
    {'kind': 'discard', 'card': 'Td'}
    >>> action_from_wire({"kind": "discard", "card": "Td"}, seat=1)
    Discard(seat=1, card=Card('Td'))
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

from rummyhall.rules import (
    ACTION_KINDS,
    GAMES,
    Action,
    Card,
    Event,
    OptionSpec,
    Reveal,
    SeatAction,
    SeatView,
    Shuffle,
    option_specs,
)

from .errors import RemoteProtocolError
from .framing import json_value
from .limits import MAX_TEXT
from .schema import (
    CARD_BY_TEXT,
    ArrayT,
    BoolT,
    CardT,
    IntT,
    MapT,
    OptT,
    PayloadT,
    ScalarT,
    SchemaError,
    Spec,
    StrT,
    TupleT,
    UnionT,
)

Wire = dict[str, Any]
"""A wire map as msgpack gives it: string keys; arrays are tuples."""

EVENT_CLASSES: Final[tuple[type[Any], ...]] = typing.get_args(Event)

# One sentence per field, for the document's tables: "record.field" first, then "field".
FIELD_DOCS: Final[dict[str, str]] = {
    "seat": "the seat (0-based) that acted",
    "card": "the card",
    "cards": "the cards, in table order",
    "meld": "the number of the table meld (0-based, in the order melds were laid)",
    "stock_count": "cards left in the stock",
    "hand_no": "the hand's number in the game, from 1",
    "round": "Three Thirteen's round (1..), 0 in the other games",
    "dealer": "the dealer's seat",
    "wild_rank": "the wild rank of the hand, 1 (ace) to 13 (king): in Three Thirteen "
                 "round r's, r + 2 (aces, 1, in the extra rounds of deuces_arent_wild); "
                 "0: none (jokers are always wild)",
    "knock_limits": "Chicago: each seat's knock limit this hand (0 in the other games)",
    "winners": "the winning seats (several on a shared win; empty when nobody won)",
    "totals": "each seat's total score after this",
    "notes": "the score explained, line by line, in English",
    "points": "deadwood points left",
    "deal.hands": "per seat: the seat's own cards; nil for every other seat's hidden hand",
    "deal.hand_sizes": "per seat, the number of cards dealt",
    "deal.upcard": "the first card of the discard pile",
    "draw.source": "\"stock\" or \"discard\"",
    "draw.card": "the card drawn; nil for others when it came from the stock",
    "pass.seat": "the seat that refused Gin's upcard",
    "discard.card": "the card discarded (now the top of the discard pile)",
    "layoff.added": "the cards laid off",
    "layoff.cards": "the whole meld after the layoff, in table order",
    "stock_rebuilt.discard_top": "the card left on the discard pile",
    "stock_rebuilt.exhaustions": "how many times the stock ran out this hand",
    "knock.call": "\"knock\", \"gin\", \"big_gin\" or \"rummy\" (Chicago)",
    "knock.card": "the card discarded with the knock; nil for big gin",
    "go_out.card": "the card discarded to go out (its discard event came just before: "
                   "it left the hand once)",
    "showdown.reveals": "each seat's cards, arranged",
    "Reveal.seat": "the seat shown",
    "Reveal.melds": "its melds",
    "Reveal.layoffs": "Gin: [card, index of the knocker's meld it joined] per card laid off",
    "Reveal.deadwood": "its unmatched cards",
    "Reveal.points": "its deadwood points",
    "Reveal.state": "shown, hidden (a dead or void hand: no card shown) or out (not dealt "
                    "in this hand); see Enumerated values",
    "hand_scored.outcome": "out, rummy, knock, gin, big_gin, undercut, tie, exhausted, dead, "
                           "void, seven_twos, round or bonus",
    "hand_scored.winners": "the seats that won the hand",
    "hand_scored.points": "what each seat gained this hand",
    "eliminated.seats": "the seats now out of the game (Chicago)",
    "game_over.totals": "final totals, end-of-game bonuses included",
    "SeatView.game": "the game: basic, gin, chicago or three_thirteen",
    "SeatView.options": "the table's options, every one (see `games`)",
    "SeatView.players": "the number of seats",
    "SeatView.seat": "the seat this view belongs to; nil for a spectator",
    "SeatView.phase": "deal, upcard, draw, play, rebuild or game_over",
    "SeatView.hand_no": "the current hand's number (0 before the first deal)",
    "SeatView.hand_ended": "true between two hands and once the game is over: then "
                           "hand_no, round, dealer, wild_rank, knock_limits, the hands and "
                           "piles are the finished hand's (its result is the last of "
                           "results); the next hand's come in its deal event",
    "SeatView.to_move": "the seat whose decision the game waits for; nil when none",
    "SeatView.move_number": "the number an action must name in its `move` field",
    "SeatView.hand": "this seat's cards, in display order (empty for a spectator)",
    "SeatView.hand_sizes": "each seat's number of cards",
    "SeatView.discard_pile": "the discard pile, bottom to top",
    "SeatView.melds": "the table melds (Basic Rummy): [owner seat, cards] in table order",
    "SeatView.scores": "each seat's total score",
    "SeatView.active": "each seat: still in the game (Chicago eliminates)",
    "SeatView.taken": "the card the seat to move took from the discard pile this turn",
    "SeatView.out_seat": "Three Thirteen: the seat that went out this round, if any",
    "SeatView.last_showdown": "the latest showdown (public), nil before any",
    "SeatView.results": "every scored hand so far (hand_scored maps)",
    "SeatView.winners": "the winners once the game is over",
    "action.card": "the card to discard",
    "action.cards": "the cards to meld or to lay off",
    "action.meld": "the table meld to lay off on",
    "knock_action.card": "the card to discard; nil for big gin",
    "knock_action.melds": "Gin: the melds the knocker lays, each an array of his cards "
                          "(the cards he keeps but does not name are his deadwood); "
                          "absent or nil: the server lays the best arrangement",
    "go_out_action.card": "the card to discard",
}


def field_doc(record: str, name: str) -> str:
    """The document's sentence for field ``name`` of ``record``."""
    return FIELD_DOCS.get(f"{record}.{name}") or FIELD_DOCS.get(name, "")


# ------------------------------------------------------------------ schemas from type hints

_NONE = type(None)
_payload_cache: dict[type[Any], PayloadT] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def spec_for_hint(hint: Any) -> Spec:
    """The wire spec of a rules type hint (Card, int, tuples, optionals, dataclasses)."""
    if hint is Card:
        return CardT()
    if hint is bool:
        return BoolT()
    if hint is int:
        return IntT()
    if hint is str:
        return StrT(0, MAX_TEXT)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not _NONE]
        if set(present) == {bool, int, str}:
            base: Spec = ScalarT()
        elif len(present) == 1:
            base = spec_for_hint(present[0])
        else:
            raise TypeError(f"no wire form for {hint}")
        return OptT(base) if _NONE in args else base
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return ArrayT(spec_for_hint(args[0]))
        return TupleT(tuple(spec_for_hint(a) for a in args))
    if origin in (Mapping, dict, typing.Mapping):
        return MapT(spec_for_hint(args[1]))
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return payload_spec(hint)
    raise TypeError(f"no wire form for {hint}")


def payload_spec(cls: type[Any], *, skip: tuple[str, ...] = (), name: str | None = None,
                 doc_key: str | None = None) -> PayloadT:
    """The schema of the wire map of a rules dataclass (fields in ``skip`` left out)."""
    if cls in _payload_cache and not skip:
        return _payload_cache[cls]
    hints = _hints(cls)
    kind = getattr(cls, "kind", None)
    record = doc_key or (kind if isinstance(kind, str) else cls.__name__)
    fields = {f.name: spec_for_hint(hints[f.name]) for f in dataclasses.fields(cls)
              if f.name not in skip}
    docs = {n: field_doc(record, n) for n in fields}
    spec = PayloadT(name or (f'"{kind}" event' if isinstance(kind, str) else cls.__name__),
                    fields, kind if isinstance(kind, str) else None, docs)
    if not skip:
        _payload_cache[cls] = spec
    return spec


ACTION_SPECS: Final[dict[str, PayloadT]] = {
    kind: payload_spec(cls, skip=("seat",), name=f'"{kind}" action',
                       doc_key=f"{kind}_action" if kind in ("knock", "go_out") else "action")
    for kind, cls in ACTION_KINDS.items()
}
for _kind, _spec in ACTION_SPECS.items():
    for _name in _spec.fields:
        _key = f"{_kind}_action" if _kind in ("knock", "go_out") else "action"
        _spec.docs[_name] = field_doc(_key, _name)

EVENT_SPECS: Final[dict[str, PayloadT]] = {cls.kind: payload_spec(cls) for cls in EVENT_CLASSES}
REVEAL_SPEC: Final = payload_spec(Reveal)
VIEW_SPEC: Final = payload_spec(SeatView, name="SeatView")

ACTION: Final = UnionT("action", ACTION_SPECS.values(), open=False)
"""An action a client sends: an unknown kind is an error."""
LEGAL_ACTION: Final = UnionT("action", ACTION_SPECS.values(), open=True)
"""An action in a legal list: an unknown kind (a newer server) is skipped by the client."""
EVENT: Final = UnionT("event", EVENT_SPECS.values(), open=True)
"""An event: an unknown kind (a newer server) is skipped by the client, its seq counted."""


# ------------------------------------------------------------------ rules objects -> wire


def to_wire(value: object) -> object:
    """The wire form of a rules value: cards as text, tuples as arrays, dataclasses as maps."""
    kind = type(value)
    if kind is Card:
        return str(value)
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return tuple(to_wire(v) for v in value)  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_to_wire(value)
    if isinstance(value, Mapping):
        return {str(k): to_wire(v) for k, v in value.items()}
    if isinstance(value, Card):
        return str(Card(value))
    if isinstance(value, bool | int | str):  # an enum or other subclass: its plain value
        return value if type(value) is bool else (str(value) if isinstance(value, str)
                                                   else int(value))
    raise TypeError(f"no wire form for {type(value).__name__}")


_FIELD_NAMES: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def _field_names(cls: type, skip: tuple[str, ...]) -> tuple[str, ...]:
    """A dataclass's field names but ``skip`` (looked up once per class: the hot path)."""
    names = _FIELD_NAMES.get((cls, skip))
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in skip)
        _FIELD_NAMES[cls, skip] = names
    return names


_DEFAULT_NONE: dict[type, frozenset[str]] = {}


def _default_none(cls: type) -> frozenset[str]:
    """The fields of ``cls`` whose default is None: left out of the wire map when None.

    They are the fields added to a record after it was first published (a knock's
    ``melds``); absent and nil mean the same on the wire, so leaving them out keeps the
    older form of the message byte for byte.
    """
    names = _DEFAULT_NONE.get(cls)
    if names is None:
        names = frozenset(f.name for f in dataclasses.fields(cls) if f.default is None)
        _DEFAULT_NONE[cls] = names
    return names


def _dataclass_to_wire(obj: Any, skip: tuple[str, ...] = ()) -> Wire:
    d: Wire = {}
    kind = getattr(obj, "kind", None)
    if isinstance(kind, str):
        d["kind"] = kind
    for name in _field_names(type(obj), skip):
        value = getattr(obj, name)
        kind_of = type(value)
        if kind_of is int or kind_of is str or kind_of is bool:
            d[name] = value  # the common scalars, without a call
        elif value is None:
            if name not in _default_none(type(obj)):
                d[name] = value
        else:
            d[name] = to_wire(value)
    return d


def action_to_wire(action: SeatAction) -> Wire:
    """``{"kind": ..., fields but the seat}`` (the form of your_turn's legal list)."""
    return _dataclass_to_wire(action, skip=("seat",))


def event_to_wire(event: Event) -> Wire:
    """``{"kind": ..., fields}``; filter it first with :func:`rummyhall.rules.event_for`."""
    return _dataclass_to_wire(event)


def view_to_wire(view: SeatView) -> Wire:
    """A seat's view as a map (from :func:`rummyhall.rules.seat_view`)."""
    return _dataclass_to_wire(view)


# ------------------------------------------------------------------ wire -> rules objects

Reader = Callable[..., Any]


def _identity(value: Any) -> Any:
    return value


def _reader(hint: Any) -> Reader:
    if hint is Card:
        return CARD_BY_TEXT.__getitem__
    if hint in (int, str, bool):
        return _identity
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not _NONE]
        if len(present) != 1:
            return _identity
        inner = _reader(present[0])
        return inner if inner is _identity else (lambda v: None if v is None else inner(v))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _reader(args[0])
            return tuple if item is _identity else (lambda v: tuple(map(item, v)))
        readers = [_reader(a) for a in args]
        return lambda v: tuple(r(x) for r, x in zip(readers, v, strict=True))
    if origin in (Mapping, dict, typing.Mapping):
        return dict
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _record_reader(hint)
    raise TypeError(f"no reader for {hint}")


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and \
        _NONE in typing.get_args(hint)


def _record_reader(cls: type[Any], skip: tuple[str, ...] = ()) -> Reader:
    hints = _hints(cls)
    fields = [(f.name, _reader(hints[f.name]), _optional(hints[f.name]))
              for f in dataclasses.fields(cls) if f.name not in skip]
    # A field that may be nil may also be absent: absent means nil (docs/protocol.md 2).
    return lambda d, **extra: cls(**extra, **{
        name: r(d.get(name) if optional else d[name]) for name, r, optional in fields})


_ACTION_READERS: Final = {kind: _record_reader(cls, ("seat",)) for kind, cls in
                          ACTION_KINDS.items()}
_EVENT_READERS: Final = {cls.kind: _record_reader(cls) for cls in EVENT_CLASSES}
_VIEW_READER: Final = _record_reader(SeatView)


def _checked(spec: UnionT | PayloadT, wire: object, what: str) -> Wire:
    """Check ``wire`` against ``spec``; raise a non-fatal :class:`RemoteProtocolError`."""
    try:
        if not isinstance(wire, dict):
            raise SchemaError("bad_message", what, f"expected a map, got {type(wire).__name__}")
        if isinstance(spec, UnionT):
            kind = wire.get("kind")
            variant = spec.variants.get(kind) if type(kind) is str else None
            if variant is None:
                raise SchemaError("bad_message", f"{what}.kind",
                                  f"expected one of {', '.join(spec.variants)}, got {kind!r}")
            spec = variant
        spec.check(wire, what, 1)
    except SchemaError as exc:
        raise RemoteProtocolError(str(exc), code=exc.code, fatal=False) from None
    return wire


def action_from_wire(wire: object, seat: int) -> SeatAction:
    """The rules action a client sent for ``seat`` (which comes from the connection).

    Raises a non-fatal :class:`RemoteProtocolError` (``bad_message``, ``bad_card``) when
    ``wire`` is not a valid action map, and ``not_your_seat`` when it names a ``seat``
    (which a client never needs to) other than ``seat``.
    """
    d = _checked(ACTION, wire, "action")
    named = d.get("seat")
    if named is not None and named != seat:  # never a quiet answer about one's own seat
        raise RemoteProtocolError(f"action.seat: you play seat {seat}, not seat {named!r}",
                                  code="not_your_seat", fatal=False)
    action: SeatAction = _ACTION_READERS[d["kind"]](d, seat=seat)
    return action


def action_to_entry(action: Action) -> dict[str, Any]:
    """A journal entry: an action as the data file, an export and a game's record hold
    it (JSON): ``{"kind", "seat", fields}``; a shuffle is ``{"kind": "shuffle",
    "order": [...]}``.

        >>> from rummyhall.rules import Discard
        >>> action_to_entry(Discard(1, Card.parse("Td")))
        {'kind': 'discard', 'seat': 1, 'card': 'Td'}
    """
    if isinstance(action, Shuffle):
        return {"kind": "shuffle", "order": [str(c) for c in action.order]}
    wire = action_to_wire(action)
    return {"kind": wire.pop("kind"), "seat": action.seat, **json_value(wire)}


def action_from_entry(entry: Mapping[str, Any]) -> Action:
    """The action of a journal entry (:func:`action_to_entry`'s inverse); raises
    :class:`RemoteProtocolError`, ``KeyError``, ``ValueError`` or ``TypeError`` when it
    is not one (a shuffle's ``proof``, when there, is left to the caller)."""
    if entry["kind"] == "shuffle":
        return Shuffle(tuple(Card.parse(c) for c in entry["order"]))
    return action_from_wire({k: v for k, v in entry.items() if k != "seat"},
                            int(entry["seat"]))


def event_from_wire(wire: object) -> Event | None:
    """The rules event of an event map; None for a kind this version does not know."""
    if isinstance(wire, dict) and isinstance(wire.get("kind"), str) and \
            wire["kind"] not in EVENT_SPECS:
        return None
    d = _checked(EVENT, wire, "event")
    event: Event = _EVENT_READERS[d["kind"]](d)
    return event


def legal_from_wire(wire: object, seat: int) -> SeatAction | None:
    """A legal action of a your_turn list; None for a kind this version does not know."""
    if isinstance(wire, dict) and isinstance(wire.get("kind"), str) and \
            wire["kind"] not in ACTION_SPECS:
        return None
    return action_from_wire(wire, seat)


def view_from_wire(wire: object) -> SeatView:
    """The :class:`~rummyhall.rules.SeatView` of a snapshot's view map."""
    d = _checked(VIEW_SPEC, wire, "view")
    view: SeatView = _VIEW_READER(d)
    return view


# ------------------------------------------------------------------ the games catalogue


def option_info(spec: OptionSpec) -> dict[str, Any]:
    """The fields of a ``games`` option entry for one rules option."""
    return {"name": spec.name, "type": spec.type, "default": spec.default,
            "meaning": spec.meaning, "allowed": spec.allowed(), "choices": spec.choices,
            "low": spec.low, "high": spec.high, "values": spec.values}


def games_catalogue() -> list[dict[str, Any]]:
    """The fields of every ``games`` entry, from the rules engine's games and option specs."""
    return [{"game": name, "title": cls.title, "min_players": cls.min_players,
             "max_players": cls.max_players,
             "options": [option_info(s) for s in option_specs(name)]}
            for name, cls in GAMES.items()]
