"""The share coordinator of one broker: share group membership (`heartbeat.py`) and the share
partitions with their durable state (`partitions.py`, `state_store.py`).

Membership is soft state, as the brief for this layer allows: it is not written to
`__consumer_offsets`, so after a restart members re-join with their next heartbeat (an
unknown member is answered UNKNOWN_MEMBER_ID and the client joins again with epoch 0). What
must survive a restart, the acknowledgements and delivery counts, is in `__share_group_state`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import structlog

from coordinator.log import AppendErrorPolicy, CoordinatorLog, CoordinatorLogError
from coordinator.share.config import SharePartitionConfig
from coordinator.share.group import ShareGroupState
from coordinator.share.heartbeat import ShareGroupMembership, ShareMembershipConfig
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


class ShareCoordinator:
    def __init__(
        self,
        state_log: CoordinatorLog,
        clock: Clock,
        membership_config: ShareMembershipConfig | None = None,
        snapshot_every: int = 500,
    ) -> None:
        self.clock = clock
        self.store = ShareStateStore(state_log, clock, snapshot_every)
        self.partitions = SharePartitions(self.store, clock)
        self.partitions.on_available = lambda key: self.notify()
        self.membership = ShareGroupMembership(clock, membership_config, on_member_removed=self._member_removed)
        self.sessions = ShareSessionCache()
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()

    async def load(self) -> None:
        await self.store.load()

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
        read was asked); answered once durable. A failed write acquires nothing (the records
        stay available)."""
        try:
            return await self.partitions.change(
                key,
                lambda sp: sp.acquire(
                    member_id, fetched, max_records, mode, read_until=read_until, read_from=read_from
                ),
            )
        except CoordinatorLogError as exc:
            log.warning("share state write failed; nothing acquired", key=str(key), error=exc.error.name)
            return []

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
        if released:
            self.notify()

    # --- groups, for the admin APIs ---------------------------------------------------------

    def group_ids(self) -> list[str]:
        """Share groups with members, or with share-partition state (a group whose members
        have not re-joined since a restart)."""
        ids = dict.fromkeys(self.membership.groups)
        ids.update(dict.fromkeys(k.group_id for k in self.store.states))
        return list(ids)

    def is_share_group(self, group_id: str) -> bool:
        return group_id in self.membership.groups or any(k.group_id == group_id for k in self.store.states)

    def group_state(self, group_id: str) -> ShareGroupState:
        group = self.membership.groups.get(group_id)
        return group.state if group is not None else ShareGroupState.EMPTY

    async def delete_group(self, group_id: str) -> ErrorCode:
        """DeleteGroups of a share group: only an empty one; its share-partition state goes too."""
        group = self.membership.groups.get(group_id)
        if group is not None and group.members:
            return ErrorCode.NON_EMPTY_GROUP
        keys = {k for k in self.store.states if k.group_id == group_id}
        keys |= {k for k in self.partitions.partitions if k.group_id == group_id}
        try:
            for key in keys:
                await self.partitions.delete(key)
        except CoordinatorLogError as exc:
            return exc.client_error(SHARE_STATE)
        self.membership.groups.pop(group_id, None)
        return ErrorCode.NONE

    def _member_removed(self, group_id: str, member_id: str) -> None:
        self.sessions.close_member(group_id, member_id)
        self.spawn(self.release_member(group_id, member_id))

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
