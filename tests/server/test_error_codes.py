"""The error-code table of docs/protocol.md is exactly the set of codes the server sends.

Both sides are extracted: the document's table, and from the source of the server, of the
protocol layer it runs and of the rules engine whose refusals it forwards, every code a
refusal is built with. A code added to the server without its row, or a row no code
path can send, fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rummyhall import rules
from rummyhall.protocol import ERROR_CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")

# Calls whose first argument is the code of the refusal they build.
REFUSERS = {"fatal", "TableError", "SchemaError", "_refuse", "_fail", "AdminError", "BanError"}
# A marker, not a message: a session that overflows is closed without its error.
NOT_SENT = {"slow_consumer"}


def _constants(node: ast.AST) -> set[str]:
    """The strings an expression can evaluate to (both arms of ``a if test else b``)."""
    if isinstance(node, ast.IfExp):
        return _constants(node.body) | _constants(node.orelse)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    return set()


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""


def codes_built_in(folder: str) -> set[str]:
    """The codes refusals are built with in the modules of ``folder``."""
    found: set[str] = set()
    for path in sorted((ROOT / folder).glob("*.py")):
        if path.name == "examples.py":  # the document's examples, not a code path
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                if _call_name(node) in REFUSERS and node.args:
                    found |= _constants(node.args[0])
                for kw in node.keywords:
                    if kw.arg == "code":
                        found |= _constants(kw.value)
            elif isinstance(node, ast.FunctionDef | ast.ClassDef):
                # a default code (``code: str = "bad_message"``)
                for arg, default in _defaults(node):
                    if arg == "code":
                        found |= _constants(default)
        # the schema compiles its checks from source text: "_fail('bad_card' ..."
        found |= set(re.findall(r"_fail\(\s*'(\w+)'", source))
    return {c for c in found if re.fullmatch(r"[a-z]+(_[a-z]+)*", c)}


def _defaults(node: ast.FunctionDef | ast.ClassDef) -> list[tuple[str, ast.AST]]:
    if isinstance(node, ast.FunctionDef):
        args = node.args.args
        return list(zip([a.arg for a in args[len(args) - len(node.args.defaults):]],
                        node.args.defaults, strict=True))
    return [(s.target.id, s.value) for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            and s.value is not None]


def rules_codes_raised() -> set[str]:
    """The codes of the rules errors the engine raises, but in shuffles (the server's own)."""
    found: set[str] = set()
    for path in sorted((ROOT / "rules").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef) or "shuffle" in func.name:
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                        isinstance(node.exc.func, ast.Name):
                    cls = getattr(rules, node.exc.func.id, None)
                    if isinstance(cls, type) and issubclass(cls, rules.RulesError):
                        found.add(cls.code)
    return found


def server_codes() -> set[str]:
    built = codes_built_in("server") | codes_built_in("protocol") | rules_codes_raised()
    return built - NOT_SENT


def _known_words() -> set[str]:
    """Every string that names a code somewhere (to drop unrelated constants)."""
    names = set(ERROR_CODES) | set(re.findall(r"`(\w+)`", DOC)) | NOT_SENT
    names |= {cls.code for cls in _subclasses(rules.RulesError)}
    return names


def _subclasses(cls: type[rules.RulesError]) -> list[type[rules.RulesError]]:
    out = [cls]
    sub: type[rules.RulesError]
    for sub in cls.__subclasses__():
        out += _subclasses(sub)
    return out


def doc_codes() -> set[str]:
    start = DOC.index("<!-- gen:errors -->")
    table = DOC[start:DOC.index("<!-- /gen -->", start)]
    return set(re.findall(r"^\| `(\w+)` \| (?:yes|no) \|", table, re.M))


def test_the_doc_table_is_exactly_what_the_server_can_send() -> None:
    sent, documented = server_codes(), doc_codes()
    assert sent - documented == set(), "sent but not in docs/protocol.md's table"
    assert documented - sent == set(), "in the table but no code path sends it"
    assert documented == set(ERROR_CODES)


def test_the_extraction_sees_codes_of_every_origin() -> None:
    sent = server_codes()
    # one of each: framing, handshake, the lobby, a table, the rules, the schema
    assert {"bad_frame", "unsupported_version", "no_such_table", "stale_action",
            "invalid_meld", "bad_card", "bad_option", "not_your_seat"} <= sent
    assert not {"bad_shuffle", "rules_error", "illegal_action", "slow_consumer"} & sent
