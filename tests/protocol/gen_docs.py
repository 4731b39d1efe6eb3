"""Generate the parts of docs/protocol.md that come from the code, and the conformance kit.

docs/protocol.md holds blocks between ``<!-- gen:WHAT -->`` and ``<!-- /gen -->``; this
script rewrites each block from the message catalogue, the error codes, the transition
table and the examples of :mod:`rummyhall.protocol.examples`, and writes
protocol/conformance.json. Run it after changing a message:

    python tests/protocol/gen_docs.py          # rewrite
    python tests/protocol/gen_docs.py --check  # exit 1 if anything is out of date

tests/protocol/test_docs.py runs the check.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Final

import msgpack

from rummyhall.protocol import (
    CLIENT,
    ERROR_CODES,
    MESSAGES,
    SERVER,
    TRANSITIONS,
    Connection,
    RemoteProtocolError,
    examples,
    json_value,
)
from rummyhall.protocol.messages import RECORDS
from rummyhall.protocol.payloads import ACTION_SPECS, EVENT_SPECS, REVEAL_SPEC, VIEW_SPEC
from rummyhall.protocol.schema import OptT, PayloadT, field_info
from rummyhall.rules import CALLS, DRAW_SOURCES, OUTCOMES, PHASE_MEANINGS, REVEAL_STATES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
KIT = ROOT / "protocol" / "conformance.json"
BLOCK = re.compile(r"(<!-- gen:(?P<what>[^>]+?) -->\n)(?P<body>.*?)(<!-- /gen -->)", re.S)


def frame_bytes(wire: dict[str, Any]) -> bytes:
    body: bytes = msgpack.packb(wire)
    return len(body).to_bytes(4, "big") + body


def hex_text(data: bytes) -> str:
    """Hex in groups of 16 bytes per line, the 4-byte length prefix on its own."""
    head, body = data[:4].hex(" "), data[4:]
    lines = [head] + [body[i:i + 16].hex(" ") for i in range(0, len(body), 16)]
    return "\n".join(lines)


def json_text(value: Any) -> str:
    text = json.dumps(json_value(value), ensure_ascii=False)
    if len(text) <= 96:
        return text
    pretty = json.dumps(json_value(value), ensure_ascii=False, indent=2)
    # Arrays of scalars on one line.
    return re.sub(r"\[\s+([^\[\]{}]*?)\s+\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", pretty)


def md(text: str) -> str:
    return text.replace("|", "\\|")


def field_table(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    out += [f"| `{n}` | {md(t)} | {r} | {md(d)} |" for n, t, r, d in rows]
    return "\n".join(out)


def record_rows(cls: type[Any]) -> list[tuple[str, str, str, str]]:
    rows = []
    for name, info, required in field_info(cls):
        required = required and not isinstance(info.spec, OptT)  # absent means nil
        rows.append((name, info.spec.describe(), "yes" if required else "no", info.doc))
    return rows


def payload_table(spec: PayloadT) -> str:
    rows = [(n, s.describe(), "no" if isinstance(s, OptT) else "yes", spec.docs.get(n, ""))
            for n, s in spec.fields.items()]
    if spec.kind:
        rows.insert(0, ("kind", f'"{spec.kind}"', "yes", "what happened" if spec.name.endswith(
            "event") else "the action"))
    return field_table(rows)


def example(wire: dict[str, Any]) -> str:
    return f"```hex\n{hex_text(frame_bytes(wire))}\n```\n\n```json\n{json_text(wire)}\n```"


def message_block(kind: str) -> str:
    cls = MESSAGES[kind]
    rows = [("type", f'"{kind}"', "yes", "the message type"), *record_rows(cls)]
    parts = [f"Sent by the {cls.sender}." + (f" Reply: `{cls.reply}` (or `error`)."
                                             if cls.reply else ""),
             "", field_table(rows)]
    for message in examples.message_examples()[kind][:2]:
        parts += ["", example(message.to_wire())]
    return "\n".join(parts)


def errors_block() -> str:
    out = ["| code | fatal | meaning |", "| --- | --- | --- |"]
    out += [f"| `{e.code}` | {'yes' if e.fatal else 'no'} | {md(e.meaning)} |"
            for e in ERROR_CODES.values()]
    return "\n".join(out)


def transitions_block() -> str:
    out = ["| state | sender | message | next state |", "| --- | --- | --- | --- |"]
    for (state, sender, kind), nxt in TRANSITIONS.items():
        shown = "`error` with `fatal: true`" if kind == "error!" else f"`{kind}`"
        out.append(f"| {state} | {sender} | {shown} | {nxt} |")
    return "\n".join(out)


def events_block() -> str:
    found = examples.event_examples()
    parts = []
    for kind, spec in EVENT_SPECS.items():
        parts += [f"#### `{kind}`", "", payload_table(spec), "", "```json",
                  json_text(found[kind]), "```", ""]
    parts += ["#### Reveal (inside `showdown`)", "", payload_table(REVEAL_SPEC)]
    return "\n".join(parts)


ENUMS: Final = (
    ("`phase` (SeatView)", {str(k): v for k, v in PHASE_MEANINGS.items()}),
    ("`source` (`draw` event)", DRAW_SOURCES),
    ("`call` (`knock` event)", CALLS),
    ("`outcome` (`hand_scored` event, HandResult)", OUTCOMES),
    ("`state` (Reveal)", REVEAL_STATES),
)


def enums_block() -> str:
    out = ["| field | value | meaning |", "| --- | --- | --- |"]
    for field, values in ENUMS:
        out += [f"| {field} | `{value}` | {md(meaning)} |" for value, meaning in values.items()]
    return "\n".join(out)


def actions_block() -> str:
    found = examples.action_examples()
    out = ["| kind | fields | example |", "| --- | --- | --- |"]
    for kind, spec in ACTION_SPECS.items():
        fields = ", ".join(f"`{n}`: {md(s.describe())} ({md(spec.docs.get(n, ''))})"
                           for n, s in spec.fields.items()) or "none"
        out.append(f"| `{kind}` | {fields} | `{json.dumps(json_value(found[kind]))}` |")
    return "\n".join(out)


def transcript_block(frames: list[examples.Frame] | None = None) -> str:
    lines = []
    for frame in examples.gin_transcript() if frames is None else frames:
        who = f"{frame.client} → server" if frame.sender is CLIENT else f"server → {frame.client}"
        lines.append(f"{who:14s} {json.dumps(json_value(frame.message.to_wire()))}")
    return "```text\n" + "\n".join(lines) + "\n```"


def admin_transcript_block() -> str:
    return transcript_block(examples.admin_transcript())


def generate(what: str) -> str:
    kind, _, arg = what.partition(" ")
    if kind == "message":
        return message_block(arg)
    if kind == "record":
        return field_table(record_rows(RECORDS[arg]))
    if kind == "view":
        return payload_table(VIEW_SPEC)
    return {"errors": errors_block, "transitions": transitions_block, "events": events_block,
            "enums": enums_block,
            "actions": actions_block, "transcript": transcript_block,
            "admin_transcript": admin_transcript_block}[kind]()


def render(doc: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + generate(m.group("what")) + "\n" + m.group(4), doc)


# ------------------------------------------------------------------ the conformance kit


def _hostile() -> list[tuple[str, str, str, bytes]]:
    """(name, receiving role, state, frame bytes) of frames each end must refuse."""
    def fr(body: bytes) -> bytes:
        return len(body).to_bytes(4, "big") + body

    def msg(d: dict[str, Any]) -> bytes:
        return fr(msgpack.packb(d))

    ping = {"type": "ping", "id": 1}
    deep: Any = None
    for _ in range(20):
        deep = [deep]
    return [
        ("length prefix of 4 GiB - 1", "server", "READY", b"\xff\xff\xff\xff"),
        ("length prefix above max_frame", "server", "READY", (65537).to_bytes(4, "big")),
        ("not msgpack", "server", "READY", fr(b"\xc1")),
        ("empty body", "server", "READY", fr(b"")),
        ("trailing bytes", "server", "READY", fr(msgpack.packb(ping) + b"\x00")),
        ("msgpack that is not a map", "server", "READY", msg([1, 2])),  # type: ignore[arg-type]
        ("no type", "server", "READY", msg({"id": 1})),
        ("type is not a string", "server", "READY", msg({"type": 5})),
        ("unknown type", "server", "READY", msg({"type": "teleport", "id": 3})),
        ("missing field", "server", "READY", msg({"type": "join", "id": 4})),
        ("wrong field type", "server", "READY", msg({"type": "join", "table": "1", "id": 5})),
        ("bad card", "server", "READY", msg({"type": "action", "table": 1, "move": 3, "id": 6,
                                             "action": {"kind": "discard", "card": "1x"}})),
        ("unknown action kind", "server", "READY",
         msg({"type": "action", "table": 1, "move": 3, "action": {"kind": "steal"}})),
        ("non-string key", "server", "READY", fr(b"\x82\xa4type\xa4ping\x01\x02")),
        ("invalid UTF-8", "server", "READY", fr(b"\x81\xa4type\xa4p\xffng")),
        ("a float", "server", "READY", msg({**ping, "x": 1.5})),
        ("a bin value", "server", "READY", msg({**ping, "x": b"\x00"})),
        ("an ext value", "server", "READY", msg({**ping, "x": msgpack.ExtType(1, b"ab")})),
        ("nesting deeper than 16", "server", "READY", msg({**ping, "x": deep})),
        ("array longer than 4096", "server", "READY", msg({**ping, "x": [0] * 4097})),
        ("a map key of 65 characters", "server", "READY", msg({**ping, "k" * 65: 0})),
        ("a map key of 65 characters in an action", "server", "READY",
         msg({"type": "action", "table": 1, "move": 3, "action": {"kind": "pass", "k" * 65: 0}})),
        ("an integer above 2^63 - 1", "server", "READY", msg({**ping, "x": 2**63})),
        ("a move above 2^63 - 1", "server", "READY",
         msg({"type": "action", "table": 1, "move": 2**63, "action": {"kind": "pass"}})),
        ("an id above 2^53 - 1", "server", "READY", msg({"type": "ping", "id": 2**53})),
        ("a string id of 65 characters", "server", "READY", msg({"type": "ping", "id": "i" * 65})),
        ("a table number above 2^31 - 1", "server", "READY",
         msg({"type": "watch", "table": 2**31, "id": 9})),
        ("a knock meld with a bad card", "server", "READY",
         msg({"type": "action", "table": 1, "move": 3, "id": 7,
              "action": {"kind": "knock", "card": "Kh", "melds": [["3c", "4c", "5x"]]}})),
        ("a server message sent by a client", "server", "READY", msg({"type": "pong"})),
        ("a second hello", "server", "READY",
         msg({"type": "hello", "protocol": "rummyhall", "versions": [1], "name": "x",
              "kind": "bot"})),
        ("first frame not a hello", "server", "START", msg(ping)),
        ("another protocol", "server", "START",
         msg({"type": "hello", "protocol": "http", "versions": [1], "name": "x",
              "kind": "bot"})),
        ("no common version", "server", "START",
         msg({"type": "hello", "protocol": "rummyhall", "versions": [7, 8], "name": "x",
              "kind": "bot"})),
        ("bad name", "server", "START",
         msg({"type": "hello", "protocol": "rummyhall", "versions": [1], "name": " x\n",
              "kind": "bot"})),
        ("truncated frame at end of stream", "server", "READY", b"\x00\x00\x00\x09\x81"),
        ("a client message sent by the server", "client", "READY", msg(ping)),
        ("an event with a bad card", "client", "READY",
         msg({"type": "event", "table": 1, "seq": 1,
              "event": {"kind": "discard", "seat": 0, "card": "ZZ"}})),
    ]


def hostile_cases() -> list[dict[str, Any]]:
    """The kit's refusals, each with the error our implementation gives."""
    cases = []
    for name, role, state, data in _hostile():
        if state == "READY":
            client, server = examples.ready_pair()
        else:
            client, server = Connection(CLIENT), Connection(SERVER)
        receiver = server if role == "server" else client
        receiver.receive_data(data)
        if name.startswith("truncated"):
            receiver.receive_data(b"")
        try:
            got = receiver.next_event()
        except RemoteProtocolError as exc:
            cases.append({"name": name, "to": role, "state": state, "hex": data.hex(),
                          "code": exc.code, "fatal": exc.fatal})
        else:
            raise AssertionError(f"{name}: accepted as {got!r}")
    return cases


def kit_frames(transcript: list[examples.Frame]) -> list[dict[str, Any]]:
    return [{"from": str(f.sender), "connection": f.client,
             "hex": frame_bytes(f.message.to_wire()).hex(),
             "message": json_value(f.message.to_wire())} for f in transcript]


def kit() -> dict[str, Any]:
    frames = kit_frames(examples.gin_transcript())
    admin = kit_frames(examples.admin_transcript())
    valid = [{"from": str(m.sender), "hex": frame_bytes(m.to_wire()).hex(),
              "message": json_value(m.to_wire())}
             for ms in examples.message_examples().values() for m in ms]
    return {
        "protocol": "rummyhall", "version": 1,
        "about": "Rummy Hall conformance kit: frames as hex (length prefix included) with "
                 "their decoded form. 'transcript': two clients (ada, bob) and one hand of "
                 "Gin, in order, per connection. 'valid': one or more frames of every "
                 "message type. 'invalid': frames the receiver ('to') must refuse in the "
                 "given state (after a normal handshake for READY), with the error code "
                 "and fatality. 'admin_transcript' (1.2): the host logs in with the "
                 "admin credential " + examples.ADMIN_CREDENTIAL + " and kicks bob. "
                 "'password_login' and 'private_table' (1.2): the proofs of sections 3.1 "
                 "and 6.1, with the secrets, salts, rounds and nonces they were made from. "
                 "'deals' (1.2): worked examples of the verifiable shuffle, every "
                 "intermediate value given. See docs/protocol.md, 'Conformance kit'.",
        "transcript": frames, "admin_transcript": admin, "valid": valid,
        "invalid": hostile_cases(), "deals": examples.deal_examples(),
        "password_login": {
            "password": examples.HALL_PASSWORD, "salt": examples.HALL_SALT,
            "iterations": examples.EXAMPLE_ITERATIONS, "nonces": examples.NONCES,
            "frames": kit_frames(examples.password_transcript())},
        "private_table": {
            "password": examples.TABLE_PASSWORD, "salt": examples.TABLE_SALT,
            "iterations": examples.EXAMPLE_ITERATIONS, "nonces": examples.NONCES,
            "frames": kit_frames(examples.private_table_transcript())},
    }


def kit_text() -> str:
    return json.dumps(kit(), ensure_ascii=False, indent=1) + "\n"


def message_types_in(doc: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"<!-- gen:message (\w+) -->", doc)}


def main(argv: list[str]) -> int:
    doc = DOC.read_text(encoding="utf-8")
    new_doc, new_kit = render(doc), kit_text()
    stale = []
    if new_doc != doc:
        stale.append(str(DOC))
    if not KIT.exists() or KIT.read_text(encoding="utf-8") != new_kit:
        stale.append(str(KIT))
    if "--check" in argv:
        for path in stale:
            print(f"out of date: {path} (run tests/protocol/gen_docs.py)")
        return 1 if stale else 0
    DOC.write_text(new_doc, encoding="utf-8")
    KIT.write_text(new_kit, encoding="utf-8")
    print("written:", ", ".join(stale) or "nothing changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
