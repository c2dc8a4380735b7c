"""A small compressed batch that expands past `MAX_DECOMPRESSED_BYTES` (protocol/record_batch.py)
is refused where the broker has to read its records, and the broker carries on: zstd turns a
few kilobytes into gigabytes, which would otherwise all be held in memory at once."""

from __future__ import annotations

import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from tests.broker_process import BrokerProcess
from tests.integration.dataplane.record_wire import batch, create_topic, fetched_offsets, produce
from tests.kafka_wire import WireClient

E = ErrorCode


def bomb(now_ms: int) -> bytes:
    value = bytes(rb.MAX_DECOMPRESSED_BYTES + 1)
    records = rb.build_batch([rb.Record(b"k", value, [], now_ms)], compression=rb.Compression.ZSTD)
    assert len(records) < 64 * 1024  # far under message.max.bytes: only its records are too big
    return records


def offset_for_timestamp(c: WireClient, topic: str, timestamp: int) -> Any:
    resp: Any = c.call(2, 7, ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
        ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=timestamp)])]))
    return resp.topics[0].partitions[0]


def test_a_compacted_topic_refuses_the_batch_and_takes_the_next(broker: BrokerProcess) -> None:
    now = int(time.time() * 1000)
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, **{"cleanup.policy": "compact"})
        refused = produce(c, topic, {0: bomb(now)})[0]
        assert (refused.error_code, refused.base_offset) == (E.CORRUPT_MESSAGE, -1)
        taken = produce(c, topic, {0: batch([b"k1", b"k2"], compression=rb.Compression.ZSTD)})[0]
        assert (taken.error_code, taken.base_offset) == (E.NONE, 0)
        assert fetched_offsets(c, topic) == [0, 1]


def test_a_stored_batch_too_big_to_decode_fails_only_its_timestamp_lookup(broker: BrokerProcess) -> None:
    """A plain topic stores batches unread, so the batch is taken; looking inside it by
    timestamp is then refused for that partition and nothing else."""
    now = int(time.time() * 1000)
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c)
        assert produce(c, topic, {0: bomb(now)})[0].error_code == E.NONE
        lookup = offset_for_timestamp(c, topic, now - 1)
        assert (lookup.error_code, lookup.offset) == (E.CORRUPT_MESSAGE, -1)
        after = produce(c, topic, {0: batch([b"k1"])})[0]
        assert (after.error_code, after.base_offset) == (E.NONE, 1)
        found = offset_for_timestamp(c, topic, now + 60_000)
        assert (found.error_code, found.offset) == (E.NONE, -1)
