"""Group metadata in `__consumer_offsets`: rebuilding every group and its offsets from the
log, one partition at a time (Kafka's GroupMetadataManager; a classic group's record is
`classic/metadata.py`'s, written by `classic/rebalance.py`)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import structlog

from coordinator.group import records
from coordinator.group.classic.group import ClassicGroup
from coordinator.group.classic.metadata import group_from_record
from coordinator.group.consumer import records as consumer_records
from coordinator.group.consumer import replay as consumer_replay
from coordinator.group.consumer.group import ConsumerGroup
from coordinator.group.consumer.replay import LoadCheck
from coordinator.group.offsets import OffsetStore
from coordinator.group.runtime import GroupRuntime
from coordinator.log import GROUP_METADATA, CoordinatorLogError, LogRecord
from protocol.errors import ErrorCode
from protocol.messages.group_metadata_value import GroupMetadataValue

log = structlog.get_logger("odradek.groups")
# Kafka's share group records (10 member metadata ... 14 current assignment).
SHARE_GROUP_RECORD_TYPES = range(10, 15)



class _Replay:
    """The last word of the log on every group, offset and open transaction."""

    def __init__(self, topic_names: Mapping[uuid.UUID, str]) -> None:
        self.metadata: dict[str, GroupMetadataValue | None] = {}
        # Every group's offsets, by the replay serving uses too (`OffsetStore.replay`).
        self.offsets: dict[str, OffsetStore] = {}
        # KIP-848 groups, by the replay serving uses too (`consumer/replay.py`).
        self.consumer_groups: dict[str, ConsumerGroup] = {}
        self.consumer_check = LoadCheck()
        self.topic_names = topic_names

    def apply(self, entry: LogRecord) -> None:
        if entry.control_commit is not None:
            for store in self.offsets.values():
                store.complete_txn(entry.producer_id, entry.control_commit)
            return
        if entry.key is None:
            return
        record_type = int.from_bytes(entry.key[:2], "big", signed=True) if len(entry.key) >= 2 else -1
        if record_type in SHARE_GROUP_RECORD_TYPES:
            return  # share groups' membership: the share coordinator reads it (coordinator/share/membership_store.py)
        if record_type in consumer_records.RECORD_TYPES:
            try:
                consumer_replay.replay(self.consumer_groups, record_type, entry.key[2:], entry.value,
                                       self.topic_names, self.consumer_check)
            except ValueError:
                log.warning("skipping unreadable __consumer_offsets record", offset=entry.offset)
            return
        try:
            key = records.parse_key(entry.key)
        except (records.UnknownRecordError, ValueError):
            log.warning("skipping unreadable __consumer_offsets record", offset=entry.offset)
            return
        if isinstance(key, records.GroupKey):
            self.metadata[key.group] = None if entry.value is None else records.parse_group_value(entry.value)
            return
        om = None if entry.value is None else records.offset_from_record(entry.value, entry.offset)
        self.offsets.setdefault(key.group, OffsetStore()).replay(
            (key.topic, key.partition), om, entry.offset, entry.producer_id if entry.transactional else None)

    def group_ids(self) -> set[str]:
        return {*self.metadata, *self.offsets}


class GroupMetadataManager:
    def __init__(self, rt: GroupRuntime) -> None:
        self.rt = rt

    async def ensure_log(self) -> ErrorCode:
        """Create the log's topic if it is missing (FindCoordinator does, as in Kafka)."""
        try:
            await self.rt.log.ensure_topic()
        except CoordinatorLogError as exc:
            return exc.client_error(GROUP_METADATA)
        return ErrorCode.NONE

    async def load(self, partition: int) -> tuple[list[ClassicGroup], list[ConsumerGroup]]:
        """Rebuild the groups of one partition from the log: the classic groups (with
        every group's offsets) and the consumer groups. The caller installs them, if it
        still owns the partition once the replay is done."""
        replay = _Replay(self.rt.topic_names())
        for entry in await self.rt.log.replay(partition):
            replay.apply(entry)
        now = self.rt.clock.now_ms()
        loaded = []
        for group_id in replay.group_ids():
            value = replay.metadata.get(group_id)
            offsets = replay.offsets.get(group_id)
            if value is None and (offsets is None or not (offsets.committed or offsets.pending_txn)):
                continue
            group = group_from_record(group_id, value, now)
            if offsets is not None:
                group.offsets = offsets
            loaded.append(group)
        replay.consumer_check.finish(replay.consumer_groups)
        return loaded, list(replay.consumer_groups.values())
