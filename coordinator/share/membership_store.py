"""Share group membership made durable in `__consumer_offsets` (records in
`membership_records.py`), in the group's partition of the topic as Kafka's group coordinator
places it, and read back on load.

Each write takes the log from what was last written of the group to what the group is now
(`membership_records.changes`): a heartbeat that changed nothing durable writes nothing.
The group coordinator (`coordinator/group/`) reads the same topic and skips these record
types; this store reads only them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping

from coordinator.log import CoordinatorLog, CoordinatorLogError
from coordinator.partitioning import partition_for
from coordinator.share import membership_records as mr
from coordinator.share.group import ShareGroup
from protocol.errors import ErrorCode


class ShareMembershipStore:
    def __init__(self, log: CoordinatorLog, topic_ids: Callable[[], Mapping[str, uuid.UUID]]) -> None:
        self.log = log
        # Topic name -> id (records store partitions by topic id), the broker's topics.
        self.topic_ids = topic_ids
        # Group id -> what the log holds of it now.
        self.written: dict[str, dict[bytes, bytes]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, group_id: str) -> asyncio.Lock:
        return self._locks.setdefault(group_id, asyncio.Lock())

    async def write(self, group_id: str, group: ShareGroup | None) -> None:
        """Make `group` (None: deleted) durable as it is now; raises CoordinatorLogError, and
        then `written` still holds what the log has. The caller holds `lock(group_id)`."""
        before = self.written.get(group_id, {})
        after = {} if group is None else mr.group_records(group, self.topic_ids())
        records = mr.changes(before, after)
        if not records:
            return
        try:
            await self.log.ensure_topic()
            await self.log.append(partition_for(group_id, self.log.num_partitions), records)
        except CoordinatorLogError:
            raise
        except Exception as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc
        if after:
            self.written[group_id] = after
        else:
            self.written.pop(group_id, None)

    def last_written(self, group_id: str, names: Mapping[uuid.UUID, str]) -> ShareGroup | None:
        """The group as the log holds it (to put back after a failed write)."""
        records = self.written.get(group_id)
        if not records:
            return None
        groups: dict[str, ShareGroup] = {}
        check = mr.LoadCheck()
        for key, value in records.items():
            mr.replay(groups, key, value, names, check)
        check.finish(groups)
        return groups.get(group_id)

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.log.num_partitions)

    async def load(self, names: Mapping[uuid.UUID, str]) -> dict[str, ShareGroup]:
        """Every share group the log holds."""
        groups: dict[str, ShareGroup] = {}
        for partition in range(self.log.num_partitions):
            groups.update(await self.load_partition(partition, names))
        return groups

    async def load_partition(self, partition: int, names: Mapping[uuid.UUID, str]) -> dict[str, ShareGroup]:
        """The share groups of one partition of the log, as it holds them now (another
        broker may have written them since this one last read them)."""
        groups: dict[str, ShareGroup] = {}
        check = mr.LoadCheck()
        for entry in await self.log.replay(partition):
            if entry.key is None or mr.record_type(entry.key) not in mr.RECORD_TYPES:
                continue
            try:
                mr.replay(groups, entry.key, entry.value, names, check)
            except ValueError:
                continue  # unreadable: as the group coordinator, skipped
        check.finish(groups)
        ids = {name: tid for tid, name in names.items()}
        for gid in [g for g in self.written if self.partition_for(g) == partition]:
            del self.written[gid]
        self.written.update({gid: mr.group_records(g, ids) for gid, g in groups.items()})
        return groups

    def forget_partition(self, partition: int) -> list[str]:
        """Drop what is known of the partition's groups (another broker coordinates them
        now); returns their ids."""
        gone = [g for g in self.written if self.partition_for(g) == partition]
        for gid in gone:
            del self.written[gid]
        return gone
