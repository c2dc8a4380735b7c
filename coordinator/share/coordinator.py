"""The share coordinator of one broker: share group membership (`heartbeat.py`) and the share
partitions with their durable state (`partitions.py`, `state_store.py`).

Membership is written to `__consumer_offsets` before a heartbeat that changed it is answered
(`membership_store.py`, Kafka's share group records) and read back at load, so a restart
keeps every group's epochs and members, whose sessions start again then. The acknowledgements
and delivery counts are in `__share_group_state`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any

import structlog

from coordinator.log import AppendErrorPolicy, CoordinatorLog, CoordinatorLogError, MemoryCoordinatorLog
from coordinator.share.config import SharePartitionConfig
from coordinator.share.group import ShareGroupState, ShareTopic
from coordinator.share.heartbeat import (
    ShareGroupMembership,
    ShareHeartbeat,
    ShareHeartbeatResult,
    ShareMembershipConfig,
)
from coordinator.share.membership_store import ShareMembershipStore
from coordinator.share.partition import (
    Acknowledgement,
    AcquiredRecords,
    AcquireMode,
    ShareAcknowledgeError,
    SharePartition,
)
from coordinator.share.partitions import SharePartitions
from coordinator.share.records import SharePartitionKey
from coordinator.share.sessions import ShareSessionCache
from coordinator.share.state_store import ShareStateStore
from protocol.errors import ErrorCode
from storage.clock import Clock

log = structlog.get_logger("odradek.share")

# How a failed write of share-partition state is answered (Kafka's share coordinator maps
# its write timeouts and oversized batches like the group coordinator's offset writes).
SHARE_STATE = AppendErrorPolicy(ErrorCode.REQUEST_TIMED_OUT, ErrorCode.UNKNOWN_SERVER_ERROR)
# How a failed membership write is answered: as Kafka's group coordinator answers a
# ConsumerGroupHeartbeat or ShareGroupHeartbeat whose records it could not write.
SHARE_GROUP_HEARTBEAT = AppendErrorPolicy(ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.UNKNOWN_SERVER_ERROR)


class ShareCoordinator:
    def __init__(
        self,
        state_log: CoordinatorLog,
        clock: Clock,
        membership_config: ShareMembershipConfig | None = None,
        snapshot_every: int = 500,
        *,
        membership_log: CoordinatorLog | None = None,
        topic_names: Callable[[], Mapping[uuid.UUID, str]] = dict,
        owns_all: bool = True,
    ) -> None:
        self.clock = clock
        # Topic id -> name (the broker's topics): membership records name partitions by id.
        self.topic_names = topic_names
        self.membership_store = ShareMembershipStore(
            membership_log if membership_log is not None else MemoryCoordinatorLog(),
            lambda: {name: tid for tid, name in self.topic_names().items()},
        )
        # In a cluster the state partitions follow leadership (`ShareStateStore.on_election`).
        self.store = ShareStateStore(state_log, clock, snapshot_every, owns_all)
        self.partitions = SharePartitions(self.store, clock)
        self.partitions.on_available = lambda key: self.notify()
        self.partitions.spawn = self.spawn
        self.membership = ShareGroupMembership(clock, membership_config, on_member_removed=self._member_removed)
        self.sessions = ShareSessionCache()
        # Whether this broker coordinates a group now: None, or what a group request is
        # answered (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS). Share groups live in
        # `__consumer_offsets` beside the other groups, so they follow the group
        # coordinator's partitions (set by the broker; a lone coordinator serves them all).
        self.group_status: Callable[[str], ErrorCode | None] = lambda group_id: None
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()

    async def load(self) -> None:
        await self.store.load()
        for group_id, group in (await self.membership_store.load(self.topic_names())).items():
            self.membership.install(group_id, group)

    # --- following the group coordinator's partitions of __consumer_offsets -----------------

    async def load_groups(self, partition: int) -> None:
        """This broker now coordinates the groups of `partition` of `__consumer_offsets`:
        its share groups are read again from the log (called while the partition loads,
        before its groups are served)."""
        loaded = await self.membership_store.load_partition(partition, self.topic_names())
        for group_id in [g for g in self.membership.groups if self.membership_store.partition_for(g) == partition]:
            if group_id not in loaded:
                self.membership.install(group_id, None)
        for group_id, group in loaded.items():
            self.membership.install(group_id, group)

    def unload_groups(self, partition: int) -> None:
        """Another broker coordinates the groups of `partition` now: its share groups are
        dropped here (their session timers too)."""
        gone = set(self.membership_store.forget_partition(partition))
        gone |= {g for g in self.membership.groups if self.membership_store.partition_for(g) == partition}
        for group_id in gone:
            self.membership.install(group_id, None)

    # --- membership -----------------------------------------------------------------------------

    async def heartbeat(self, req: ShareHeartbeat, topics: Mapping[str, ShareTopic]) -> ShareHeartbeatResult:
        """A ShareGroupHeartbeat, answered once what it changed is durable; a failed write
        puts the group back as the log holds it and answers the error."""
        status = self.group_status(req.group_id)
        if status is not None:
            return ShareHeartbeatResult(error=status)
        async with self.membership_store.lock(req.group_id):
            result = self.membership.heartbeat(req, topics)
            if result.error != ErrorCode.NONE:
                return result
            try:
                await self.membership_store.write(req.group_id, self.membership.groups.get(req.group_id))
            except CoordinatorLogError as exc:
                log.warning("share group write failed; the group is as it was", group=req.group_id,
                            error=exc.error.name)
                self.membership.install(req.group_id,
                                        self.membership_store.last_written(req.group_id, self.topic_names()))
                return ShareHeartbeatResult(error=exc.client_error(SHARE_GROUP_HEARTBEAT))
            return result

    async def _write_group(self, group_id: str) -> None:
        """Make a change not made by a heartbeat (a session timeout) durable; a failed write
        is retried by the group's next change."""
        async with self.membership_store.lock(group_id):
            try:
                await self.membership_store.write(group_id, self.membership.groups.get(group_id))
            except CoordinatorLogError as exc:
                log.warning("share group write failed", group=group_id, error=exc.error.name)

    # --- waking ShareFetches that wait for records ---------------------------------------------

    def notify(self) -> None:
        """Records may have become acquirable (released, timed out, acknowledged)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def change_event(self) -> asyncio.Event:
        """Set at the next `notify`: take it before looking, then wait on it."""
        return self._changed

    # --- share partitions ---------------------------------------------------------------------

    def partition(
        self, key: SharePartitionKey, initial_start_offset: Callable[[], int], config: SharePartitionConfig
    ) -> SharePartition:
        return self.partitions.get(key, initial_start_offset, config)

    def forget_partition(self, topic: str, partition: int) -> None:
        """This broker no longer leads `topic`-`partition`: its share partitions are read
        again from their durable state should leadership come back (Kafka's
        SharePartitionManager drops them on a leader change)."""
        ids = {tid for tid, name in self.topic_names().items() if name == topic}
        for key in [k for k in self.partitions.partitions if k.topic_id in ids and k.partition == partition]:
            self.partitions.forget(key)

    async def open_partition(
        self,
        key: SharePartitionKey,
        initial_start_offset: Callable[[], Awaitable[int]],
        config: SharePartitionConfig,
    ) -> SharePartition:
        """The share partition, its state read through the persister on first use; raises
        CoordinatorLogError when it cannot be read."""
        return await self.partitions.open(key, initial_start_offset, config)

    async def acquire(
        self,
        key: SharePartitionKey,
        member_id: str,
        fetched: Sequence[tuple[int, int]],
        max_records: int,
        mode: AcquireMode,
        read_until: int | None,
        read_from: int | None = None,
    ) -> list[AcquiredRecords]:
        """Acquire out of what was read from `read_from` (the `next_fetch_offset` of when the
        read was asked), in memory: Kafka's `SharePartition.acquire` writes nothing, so a
        crash delivers these records again at the delivery count last written."""
        return await self.partitions.in_memory(
            key,
            lambda sp: sp.acquire(member_id, fetched, max_records, mode, read_until=read_until, read_from=read_from),
            list,
        )

    async def acknowledge(
        self, key: SharePartitionKey, member_id: str, acks: Sequence[Acknowledgement]
    ) -> ErrorCode:
        if key not in self.partitions.partitions:
            # Nothing was ever acquired here since this broker started.
            return ErrorCode.INVALID_RECORD_STATE
        try:
            await self.partitions.change(key, lambda sp: sp.acknowledge(member_id, acks))
        except ShareAcknowledgeError as exc:
            return exc.error_code
        except CoordinatorLogError as exc:
            log.warning("share state write failed; acknowledgement refused", key=str(key), error=exc.error.name)
            return ErrorCode.UNKNOWN_SERVER_ERROR
        self.notify()
        return ErrorCode.NONE

    async def release_member(self, group_id: str, member_id: str) -> None:
        """Everything the member holds in the group's share partitions becomes available."""
        released = False
        for key in [k for k in self.partitions.partitions if k.group_id == group_id]:
            try:
                if await self.partitions.change(key, lambda sp: sp.release_member(member_id)):
                    released = True
            except CoordinatorLogError as exc:
                # The locks still run: the records come back when they time out.
                log.warning("share state write failed on release", key=str(key), error=exc.error.name)
            except ShareAcknowledgeError:
                pass  # the share partition was reset or deleted meanwhile: nothing to release
        if released:
            self.notify()
        if self.sessions.take_emptied(group_id):
            await self._group_empty(group_id)

    async def _group_empty(self, group_id: str) -> None:
        """The group's last share session on this broker closed (Kafka's SharePartitionManager
        `onGroupEmpty`): its share partitions here are dropped, their state durable, and read
        again when a member comes back, so that an AlterShareGroupOffsets or
        DeleteShareGroupOffsets of the empty group, served by its share coordinator wherever
        that is, is what the next member starts from."""
        for key in [k for k in self.partitions.partitions if k.group_id == group_id]:
            async with self.partitions.lock(key):
                if not self.sessions.has_group(group_id):
                    self.partitions.forget(key)

    # --- groups, for the admin APIs ---------------------------------------------------------

    def group_ids(self) -> list[str]:
        """Share groups with members, or with share-partition state (a group whose members
        have not re-joined since a restart). In a cluster the state kept here is that of the
        state partitions this broker leads, whatever broker coordinates its group: only the
        groups coordinated here are named (a member-less group is in `membership`, read
        back from `__consumer_offsets`)."""
        ids = dict.fromkeys(self.membership.groups)
        stated = dict.fromkeys(k.group_id for k in self.store.states)
        ids.update(dict.fromkeys(g for g in stated if self.group_status(g) is None))
        return list(ids)

    def is_share_group(self, group_id: str) -> bool:
        return group_id in self.membership.groups or (
            self.group_status(group_id) is None and any(k.group_id == group_id for k in self.store.states))

    def group_state(self, group_id: str) -> ShareGroupState:
        group = self.membership.groups.get(group_id)
        return group.state if group is not None else ShareGroupState.EMPTY

    async def delete_group(self, group_id: str, elsewhere: Iterable[SharePartitionKey] = ()) -> ErrorCode:
        """DeleteGroups of a share group: only an empty one; its share-partition state goes too,
        that kept here and that of the `elsewhere` share partitions (in a cluster, those whose
        state may be with another broker's share coordinator: the persister reaches it)."""
        group = self.membership.groups.get(group_id)
        if group is not None and group.members:
            return ErrorCode.NON_EMPTY_GROUP
        keys = {k for k in self.store.states if k.group_id == group_id}
        keys |= {k for k in self.partitions.partitions if k.group_id == group_id}
        keys |= {k for k in elsewhere if k.group_id == group_id}
        try:
            for key in sorted(keys, key=lambda k: (str(k.topic_id), k.partition)):
                await self.partitions.delete(key)
            async with self.membership_store.lock(group_id):
                # Checked again where heartbeats are serialized: a member may have joined
                # while the state was deleted (Kafka's GroupMetadataManager.deleteGroups
                # validates the group at its write too).
                group = self.membership.groups.get(group_id)
                if group is not None and group.members:
                    return ErrorCode.NON_EMPTY_GROUP
                await self.membership_store.write(group_id, None)
                self.membership.install(group_id, None)
        except CoordinatorLogError as exc:
            return exc.client_error(SHARE_STATE)
        return ErrorCode.NONE

    def _member_removed(self, group_id: str, member_id: str) -> None:
        self.sessions.close_member(group_id, member_id)
        self.spawn(self.release_member(group_id, member_id))
        # A leave is written by its heartbeat; a session timeout here.
        self.spawn(self._write_group(group_id))

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
