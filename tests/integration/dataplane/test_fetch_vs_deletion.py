"""A fetch parked on a topic that is deleted meanwhile: Kafka answers the deleted partitions
with UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID when fetched by id, v13+) as soon as the
topic is gone, serves the other partitions of the request, and keeps the connection."""

from __future__ import annotations

import time
import uuid
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

FETCH, PRODUCE, METADATA, API_VERSIONS, CREATE_TOPICS, DELETE_TOPICS = 1, 0, 3, 18, 19, 20
MAX_WAIT_MS = 20_000
# Long enough for the fetch to reach the broker and park before the deletion is sent.
PARK_S = 0.5


def create_topic(c: WireClient) -> tuple[str, uuid.UUID]:
    name = unique("gone")
    resp: Any = c.call(CREATE_TOPICS, 7, CreateTopicsRequest(
        topics=[CreatableTopic(name=name, num_partitions=1, replication_factor=1)], timeout_ms=10_000,
    ))
    assert resp.topics[0].error_code == ErrorCode.NONE
    return name, resp.topics[0].topic_id


def produce_one(c: WireClient, topic: str) -> None:
    batch = rb.build_batch([rb.Record(b"k", b"v", [], int(time.time() * 1000))])
    resp: Any = c.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])
    ]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE


def delete_topic(bootstrap: str, topic: str) -> None:
    with WireClient(bootstrap) as admin:
        resp: Any = admin.call(DELETE_TOPICS, 6, DeleteTopicsRequest(topics=[DeleteTopicState(name=topic)],
                                                                     timeout_ms=10_000))
        assert resp.responses[0].error_code == ErrorCode.NONE


def parked_fetch(topics: list[FetchTopic]) -> FetchRequest:
    # min_bytes 1 and offsets at the log end: nothing to answer until data or deletion.
    return FetchRequest(max_wait_ms=MAX_WAIT_MS, min_bytes=1, max_bytes=1_000_000, topics=topics)


def at_end(offset: int) -> list[FetchPartition]:
    return [FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1_000_000)]


def assert_connection_still_serves(c: WireClient) -> None:
    resp: Any = c.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    assert resp.error_code == ErrorCode.NONE
    meta: Any = c.call(METADATA, 12, MetadataRequest(topics=None))
    assert meta.brokers


def new_log_lines(broker: BrokerProcess, since: int) -> str:
    return broker.log()[since:]


def test_parked_fetch_by_name_answers_the_deleted_topic_and_keeps_the_connection(broker: BrokerProcess) -> None:
    log_mark = len(broker.log())
    with WireClient(broker.bootstrap, timeout=MAX_WAIT_MS / 1000 + 10) as c:
        doomed, _ = create_topic(c)
        kept, _ = create_topic(c)
        produce_one(c, doomed)
        produce_one(c, kept)
        cid = c.send(FETCH, 12, parked_fetch([
            FetchTopic(topic=doomed, partitions=at_end(1)), FetchTopic(topic=kept, partitions=at_end(1)),
        ]))
        time.sleep(PARK_S)
        started = time.monotonic()
        delete_topic(broker.bootstrap, doomed)
        got, resp = c.recv(FETCH, 12)
        waited = time.monotonic() - started
        assert got == cid
        answer: Any = resp
        assert answer.error_code == ErrorCode.NONE
        by_topic = {t.topic: t.partitions[0] for t in answer.responses}
        assert by_topic[doomed].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        assert (by_topic[doomed].high_watermark, by_topic[doomed].log_start_offset) == (-1, -1)
        assert by_topic[doomed].records in (b"", None)
        assert by_topic[kept].error_code == ErrorCode.NONE
        assert by_topic[kept].high_watermark == 1
        # Answered because the topic went away, not because max_wait ran out.
        assert waited < MAX_WAIT_MS / 1000
        assert_connection_still_serves(c)
    assert "handler failed" not in new_log_lines(broker, log_mark)


def test_parked_fetch_by_id_answers_unknown_topic_id(broker: BrokerProcess) -> None:
    log_mark = len(broker.log())
    with WireClient(broker.bootstrap, timeout=MAX_WAIT_MS / 1000 + 10) as c:
        name, topic_id = create_topic(c)
        cid = c.send(FETCH, 13, parked_fetch([FetchTopic(topic_id=topic_id, partitions=at_end(0))]))
        time.sleep(PARK_S)
        started = time.monotonic()
        delete_topic(broker.bootstrap, name)
        got, resp = c.recv(FETCH, 13)
        waited = time.monotonic() - started
        assert got == cid
        answer: Any = resp
        [topic] = answer.responses
        assert topic.topic_id == topic_id
        assert topic.partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_ID
        assert waited < MAX_WAIT_MS / 1000
        assert_connection_still_serves(c)
    assert "handler failed" not in new_log_lines(broker, log_mark)


def test_fetch_by_id_of_a_deleted_topic_whose_name_was_reused(broker: BrokerProcess) -> None:
    """The id names the old topic: a new topic under the same name is not served for it."""
    with WireClient(broker.bootstrap) as c:
        name, old_id = create_topic(c)
        delete_topic(broker.bootstrap, name)
        resp: Any = c.call(CREATE_TOPICS, 7, CreateTopicsRequest(
            topics=[CreatableTopic(name=name, num_partitions=1, replication_factor=1)], timeout_ms=10_000,
        ))
        assert resp.topics[0].error_code == ErrorCode.NONE
        answer: Any = c.call(FETCH, 13, FetchRequest(max_wait_ms=0, min_bytes=0, topics=[
            FetchTopic(topic_id=old_id, partitions=at_end(0)),
        ]))
        assert answer.responses[0].partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_ID


def test_fetch_by_id_of_a_partition_the_topic_lacks(broker: BrokerProcess) -> None:
    """KafkaApis: a known topic id with an unknown partition is UNKNOWN_TOPIC_OR_PARTITION."""
    with WireClient(broker.bootstrap) as c:
        _, topic_id = create_topic(c)
        answer: Any = c.call(FETCH, 13, FetchRequest(max_wait_ms=0, min_bytes=0, topics=[
            FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition=5, partition_max_bytes=1000)]),
        ]))
        assert answer.responses[0].partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
