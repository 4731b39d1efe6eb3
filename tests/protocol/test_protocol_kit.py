"""The conformance kit and the docs are generated, up to date, and true."""

from __future__ import annotations

import json
import re
from importlib import resources

import gen_docs
import msgpack
import pytest

from rummyhall.protocol import (
    CLIENT,
    ERROR_CODES,
    LOGIN_LABEL,
    MESSAGES,
    SERVER,
    AdminLogin,
    Connection,
    Hello,
    Login,
    Message,
    RemoteProtocolError,
    Welcome,
    admin_proof,
    check_proof,
    derive,
    json_value,
    table_label,
)
from rummyhall.protocol.examples import ADMIN_CREDENTIAL, locked_pair, ready_pair
from rummyhall.rules import ThreeThirteen, meld_rules_for, new_game

KIT = json.loads(resources.files("rummyhall.protocol").joinpath("conformance.json")
                 .read_text(encoding="utf-8"))
DOC = gen_docs.DOC.read_text(encoding="utf-8")


def test_doc_and_kit_are_up_to_date() -> None:
    assert gen_docs.main(["--check"]) == 0


def test_every_message_type_is_documented_and_the_reverse() -> None:
    assert gen_docs.message_types_in(DOC) == set(MESSAGES)
    headings = set(re.findall(r"^#### `(\w+)`$", DOC, re.M))
    assert set(MESSAGES) <= headings


def test_every_error_code_is_in_the_doc_table() -> None:
    table = set(re.findall(r"^\| `(\w+)` \| (?:yes|no) \|", DOC, re.M))
    assert table == set(ERROR_CODES)


def test_every_hex_example_decodes_to_its_json() -> None:
    pairs = re.findall(r"```hex\n(.*?)```\s*```json\n(.*?)```", DOC, re.S)
    assert len(pairs) >= len(MESSAGES)
    for hex_text, json_text in pairs:
        data = bytes.fromhex(hex_text.replace("\n", " "))
        assert int.from_bytes(data[:4], "big") == len(data) - 4
        assert msgpack.unpackb(data[4:], use_list=True) == json.loads(json_text)


def _to(conn: Connection, data: bytes) -> Message:
    conn.receive_data(data)
    event = conn.next_event()
    assert isinstance(event, Message), event
    return event


@pytest.mark.parametrize("frame", KIT["valid"], ids=lambda f: f["message"]["type"])
def test_valid_frames_decode_and_encode_back(frame: dict[str, object]) -> None:
    data = bytes.fromhex(str(frame["hex"]))
    message = frame["message"]
    assert isinstance(message, dict)
    client, server = ready_pair()
    if message["type"] == "hello":
        server = Connection(SERVER)
    elif message["type"] == "welcome":
        client = Connection(CLIENT)
        client.send(Hello(versions=(1,), name="ada", kind="person"))
    elif message["type"] == "login":
        client, server = locked_pair()
    elif message["type"] == "logged_in":
        client, server = locked_pair()
        server.receive_data(client.send(Login(proof="0" * 64)))
        server.next_event()
    got = _to(server if frame["from"] == "client" else client, data)
    wire = got.to_wire()
    assert json_value(wire) == frame["message"]
    assert len(msgpack.packb(wire)).to_bytes(4, "big") + msgpack.packb(wire) == data


@pytest.mark.parametrize("name", ["password_login", "private_table"])
def test_the_password_and_private_table_transcripts(name: str) -> None:
    """Each frame decodes to its message and encodes back; each proof in them checks out
    against the secret, salt and nonce given, and a replayed one does not."""
    part = KIT[name]
    keys = derive(part["password"], bytes.fromhex(part["salt"]), part["iterations"])
    for frame in part["frames"]:
        kind = frame["message"]["type"]
        cls = MESSAGES[kind]
        got = cls.from_wire(msgpack.unpackb(bytes.fromhex(frame["hex"])[4:]))
        assert json_value(got.to_wire()) == frame["message"]
        proof = frame["message"].get("proof")
        if proof is not None:
            nonce = part["nonces"][frame["connection"]]
            label = LOGIN_LABEL if kind == "login" else table_label(frame["message"]["table"])
            right = check_proof(keys.stored_key, proof, label, nonce)
            assert right is (frame["connection"] != "eve"), frame  # eve replays ada's
    if name == "private_table":
        create = part["frames"][0]["message"]
        assert create["lock"]["stored_key"] == keys.stored_key.hex()


def test_the_transcript_replays_through_connections() -> None:
    pairs = {name: (Connection(CLIENT), Connection(SERVER)) for name in ("ada", "bob")}
    for frame in KIT["transcript"]:
        client, server = pairs[frame["connection"]]
        sender, receiver = (client, server) if frame["from"] == "client" else (server, client)
        data = bytes.fromhex(frame["hex"])
        got = _to(receiver, data)
        assert isinstance(got, Message)
        assert json_value(got.to_wire()) == frame["message"]
        assert sender.send(got) == data  # the sending end agrees, byte for byte
    assert all(c.state.name == "READY" for pair in pairs.values() for c in pair)


def test_the_admin_transcript_replays_and_its_proof_is_the_hmac_of_its_nonce() -> None:
    pairs = {name: (Connection(CLIENT), Connection(SERVER)) for name in ("bob", "host")}
    nonces: dict[str, str] = {}
    for frame in KIT["admin_transcript"]:
        client, server = pairs[frame["connection"]]
        sender, receiver = (client, server) if frame["from"] == "client" else (server, client)
        data = bytes.fromhex(frame["hex"])
        got = _to(receiver, data)
        assert isinstance(got, Message)
        assert sender.send(got) == data
        if isinstance(got, Welcome):
            assert got.nonce is not None and "admin" in got.features
            nonces[frame["connection"]] = got.nonce
        if isinstance(got, AdminLogin):
            assert got.proof == admin_proof(ADMIN_CREDENTIAL, nonces["host"])
            assert got.proof != admin_proof(ADMIN_CREDENTIAL, nonces["bob"])
    assert ADMIN_CREDENTIAL in KIT["about"]
    assert pairs["host"][0].state.name == "READY"
    assert pairs["bob"][0].state.name == "CLOSED"  # kicked: a fatal error


@pytest.mark.parametrize("case", KIT["invalid"], ids=lambda c: c["name"])
def test_invalid_frames_are_refused_with_their_code(case: dict[str, object]) -> None:
    if case["state"] == "READY":
        client, server = ready_pair()
    else:
        client, server = Connection(CLIENT), Connection(SERVER)
    receiver = server if case["to"] == "server" else client
    receiver.receive_data(bytes.fromhex(str(case["hex"])))
    receiver.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as info:
        receiver.next_event()
    assert (info.value.code, info.value.fatal) == (case["code"], case["fatal"])


def test_the_game_by_game_section_states_what_the_engine_does() -> None:
    """docs/protocol.md's per-game facts (decks, wild ranks, set sizes) are the engine's."""
    section = DOC.split("### Game by game: what a client must know", 1)[1].split("\n### ", 1)[0]
    decks = {n: g.decks() for n in range(2, 9)
             if isinstance(g := new_game("three_thirteen", players=n), ThreeThirteen)}
    assert decks == {2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}
    assert "1 deck for 2 seats, 2 for 3 or 4, 3 for 5 or 6, 4 for 7 or 8" in section
    assert [meld_rules_for("three_thirteen", round=r).wild_rank for r in (1, 2, 9, 10, 11)] \
        == [3, 4, 11, 12, 13]
    assert "threes in round 1, fours in round 2, ..., jacks (11) in round 9" in section
    assert meld_rules_for("chicago").wild_rank == 2 and "**Every 2 is wild**" in section
    assert len(new_game("chicago", players=8).deck()) == 104 and "**two decks**" in section
    assert meld_rules_for("chicago").max_set_size == 0 and \
        meld_rules_for("three_thirteen").max_set_size == 0
    assert section.count("**no size limit**") == 2
    assert meld_rules_for("basic").max_set_size == meld_rules_for("gin").max_set_size == 4
    assert "Sets hold at most 4 cards" in section and "sets of at most 4" in section
