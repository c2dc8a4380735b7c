"""Client quotas on the real broker, over the wire (no Python admin client speaks
DescribeClientQuotas or AlterClientQuotas): Kafka's validation and error codes, quotas
kept across a restart, and produce and fetch answered with their throttle time while the
connection is muted."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.create_acls_request import CreateAclsRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.quotas.quota_wire import (
    API_VERSIONS,
    FETCH,
    PRODUCE,
    alter,
    describe,
    described,
    entry,
    op,
)
from tests.integration.security.acl_wire import ALLOW, CLUSTER, LITERAL, _acl, _start
from tests.kafka_wire import WireClient, create_topic
from tests.names import unique

ALTER_CONFIGS = 11


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data")


def test_alter_and_describe_round_trip_with_kafkas_errors(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        assert described(c) == {}
        assert alter(
            c,
            entry({"user": "alice", "client-id": None}, op("producer_byte_rate", 1024)),
            entry({"client-id": "app"}, op("consumer_byte_rate", 2048), op("request_percentage", 25.5)),
            entry({"user": "bob"}, op("producer_byte_rate", 1024), op("no_such_key", 1)),
            entry({"user": "carol"}, op("producer_byte_rate", 10.5)),
            entry({}, op("producer_byte_rate", 1)),
            entry({"ip": "no-such-host.invalid"}, op("connection_creation_rate", 1)),
        ) == [
            (ErrorCode.NONE, None),
            (ErrorCode.NONE, None),
            (ErrorCode.INVALID_REQUEST, "Invalid configuration key no_such_key"),
            (ErrorCode.INVALID_REQUEST, "producer_byte_rate cannot be a fractional value."),
            (ErrorCode.INVALID_REQUEST, "Invalid empty client quota entity"),
            (ErrorCode.INVALID_REQUEST, "no-such-host.invalid is not a valid IP or resolvable host."),
        ]
        expected = {
            (("client-id", None), ("user", "alice")): {"producer_byte_rate": 1024.0},
            (("client-id", "app"),): {"consumer_byte_rate": 2048.0, "request_percentage": 25.5},
        }
        assert described(c) == expected
        # validate_only answers as a change would, and changes nothing.
        assert alter(c, entry({"user": None}, op("producer_byte_rate", 5)), validate_only=True) == [(0, None)]
        assert described(c) == expected
        # A removed key goes; an entity left without keys goes too. Version 0 answers alike.
        assert alter(c, entry({"client-id": "app"}, op("request_percentage", remove=True)), version=0) == [(0, None)]
        assert alter(c, entry({"user": "alice", "client-id": None}, op("producer_byte_rate", remove=True))) == [(0, None)]
        assert described(c) == {(("client-id", "app"),): {"consumer_byte_rate": 2048.0}}

        assert alter(c, entry({"user": "alice"}, op("producer_byte_rate", 1)), entry({"user": None}, op("x", 1))) == [
            (0, None), (ErrorCode.INVALID_REQUEST, "Invalid configuration key x")]
        exact = describe(c, ("user", 0, "alice"), version=0)
        assert [(e.entity[0].entity_name, e.values[0].value) for e in exact.entries] == [("alice", 1.0)]
        bad = describe(c, ("user", 1, "alice"))
        assert (bad.error_code, bad.error_message, bad.entries) == (
            ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.", None)
        unsupported = describe(c, ("topic", 2, None))
        assert (unsupported.error_code, unsupported.error_message) == (
            ErrorCode.UNSUPPORTED_VERSION, "Unsupported entity type topic")


def test_quotas_survive_a_restart(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        assert alter(c, entry({"user": "alice", "client-id": "app"}, op("producer_byte_rate", 4096),
                              op("request_percentage", 12.5))) == [(0, None)]
    broker.restart()
    with WireClient(broker.bootstrap) as c:
        assert described(c) == {
            (("client-id", "app"), ("user", "alice")): {"producer_byte_rate": 4096.0, "request_percentage": 12.5}
        }


def produce(c: WireClient, topic: str, value_size: int) -> Any:
    batch = rb.build_batch([rb.Record(None, os.urandom(value_size), [], int(time.time() * 1000))])
    resp: Any = c.call(PRODUCE, 9, ProduceRequest(acks=1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    return resp


def test_produce_over_its_quota_carries_the_throttle_time_and_mutes_the_connection(broker: BrokerProcess) -> None:
    topic = unique("quota-produce")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        # The wire client's id is "wire": 10 KB/s, so 100 KB over the first 10 s windows.
        assert alter(c, entry({"client-id": "wire"}, op("producer_byte_rate", 10_000))) == [(0, None)]
        assert produce(c, topic, 55_000).throttle_time_ms == 0
        throttled = produce(c, topic, 55_000)
        answered = time.monotonic()
        # 110 KB and a little over ~10 s is 10 % over the quota: 10 % of the window, ~1 s.
        assert 800 <= throttled.throttle_time_ms <= 1_100
        # Nothing more is read from the connection until the throttle time has passed.
        c.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        assert time.monotonic() - answered >= throttled.throttle_time_ms / 1000 * 0.8


def fetch(c: WireClient, topic: str, offset: int, max_bytes: int) -> Any:
    return c.call(FETCH, 12, FetchRequest(
        max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, isolation_level=0,
        topics=[FetchTopic(topic=topic, partitions=[FetchPartition(
            partition=0, fetch_offset=offset, partition_max_bytes=max_bytes)])],
    ))


def test_fetch_over_its_quota_is_answered_empty_with_the_throttle_time(broker: BrokerProcess) -> None:
    topic = unique("quota-fetch")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        for _ in range(12):
            produce(c, topic, 10_000)
        assert alter(c, entry({"client-id": "wire"}, op("consumer_byte_rate", 10_000))) == [(0, None)]
        first = fetch(c, topic, 0, 50_000)
        assert first.throttle_time_ms == 0
        records = first.responses[0].partitions[0].records
        got = [h.last_offset for _, h in rb.iter_batches(records)]
        assert 0 < len(got) <= 5
        # The other ~80 KB would put the rate at ~120 KB over ~10 s, 20 % over the quota: an
        # empty answer, and 20 % of the window's throttle time.
        throttled = fetch(c, topic, got[-1] + 1, 100_000)
        assert throttled.error_code == ErrorCode.NONE
        assert throttled.responses == []
        assert 1_500 <= throttled.throttle_time_ms <= 2_500


def test_acls_and_user_quotas_of_authenticated_principals(tmp_path: Path) -> None:
    broker = _start(tmp_path)
    try:
        with broker.login("admin") as admin:
            created: Any = admin.call(30, 3, CreateAclsRequest(creations=[
                _acl(CLUSTER, "kafka-cluster", LITERAL, "User:alice", ALTER_CONFIGS, ALLOW)]))
            assert created.results[0].error_code == ErrorCode.NONE
        with broker.login("bob") as bob:
            assert alter(bob, entry({"user": "bob"}, op("producer_byte_rate", 1))) == [
                (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")]
            assert describe(bob).error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        with broker.login("alice") as alice:
            # ALTER_CONFIGS implies DESCRIBE_CONFIGS. Any request time is over this quota.
            assert alter(alice, entry({"user": "alice"}, op("request_percentage", 1e-9))) == [(0, None)]
            throttled = describe(alice)
            assert throttled.error_code == ErrorCode.NONE
            # The request quota's throttle time is bounded by one window.
            assert 0 < throttled.throttle_time_ms <= 1_000
        with broker.login("bob") as bob:
            assert describe(bob).throttle_time_ms == 0
    finally:
        broker.process.close()
