"""Transactions through the Java client 4.3 (tests/integration/java/Transactions.java), against a broker
with transaction version 2 finalized and one without: the epochs are Kafka's
(TransactionMetadata: an EndTxn of version 2 bumps the epoch; fencing an open transaction
bumps it once for the fence, once more for the abort when version 2, once for the new
producer), checked against Apache Kafka 4.0.0 (clients rebuilt from source) with the same
program."""

from __future__ import annotations

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.java.java_programs import run_java
from tests.names import unique


@pytest.fixture(scope="module")
def facts(java_broker: BrokerProcess) -> dict[str, str]:
    return run_java("Transactions.java", java_broker.bootstrap, unique("jtx"))


def tv2(facts: dict[str, str]) -> bool:
    return facts["tv"] == "2"


def test_transaction_version_seen_by_the_client(facts: dict[str, str], java_broker: BrokerProcess) -> None:
    assert facts["tv"] == ("2" if java_broker.overrides.get("transaction.version") == "2" else "0")


def test_commit_and_abort_read_back(facts: dict[str, str]) -> None:
    # Offsets 3 and 6 are the commit and abort markers.
    assert facts["a.read_committed"] == "0:c0,1:c1,2:c2,7:c3"
    assert facts["a.read_uncommitted"] == "0:c0,1:c1,2:c2,4:x0,5:x1,7:c3"
    assert facts["a.listed"] == "CompleteCommit"


def test_describe_transactions_along_the_way(facts: dict[str, str]) -> None:
    bump = 1 if tv2(facts) else 0
    assert (facts["a.init.state"], facts["a.init.epoch"], facts["a.init.started"]) == ("Empty", "0", "none")
    assert (facts["a.open.state"], facts["a.open.epoch"], facts["a.open.partitions"]) == ("Ongoing", "0", "1")
    assert facts["a.open.started"] != "none"
    assert (facts["a.committed.state"], facts["a.committed.epoch"], facts["a.committed.partitions"]) == (
        "CompleteCommit", str(bump), "0")
    # Kafka keeps the start time of the transaction just completed.
    assert facts["a.committed.started"] == facts["a.open.started"]
    assert (facts["a.aborted.state"], facts["a.aborted.epoch"]) == ("CompleteAbort", str(2 * bump))


def test_second_producer_fences_the_first(facts: dict[str, str]) -> None:
    bump = 1 if tv2(facts) else 0
    assert (facts["f.open.state"], facts["f.open.epoch"]) == ("Ongoing", "0")
    # Fence (+1), the abort's own bump with version 2 (+1), the new producer's (+1).
    # Kafka 4.0 keeps the fenced transaction's start in memory (and shows it) once Empty.
    assert (facts["f.second.state"], facts["f.second.epoch"], facts["f.second.started"]) == (
        "Empty", str(2 + bump), facts["f.open.started"])
    # The first producer's next send is refused (its epoch is stale at the partition, which
    # the fence's abort marker moved on), and so is its commit then; Kafka's texts.
    assert facts["f.first.send"] == "InvalidProducerEpochException"
    assert facts["f.first.send.message"] == "Producer attempted to produce with an old epoch."
    assert facts["f.first.commit"] == "InvalidProducerEpochException"
    # The client words this one itself (with its transactional id under version 2).
    assert "attempted to produce with an old epoch" in facts["f.first.commit.message"]
    assert (facts["f.done.state"], facts["f.done.epoch"]) == ("CompleteCommit", str(2 + 2 * bump))


def test_send_offsets_to_transaction(facts: dict[str, str]) -> None:
    assert facts["ctp.consumed"] == "4"
    # The first transaction committed offset 2, the second (aborted) left it there.
    assert facts["ctp.committed"] == "2"
    assert facts["ctp.admin.committed"] == "2"
    assert facts["ctp.output"] == "0:IN0,1:IN1"


def test_fence_producers(facts: dict[str, str]) -> None:
    bump = 1 if tv2(facts) else 0
    assert (facts["x.open.state"], facts["x.open.epoch"]) == ("Ongoing", "0")
    # As a new producer's InitProducerId: Empty, the start of the fenced transaction kept.
    assert (facts["x.fenced.state"], facts["x.fenced.epoch"], facts["x.fenced.started"]) == (
        "Empty", str(2 + bump), facts["x.open.started"])
    assert facts["x.start_kept"] == "true"
    assert facts["x.commit"] == "ProducerFencedException"
    assert facts["x.commit.message"] == (
        "There is a newer producer with the same transactionalId which fences the current one.")
    values = [entry.split(":")[1] for entry in facts["x.read_committed"].split(",")]
    assert values == ["c0", "c1", "c2", "c3", "second"]


def test_list_offsets_after_deleting_records_to_an_abort_marker(facts: dict[str, str]) -> None:
    """As Kafka 4.0 answers once its retention check has dropped the segments below the new
    log start (docs/apis.md: before it, its search by timestamp finds nothing); the same for
    both isolation levels, the transactions being complete."""
    t0 = 1_700_000_000_000
    expected = {
        3: {"earliest": "3/-1", "latest": "7/-1", "max": "6", "t0": "3", "t105": "3"},
        4: {"earliest": "4/-1", "latest": "7/-1", "max": "6", "t0": f"4/{t0 + 100}", "t105": f"5/{t0 + 110}"},
    }
    for cut, answers in expected.items():
        assert facts[f"d.{cut}.delete"] == str(cut)
        for spec, answer in answers.items():
            for isolation in ("read_uncommitted", "read_committed"):
                assert facts[f"d.{cut}.{spec}.{isolation}"] == answer, (cut, spec, isolation)

