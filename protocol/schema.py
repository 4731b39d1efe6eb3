"""Field types and the compiler that turns them into fast validators.

Theory of operation
-------------------
Every message field and every field of a game payload has a *spec* (:class:`Spec`): an
integer range, a bounded string, a card, an array of something, a record... A spec
knows three things: how to check a value (:meth:`Spec.emit_check`, which writes Python
source), how to describe itself in the document (:meth:`Spec.describe`), and whether
checking converts the value (a wire map becoming a record object).

The checks are compiled once, at import, into plain Python functions (the way
:mod:`dataclasses` writes ``__init__``): one per message class and one per payload
record. A check of a valid value is a few ``type(v) is int`` tests and no function calls
per leaf, which keeps our layer close to bare msgpack (bench/bench_protocol.py). A check
that fails raises :class:`SchemaError` naming the path of the bad field, the expected
type and the code to answer with (``bad_message``, or a field's own code such as
``bad_card``).

Two kinds of records: *message records* are read-only dataclasses (the messages and the
small lobby records inside them, see :mod:`.messages`); *payload records* are plain
dicts checked in place (game events, actions, views: see :mod:`.payloads`) so that a
snapshot or a list of legal actions is not copied. Unknown fields are allowed
everywhere (the protocol grows by adding fields); they are only checked against the
frame rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Final, cast

from rummyhall.rules import Card
from rummyhall.rules.cards import MAX_COPIES

from .errors import LocalProtocolError
from .framing import check_value
from .limits import INT_MAX, INT_MIN, MAX_ARRAY_LEN, MAX_ID, MAX_ID_LEN, MAX_KEY_LEN, MAX_TEXT


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


def _all_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for copy in range(MAX_COPIES):
        cards[str(Card.joker(copy))] = Card.joker(copy)
        for suit in range(4):
            for rank in range(1, 14):
                card = Card.make(rank, suit, copy)
                cards[str(card)] = card
    return cards


CARD_BY_TEXT: Final[Mapping[str, Card]] = _all_cards()
"""Every card's canonical wire text ("Td", "9c#1", "JK") to its :class:`Card`."""


class SchemaError(LocalProtocolError):
    """A value does not match its spec. ``path`` names the field, ``code`` the error code.

    Building a message with a bad field raises it (a :class:`LocalProtocolError`: our
    mistake); :class:`~.connection.Connection` turns one met in a received frame into a
    :class:`~.errors.RemoteProtocolError` with the same code.
    """

    def __init__(self, code: str, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}", code=code)
        self.path = path
        self.detail = detail

    def under(self, prefix: str) -> SchemaError:
        """The same error, its path placed under ``prefix``."""
        return SchemaError(self.code, f"{prefix}.{self.path}" if self.path else prefix,
                           self.detail)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(code: str, path: str, expected: str, value: object) -> None:
    got = "nothing" if value is MISSING else f"{type(value).__name__} {_short(value)}"
    raise SchemaError(code, path, f"expected {expected}, got {got}")


def _extras(d: Mapping[object, object], known: frozenset[str], path: str, depth: int) -> None:
    """Check the unknown fields of a map against the frame rules (they are otherwise ignored)."""
    for key, value in d.items():
        if key not in known:
            check_value({key: value}, depth)  # the key's length and the value, as a frame


class _Gen:
    """Collects the source lines and the names a compiled function refers to."""

    def __init__(self) -> None:
        self.names: dict[str, object] = {
            "_fail": _fail, "_extras": _extras, "MISSING": MISSING,
            "SchemaError": SchemaError,
        }
        self.count = 0

    def const(self, value: object, hint: str = "c") -> str:
        for name, existing in self.names.items():
            if existing is value:
                return name
        self.count += 1
        name = f"_{hint}{self.count}"
        self.names[name] = value
        return name

    def temp(self, hint: str = "t") -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def define(self, source: str, what: str) -> None:
        """Run ``source`` (the generated functions' definitions) into :attr:`names`;
        ``what`` names it in tracebacks.

        Compiled first, then run as a code object: CPython marks a KeyboardInterrupt that
        escapes ``exec`` of a *string* as unhandled at the interpreter's exit, even when
        the program handles it later, so a command whose Ctrl-C came while the first
        message of a kind was decoded (its check is made then) died of SIGINT instead of
        saying "interrupted" with status 130.
        """
        exec(compile(source, f"<rummyhall.protocol {what}>", "exec"), self.names)


def _indent(lines: Iterable[str], by: int = 1) -> list[str]:
    return ["    " * by + line for line in lines]


class Spec:
    """The type of one field: checked by compiled code, described in the document."""

    #: Checking may replace the value (a wire map becomes a record object).
    converts: ClassVar[bool] = False

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        """Source lines that check (and may reassign) ``var``.

        ``path`` is an expression naming the field for error messages, ``depth`` one giving
        the nesting depth of ``var`` if it is a container (the message map is depth 1).
        """
        raise NotImplementedError

    def emit_convert(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        """Source lines turning wire maps inside ``var`` into records (only if ``converts``)."""
        return []

    def describe(self) -> str:
        """The type in the words of docs/protocol.md."""
        raise NotImplementedError

    def max_depth(self) -> int:
        """Containers this spec nests (0 for a scalar)."""
        return 0

    def fail(self, g: _Gen, var: str, path: str, code: str = "bad_message") -> str:
        return f"_fail({code!r}, {path}, {self.describe()!r}, {var})"


@dataclasses.dataclass(frozen=True)
class IntT(Spec):
    """An integer in ``lo..hi``."""

    lo: int = INT_MIN
    hi: int = INT_MAX

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        # msgpack also decodes unsigned 64-bit integers: above INT_MAX one breaks the frame
        # rules (bad_frame), whatever the field's own range.
        if self.hi == INT_MAX:
            low = "" if self.lo == INT_MIN else f" or {var} < {self.lo}"
            return [f"if type({var}) is not int{low}: " + self.fail(g, var, path),
                    f"if {var} > {INT_MAX}: " + self.fail(g, var, path, "bad_frame")]
        return [f"if type({var}) is not int or not {self.lo} <= {var} <= {self.hi}: "
                + self.fail(g, var, path)]

    def describe(self) -> str:
        if (self.lo, self.hi) == (INT_MIN, INT_MAX):
            return "int"
        if self.hi == INT_MAX:
            return f"int ≥ {self.lo}"
        return f"int {self.lo}..{self.hi}"


@dataclasses.dataclass(frozen=True)
class BoolT(Spec):
    """true or false."""

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        return [f"if type({var}) is not bool: " + self.fail(g, var, path)]

    def describe(self) -> str:
        return "bool"


@dataclasses.dataclass(frozen=True)
class StrT(Spec):
    """A string of ``lo..hi`` characters; ``rule`` (with its words) checks it further."""

    lo: int = 0
    hi: int = MAX_TEXT
    rule: Callable[[str], bool] | None = None
    rule_words: str = ""
    code: str = "bad_message"

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        size = (f"len({var}) > {self.hi}" if self.lo == 0 else
                f"not {self.lo} <= len({var}) <= {self.hi}")
        lines = [f"if type({var}) is not str or {size}: " + self.fail(g, var, path, self.code)]
        if self.rule is not None:
            rule = g.const(self.rule, "rule")
            lines.append(f"if not {rule}({var}): " + self.fail(g, var, path, self.code))
        return lines

    def describe(self) -> str:
        size = (f"exactly {self.lo}" if self.lo == self.hi else
                f"{self.lo}..{self.hi}" if self.lo else f"≤ {self.hi}")
        return f"str ({size} chars{', ' + self.rule_words if self.rule_words else ''})"


@dataclasses.dataclass(frozen=True)
class EnumT(Spec):
    """One of a few strings."""

    values: tuple[str, ...]

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        allowed = g.const(frozenset(self.values), "enum")
        return [f"if type({var}) is not str or {var} not in {allowed}: "
                + self.fail(g, var, path)]

    def describe(self) -> str:
        return " | ".join(f'"{v}"' for v in self.values)


@dataclasses.dataclass(frozen=True)
class CardT(Spec):
    """A card in its canonical text ("Td", "9c#1", "JK"); a string that is not one is bad_card."""

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        cards = g.const(CARD_BY_TEXT, "cards")
        return [f"if type({var}) is not str or {var} not in {cards}: "
                f"_fail('bad_card' if type({var}) is str else 'bad_message', {path}, "
                f"'a card', {var})"]

    def describe(self) -> str:
        return "card"


@dataclasses.dataclass(frozen=True)
class IdT(Spec):
    """A request id: an int 0..2^53-1 or a string of 1..64 characters."""

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        return [f"if not ((type({var}) is int and 0 <= {var} <= {MAX_ID}) or "
                f"(type({var}) is str and 1 <= len({var}) <= {MAX_ID_LEN})): "
                + self.fail(g, var, path)]

    def describe(self) -> str:
        return "id"


@dataclasses.dataclass(frozen=True)
class ScalarT(Spec):
    """A bool, an int or a string (an option's value)."""

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        t = g.temp()
        return [f"{t} = type({var})",
                f"if {t} is int and {var} > {INT_MAX}: " + self.fail(g, var, path, "bad_frame"),
                f"if not ({t} is bool or ({t} is int and {INT_MIN} <= {var} <= {INT_MAX}) or "
                f"({t} is str and len({var}) <= {MAX_TEXT})): " + self.fail(g, var, path)]

    def describe(self) -> str:
        return "bool | int | str"


@dataclasses.dataclass(frozen=True)
class OptT(Spec):
    """``inner`` or nil."""

    inner: Spec

    @property
    def converts(self) -> bool:  # type: ignore[override]
        return self.inner.converts

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        return [f"if {var} is not None:", *_indent(self.inner.emit_check(g, var, path, depth))]

    def emit_convert(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        inner = self.inner.emit_convert(g, var, path, depth)
        return [f"if {var} is not None:", *_indent(inner)] if inner else []

    def describe(self) -> str:
        return f"{self.inner.describe()} | nil"

    def max_depth(self) -> int:
        return self.inner.max_depth()


@dataclasses.dataclass(frozen=True)
class ArrayT(Spec):
    """An array of ``lo..hi`` items of one spec (a tuple in Python; a list is accepted)."""

    item: Spec
    lo: int = 0
    hi: int = MAX_ARRAY_LEN

    @property
    def converts(self) -> bool:  # type: ignore[override]
        return self.item.converts

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        lines = [f"if type({var}) is list: {var} = tuple({var})",
                 f"if type({var}) is not tuple or not {self.lo} <= len({var}) <= {self.hi}: "
                 + self.fail(g, var, path)]
        i, x = g.temp("i"), g.temp("x")
        inner = self.item.emit_check(g, x, f"{path} + '[' + str({i}) + ']'", f"{depth} + 1")
        if inner:
            lines += [f"for {i}, {x} in enumerate({var}):", *_indent(inner)]
        return lines

    def emit_convert(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        if not self.item.converts:
            return []
        i, x, acc = g.temp("i"), g.temp("x"), g.temp("acc")
        inner = self.item.emit_convert(g, x, f"{path} + '[' + str({i}) + ']'", f"{depth} + 1")
        return [f"if type({var}) is tuple or type({var}) is list:",
                f"    {acc} = []",
                f"    for {i}, {x} in enumerate({var}):",
                *_indent(inner, 2),
                f"        {acc}.append({x})",
                f"    {var} = tuple({acc})"]

    def describe(self) -> str:
        size = "" if (self.lo, self.hi) == (0, MAX_ARRAY_LEN) else f", {self.lo}..{self.hi} items"
        item = self.item.describe()
        return f"array of {f'({item})' if ' | ' in item else item}{size}"

    def max_depth(self) -> int:
        return 1 + self.item.max_depth()


@dataclasses.dataclass(frozen=True)
class TupleT(Spec):
    """A fixed-length array whose items have their own specs (``[seat, cards]``)."""

    items: tuple[Spec, ...]

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        lines = [f"if type({var}) is list: {var} = tuple({var})",
                 f"if type({var}) is not tuple or len({var}) != {len(self.items)}: "
                 + self.fail(g, var, path)]
        for k, item in enumerate(self.items):
            x = g.temp("x")
            inner = item.emit_check(g, x, f"{path} + '[{k}]'", f"{depth} + 1")
            if inner:
                lines += [f"{x} = {var}[{k}]", *inner]
        return lines

    def describe(self) -> str:
        return "[" + ", ".join(item.describe() for item in self.items) + "]"

    def max_depth(self) -> int:
        return 1 + max(item.max_depth() for item in self.items)


@dataclasses.dataclass(frozen=True)
class MapT(Spec):
    """A map of string keys to values of one spec (table options)."""

    value: Spec
    hi: int = 64

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        k, x = g.temp("k"), g.temp("x")
        return [f"if type({var}) is not dict or len({var}) > {self.hi}: "
                + self.fail(g, var, path),
                f"for {k}, {x} in {var}.items():",
                f"    if type({k}) is not str or not 1 <= len({k}) <= {MAX_KEY_LEN}: "
                f"_fail('bad_message', {path}, 'string keys', {k})",
                *_indent(self.value.emit_check(g, x, f"{path} + '.' + str({k})", f"{depth} + 1"))]

    def describe(self) -> str:
        return f"map of str to {self.value.describe()}"

    def max_depth(self) -> int:
        return 1 + self.value.max_depth()


# ------------------------------------------------------------------ payload records


class PayloadT(Spec):
    """A map checked in place (not copied): ``fields`` are required but those of an OptT,
    which may be nil or absent (absent means nil).

    ``kind`` is the value of its "kind" field when the record is a variant of a
    :class:`UnionT`. ``name`` names the record in the document.
    """

    def __init__(self, name: str, fields: Mapping[str, Spec], kind: str | None = None,
                 docs: Mapping[str, str] | None = None) -> None:
        self.name = name
        self.fields = dict(fields)
        self.kind = kind
        self.docs = dict(docs or {})
        self._check: Callable[[dict[str, object], str, int], None] | None = None

    def __repr__(self) -> str:
        return f"PayloadT({self.name!r})"

    @property
    def check(self) -> Callable[[dict[str, object], str, int], None]:
        """``check(d, path, depth)``: raise :class:`SchemaError` unless ``d`` matches."""
        if self._check is None:
            self._check = self._compile()
        return self._check

    def _compile(self) -> Callable[[dict[str, object], str, int], None]:
        g = _Gen()
        source = "\n".join(["def check(d, path, depth):",
                            *_indent(self.emit_fields(g, "d", "path", "depth"))])
        g.define(source, f"{self.name} check")
        return g.names["check"]  # type: ignore[return-value]

    def emit_fields(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        """Lines checking the fields of the map ``var`` (known to be a dict), inline."""
        known = set(self.fields) | ({"kind"} if self.kind else set())
        lines: list[str] = []
        for name, spec in self.fields.items():
            v = g.temp("v")
            where = f"{path} + '.{name}'"
            # Every check starts with a type test, which MISSING fails ("got nothing").
            # A field that may be nil may be absent: absent means nil.
            absent = "None" if isinstance(spec, OptT) else "MISSING"
            lines += [f"try: {v} = {var}[{name!r}]", f"except KeyError: {v} = {absent}",
                      *spec.emit_check(g, v, where, f"{depth} + 1")]
        lines.append(f"if len({var}) != {len(known)}: "
                     f"_extras({var}, {g.const(frozenset(known), 'known')}, {path}, {depth})")
        return lines

    @property
    def small(self) -> bool:
        """Few scalar fields: checked inline where it is used, saving a call."""
        return len(self.fields) <= 4 and all(s.max_depth() <= 1 for s in self.fields.values())

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        head = f"if type({var}) is not dict: " + self.fail(g, var, path)
        if self.small:
            return [head, *self.emit_fields(g, var, path, depth)]
        return [head, f"{g.const(self, 'payload')}.check({var}, {path}, {depth})"]

    def describe(self) -> str:
        return self.name

    def max_depth(self) -> int:
        return 1 + max((s.max_depth() for s in self.fields.values()), default=0)


class UnionT(Spec):
    """A payload map whose "kind" field picks its variant.

    ``open``: an unknown kind is accepted (checked against the frame rules only), so
    that a newer server may send kinds an older client skips; otherwise it is an error.
    """

    def __init__(self, name: str, variants: Iterable[PayloadT], *, open: bool) -> None:
        self.name = name
        self.variants = {v.kind: v for v in variants if v.kind is not None}
        self.open = open

    def __repr__(self) -> str:
        return f"UnionT({self.name!r})"

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        # An if-chain on the kind with each variant's checks inline: no call per map.
        k = g.temp("k")
        kinds = ", ".join(self.variants)
        lines = [f"if type({var}) is not dict: " + self.fail(g, var, path),
                 f"try: {k} = {var}['kind']",  # a subscript is faster than get()
                 f"except KeyError: {k} = None"]
        # The small variants (the frequent draw, discard...) are tested first.
        order = sorted(self.variants.items(), key=lambda kv: not kv[1].small)
        for i, (kind, variant) in enumerate(order):
            lines.append(f"{'if' if i == 0 else 'elif'} {k} == {kind!r}:")
            if variant.small:
                lines += _indent(variant.emit_fields(g, var, path, depth))
            else:
                lines.append(f"    {g.const(variant, 'payload')}.check({var}, {path}, {depth})")
        lines.append(f"elif type({k}) is not str: _fail('bad_message', {path} + '.kind', "
                     f"'a kind', {k} if {k} is not None else MISSING)")
        if self.open:
            lines.append(f"else: {g.const(check_value, 'walk')}({var}, {depth})")
        else:
            lines.append(f"else: _fail('bad_message', {path} + '.kind', "
                         f"{'one of ' + kinds!r}, {k})")
        return lines

    def describe(self) -> str:
        return self.name

    def max_depth(self) -> int:
        return max(v.max_depth() for v in self.variants.values())


# ------------------------------------------------------------------ message records


@dataclasses.dataclass(frozen=True)
class RecordT(Spec):
    """A message record (a read-only dataclass of :mod:`.messages`) nested in a field."""

    cls: type[Any]
    converts: ClassVar[bool] = True

    def emit_check(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        return [f"if type({var}) is not {g.const(self.cls, 'rec')}: " + self.fail(g, var, path)]

    def emit_convert(self, g: _Gen, var: str, path: str, depth: str) -> list[str]:
        cls = g.const(self.cls, "rec")
        return [f"if type({var}) is dict: {var} = {cls}._from_wire({var}, {path}, {depth})"]

    def describe(self) -> str:
        return str(self.cls.__name__)

    def max_depth(self) -> int:
        return 1 + max((field_spec(f).max_depth() for f in dataclasses.fields(self.cls)),
                       default=0)


@dataclasses.dataclass(frozen=True)
class FieldInfo:
    """A message field's spec and the sentence that documents it."""

    spec: Spec
    doc: str


def spec(of: Spec, doc: str, **kwargs: Any) -> Any:
    """Declare a message record field: its spec, its documentation, an optional default."""
    return dataclasses.field(metadata={"info": FieldInfo(of, doc)}, **kwargs)


def field_spec(f: dataclasses.Field[Any]) -> Spec:
    info: FieldInfo = f.metadata["info"]
    return info.spec


def field_info(cls: type[Any]) -> list[tuple[str, FieldInfo, bool]]:
    """(name, info, required) of every field of a message record class, in order.

    A field whose default is None is optional on the wire; every other one is required.
    """
    return [(f.name, f.metadata["info"], f.default is not None) for f in dataclasses.fields(cls)]


def compile_record(cls: type[Any], label: str, head: Mapping[str, str] | None = None) -> None:
    """Give a record dataclass its compiled ``__post_init__``, ``_from_wire`` and ``to_wire``.

    ``label`` prefixes the paths of its errors (the message type, or the record name);
    ``head`` holds constant leading wire fields (``{"type": "hello"}``).
    """
    fields = field_info(cls)
    head = dict(head or {})
    g = _Gen()
    g.names["CLS"] = cls
    # __post_init__: check every field (the dataclass __init__ calls it).
    body: list[str] = []
    for name, info, required in fields:
        path = repr(f"{label}.{name}")
        # A field of a message is at depth 2. Records nested deeper hold no payloads,
        # the only specs that use the depth (to check unknown fields), so 2 is safe there.
        check = info.spec.emit_check(g, "v", path, "2")
        if not required:
            check = ["if v is not None:", *_indent(check)]
        body += [f"v = self.{name}", *check, f"if v is not self.{name}: self.{name} = v"]
    post = ["def __post_init__(self):", *_indent(body or ["pass"])]
    # _from_wire: read, convert nested records, check, then build without __init__.
    known = frozenset([*head, *(name for name, _, _ in fields)])
    body = [f"n = {len(head) + sum(required for _, _, required in fields)}"]
    for name, info, required in fields:
        path = repr(f"{label}.{name}")
        v = f"v_{name}"
        if not required or isinstance(info.spec, OptT):  # absent means nil
            body += [f"{v} = d.get({name!r})", f"if {v} is not None: n += 1",
                     f"elif {name!r} in d: n += 1"]
        else:  # a subscript is faster than get(); try costs nothing when no key is missing
            body += [f"try: {v} = d[{name!r}]", f"except KeyError: {v} = MISSING"]
        if required and info.spec.converts:  # the conversion must not see MISSING
            body.append(f"if {v} is MISSING: _fail('bad_message', {path}, "
                        f"{info.spec.describe()!r}, MISSING)")
        body += info.spec.emit_convert(g, v, path, "depth + 1")
        check = info.spec.emit_check(g, v, path, "depth + 1")
        body += check if required and not isinstance(info.spec, OptT) else [
            f"if {v} is not None:", *_indent(check)]
    body += [f"if len(d) != n: _extras(d, {g.const(known, 'known')}, path, depth)",
             "o = _new(CLS)",
             *(f"o.{name} = v_{name}" for name, _, _ in fields),
             "return o"]
    g.names["_new"] = object.__new__
    from_wire = ["def _from_wire(d, path, depth):",
                 *_indent(["try:", *_indent(body),
                           "except SchemaError as e:",
                           "    raise (e if path == " + repr(label)
                           + " else SchemaError(e.code, path + e.path[" + str(len(label))
                           + ":], e.detail)) from None"])]
    # to_wire: the map to pack (records inside become maps; nil optionals are left out).
    items = [f"{k!r}: {v!r}" for k, v in head.items()]
    optional: list[str] = []
    for name, info, required in fields:
        value = _wire_expr(g, info.spec, f"self.{name}")
        if required:
            items.append(f"{name!r}: {value}")
        else:
            optional.append(f"if self.{name} is not None: d[{name!r}] = {value}")
    to_wire = ["def to_wire(self):", f"    d = {{{', '.join(items)}}}",
               *_indent(optional), "    return d"]
    source = "\n".join([*post, *from_wire, *to_wire])
    g.define(source, label)
    cls.__post_init__ = g.names["__post_init__"]
    cls._from_wire = staticmethod(cast(Callable[..., Any], g.names["_from_wire"]))
    cls.to_wire = g.names["to_wire"]


def _wire_expr(g: _Gen, of: Spec, expr: str) -> str:
    """An expression giving the wire form of ``expr`` (records become maps)."""
    if isinstance(of, RecordT):
        return f"{expr}.to_wire()"
    if isinstance(of, OptT) and isinstance(of.inner, RecordT):
        return f"(None if {expr} is None else {expr}.to_wire())"
    if isinstance(of, ArrayT) and isinstance(of.item, RecordT):
        return f"tuple(x.to_wire() for x in {expr})"
    return expr
