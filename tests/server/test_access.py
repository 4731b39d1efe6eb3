"""The hall's doors without a socket: the proofs, the verifiers and the attempt limiter."""

from __future__ import annotations

import io
import itertools

import pytest

from rummyhall.cli import main as cli_main
from rummyhall.protocol import (
    LOGIN_LABEL,
    ClientKeys,
    ProofError,
    Verifier,
    derive,
    make_proof,
    table_label,
)
from rummyhall.protocol.proofs import check_proof
from rummyhall.server import ConfigError, Settings
from rummyhall.server.access import (
    CAPACITY,
    FIRST_DELAY,
    FREE_FAILURES,
    MAX_DELAY,
    AttemptLimiter,
    HallPassword,
    TableCode,
    invite_code,
    new_invite,
    new_nonce,
)

HALL_PASSWORD = "four random words here"
SALT = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_a_proof_is_bound_to_its_nonce_its_label_and_its_secret() -> None:
    keys = derive("open sesame", SALT, 10)
    nonce, other = new_nonce(), new_nonce()
    assert nonce != other and len(nonce) == 32
    proof = make_proof(keys, LOGIN_LABEL, nonce)
    assert check_proof(keys.stored_key, proof, LOGIN_LABEL, nonce)
    assert not check_proof(keys.stored_key, proof, LOGIN_LABEL, other)  # a replay
    assert not check_proof(keys.stored_key, proof, table_label(1), nonce)  # another door
    assert not check_proof(derive("open sesame!", SALT, 10).stored_key, proof, LOGIN_LABEL,
                           nonce)
    assert make_proof(keys, LOGIN_LABEL, other) != proof
    for junk in ("", "zz" * 32, "00" * 31, "00" * 33):
        assert not check_proof(keys.stored_key, junk, LOGIN_LABEL, nonce)


def test_the_servers_copy_is_not_a_proof() -> None:
    """What the server keeps (the stored key) sent as if it were the proof, or XORed the
    way a proof is made, does not log in: a proof needs the client key."""
    keys = derive("open sesame", SALT, 10)
    nonce = new_nonce()
    assert not check_proof(keys.stored_key, keys.stored_key.hex(), LOGIN_LABEL, nonce)
    fake = ClientKeys(client_key=keys.stored_key, stored_key=keys.stored_key)
    assert not check_proof(keys.stored_key, make_proof(fake, LOGIN_LABEL, nonce), LOGIN_LABEL,
                           nonce)


def test_unicode_passwords_are_normalised() -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert derive(composed, SALT, 5) == derive(decomposed, SALT, 5)


def test_verifier_text_round_trips_and_refuses_junk() -> None:
    v = Verifier.of("open sesame", SALT, 1000)
    assert Verifier.parse(v.text()) == v
    assert "open sesame" not in v.text() and "open sesame" not in repr(v)
    for bad in ("", "plain", "pbkdf2_sha256$x$00$00", "md5$1$" + SALT.hex() + "$" + "0" * 64,
                f"pbkdf2_sha256$0${SALT.hex()}${'0' * 64}",
                f"pbkdf2_sha256$3000000${SALT.hex()}${'0' * 64}",
                f"pbkdf2_sha256$10$00${'0' * 64}", f"pbkdf2_sha256$10${SALT.hex()}$00"):
        with pytest.raises(ProofError):
            Verifier.parse(bad)


def test_a_hostile_server_cannot_make_a_client_spin() -> None:
    with pytest.raises(ProofError):
        derive("x", SALT, 10_000_000)
    with pytest.raises(ProofError):
        derive("x", b"short", 10)


def test_hall_password_from_a_setting() -> None:
    assert HallPassword.from_setting("") is None
    v = Verifier.of("open sesame", SALT, 100)
    hall = HallPassword.from_setting(v.text())
    assert hall is not None and hall.verifier == v
    nonce = new_nonce()
    assert hall.check(make_proof(derive("open sesame", SALT, 100), LOGIN_LABEL, nonce), nonce)
    assert not hall.check(make_proof(derive("open sesam", SALT, 100), LOGIN_LABEL, nonce),
                          nonce)


def test_invite_codes() -> None:
    codes = {new_invite() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        groups = code.split("-")
        assert [len(g) for g in groups] == [4, 4, 4]
        assert not set(code) & set("01ilo")  # nothing to misread
    code, lock = invite_code(watch_code=False)
    assert lock.invite and not lock.watch_code
    nonce = new_nonce()
    keys = derive(code, lock.verifier.salt, lock.verifier.iterations)
    assert lock.check(3, make_proof(keys, table_label(3), nonce), nonce)
    assert not lock.check(4, make_proof(keys, table_label(3), nonce), nonce)
    again = TableCode.from_record(lock.to_record())
    assert again == lock and code not in str(lock.to_record())


# ------------------------------------------------------------------ the limiter


def test_the_first_wrong_guesses_are_free_then_the_wait_doubles_up_to_the_cap() -> None:
    limiter = AttemptLimiter()
    now = 0.0
    waits = []
    for _ in range(FREE_FAILURES + 10):
        assert limiter.wait("10.0.0.5", now) == 0.0  # each guess comes when allowed
        waits.append(limiter.failed("10.0.0.5", now))
        now += waits[-1]
    assert waits[:FREE_FAILURES] == [0.0] * FREE_FAILURES
    growing = waits[FREE_FAILURES:]
    assert growing[0] == FIRST_DELAY
    assert all(b == min(MAX_DELAY, 2 * a) for a, b in itertools.pairwise(growing))
    assert growing[-1] == MAX_DELAY


def test_a_guess_too_soon_is_told_how_long_to_wait_and_does_not_count() -> None:
    limiter = AttemptLimiter(free=0, first=1.0, cap=60.0)
    limiter.failed("a", 0.0)
    assert limiter.wait("a", 0.25) == 0.75
    assert limiter.wait("a", 0.5) == 0.5  # asking again changed nothing
    assert limiter.wait("a", 1.0) == 0.0
    assert limiter.failed("a", 1.0) == 2.0


@pytest.mark.parametrize("origin", [0.0, 1e6])  # (a server's clock reads its uptime)
def test_a_right_guess_or_a_quiet_spell_clears_the_record(origin: float) -> None:
    limiter = AttemptLimiter(free=0, first=1.0, cap=60.0, forget_after=900.0)
    for t in range(5):
        limiter.failed("a", origin + t * 100)
    limiter.succeeded("a")
    assert limiter.wait("a", origin + 400.0) == 0.0 and len(limiter) == 0
    limiter.failed("b", origin)
    limiter.failed("b", origin + 10.0)
    assert limiter.wait("b", origin + 11.0) > 0
    assert limiter.wait("b", origin + 909.0) == 0.0  # (its wait over, its record kept)
    assert limiter.failures("b") == 2
    assert limiter.wait("b", origin + 910.0) == 0.0
    assert limiter.failed("b", origin + 910.0) == 1.0  # starts afresh


def test_addresses_are_independent() -> None:
    limiter = AttemptLimiter(free=0)
    for t in range(8):
        limiter.failed("attacker", float(t))
    assert limiter.wait("attacker", 8.0) > 0
    assert limiter.wait("bystander", 8.0) == 0.0


def test_memory_stays_bounded_whatever_the_number_of_addresses() -> None:
    limiter = AttemptLimiter()
    for n in range(5 * CAPACITY):
        limiter.failed(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}", float(n) / 1000)
        assert len(limiter) <= CAPACITY
    assert len(limiter) == CAPACITY
    # the newest are kept (the least recently seen went first)
    assert limiter.wait(f"10.0.{(5 * CAPACITY - 1) >> 8 & 255}.{(5 * CAPACITY - 1) & 255}",
                        5 * CAPACITY / 1000) >= 0.0
    assert "10.0.0.0" not in limiter._records


def test_a_busy_attacker_keeps_its_record_while_others_come_and_go() -> None:
    """An address that keeps guessing is the most recently seen: a flood of other
    addresses pushes out the quiet ones first."""
    limiter = AttemptLimiter(free=0, capacity=100)
    now = 0.0
    for n in range(1000):
        now += 0.001
        limiter.failed(f"flood {n}", now)
        if n % 50 == 0:
            limiter.failed("attacker", now)
    assert "attacker" in limiter._records


def test_an_address_cannot_drop_its_own_record_by_guessing_elsewhere() -> None:
    """Records in groups (a table code's: per address and table, its group the address):
    an address that guesses at more tables than a group holds waits, at a table it has
    no record of, until its oldest record is forgotten, and its record of the table it
    waits at stays. (Before, 4,216 tables of its own dropped that record, the least
    recently seen, and its waits with it: three guesses free again.)"""
    limiter = AttemptLimiter(per_group=4, capacity=8, forget_after=900.0)
    for t in range(FREE_FAILURES + 1):
        limiter.failed("eve 1", float(t), group="eve")
    assert limiter.wait("eve 1", 3.5, group="eve") == 0.5
    for table in range(2, 5):  # its group full: four tables on record
        assert limiter.wait(f"eve {table}", 5.0, group="eve") == 0.0
        limiter.failed(f"eve {table}", 5.0, group="eve")
    assert limiter.wait("eve 5", 6.0, group="eve") == 3.0 + 900.0 - 6.0  # table 1's last
    assert limiter.wait("ada 5", 6.0, group="ada") == 0.0  # another address: its own
    assert limiter.wait("eve 1", 6.0, group="eve") == 0.0  # (its own tables wait as ever)
    limiter.succeeded("eve 2")  # a right code: that record goes, and makes room
    assert limiter.wait("eve 5", 6.0, group="eve") == 0.0
    assert limiter.failures("eve 1") == FREE_FAILURES + 1
    assert limiter.wait("eve 6", 5.0 + 900.0, group="eve") == 0.0  # all forgotten by then
    assert limiter.failures("eve 1") == 0 and len(limiter) == 0


def test_a_full_limiter_makes_room_by_the_least_recently_seen_of_every_group() -> None:
    """Other addresses filling the limiter push out the records seen least lately, of
    any group; an address guessing at its table keeps that record, and each group's
    count of records follows what is dropped."""
    limiter = AttemptLimiter(per_group=2, capacity=4)
    limiter.failed("eve 1", 0.0, group="eve")
    limiter.failed("eve 2", 0.0, group="eve")
    for n in range(10):
        limiter.failed(f"10.0.0.{n} 9", 1.0 + n, group=f"10.0.0.{n}")
        limiter.failed("eve 1", 1.0 + n, group="eve")
    assert len(limiter) == 4 and limiter.failures("eve 1") == 11
    assert limiter.failures("eve 2") == 0  # (pushed out: eve's group has room again)
    assert limiter.wait("eve 3", 11.0, group="eve") == 0.0


def test_a_limiter_without_groups_ignores_them() -> None:
    """Without ``per_group`` (the hall's password: one record per address) a group
    named with a key bounds nothing."""
    limiter = AttemptLimiter()
    for table in range(10):
        assert limiter.wait(f"eve {table}", 0.0, group="eve") == 0.0
        limiter.failed(f"eve {table}", 0.0, group="eve")
    assert limiter.wait("eve 10", 0.0, group="eve") == 0.0


def test_bad_limiter_arguments() -> None:
    with pytest.raises(ValueError):
        AttemptLimiter(capacity=0)
    with pytest.raises(ValueError):
        AttemptLimiter(first=2.0, cap=1.0)
    with pytest.raises(ValueError):
        AttemptLimiter(per_group=0)


def test_a_verifier_setting_is_checked_at_start() -> None:
    with pytest.raises(ConfigError) as info:
        Settings.load(flags={"password": "pbkdf2_sha256$10$00$00"})
    assert "password" in str(info.value) and "00$00" not in str(info.value).split(":")[0]
    assert Settings.load(flags={"password": "plain words"}).password == "plain words"
    assert "plain words" not in repr(Settings.load(flags={"password": "plain words"}))


def test_hall_key_prints_a_verifier_of_the_password(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(HALL_PASSWORD + "\n"))
    assert cli_main(["hall-key", "--stdin", "--iterations", "1000"]) == 0
    out = capsys.readouterr().out
    assert HALL_PASSWORD not in out
    text = out.split('"')[1]
    verifier = Verifier.parse(text)
    assert verifier.stored_key == derive(HALL_PASSWORD, verifier.salt, 1000).stored_key
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert cli_main(["hall-key", "--stdin"]) == 1  # too short to be a lock worth having
