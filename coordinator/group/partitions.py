"""Loading and unloading the partitions of `__consumer_offsets` as this broker gains and
loses their leadership (Kafka's GroupCoordinator onElection/onResignation, run by its
CoordinatorRuntime's scheduleLoadOperation/scheduleUnloadOperation).

An election marks the partition loading at once (its groups answer
COORDINATOR_LOAD_IN_PROGRESS), replays it in the background and installs its groups, their
members' sessions and the transaction markers that reached it meanwhile. A resignation
stops serving the partition at once: its groups go (waiting JoinGroup/SyncGroup requests
are answered NOT_COORDINATOR, as Kafka's onGroupUnloaded), their timers are cancelled, and
writes in flight end with NOT_COORDINATOR (`GroupRuntime.append`). Stale epochs are
ignored (coordinator/ownership.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import structlog

from coordinator.group.api import JoinResult, SyncResult
from coordinator.group.classic.group import ClassicGroup
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.classic.states import GroupState
from coordinator.group.consumer.group import ConsumerGroup
from coordinator.group.metadata_manager import GroupMetadataManager
from coordinator.group.offset_manager import OffsetManager
from coordinator.group.runtime import GroupRuntime
from coordinator.group.timers import group_of
from coordinator.ownership import OwnedPartition
from protocol.errors import ErrorCode

log = structlog.get_logger("odradek.groups")


class GroupPartitions:
    def __init__(
        self,
        rt: GroupRuntime,
        metadata: GroupMetadataManager,
        rebalance: Rebalancer,
        offsets: OffsetManager,
        consumers_loaded: Callable[[list[ConsumerGroup]], None],
    ) -> None:
        self.rt = rt
        self.metadata = metadata
        self.rebalance = rebalance
        self.offsets = offsets
        self._consumers_loaded = consumers_loaded
        # Wall time of the last partition load (operators watch it; not a protocol timer).
        self.last_load_seconds: float | None = None
        # The share groups kept in the same partitions (the share coordinator's, set by the
        # broker): read while a partition loads, before its groups are served, and dropped
        # when it is given up.
        self.share_load: Callable[[int], Awaitable[None]] | None = None
        self.share_unload: Callable[[int], None] | None = None

    def elect(self, partition: int, epoch: int) -> asyncio.Task[None] | None:
        """Become the partition's coordinator at `epoch`: loading at once, loaded when the
        task returned ends; None for a stale election (nothing changes)."""
        previous, owned = self.rt.ownership.elect(partition, epoch)
        if owned is None:
            log.info("ignored a stale election", partition=partition, epoch=epoch)
            return None
        if previous is not None:
            # Reloaded: the markers that reached it while it loaded wait for the new load.
            self._unload(previous, keep_markers=True)
        log.info("loading group coordinator partition", partition=partition, epoch=epoch)
        return asyncio.get_running_loop().create_task(self.load(owned), name=f"load-consumer-offsets-{partition}")

    def resign(self, partition: int, epoch: int | None) -> bool:
        """Stop coordinating the partition's groups at once; False for a stale resignation
        (or a partition not owned)."""
        owned = self.rt.ownership.resign(partition, epoch)
        if owned is None:
            return False
        self._unload(owned)
        log.info("unloaded group coordinator partition", partition=partition, epoch=epoch)
        return True

    async def load(self, owned: OwnedPartition) -> None:
        started = time.perf_counter()
        try:
            groups, consumer_groups = await self.metadata.load(owned.partition)
        except Exception:
            # Kafka's FAILED coordinator: NOT_COORDINATOR until elected again.
            log.exception("loading a __consumer_offsets partition failed", partition=owned.partition)
            if self.rt.ownership.get(owned.partition) is owned:
                self.rt.ownership.resign(owned.partition, None)
                self._unload(owned)
            return
        if self.share_load is not None and self.rt.ownership.get(owned.partition) is owned:
            try:
                await self.share_load(owned.partition)
            except Exception:
                log.exception("loading the share groups of a __consumer_offsets partition failed",
                              partition=owned.partition)
        if not self.rt.ownership.loaded(owned):
            return  # resigned (or elected again) while replaying: the result is stale
        for group in groups:
            self.rt.groups[group.group_id] = group
            for member in group.members.values():
                self.rebalance.schedule_heartbeat(group, member)
        self._consumers_loaded(consumer_groups)
        self.offsets.apply_markers_seen_while_loading(owned.partition)
        self.last_load_seconds = time.perf_counter() - started
        log.info("group coordinator partition loaded", partition=owned.partition, epoch=owned.epoch,
                 groups=len(groups) + len(consumer_groups))

    def _unload(self, owned: OwnedPartition, keep_markers: bool = False) -> None:
        partition = owned.partition
        rt = self.rt

        def ours(group_id: str) -> bool:
            return rt.partition_for(group_id) == partition

        rt.timers.cancel_matching(lambda key: (g := group_of(key)) is not None and ours(g))
        for group_id in [g for g in rt.groups if ours(g)]:
            _unload_classic(rt.groups.pop(group_id), rt.clock.now_ms())
        for group_id in [g for g in rt.consumer_groups if ours(g)]:
            del rt.consumer_groups[group_id]
        if not keep_markers:
            self.offsets.forget_partition(partition)
        if self.share_unload is not None:
            self.share_unload(partition)


def _unload_classic(group: ClassicGroup, now_ms: int) -> None:
    """Kafka's onGroupUnloaded: the group is Dead, and the requests waiting in it learn
    that this broker no longer coordinates it."""
    group.transition_to(GroupState.DEAD, now_ms)
    for member in group.members.values():
        member.complete_join(JoinResult(ErrorCode.NOT_COORDINATOR, member.member_id))
        member.complete_sync(SyncResult(ErrorCode.NOT_COORDINATOR))
