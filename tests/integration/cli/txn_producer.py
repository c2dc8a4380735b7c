"""A transactional producer process for tests to SIGKILL mid-transaction:
`python -m tests.integration.cli.txn_producer BOOTSTRAP TOPIC TRANSACTIONAL_ID TIMESTAMP_MS` opens a
transaction, writes two records to partition 0 of TOPIC with the given timestamp, prints
`{"producer_id": ..., "producer_epoch": ...}` and waits to be killed."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.kafka_wire import WireClient, add_partition, create_topic, init_producer_id


def open_transaction(bootstrap: str, topic: str, tid: str, timestamp: int) -> tuple[WireClient, int, int]:
    c = WireClient(bootstrap)
    create_topic(c, topic)
    pid, epoch = init_producer_id(c, tid)
    add_partition(c, tid, pid, epoch, topic)
    batch = rb.build_batch([rb.Record(b"k", b"txn-%d" % i, [], timestamp) for i in range(2)],
                           producer_id=pid, producer_epoch=epoch, base_sequence=0, transactional=True)
    resp: Any = c.call(0, 9, ProduceRequest(transactional_id=tid, acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])]))
    part = resp.responses[0].partition_responses[0]
    assert (part.error_code, part.base_offset) == (ErrorCode.NONE, 0)
    return c, pid, epoch


if __name__ == "__main__":
    bootstrap, topic, tid, timestamp = sys.argv[1:5]
    client, pid, epoch = open_transaction(bootstrap, topic, tid, int(timestamp))
    print(json.dumps({"producer_id": pid, "producer_epoch": epoch}), flush=True)
    time.sleep(600)
