"""The coordinators' state rebuilt from compacted internal topics equals the state before
compaction: the group coordinator's offsets (storage-level and with a real broker whose
__consumer_offsets uses tiny segments) and the transaction coordinator's log."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from broker.config import Config
from coordinator.group.api import CommitOffsets
from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.log import LogRecord, StorageCoordinatorLog
from coordinator.transaction.records import TOPIC_CONFIGS, TRANSACTION_STATE_TOPIC
from protocol.errors import ErrorCode
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from storage.clock import ManualClock
from storage.file_storage import FileStorage
from storage.log import Log
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient

OFFSETS = "__consumer_offsets"
DAY = 86_400_000


def om(offset: int) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset=offset, metadata=f"m{offset}", commit_timestamp=0)


def _config() -> GroupConfig:
    return replace(GroupConfig.from_config(Config()), initial_rebalance_delay_ms=0)


async def group_state(storage: FileStorage, clock: ManualClock) -> dict[str, dict[tuple[str, int], tuple[int, str]]]:
    coord = GroupCoordinator(StorageCoordinatorLog(storage, OFFSETS, 1, clock), clock, _config())
    await coord.load()
    out = {}
    for group in sorted(coord.groups):
        got = coord.fetch_offsets(group, None, False)[1]
        out[group] = {tp: (o.offset, o.metadata) for tp, o in got.items()}
    await coord.stop()
    return out


async def test_group_offsets_survive_compaction_and_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    storage = await FileStorage.open(tmp_path, clock=clock, segment_bytes_override=2000, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    coord = GroupCoordinator(StorageCoordinatorLog(storage, OFFSETS, 1, clock), clock, _config())
    await coord.load()
    for i in range(300):
        group = f"g{i % 3}"
        await coord.commit_offsets(CommitOffsets(group, "", None, -1, {("t", i % 4): om(i), ("u", 0): om(1000 + i)}))
    await coord.commit_offsets(CommitOffsets("doomed", "", None, -1, {("t", 0): om(1)}))
    await coord.delete_groups(["doomed"])
    await coord.stop()
    before = await group_state(storage, clock)
    assert set(before) == {"g0", "g1", "g2"}
    log = storage.log(OFFSETS, 0)
    assert isinstance(log, Log)
    size_before = log.size_bytes
    assert await storage.compact() == 1
    assert log.size_bytes < size_before / 5
    assert await group_state(storage, clock) == before
    await storage.close()
    storage = await FileStorage.open(tmp_path, clock=clock, segment_bytes_override=2000, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert await group_state(storage, clock) == before
    # The deleted group's tombstones go once delete.retention.ms has passed.
    clock.advance(DAY)
    await storage.compact()
    assert await group_state(storage, clock) == before
    await storage.close()


def transaction_log(storage: FileStorage, clock: ManualClock) -> StorageCoordinatorLog:
    return StorageCoordinatorLog(storage, TRANSACTION_STATE_TOPIC, 1, clock, TOPIC_CONFIGS)


async def test_transaction_log_latest_per_key_survives_compaction(tmp_path: Path) -> None:
    clock = ManualClock()
    storage = await FileStorage.open(tmp_path, clock=clock, segment_bytes_override=1500, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    store = transaction_log(storage, clock)
    for i in range(200):
        await store.append(0, [(b"tid-%d" % (i % 5), b"state-%d" % i)])
    await store.append(0, [(b"tid-0", None)])  # an expired transactional id
    before = await store.replay(0)

    def latest(records: list[LogRecord]) -> dict[bytes | None, bytes | None]:
        return {r.key: r.value for r in records}

    assert await storage.compact() == 1
    after = await store.replay(0)
    assert len(after) < 20 and latest(after) == latest(before)
    await storage.close()
    storage = await FileStorage.open(tmp_path, clock=clock, segment_bytes_override=1500, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert latest(await transaction_log(storage, clock).replay(0)) == latest(before)
    await storage.close()


# --- with a real broker ---------------------------------------------------------------------------


def commit(c: WireClient, group: str, topic: str, offsets: dict[int, int]) -> None:
    resp: Any = c.call(8, 7, OffsetCommitRequest(group_id=group, topics=[OffsetCommitRequestTopic(
        name=topic, partitions=[OffsetCommitRequestPartition(partition_index=p, committed_offset=o)
                                for p, o in offsets.items()])]))
    assert {p.error_code for t in resp.topics for p in t.partitions} == {ErrorCode.NONE}


def fetch(c: WireClient, group: str, topic: str, partitions: list[int]) -> dict[int, int]:
    resp: Any = c.call(9, 7, OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=partitions)]))
    return {p.partition_index: p.committed_offset for t in resp.topics for p in t.partitions}


def test_broker_compacts_consumer_offsets(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data", overrides={
        "offsets.topic.num.partitions": "1",
        "offsets.topic.segment.bytes": "4096",
        "log.cleaner.backoff.ms": "200",
    })
    broker.start()
    try:
        with WireClient(broker.bootstrap) as c:
            c.call(3, 9, MetadataRequest(topics=[MetadataRequestTopic(name="ta"), MetadataRequestTopic(name="tb")],
                                         allow_auto_topic_creation=True))
            for i in range(400):
                commit(c, f"group-{i % 2}", "ta", {0: i})
                commit(c, f"group-{i % 2}", "tb", {0: 10_000 + i})
            expected = {g: (fetch(c, g, "ta", [0]), fetch(c, g, "tb", [0])) for g in ("group-0", "group-1")}
            assert expected == {"group-0": ({0: 398}, {0: 10_398}), "group-1": ({0: 399}, {0: 10_399})}
        directory = tmp_path / "data" / f"{OFFSETS}-0"

        def total_bytes() -> int:
            total = 0
            for name in os.listdir(directory):
                if name.endswith(".log"):
                    with contextlib.suppress(FileNotFoundError):  # swapped out meanwhile
                        total += os.path.getsize(directory / name)
            return total

        # A first cleaning round may run while the commits are still being written, so wait
        # for one that covers them, not merely for the first checkpoint.
        deadline = time.monotonic() + 20
        while not (directory / "cleaner-offset-checkpoint").exists() or total_bytes() >= 800 * 100 / 4:
            assert time.monotonic() < deadline, f"not compacted: {total_bytes()} bytes of segments"
            time.sleep(0.1)
        assert total_bytes() < 800 * 100 / 4  # far less than the 800 commits written
        broker.stop()
        broker.start()
        with WireClient(broker.bootstrap) as c:
            assert {g: (fetch(c, g, "ta", [0]), fetch(c, g, "tb", [0])) for g in ("group-0", "group-1")} == expected
    finally:
        if broker.alive:
            broker.stop()
