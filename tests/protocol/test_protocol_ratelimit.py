"""The rate limit's token bucket (time comes in as an argument)."""

from __future__ import annotations

from rummyhall.protocol import TokenBucket


def test_burst_then_refill_then_exhaustion() -> None:
    bucket = TokenBucket(rate=20, burst=40)
    assert all(bucket.take(0.0) for _ in range(40))
    assert not bucket.take(0.0) and bucket.refused_in_a_row == 1
    assert bucket.take(0.05)  # 1/20 s refills one frame
    for _ in range(40):
        bucket.take(0.05)
    assert bucket.exhausted
    assert bucket.take(10.0) and bucket.refused_in_a_row == 0 and not bucket.exhausted
