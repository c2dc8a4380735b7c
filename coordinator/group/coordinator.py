"""The group coordinator: the façade the API handlers call (Kafka's GroupCoordinator).
The work is done by its parts, one job each, in Kafka's layout:

- below both kinds of groups: `api` (request and result types), `offsets`, `records`,
  `config`, `timers`;
- `classic/`: classic groups and their rebalance protocol (`group`, `states`, `metadata`,
  `rebalance`, `join`, `members`);
- `consumer/`: KIP-848 consumer groups (`group`, `heartbeat`, `records`, `replay`,
  `assignors`, `reconciliation`) and the classic protocol's members they take
  (`classic_members`, `classic_protocol`);
- above both: `runtime` (what they share: groups, log, clock and timers, status, and group
  writes; `classic/` and `consumer/` use it through the Protocols of their `ports`),
  `snapshot`, `metadata_manager` (rebuilding groups and offsets from `__consumer_offsets`,
  Kafka's GroupMetadataManager), `offset_manager` (committed offsets, plain and
  transactional, and their retention), `conversion` (between the two protocols) and `admin`
  (describe, list and delete groups, delete offsets).

All state lives in memory and is rebuilt from `__consumer_offsets`, one partition at a time:
the coordinator serves the groups of the partitions it owns and has loaded (`partitions`:
Kafka's onElection/onResignation, driven by the partition leadership; a single broker owns
them all and loads them at start). A state change
stands only once its records are durable: group writes go through `GroupRuntime.write`
(consumer groups change by replaying their records, the replay of a load; a failed append
changes nothing), and offsets by replaying theirs once appended (`OffsetStore.replay`). Timers
(sessions, rebalance and sync timeouts, the initial rebalance delay) are timers of the
injected clock; the periodic offset-retention check runs from `tick()`, which `start()`
calls every `offsets.retention.check.interval.ms` in the broker and tests call after
moving a ManualClock.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping

import structlog

from coordinator.group.admin import GroupAdmin, GroupDescription, ListedGroup
from coordinator.group.api import (
    CommitOffsets,
    CommitTxnOffsets,
    FetchedOffset,
    JoinMember,
    JoinResult,
    LeavingMember,
    MemberHeartbeat,
    SyncMember,
    SyncResult,
)
from coordinator.group.classic.group import ClassicGroup
from coordinator.group.classic.join import JoinHandler
from coordinator.group.classic.members import MemberHandler
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.config import GroupConfig
from coordinator.group.consumer.classic_members import ClassicMemberHandler
from coordinator.group.consumer.group import ConsumerGroup
from coordinator.group.consumer.heartbeat import (
    CONSUMER_GROUP_HEARTBEAT,
    ConsumerHeartbeat,
    ConsumerHeartbeatHandler,
    ConsumerHeartbeatResult,
    TopicImage,
)
from coordinator.group.conversion import GroupConversion
from coordinator.group.metadata_manager import GroupMetadataManager
from coordinator.group.offset_manager import OffsetManager
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.group.partitions import GroupPartitions
from coordinator.group.records import OFFSETS_TOPIC
from coordinator.group.runtime import CoordinatorStatus, GroupRuntime
from coordinator.log import CoordinatorLog, CoordinatorLogError, Record
from protocol.errors import ErrorCode
from storage.clock import Clock
from storage.topic_partition import TopicPartition

log = structlog.get_logger("odradek.groups")


class GroupCoordinator:
    def __init__(self, coordinator_log: CoordinatorLog, clock: Clock, config: GroupConfig,
                 owns_all_partitions: bool = True) -> None:
        """`owns_all_partitions`: a single broker's coordinator, owning every partition
        (loading until `load()`); otherwise it owns none until `on_election`."""
        self.rt = GroupRuntime(coordinator_log, clock, config, owns_all_partitions)
        self.metadata = GroupMetadataManager(self.rt)
        self.rebalance = Rebalancer(self.rt)
        self.conversion = GroupConversion(self.rt, self.rebalance)
        self.joins = JoinHandler(self.rt, self.rebalance, self.conversion.make_way_for_classic)
        self.members = MemberHandler(self.rt, self.rebalance)
        self.offsets = OffsetManager(self.rt, self.rebalance)
        self.admin = GroupAdmin(self.rt, self.offsets)
        self.consumers = ConsumerHeartbeatHandler(self.rt)
        self.consumers.upgrade = self.conversion.upgrade
        self.consumers.downgrade = self.conversion.downgrade
        self.classic_members = ClassicMemberHandler(self.rt, self.consumers)
        self.partitions = GroupPartitions(self.rt, self.metadata, self.rebalance, self.offsets,
                                          self.consumers.loaded)
        self._runner: asyncio.Task[None] | None = None
        self._next_cleanup_ms = clock.monotonic_ms() + config.offsets_retention_check_interval_ms

    @property
    def groups(self) -> dict[str, ClassicGroup]:
        return self.rt.groups

    @property
    def config(self) -> GroupConfig:
        return self.rt.config

    @property
    def status(self) -> CoordinatorStatus:
        return self.rt.status

    def partition_for(self, group_id: str) -> int:
        return self.rt.partition_for(group_id)

    # --- lifecycle --------------------------------------------------------------------------

    @property
    def load_seconds(self) -> float | None:
        """Wall time of the last load from the log (operators watch it; not a protocol timer)."""
        return self.partitions.last_load_seconds

    async def load(self) -> None:
        """Single-broker mode: (re)load every partition, at leader epoch 0 the first time;
        requests get COORDINATOR_LOAD_IN_PROGRESS meanwhile."""
        started = time.perf_counter()
        tasks = [
            task for p in range(self.rt.log.num_partitions)
            if (task := self.on_election(p, self.rt.ownership.next_epoch(p))) is not None
        ]
        await asyncio.gather(*tasks)
        self.partitions.last_load_seconds = time.perf_counter() - started
        log.info("group coordinator loaded", groups=len(self.rt.groups) + len(self.rt.consumer_groups))

    # --- leadership of the partitions (Kafka's onElection / onResignation) -----------------------

    def on_election(self, partition: int, leader_epoch: int) -> asyncio.Task[None] | None:
        """This broker leads `partition` of `__consumer_offsets` at `leader_epoch`: its
        groups answer COORDINATOR_LOAD_IN_PROGRESS at once and are served once the task
        returned (loading the partition) ends. An epoch not newer than the last one seen
        for the partition is stale: ignored, None returned. A newer epoch of a partition
        already owned reloads it."""
        return self.partitions.elect(partition, leader_epoch)

    def on_resignation(self, partition: int, leader_epoch: int | None) -> bool:
        """This broker no longer leads `partition`: from now its groups answer
        NOT_COORDINATOR, their timers are cancelled and waiting requests answered. Ignored
        (False) when `leader_epoch` is older than the epoch the partition was elected at
        (a late notification), or the partition is not owned; None resigns whatever the epoch."""
        return self.partitions.resign(partition, leader_epoch)

    async def ensure_log(self) -> ErrorCode:
        """Create the log's topic if it is missing (FindCoordinator does, as in Kafka)."""
        return await self.metadata.ensure_log()

    def start(self, load: bool = True) -> None:
        """Load in the background (serving COORDINATOR_LOAD_IN_PROGRESS meanwhile) and run
        timers (the broker; tests call load() and tick() instead)."""
        if load:
            self.rt.spawn(self._load_logged())
        self._runner = asyncio.get_running_loop().create_task(self._run_ticks())

    async def _run_ticks(self) -> None:
        while True:
            await self.rt.clock.sleep(self.rt.config.offsets_retention_check_interval_ms)
            try:
                self.tick()
            except Exception:
                log.exception("group coordinator tick failed")

    async def _load_logged(self) -> None:
        try:
            await self.load()
        except Exception:
            log.exception("loading __consumer_offsets failed")

    async def stop(self) -> None:
        self.rt.stopped = True
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None
        self.rt.timers.cancel_all()
        if self.rt.tasks:
            await asyncio.wait(list(self.rt.tasks), timeout=5)
        # Kafka's onGroupUnloaded: waiting requests learn this broker no longer coordinates.
        for group in self.rt.groups.values():
            for member in group.members.values():
                member.complete_join(JoinResult(ErrorCode.NOT_COORDINATOR, member.member_id))
                member.complete_sync(SyncResult(ErrorCode.NOT_COORDINATOR))

    def tick(self) -> None:
        """Start the offset-retention check if it is due (the deadlines fire on their own)."""
        now = self.rt.clock.monotonic_ms()
        if now >= self._next_cleanup_ms and not self.rt.stopped:
            self._next_cleanup_ms = now + self.rt.config.offsets_retention_check_interval_ms
            self.rt.spawn(self.offsets.cleanup_expired_offsets())

    async def settle(self) -> None:
        """Wait for background appends to finish (tests)."""
        await self.rt.settle()

    # --- the rebalance protocol -------------------------------------------------------------

    # A consumer group with members takes the classic protocol's requests too: its classic
    # members (`classic_members`).

    def _mixed(self, group_id: str) -> ConsumerGroup | None:
        if self.rt.validate(group_id, allow_empty=False) is not None:
            return None
        group = self.rt.consumer_groups.get(group_id)
        return group if group is not None and group.members else None

    async def join_group(self, req: JoinMember) -> JoinResult:
        config = self.rt.config
        mixed = self._mixed(req.group_id)
        if mixed is not None and config.min_session_timeout_ms <= req.session_timeout_ms <= \
                config.max_session_timeout_ms:
            joined = await self.classic_members.join(mixed, req, self.rt.topic_images())
            if joined is not None:
                return joined
        return await self.joins.join_group(req)

    async def sync_group(self, req: SyncMember) -> SyncResult:
        mixed = self._mixed(req.group_id)
        if mixed is not None:
            return self.classic_members.sync(mixed, req)
        return await self.members.sync_group(req)

    def heartbeat(self, req: MemberHeartbeat) -> ErrorCode:
        mixed = self._mixed(req.group_id)
        if mixed is not None:
            return self.classic_members.heartbeat(mixed, req)
        return self.members.heartbeat(req)

    async def leave_group(self, group_id: str, members: list[LeavingMember]) -> tuple[ErrorCode, list[ErrorCode]]:
        mixed = self._mixed(group_id)
        if mixed is not None:
            left = await self.classic_members.leave(mixed, members)
            if left is not None:
                return left
        group = self.rt.groups.get(group_id)
        earlier = group.empty_generation_write if group is not None else None
        error, member_errors = self.members.leave_group(group_id, members)
        write = group.empty_generation_write if group is not None else None
        if write is not None and write is not earlier:
            # The leave emptied the group: answered once the empty generation is in the log,
            # as Kafka's classicGroupLeave returns its record with the response. A coordinator
            # that takes over then never finds the member that was told it left.
            written = await asyncio.shield(write)
            if written is not ErrorCode.NONE:
                return written, []
        return error, member_errors

    # --- the consumer group protocol (KIP-848) -------------------------------------------------

    async def consumer_heartbeat(
        self, req: ConsumerHeartbeat, topics: Mapping[str, TopicImage]
    ) -> ConsumerHeartbeatResult:
        """The state change is answered once its records are in the log."""

        def operation() -> tuple[list[Record], ConsumerHeartbeatResult]:
            result = self.consumers.heartbeat(req, topics)
            return self.consumers.take_records(), result

        def failed(exc: CoordinatorLogError) -> ConsumerHeartbeatResult:
            return ConsumerHeartbeatResult(exc.client_error(CONSUMER_GROUP_HEARTBEAT), str(exc))

        return await self.rt.write(req.group_id, operation, failed)

    def consumer_group(self, group_id: str) -> tuple[ErrorCode, ConsumerGroup | None]:
        """ConsumerGroupDescribe's lookup: GROUP_ID_NOT_FOUND for a missing or classic group."""
        error = self.rt.validate(group_id, allow_empty=True)
        if error is not None:
            return error, None
        group = self.rt.consumer_groups.get(group_id)
        return (ErrorCode.GROUP_ID_NOT_FOUND, None) if group is None else (ErrorCode.NONE, group)

    # --- offsets -------------------------------------------------------------------------------

    async def commit_offsets(self, req: CommitOffsets) -> dict[TopicPartition, ErrorCode]:
        return await self.offsets.commit_offsets(req)

    async def commit_txn_offsets(
        self, req: CommitTxnOffsets, verify: Callable[[int], Awaitable[ErrorCode]] | None = None
    ) -> dict[TopicPartition, ErrorCode]:
        return await self.offsets.commit_txn_offsets(req, verify)

    def fetch_offsets(
        self, group_id: str, partitions: list[TopicPartition] | None, require_stable: bool,
        member_id: str | None = None, member_epoch: int = -1,
    ) -> tuple[ErrorCode, dict[TopicPartition, FetchedOffset]]:
        return self.offsets.fetch_offsets(group_id, partitions, require_stable, member_id, member_epoch)

    def prepare_txn_offsets(
        self, group_id: str, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]
    ) -> None:
        self.offsets.prepare_txn_offsets(group_id, producer_id, offsets)

    def complete_txn(self, producer_id: int, commit: bool, partitions: set[int] | None = None) -> None:
        self.offsets.complete_txn(producer_id, commit, partitions)

    async def on_txn_marker(self, tp: tuple[str, int], producer_id: int, committed: bool) -> None:
        """MarkerListener for the transaction coordinator: a marker reached a partition."""
        if tp[0] == OFFSETS_TOPIC:
            self.offsets.on_txn_marker(tp[1], producer_id, committed)

    # --- administration --------------------------------------------------------------------------

    def describe_group(self, group_id: str) -> GroupDescription:
        return self.admin.describe_group(group_id)

    def list_groups(self, states: list[str], types: list[str]) -> tuple[ErrorCode, list[ListedGroup]]:
        return self.admin.list_groups(states, types)

    async def delete_groups(self, group_ids: list[str]) -> list[tuple[str, ErrorCode]]:
        return await self.admin.delete_groups(group_ids)

    async def delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        return await self.admin.delete_offsets(group_id, partitions)
