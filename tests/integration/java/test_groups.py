"""Consumer groups through the Java client 4.3 (tests/integration/java/Groups.java): KIP-848
(`group.protocol=consumer`) and a classic group with the cooperative-sticky assignor."""

from __future__ import annotations

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.java.java_programs import run_java
from tests.names import unique


@pytest.fixture(scope="module")
def facts(java_broker: BrokerProcess) -> dict[str, str]:
    return run_java("Groups.java", java_broker.bootstrap, unique("jg"))


@pytest.mark.parametrize(("protocol", "kind", "assignor"), [
    ("consumer", "Consumer", "uniform"),
    ("classic", "Classic", "cooperative-sticky"),
])
def test_two_members_split_read_commit_and_one_leaves(
    facts: dict[str, str], protocol: str, kind: str, assignor: str
) -> None:
    # Two partitions each (which two is the assignor's choice, and timing's).
    a, b = (facts[f"{protocol}.{m}.assigned"].strip("[]").split(",") for m in "ab")
    assert (len(a), len(b), sorted(a + b)) == (2, 2, ["0", "1", "2", "3"])
    assert facts[f"{protocol}.seen"] == ",".join(f"v{i}" for i in range(8))
    assert (facts[f"{protocol}.type"], facts[f"{protocol}.state"]) == (kind, "Stable")
    assert (facts[f"{protocol}.members"], facts[f"{protocol}.assignor"]) == ("2", assignor)
    assert facts[f"{protocol}.committed"] == "8"  # 2 records on each of 4 partitions
    assert facts[f"{protocol}.after_leave"] == "[0,1,2,3]"
    # Kafka 4.0 for both protocols: a subscribed topic's offsets are not deleted, and the
    # admin client removes the remaining member.
    assert facts[f"{protocol}.offsets_delete"] == "GroupSubscribedToTopicException"
    assert facts[f"{protocol}.remove_all"] == "removed"
    assert facts[f"{protocol}.final_state"] == "Empty"
