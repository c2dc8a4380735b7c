"""Metadata v12+ by topic id, as the Java admin client's describeTopics(TopicCollection.ofTopicIds)
sends it: the id set and the name an empty string (not null). Kafka looks the id up
(KafkaApis.handleTopicMetadataRequest: any non-zero id makes the request one by id)."""

from __future__ import annotations

import uuid
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique


def test_metadata_by_id_with_an_empty_name(broker: BrokerProcess) -> None:
    name, unknown = unique(), uuid.uuid4()
    with WireClient(broker.bootstrap) as c:
        created: Any = c.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
            CreatableTopic(name=name, num_partitions=2, replication_factor=1)]))
        topic_id = created.topics[0].topic_id
        for version in (12, 13):
            resp: Any = c.call(3, version, MetadataRequest(topics=[
                MetadataRequestTopic(name="", topic_id=topic_id),
                MetadataRequestTopic(name="", topic_id=unknown),
            ], allow_auto_topic_creation=False))
            found, missing = resp.topics
            assert (found.error_code, found.name, found.topic_id, len(found.partitions)) == (
                ErrorCode.NONE, name, topic_id, 2)
            assert (missing.error_code, missing.name, missing.topic_id, missing.partitions) == (
                ErrorCode.UNKNOWN_TOPIC_ID, None, unknown, [])
