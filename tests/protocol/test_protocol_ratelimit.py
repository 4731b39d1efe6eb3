"""The rate limit's token bucket (time comes in as an argument)."""

from __future__ import annotations

from rummyhall.protocol import TokenBucket


def spent(bucket: TokenBucket) -> bool:
    """The bucket's state now (a call: mypy does not carry a narrowing across it)."""
    return bucket.exhausted


def test_burst_then_refill_then_exhaustion() -> None:
    bucket = TokenBucket(rate=20, burst=40)
    assert all(bucket.take(0.0) for _ in range(40))
    assert not bucket.take(0.0) and not spent(bucket)
    assert bucket.take(0.05)  # 1/20 s refills one frame
    for _ in range(40):
        bucket.take(0.05)
    assert spent(bucket)
    assert bucket.take(10.0) and not spent(bucket)


def test_refusals_spread_out_far_past_the_rate_exhaust_it_too() -> None:
    """A frame taken now and then between refusals does not start the count again: a
    client sending eighty times the rate (20 a second taken, 1,600 refused) is closed
    within a fraction of a second, one at twice the rate never."""
    fast = TokenBucket(rate=20, burst=40)
    now, sent = 0.0, 0
    while not fast.exhausted and sent < 10_000:
        fast.take(now)
        now += 1 / 1600
        sent += 1
    assert fast.exhausted and now < 0.1
    calm = TokenBucket(rate=20, burst=40)
    for n in range(4_000):  # 40 a second for 100 s: half taken, half refused
        calm.take(n / 40)
    assert not calm.exhausted
