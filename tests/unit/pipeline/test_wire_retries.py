"""The sink's wire client retries a retriable answer until a time deadline (Kafka's
delivery.timeout.ms), not a count of attempts: pipeline/wire.py `Cluster.retrying`, on an
injected clock, so its 120 s run without sleeping."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pipeline.wire import DELIVERY_TIMEOUT_S, RETRY_BACKOFF_MAX_S, Cluster, KafkaWireError
from protocol.errors import ErrorCode


class StepClock:
    """Time moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _cluster(clock: StepClock) -> Cluster:
    # Never connects: the attempts below answer by themselves.
    return Cluster("127.0.0.1:9", clock=clock)


def _answers(*codes: ErrorCode) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= len(codes):
            raise KafkaWireError(codes[len(calls) - 1], "Produce to t-0")
        return "appended"

    return calls, attempt


def test_not_enough_replicas_is_retried_where_it_was_sent_until_it_passes() -> None:
    clock = StepClock()
    cluster = _cluster(clock)
    cluster._leaders[("t", 0)] = 1
    # KIP-890: the leader answers NOT_ENOUGH_REPLICAS while the coordinator cannot settle
    # the verification (CONCURRENT_TRANSACTIONS there); 40 refusals take ~34 s of backoff.
    calls, attempt = _answers(*[ErrorCode.NOT_ENOUGH_REPLICAS] * 40)
    assert cluster.retrying(attempt, "Produce") == "appended"
    assert len(calls) == 41
    assert clock.sleeps[:3] == [0.01, 0.02, 0.04]
    assert max(clock.sleeps) == RETRY_BACKOFF_MAX_S
    # Not a metadata error: the leader learnt is kept.
    assert cluster._leaders == {("t", 0): 1}


def test_a_stale_route_is_looked_up_again() -> None:
    clock = StepClock()
    cluster = _cluster(clock)
    cluster._leaders[("t", 0)] = 1
    calls, attempt = _answers(ErrorCode.NOT_LEADER_OR_FOLLOWER)
    assert cluster.retrying(attempt, "Produce") == "appended"
    assert len(calls) == 2
    assert cluster._leaders == {}


def test_retries_stop_at_the_delivery_timeout() -> None:
    clock = StepClock()
    calls, attempt = _answers(*[ErrorCode.NOT_ENOUGH_REPLICAS] * 10_000)
    with pytest.raises(KafkaWireError) as failed:
        _cluster(clock).retrying(attempt, "Produce")
    assert failed.value.code == ErrorCode.NOT_ENOUGH_REPLICAS
    # Exactly the deadline: the last wait is cut to it, and the attempt at it is the last.
    assert clock.now == pytest.approx(DELIVERY_TIMEOUT_S)
    assert len(calls) == len(clock.sleeps) + 1


def test_a_non_retriable_error_is_raised_at_once() -> None:
    clock = StepClock()
    calls, attempt = _answers(ErrorCode.INVALID_TXN_STATE)
    with pytest.raises(KafkaWireError) as failed:
        _cluster(clock).retrying(attempt, "Produce")
    assert failed.value.code == ErrorCode.INVALID_TXN_STATE
    assert (len(calls), clock.sleeps) == (1, [])
