"""An idempotent or transactional Produce over the raw wire."""

from __future__ import annotations

from typing import Any

from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.kafka_wire import (
    WireClient,
)


def produce(
    c: WireClient, parts: dict[tuple[str, int], bytes], *, tid: str | None = None, version: int = 9
) -> dict[tuple[str, int], tuple[int, int]]:
    topics: dict[str, list[PartitionProduceData]] = {}
    for (topic, p), records in parts.items():
        topics.setdefault(topic, []).append(PartitionProduceData(index=p, records=records))
    request = ProduceRequest(
        transactional_id=tid, acks=-1, timeout_ms=10_000,
        topic_data=[TopicProduceData(name=t, partition_data=ps) for t, ps in topics.items()],
    )
    resp: Any = c.call(0, version, request)
    return {(t.name, p.index): (p.error_code, p.base_offset) for t in resp.responses for p in t.partition_responses}
