"""Hostile input: each case gets its precise, documented error and nothing else."""

from __future__ import annotations

import pytest
from gen_docs import _hostile, hostile_cases

from rummyhall.protocol import ERROR_CODES

EXPECTED = {
    "length prefix of 4 GiB - 1": ("frame_too_large", True),
    "length prefix above max_frame": ("frame_too_large", True),
    "not msgpack": ("bad_frame", True),
    "empty body": ("bad_frame", True),
    "trailing bytes": ("bad_frame", True),
    "msgpack that is not a map": ("bad_message", False),
    "no type": ("bad_message", False),
    "type is not a string": ("bad_message", False),
    "unknown type": ("unknown_type", False),
    "missing field": ("bad_message", False),
    "wrong field type": ("bad_message", False),
    "bad card": ("bad_card", False),
    "unknown action kind": ("bad_message", False),
    "non-string key": ("bad_frame", True),
    "invalid UTF-8": ("bad_frame", True),
    "a float": ("bad_frame", True),
    "a bin value": ("bad_frame", True),
    "an ext value": ("bad_frame", True),
    "nesting deeper than 16": ("bad_frame", True),
    "array longer than 4096": ("bad_frame", True),
    "a map key of 65 characters": ("bad_frame", True),
    "a map key of 65 characters in an action": ("bad_frame", True),
    "an integer above 2^63 - 1": ("bad_frame", True),
    "a move above 2^63 - 1": ("bad_frame", True),
    "an id above 2^53 - 1": ("bad_message", False),
    "a string id of 65 characters": ("bad_message", False),
    "a table number above 2^31 - 1": ("bad_message", False),
    "a knock meld with a bad card": ("bad_card", False),
    "a server message sent by a client": ("unexpected_message", False),
    "a second hello": ("unexpected_message", False),
    "first frame not a hello": ("handshake_required", True),
    "another protocol": ("unsupported_protocol", True),
    "no common version": ("unsupported_version", True),
    "bad name": ("bad_name", True),
    "truncated frame at end of stream": ("bad_frame", True),
    "a client message sent by the server": ("unexpected_message", False),
    "an event with a bad card": ("bad_card", False),
}


def test_every_hostile_case_is_listed() -> None:
    assert [name for name, *_ in _hostile()] == list(EXPECTED)


@pytest.mark.parametrize("case", hostile_cases(), ids=lambda c: c["name"])
def test_hostile_input_gets_its_code(case: dict[str, object]) -> None:
    assert (case["code"], case["fatal"]) == EXPECTED[str(case["name"])]
    assert case["code"] in ERROR_CODES

