"""Topics, batches, Produce and Fetch over the raw wire, for the data-plane tests."""

from __future__ import annotations

import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.kafka_wire import WireClient
from tests.names import unique

E = ErrorCode


def create_topic(c: WireClient, partitions: int = 1, **configs: str) -> str:
    name = unique("rec")
    resp: Any = c.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1,
        configs=[CreatableTopicConfig(k, v) for k, v in configs.items()],
    )]))
    assert resp.topics[0].error_code == E.NONE
    return name


def batch(keys: list[bytes | None], stamps: list[int] | None = None,
          compression: rb.Compression = rb.Compression.NONE) -> bytes:
    now = int(time.time() * 1000)
    ts = stamps or [now] * len(keys)
    return rb.build_batch([rb.Record(k, b"v", [], t) for k, t in zip(keys, ts, strict=True)], compression=compression)


def produce(c: WireClient, topic: str, parts: dict[int, bytes], version: int = 9) -> dict[int, Any]:
    resp: Any = c.call(0, version, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[TopicProduceData(
        name=topic, partition_data=[PartitionProduceData(index=p, records=r) for p, r in parts.items()],
    )]))
    return {p.index: p for p in resp.responses[0].partition_responses}


def fetched_offsets(c: WireClient, topic: str, partition: int = 0) -> list[int]:
    resp: Any = c.call(1, 12, FetchRequest(max_wait_ms=0, min_bytes=0, topics=[FetchTopic(topic=topic, partitions=[
        FetchPartition(partition=partition, fetch_offset=0, partition_max_bytes=1_000_000)])]))
    part = resp.responses[0].partitions[0]
    assert part.error_code == E.NONE
    return [r.offset for b in rb.decode_batches(part.records or b"") for r in b.records]
