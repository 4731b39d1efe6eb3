"""The token bucket's arithmetic, case by case (the survivors of a mutation pass).

tests/protocol/test_protocol_ratelimit.py plays the bucket as the spec describes it;
these pin each rule of its docstrings: the refill from any start time, a clock that
steps back, the validation of its settings, the debt a charge may leave and the wait
it causes, and exhaustion at exactly ``burst`` refusals in a row.
"""

from __future__ import annotations

import pytest

from rummyhall.protocol import TokenBucket


def test_the_refill_counts_from_the_last_frame_at_any_clock() -> None:
    bucket = TokenBucket(rate=4, burst=2)
    assert bucket.take(100.0) and bucket.take(100.0) and not bucket.take(100.0)
    assert not bucket.take(100.125)  # half a token in 1/8 s
    assert bucket.take(100.25)       # one token in 1/4 s (not 200 s' worth)
    assert not bucket.take(100.25)


def test_a_clock_that_steps_back_refills_nothing_and_keeps_its_place() -> None:
    bucket = TokenBucket(rate=4, burst=1)
    assert bucket.take(50.0)
    assert not bucket.take(49.0)  # earlier: no refill for the "time" in between
    assert not bucket.take(50.125)  # counted from 50.0, not from 49.0
    assert bucket.take(50.25)


def test_settings_must_make_sense() -> None:
    for rate, burst in [(0, 5), (-1, 5), (5, 0), (5, -2)]:
        with pytest.raises(ValueError, match="rate must be positive"):
            TokenBucket(rate=rate, burst=burst)
    assert TokenBucket(rate=0.5, burst=1).take(0.0)  # a slow rate and a burst of one


def test_exhausted_at_exactly_burst_refusals_in_a_row_and_after() -> None:
    bucket = TokenBucket(rate=1, burst=3)
    for _ in range(3):
        bucket.take(0.0)
    refusals = []
    for _ in range(4):
        bucket.take(0.0)
        refusals.append(bucket.exhausted)
    assert refusals == [False, False, True, True]
    assert not bucket.affords(0.0) and bucket.exhausted


def test_a_charge_leaves_a_debt_of_at_most_burst_and_the_wait_says_how_long() -> None:
    bucket = TokenBucket(rate=4, burst=2)
    assert bucket.wait_ms(0.0) == 0
    bucket.charge(1)                  # 2 - 1 = 1 token left
    assert bucket.wait_ms(0.0) == 0
    bucket.charge(3)                  # 1 - 3 = -2: in debt by the whole burst
    assert bucket.wait_ms(0.0) == 750  # 3 tokens missing at 4 a second
    bucket.charge(10)                 # no deeper than -burst
    assert bucket.wait_ms(0.0) == 750
    assert bucket.wait_ms(0.5) == 250  # two tokens came back
    assert not bucket.take(0.5)
    assert bucket.wait_ms(0.7499) == 1  # a fraction of a millisecond still waits one
    assert bucket.take(0.75)


def test_a_new_bucket_has_refused_nothing() -> None:
    bucket = TokenBucket(rate=1, burst=1)
    assert not bucket.exhausted
    bucket.charge(2)  # owing before its first frame (a charge may come first)
    assert not bucket.take(0.0) and bucket.exhausted


def test_the_wait_in_whole_milliseconds() -> None:
    bucket = TokenBucket(rate=1, burst=2)
    bucket.charge(3)  # 2 - 3 = -1: two tokens short of a frame, at one a second
    assert bucket.wait_ms(0.0) == 2000
