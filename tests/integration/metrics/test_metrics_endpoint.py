"""The Prometheus endpoint of a real broker, scraped while real clients produce, consume,
join a group and commit transactions: every value is checked against what the clients did."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from tests.broker_process import BrokerProcess, free_port
from tests.kafka_wire import WireClient

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def metered_broker(tmp_path: Path) -> Iterator[tuple[BrokerProcess, int]]:
    port = free_port()
    proc = BrokerProcess(
        tmp_path / "data",
        {"metrics.port": str(port), "group.initial.rebalance.delay.ms": "0", "num.partitions": "1"},
    )
    proc.start()
    yield proc, port
    proc.stop()


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def scrape(port: int) -> Samples:
    status, text = await asyncio.to_thread(get, port, "/metrics")
    assert status == 200
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


async def wait_ready(port: int) -> None:
    for _ in range(200):
        status, _ = await asyncio.to_thread(get, port, "/readyz")
        if status == 200:
            return
        assert status == 503
        await asyncio.sleep(0.05)
    raise AssertionError("/readyz never answered 200")


async def test_health_endpoints_and_unknown_paths(metered_broker: tuple[BrokerProcess, int]) -> None:
    _, port = metered_broker
    assert await asyncio.to_thread(get, port, "/healthz") == (200, "ok\n")
    await wait_ready(port)
    assert await asyncio.to_thread(get, port, "/readyz") == (200, "ready\n")
    assert (await asyncio.to_thread(get, port, "/nothing"))[0] == 404
    samples = await scrape(port)
    assert value(samples, "odradek_coordinator_ready", coordinator="group") == 1
    assert value(samples, "odradek_coordinator_ready", coordinator="transaction") == 1
    assert ("odradek_coordinator_load_seconds", (("coordinator", "transaction"),)) in samples


async def test_requests_are_counted_exactly_by_api_and_version(metered_broker: tuple[BrokerProcess, int]) -> None:
    proc, port = metered_broker
    before = await scrape(port)
    with WireClient(proc.bootstrap) as client:
        for _ in range(3):
            client.call(18, 3, ApiVersionsRequest(client_software_name="metrics-test", client_software_version="1"))
        after = await scrape(port)
        # The wire client's connection is open while scraped.
        assert value(after, "odradek_connections") == value(before, "odradek_connections") + 1
    assert value(after, "odradek_requests_total", api="ApiVersions", version="3") == (
        value(before, "odradek_requests_total", api="ApiVersions", version="3") + 3
    )
    assert value(after, "odradek_request_latency_seconds_count", api="ApiVersions", version="3") == (
        value(before, "odradek_request_latency_seconds_count", api="ApiVersions", version="3") + 3
    )
    assert value(after, "odradek_connections_opened_total", listener="PLAINTEXT") == (
        value(before, "odradek_connections_opened_total", listener="PLAINTEXT") + 1
    )
    # ApiVersions answered without error: nothing counted as an error.
    assert total(after, "odradek_request_errors_total") == total(before, "odradek_request_errors_total")


async def test_error_codes_in_responses_are_counted_by_code(metered_broker: tuple[BrokerProcess, int]) -> None:
    proc, port = metered_broker
    before = await scrape(port)
    missing = [MetadataRequestTopic(name="no-such-topic-a"), MetadataRequestTopic(name="no-such-topic-b")]
    with WireClient(proc.bootstrap) as client:
        response = client.call(3, 12, MetadataRequest(topics=missing, allow_auto_topic_creation=False))
    assert [t.error_code for t in response.topics] == [3, 3]  # UNKNOWN_TOPIC_OR_PARTITION
    after = await scrape(port)
    labels = {"api": "Metadata", "version": "12", "error_code": "3"}
    # One per topic in the response, as Kafka's errorCounts counts them.
    assert value(after, "odradek_request_errors_total", **labels) == value(before, "odradek_request_errors_total", **labels) + 2
    assert value(after, "odradek_requests_total", api="Metadata", version="12") == (
        value(before, "odradek_requests_total", api="Metadata", version="12") + 1
    )


async def test_values_follow_produce_consume_groups_and_transactions(
    metered_broker: tuple[BrokerProcess, int],
) -> None:
    proc, port = metered_broker
    await wait_ready(port)
    topic = "metered"
    values = [bytes([i % 251]) * 1000 for i in range(50)]
    sent = sum(len(v) for v in values)

    base = await scrape(port)
    producer = AIOKafkaProducer(bootstrap_servers=proc.bootstrap, acks="all", linger_ms=0)
    await producer.start()
    try:
        for v in values:
            await producer.send_and_wait(topic, v)
    finally:
        await producer.stop()
    produced = await scrape(port)
    assert value(produced, "odradek_network_received_bytes_total") - value(base, "odradek_network_received_bytes_total") >= sent
    assert total(produced, "odradek_requests_total", api="Produce") - total(base, "odradek_requests_total", api="Produce") == 50
    assert total(produced, "odradek_request_errors_total", api="Produce") == total(base, "odradek_request_errors_total", api="Produce")
    # acks=all appends are group-committed: at least one fsync round served them.
    assert value(produced, "odradek_fsync_round_seconds_count") > value(base, "odradek_fsync_round_seconds_count")
    assert value(produced, "odradek_fsync_round_waiters_sum") >= value(base, "odradek_fsync_round_waiters_sum") + 1
    rounds = value(produced, "odradek_fsync_round_seconds_count") - value(base, "odradek_fsync_round_seconds_count")
    # Every round's fsync calls are timed apart from the handoff, and never exceed the round.
    assert value(produced, "odradek_fsync_seconds_count") - value(base, "odradek_fsync_seconds_count") == rounds
    assert value(produced, "odradek_fsync_round_files_count") - value(base, "odradek_fsync_round_files_count") == rounds
    # ... and how long each was queued behind its partition's running round.
    queued = "odradek_fsync_round_queued_seconds_count"
    assert value(produced, queued) - value(base, queued) == rounds
    assert value(produced, "odradek_fsync_seconds_sum") <= value(produced, "odradek_fsync_round_seconds_sum")
    # Each of the 50 acknowledgements waited for a round (send_and_wait: one at a time).
    assert value(produced, "odradek_fsync_wait_seconds_count") - value(base, "odradek_fsync_wait_seconds_count") >= 50
    assert value(produced, "odradek_log_end_offset", topic=topic, partition="0") == 50
    assert value(produced, "odradek_log_size_bytes", topic=topic, partition="0") >= sent
    assert value(produced, "odradek_partitions") >= 1
    # The event loop's lag is sampled every 50 ms from the start.
    lagged, deadline = produced, asyncio.get_running_loop().time() + 15
    while value(lagged, "odradek_event_loop_lag_seconds_count") < 1:
        assert asyncio.get_running_loop().time() < deadline, "no event loop lag sample"
        await asyncio.sleep(0.05)
        lagged = await scrape(port)

    # A consumer in a group: Stable while it is a member, bytes out at least what it read.
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=proc.bootstrap, group_id="metered-group", auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        received: list[bytes] = []
        while len(received) < len(values):
            batch = await consumer.getmany(timeout_ms=1000)
            received += [r.value for records in batch.values() for r in records if r.value is not None]
        assert received == values
        await consumer.commit()
        consuming = await scrape(port)
        assert value(consuming, "odradek_consumer_groups", state="Stable") == value(base, "odradek_consumer_groups", state="Stable") + 1
        assert total(consuming, "odradek_requests_total", api="OffsetCommit") >= 1
    finally:
        await consumer.stop()
    consumed = await scrape(port)
    assert value(consumed, "odradek_network_sent_bytes_total") - value(produced, "odradek_network_sent_bytes_total") >= sent
    # The member left: the group is Empty, with its committed offsets.
    assert value(consumed, "odradek_consumer_groups", state="Stable") == value(base, "odradek_consumer_groups", state="Stable")
    assert value(consumed, "odradek_consumer_groups", state="Empty") == value(base, "odradek_consumer_groups", state="Empty") + 1

    # A transaction: open (and holding the LSO back) until committed, then none open.
    txn_producer = AIOKafkaProducer(bootstrap_servers=proc.bootstrap, transactional_id="metered-txn")
    await txn_producer.start()
    try:
        await txn_producer.begin_transaction()
        for i in range(5):
            await txn_producer.send_and_wait(topic, b"t%d" % i)
        # A transaction's Produce is answered before its data's fsync round ends
        # (TransactionCoordinator.defers_data_durability), and the high watermark moves
        # when that round ends: the last record may still be on its way to the lag.
        open_txn = await scrape(port)
        for _ in range(100):
            if value(open_txn, "odradek_lso_lag", topic=topic, partition="0") == 5:
                break
            await asyncio.sleep(0.05)
            open_txn = await scrape(port)
        assert value(open_txn, "odradek_open_transactions") == 1
        assert value(open_txn, "odradek_transactional_ids", state="Ongoing") == 1
        assert value(open_txn, "odradek_lso_lag", topic=topic, partition="0") == 5
        assert value(open_txn, "odradek_oldest_open_transaction_age_seconds") >= 0
        await txn_producer.send_offsets_to_transaction({TopicPartition(topic, 0): 55}, "metered-group")
        await txn_producer.commit_transaction()
    finally:
        await txn_producer.stop()
    # EndTxn is answered once PrepareCommit is durable; the markers follow (as in Kafka), and
    # the transaction stays open (PrepareCommit) until they are written.
    committed = await scrape(port)
    for _ in range(100):
        if value(committed, "odradek_transactional_ids", state="PrepareCommit") == 0:
            break
        assert value(committed, "odradek_open_transactions") == 1
        await asyncio.sleep(0.05)
        committed = await scrape(port)
    assert value(committed, "odradek_open_transactions") == 0
    assert value(committed, "odradek_oldest_open_transaction_age_seconds") == 0
    assert value(committed, "odradek_transactional_ids", state="CompleteCommit") == 1
    # The commit marker moved the LSO up to the high watermark.
    assert value(committed, "odradek_lso_lag", topic=topic, partition="0") == 0
    for api in ("InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn"):
        assert total(committed, "odradek_requests_total", api=api) >= 1, api


def test_metrics_are_off_by_default(tmp_path: Path) -> None:
    port = free_port()
    proc = BrokerProcess(tmp_path / "data")
    proc.start()
    try:
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
        assert "metrics endpoint listening" not in proc.log()
    finally:
        proc.stop()
