"""Idempotent produce through the Java client 4.3 with each codec (tests/integration/java/Produce.java):
offsets, records with their keys, headers and CreateTime read back, and the producer state
DescribeProducers reports."""

from __future__ import annotations

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.java.java_programs import run_java
from tests.names import unique

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
T0 = 1_700_000_000_000


@pytest.fixture(scope="module")
def facts(java_broker: BrokerProcess) -> dict[str, str]:
    return run_java("Produce.java", java_broker.bootstrap, unique("jp"))


@pytest.mark.parametrize("codec", CODECS)
def test_idempotent_produce_and_read_back(facts: dict[str, str], codec: str) -> None:
    assert f"{codec}.error" not in facts, facts.get(f"{codec}.error")
    assert facts[f"{codec}.offsets"] == ",".join(str(i) for i in range(11))
    expected = [f"{i}:k{i}:{codec}-{i}:{T0 + i}:v{i}" for i in range(10)]
    expected.append(f"10:last:{codec}-last:{T0 + 100}")
    assert facts[f"{codec}.records"] == "|".join(expected)


@pytest.mark.parametrize("codec", CODECS)
def test_describe_producers(facts: dict[str, str], codec: str) -> None:
    assert facts[f"{codec}.producers"] == "1"
    assert facts[f"{codec}.producer.epoch"] == "0"
    assert facts[f"{codec}.producer.lastSequence"] == "10"
    # The max timestamp (CreateTime) of the producer's last batch, as Kafka reports it.
    assert facts[f"{codec}.producer.lastTimestamp"] == str(T0 + 100)
    assert facts[f"{codec}.producer.txnStartOffset"] == "OptionalLong.empty"
    assert facts[f"{codec}.producer.coordinatorEpoch"] == "OptionalInt.empty"


def test_refusals_carry_no_broker_text(facts: dict[str, str]) -> None:
    # Kafka 4.0 answers RECORD_TOO_LARGE and INVALID_TOPIC_EXCEPTION (an internal topic,
    # addressed by id in Produce v13) without a message: the client words them.
    assert facts["refused.toolarge"] == (
        "!RecordTooLargeException: The request included a message larger than the max message size the server will accept.")
    assert facts["refused.internal"] == (
        "!InvalidTopicException: The request attempted to perform an operation on an invalid topic.")
