"""Incremental fetch sessions (KIP-227) against the real broker: what a full fetch opens,
what an incremental one answers, and Kafka's session errors; and the cache's eviction
rules (`broker/fetch_sessions.py`) on the injected clock."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from broker.fetch_sessions import (
    SESSION_ID_RANGE,
    CachedPartition,
    FetchSessionCache,
    FetchSessionCacheShard,
    PartitionKey,
)
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic, ForgottenTopic
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from storage.clock import ManualClock
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient

PRODUCE, FETCH, METADATA, CREATE_TOPICS = 0, 1, 3, 19
V_NAMES, V_IDS = 12, 13


@pytest.fixture
def client(broker: BrokerProcess) -> Iterator[WireClient]:
    with WireClient(broker.bootstrap) as c:
        yield c


def create(c: WireClient, partitions: int) -> tuple[str, uuid.UUID]:
    name = f"fs-{uuid.uuid4().hex[:10]}"
    resp: Any = c.call(CREATE_TOPICS, 5, CreateTopicsRequest(
        topics=[CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)], timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE
    meta: Any = c.call(METADATA, 12, MetadataRequest(topics=[MetadataRequestTopic(name=name)]))
    return name, meta.topics[0].topic_id


def produce(c: WireClient, topic: str, partition: int, n: int) -> None:
    batch = rb.build_batch([rb.Record(b"k", b"v%d" % i, [], int(time.time() * 1000)) for i in range(n)])
    resp: Any = c.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=partition, records=batch)])]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE


def fetch(
    c: WireClient, session_id: int, epoch: int, topic: str, offsets: dict[int, int], *,
    version: int = V_NAMES, topic_id: uuid.UUID | None = None, forget: list[int] | None = None,
) -> Any:
    by_id = version >= V_IDS
    parts = [FetchPartition(partition=p, fetch_offset=o, partition_max_bytes=1_000_000) for p, o in offsets.items()]
    topics = [FetchTopic(topic="" if by_id else topic, topic_id=topic_id or uuid.UUID(int=0), partitions=parts)]
    forgotten = [ForgottenTopic(topic="" if by_id else topic, topic_id=topic_id or uuid.UUID(int=0), partitions=forget)]
    return c.call(FETCH, version, FetchRequest(
        max_wait_ms=0, min_bytes=0, max_bytes=10_000_000, session_id=session_id, session_epoch=epoch,
        topics=topics if parts else [], forgotten_topics_data=forgotten if forget else []))


def answered(resp: Any) -> dict[int, tuple[int, int, int]]:
    """partition -> (error, high watermark, records returned) over every topic answered."""
    out = {}
    for t in resp.responses:
        for p in t.partitions:
            out[p.partition_index] = (p.error_code, p.high_watermark, sum(1 for _ in rb.iter_batches(p.records or b"")))
    return out


@pytest.mark.parametrize("version", [V_NAMES, V_IDS, 18])
def test_full_then_incremental_fetches(client: WireClient, version: int) -> None:
    topic, topic_id = create(client, 3)
    produce(client, topic, 0, 2)
    full = fetch(client, 0, 0, topic, {0: 0, 1: 0, 2: 0}, version=version, topic_id=topic_id)
    assert full.error_code == ErrorCode.NONE and full.session_id != 0
    assert answered(full) == {0: (0, 2, 1), 1: (0, 0, 0), 2: (0, 0, 0)}
    sid = full.session_id
    # The client took partition 0's records and moved on: nothing else changed, so no
    # partition is answered.
    quiet = fetch(client, sid, 1, topic, {0: 2}, version=version, topic_id=topic_id)
    assert (quiet.error_code, quiet.session_id, answered(quiet)) == (0, sid, {})
    # New records on partition 2 only: only it is answered.
    produce(client, topic, 2, 3)
    inc = fetch(client, sid, 2, topic, {}, version=version, topic_id=topic_id)
    assert answered(inc) == {2: (0, 3, 1)}
    # Until the client moves past them, the records are sent again.
    assert answered(fetch(client, sid, 3, topic, {}, version=version, topic_id=topic_id)) == {2: (0, 3, 1)}
    again = fetch(client, sid, 4, topic, {2: 3}, version=version, topic_id=topic_id)
    assert answered(again) == {}
    # Forgotten partitions are no longer read.
    produce(client, topic, 1, 1)
    forgot = fetch(client, sid, 5, topic, {}, version=version, topic_id=topic_id, forget=[1])
    assert answered(forgot) == {}
    # A partition added back joins the session with its new position.
    added = fetch(client, sid, 6, topic, {1: 0}, version=version, topic_id=topic_id)
    assert answered(added) == {1: (0, 1, 1)}


def test_session_errors(client: WireClient) -> None:
    topic, _ = create(client, 1)
    sid = fetch(client, 0, 0, topic, {0: 0}).session_id
    assert sid != 0
    wrong_epoch = fetch(client, sid, 5, topic, {})
    assert (wrong_epoch.error_code, wrong_epoch.session_id, wrong_epoch.responses) == (
        ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0, [])
    unknown = fetch(client, sid ^ 0x5A5A5A5, 1, topic, {})
    assert (unknown.error_code, unknown.session_id) == (ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0)
    # A session opened by name cannot go on by topic id.
    switched = fetch(client, sid, 1, topic, {}, version=V_IDS)
    assert switched.error_code == ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR
    # The epoch did not move on any of those.
    assert fetch(client, sid, 1, topic, {}).error_code == ErrorCode.NONE


def test_full_fetches_close_the_session_they_name(client: WireClient) -> None:
    topic, _ = create(client, 1)
    first = fetch(client, 0, 0, topic, {0: 0}).session_id
    # A new full fetch naming it closes it and opens another.
    second = fetch(client, first, 0, topic, {0: 0}).session_id
    assert second not in (0, first)
    assert fetch(client, first, 1, topic, {}).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    # Epoch -1 closes it too, and opens none: the answer is sessionless and complete.
    closing = fetch(client, second, -1, topic, {0: 0})
    assert (closing.error_code, closing.session_id, answered(closing)) == (0, 0, {0: (0, 0, 0)})
    assert fetch(client, second, 1, topic, {}).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    # Forgetting every partition closes the session.
    third = fetch(client, 0, 0, topic, {0: 0}).session_id
    emptied = fetch(client, third, 1, topic, {}, forget=[0])
    assert (emptied.error_code, emptied.session_id) == (0, 0)
    assert fetch(client, third, 2, topic, {}).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND


def test_partitions_with_errors_are_always_answered(client: WireClient) -> None:
    topic, _ = create(client, 2)
    full = fetch(client, 0, 0, topic, {0: 0, 1: 50})
    assert answered(full) == {0: (0, 0, 0), 1: (ErrorCode.OFFSET_OUT_OF_RANGE, 0, 0)}
    for epoch in (1, 2):
        inc = fetch(client, full.session_id, epoch, topic, {})
        assert answered(inc) == {1: (ErrorCode.OFFSET_OUT_OF_RANGE, 0, 0)}
    # Once the position is valid the partition is sent once more (its high watermark
    # was forgotten with the error), then no longer.
    assert answered(fetch(client, full.session_id, 3, topic, {1: 0})) == {1: (0, 0, 0)}
    assert answered(fetch(client, full.session_id, 4, topic, {})) == {}


def test_full_fetch_without_partitions_opens_no_session(client: WireClient) -> None:
    resp = client.call(FETCH, V_NAMES, FetchRequest(max_wait_ms=0, session_id=0, session_epoch=0, topics=[]))
    assert (resp.error_code, resp.session_id) == (0, 0)  # type: ignore[attr-defined]


def test_cache_slots_limit_the_sessions(tmp_path: Path) -> None:
    # Kafka splits the slots over eight shards and deals new sessions to them in turn:
    # 16 slots are two sessions a shard.
    proc = BrokerProcess(tmp_path / "data", overrides={"max.incremental.fetch.session.cache.slots": "16"})
    proc.start()
    try:
        with WireClient(proc.bootstrap) as c:
            topic, _ = create(c, 1)
            ids = [fetch(c, 0, 0, topic, {0: 0}).session_id for _ in range(17)]
            # The 17th full fetch finds its shard full of young sessions: it is answered
            # without one, and the others go on.
            assert all(ids[:16]) and len(set(ids[:16])) == 16 and ids[16] == 0
            assert [i // SESSION_ID_RANGE for i in ids[:16]] == list(range(8)) * 2
            assert all(fetch(c, sid, 1, topic, {}).error_code == ErrorCode.NONE for sid in ids[:16])
    finally:
        proc.stop()


# -- the cache's eviction rules, on the injected clock ----------------------------------------

EVICTION_MS = 1000


def partitions(n: int) -> dict[PartitionKey, CachedPartition]:
    return {("t", i): CachedPartition("t", uuid.UUID(int=0), FetchPartition(partition=i)) for i in range(n)}


def test_a_stale_session_gives_up_its_slot() -> None:
    clock = ManualClock()
    shard = FetchSessionCacheShard(2, EVICTION_MS, 3)
    a = shard.create(clock.monotonic_ms(), False, partitions(1))
    clock.advance(10)
    b = shard.create(clock.monotonic_ms(), False, partitions(1))
    assert shard.create(clock.monotonic_ms(), False, partitions(5)) == 0
    # `a` unused for longer than the eviction time: the least recently used goes.
    clock.advance(EVICTION_MS - 9)
    shard.touch(shard.sessions[b], clock.monotonic_ms())
    c = shard.create(clock.monotonic_ms(), False, partitions(1))
    assert c != 0 and set(shard.sessions) == {b, c} and a not in shard.sessions
    assert all(3 * SESSION_ID_RANGE <= sid < 4 * SESSION_ID_RANGE for sid in shard.sessions)


def test_an_older_session_gives_its_slot_only_to_a_larger_one() -> None:
    clock = ManualClock()
    shard = FetchSessionCacheShard(2, EVICTION_MS, 0)
    small = shard.create(clock.monotonic_ms(), False, partitions(2))
    large = shard.create(clock.monotonic_ms(), False, partitions(4))
    # Both used recently, but now older than the eviction time (as of their last use).
    clock.advance(EVICTION_MS + 1)
    for sid in (small, large):
        shard.touch(shard.sessions[sid], clock.monotonic_ms())
    assert shard.create(clock.monotonic_ms(), False, partitions(2)) == 0  # not larger than the smallest
    bigger = shard.create(clock.monotonic_ms(), False, partitions(3))
    assert bigger != 0 and set(shard.sessions) == {large, bigger}
    # The new session is young: nothing can take its slot, nor `large`'s (larger).
    assert shard.create(clock.monotonic_ms(), False, partitions(3)) == 0


def test_session_ids_name_their_shard() -> None:
    cache = FetchSessionCache(16, ManualClock())
    assert [cache.next_shard().shard_num for _ in range(9)] == [0, 1, 2, 3, 4, 5, 6, 7, 0]
    sid = cache.shards[5].create(0, False, partitions(1))
    assert cache.get(sid) is cache.shards[5].sessions[sid]
    # Ids past the last shard's range, or negative, are simply unknown.
    assert cache.shard_of(2**31 - 1) is None and cache.get(2**31 - 1) is None and cache.get(-7) is None
    cache.remove(sid)
    assert cache.get(sid) is None
