"""The conformance kit's worked examples of the verifiable shuffle, recomputed twice: by
a from-the-document implementation that uses only hashlib and hmac (as a client in
another language would), and by the rules engine's."""

from __future__ import annotations

import hashlib
import hmac
import json
from importlib import resources
from typing import Any

import pytest

from rummyhall.rules import Card
from rummyhall.rules.fair_deal import deal_order

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))
SUITS, RANKS = "cdhs", "?A23456789TJQK"


def code(text: str) -> int:
    """A card's code from its text, as docs/protocol.md section 7 defines it."""
    body, _, copy = text.partition("#")
    n = int(copy or 0)
    if body == "JK":
        return n * 64
    return n * 64 + SUITS.index(body[1]) * 16 + RANKS.index(body[0])


def documented_order(case: dict[str, Any]) -> tuple[bytes, bytes, list[str]]:
    secret = bytes.fromhex(case["secret"])
    message = b"rummyhall deal v1" + b"".join(
        bytes([int(seat)]) + bytes.fromhex(value)
        for seat, value in sorted(case["contributions"].items(), key=lambda kv: int(kv[0])))
    key = hmac.new(secret, message, hashlib.sha256).digest()

    def numbers() -> Any:
        j = 0
        while True:
            block = hmac.new(key, j.to_bytes(8, "big"), hashlib.sha256).digest()
            for k in range(0, 32, 4):
                yield int.from_bytes(block[k:k + 4], "big")
            j += 1

    cards = sorted(case["cards"], key=code)
    stream = numbers()
    for i in range(len(cards) - 1, 0, -1):
        bound = 2**32 - 2**32 % (i + 1)
        x = next(stream)
        while x >= bound:
            x = next(stream)
        j = x % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return message, key, cards


@pytest.mark.parametrize("case", KIT["deals"], ids=lambda c: c["about"][:40])
def test_each_worked_example_recomputes_byte_for_byte(case: dict[str, Any]) -> None:
    message, key, order = documented_order(case)
    assert message.hex() == case["key_message"]
    assert key.hex() == case["key"]
    assert hmac.new(key, bytes(8), hashlib.sha256).hexdigest() == case["block_0"]
    assert order == case["order"]
    assert hashlib.sha256(bytes.fromhex(case["secret"])).hexdigest() == case["commitment"]
    for seat, value in case["contributions"].items():
        assert hashlib.sha256(bytes.fromhex(value)).hexdigest() == case["commitments"][seat]
    assert case["cards"] == sorted(case["cards"], key=code)  # given in canonical order
    engine = deal_order(bytes.fromhex(case["secret"]),
                        {int(s): bytes.fromhex(v) for s, v in case["contributions"].items()},
                        [Card.parse(c) for c in case["cards"]])
    assert [str(c) for c in engine] == case["order"]


def test_the_examples_cover_jokers_copies_and_several_contributions() -> None:
    cards = {c for case in KIT["deals"] for c in case["cards"]}
    assert {"JK", "JK#1", "JK#3", "Ks#1", "5d#1"} <= cards
    assert any(len(case["contributions"]) >= 2 for case in KIT["deals"])
    assert any(not case["contributions"] for case in KIT["deals"])


def test_the_transcripts_deal_is_the_kits_first_example() -> None:
    deal = next(f["message"] for f in KIT["transcript"] if f["message"]["type"] == "event"
                and f["message"]["event"]["kind"] == "deal" and f["connection"] == "ada")
    order = KIT["deals"][0]["order"]
    assert deal["event"]["hands"][0] == order[1:20:2]  # ada deals: bob gets the first card
    assert deal["event"]["upcard"] == order[20]
