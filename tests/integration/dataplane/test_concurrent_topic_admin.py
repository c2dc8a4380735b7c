"""Topic admin from many connections at once: every topic acknowledged as created exists,
also after a restart, and records produced to it survive (the catalog writes of concurrent
requests must not collide)."""

from __future__ import annotations

import threading
import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

CLIENTS = 8
TOPICS_PER_CLIENT = 6


def test_concurrent_creates_and_deletes_all_land(fresh_broker: BrokerProcess) -> None:
    prefix = unique("admin")
    results: dict[str, int] = {}
    failures: list[BaseException] = []
    start = threading.Barrier(CLIENTS)

    def client(n: int) -> None:
        try:
            with WireClient(fresh_broker.bootstrap) as c:
                start.wait()
                for i in range(TOPICS_PER_CLIENT):
                    name = f"{prefix}-{n}-{i}"
                    resp: Any = c.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
                        CreatableTopic(name=name, num_partitions=1, replication_factor=1)]))
                    results[name] = resp.topics[0].error_code
                    if i % 2:  # every other topic is deleted again at once
                        gone: Any = c.call(20, 6, DeleteTopicsRequest(topics=[DeleteTopicState(name=name)],
                                                                      timeout_ms=10_000))
                        results[name] = -1 if gone.responses[0].error_code == ErrorCode.NONE else -2
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures
    kept = {name for name, code in results.items() if code == ErrorCode.NONE}
    deleted = {name for name, code in results.items() if code == -1}
    assert len(kept) == len(deleted) == CLIENTS * TOPICS_PER_CLIENT // 2
    with WireClient(fresh_broker.bootstrap) as c:
        now = int(time.time() * 1000)
        for name in sorted(kept):
            resp: Any = c.call(0, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[TopicProduceData(
                name=name, partition_data=[PartitionProduceData(
                    index=0, records=rb.build_batch([rb.Record(b"k", b"v", [], now)]))])]))
            assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    fresh_broker.stop()
    fresh_broker.start()
    with WireClient(fresh_broker.bootstrap) as c:
        meta: Any = c.call(3, 9, MetadataRequest(topics=None))
        listed = {t.name for t in meta.topics if t.name.startswith(prefix)}
        assert listed == kept
