"""Share groups through the Java client 4.3's KafkaShareConsumer (tests/integration/java/Share.java):
two consumers share one partition, every record delivered once; a released record comes back
with delivery count 2 and a rejected one never."""

from __future__ import annotations

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.java.java_programs import run_java
from tests.names import unique


@pytest.fixture(scope="module")
def facts(tv1_java_broker: BrokerProcess) -> dict[str, str]:
    return run_java("Share.java", tv1_java_broker.bootstrap, unique("js"))


def test_two_share_consumers_every_record_once(facts: dict[str, str]) -> None:
    assert (facts["shared.distinct"], facts["shared.total"], facts["shared.again"]) == ("100", "100", "0")
    assert facts["shared.both"] == "true"
    assert (facts["shared.state"], facts["shared.members"]) == ("Stable", "2")


def test_release_redelivers_and_reject_never(facts: dict[str, str]) -> None:
    assert facts["acks.offset0"] == "1,2"
    assert facts["acks.offset1"] == "1"
    assert (facts["acks.done"], facts["acks.again"]) == ("100", "0")
