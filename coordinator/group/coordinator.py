"""The classic group coordinator, after Kafka's GroupCoordinator and GroupMetadataManager.

All state lives in memory and is rebuilt from `__consumer_offsets` on start. Records are
appended (durably) before the state they describe changes. Timers (sessions, rebalance
and sync timeouts, the initial rebalance delay, offset retention) run from `tick()`, which
a background task calls in the broker and tests call after moving a ManualClock.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

import structlog

from coordinator.group import records
from coordinator.group.group import (
    CONSUMER_PROTOCOL_TYPE,
    ClassicGroup,
    InitialJoin,
    JoinResult,
    Member,
    SyncResult,
)
from coordinator.group.offsets import OffsetAndMetadata, TopicPartition
from coordinator.group.states import GroupState
from coordinator.group.timers import TimerQueue
from coordinator.log import (
    GROUP_METADATA,
    OFFSET_COMMIT,
    TXN_OFFSET_COMMIT,
    CoordinatorLog,
    CoordinatorLogError,
    LogRecord,
    Producer,
)
from coordinator.partitioning import partition_for
from protocol.errors import ErrorCode
from protocol.messages.group_metadata_value import GroupMetadataValue, MemberMetadata
from protocol.messages.offset_commit_value import OffsetCommitValue
from storage.clock import Clock

log = structlog.get_logger("odradek.groups")

_T = TypeVar("_T")

GROUP_TYPE_CLASSIC = "classic"
OFFSETS_TOPIC = "__consumer_offsets"


@dataclass(frozen=True)
class GroupConfig:
    min_session_timeout_ms: int = 6000
    max_session_timeout_ms: int = 1800000
    max_size: int = 2147483647
    initial_rebalance_delay_ms: int = 3000
    offsets_retention_ms: int = 10080 * 60_000
    offsets_retention_check_interval_ms: int = 600_000
    offset_metadata_max_bytes: int = 4096
    # A new member's JoinGroup is dropped after this long (Kafka's NewMemberJoinTimeoutMs).
    new_member_join_timeout_ms: int = 300_000

    @classmethod
    def from_config(cls, config: Any) -> GroupConfig:
        return cls(
            min_session_timeout_ms=int(config.get("group.min.session.timeout.ms")),
            max_session_timeout_ms=int(config.get("group.max.session.timeout.ms")),
            max_size=int(config.get("group.max.size")),
            initial_rebalance_delay_ms=int(config.get("group.initial.rebalance.delay.ms")),
            offsets_retention_ms=int(config.get("offsets.retention.minutes")) * 60_000,
            offsets_retention_check_interval_ms=int(config.get("offsets.retention.check.interval.ms")),
        )


@dataclass(slots=True)
class MemberDescription:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(slots=True)
class GroupDescription:
    group_id: str
    error: ErrorCode
    state: str
    protocol_type: str
    protocol: str
    members: list[MemberDescription]


@dataclass(slots=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: str
    group_type: str


@dataclass(slots=True)
class FetchedOffset:
    offset: int
    leader_epoch: int
    metadata: str
    error: ErrorCode


_NO_OFFSET = FetchedOffset(-1, -1, "", ErrorCode.NONE)


class GroupCoordinator:
    def __init__(self, coordinator_log: CoordinatorLog, clock: Clock, config: GroupConfig | None = None) -> None:
        self.log = coordinator_log
        self.clock = clock
        self.config = config or GroupConfig()
        self.groups: dict[str, ClassicGroup] = {}
        self.timers = TimerQueue()
        # "loading" until load() finishes, "active" while serving, "stopped" after stop().
        self.status = "loading"
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._next_cleanup_ms = clock.monotonic_ms() + self.config.offsets_retention_check_interval_ms
        # Markers that reached __consumer_offsets while loading, applied once loaded.
        self._markers_while_loading: list[tuple[int, int, bool]] = []
        # (log partition, producer id) of transactional appends in flight -> markers seen meanwhile.
        self._txn_appends: dict[tuple[int, int], list[bool]] = {}

    # --- lifecycle --------------------------------------------------------------------

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.log.num_partitions)

    async def load(self) -> None:
        """Rebuild every group from the log; requests get COORDINATOR_LOAD_IN_PROGRESS meanwhile."""
        self.status = "loading"
        metadata: dict[str, GroupMetadataValue | None] = {}
        offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        open_txns: dict[str, dict[int, dict[TopicPartition, OffsetAndMetadata]]] = {}
        for partition in range(self.log.num_partitions):
            self._replay(await self.log.replay(partition), metadata, offsets, open_txns)
        now = self.clock.now_ms()
        for group_id in {*metadata, *offsets, *open_txns}:
            value = metadata.get(group_id)
            if value is None and not offsets.get(group_id) and not open_txns.get(group_id):
                continue
            group = self._group_from_record(group_id, value, now)
            for tp, om in offsets.get(group_id, {}).items():
                group.offsets.put(tp, om)
            for pid, pending in open_txns.get(group_id, {}).items():
                for tp, om in pending.items():
                    group.offsets.prepare_txn(pid, tp, om)
            self.groups[group_id] = group
            for member in group.members.values():
                self._schedule_heartbeat(group, member)
        self.status = "active"
        # A marker replay already saw finds nothing pending: applying it again is harmless.
        for partition, producer_id, committed in self._markers_while_loading:
            self.complete_txn(producer_id, committed, {partition})
        self._markers_while_loading.clear()
        log.info("group coordinator loaded", groups=len(self.groups))

    def _replay(
        self,
        entries: list[LogRecord],
        metadata: dict[str, GroupMetadataValue | None],
        offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]],
        open_txns: dict[str, dict[int, dict[TopicPartition, OffsetAndMetadata]]],
    ) -> None:
        for entry in entries:
            if entry.control_commit is not None:
                for group_id, by_pid in open_txns.items():
                    for tp, om in by_pid.pop(entry.producer_id, {}).items():
                        if entry.control_commit:
                            offsets.setdefault(group_id, {})[tp] = om
                continue
            if entry.key is None:
                continue
            try:
                key = records.parse_key(entry.key)
            except (records.UnknownRecordError, ValueError):
                log.warning("skipping unreadable __consumer_offsets record", offset=entry.offset)
                continue
            if isinstance(key, records.OffsetKey):
                tp = (key.topic, key.partition)
                if entry.value is None:
                    if not entry.transactional:
                        offsets.get(key.group, {}).pop(tp, None)
                    continue
                v = records.parse_offset_value(entry.value)
                om = OffsetAndMetadata(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp,
                                       v.expire_timestamp, entry.offset)
                if entry.transactional:
                    open_txns.setdefault(key.group, {}).setdefault(entry.producer_id, {})[tp] = om
                else:
                    offsets.setdefault(key.group, {})[tp] = om
            else:
                metadata[key.group] = None if entry.value is None else records.parse_group_value(entry.value)

    def _group_from_record(self, group_id: str, value: GroupMetadataValue | None, now: int) -> ClassicGroup:
        group = ClassicGroup(group_id, now)
        if value is None:
            group.current_state_timestamp = None
            return group
        group.generation_id = value.generation
        group.protocol_type = value.protocol_type or None
        group.protocol_name = value.protocol
        group.current_state_timestamp = value.current_state_timestamp if value.current_state_timestamp >= 0 else None
        for mm in value.members:
            member = Member(
                member_id=mm.member_id,
                group_instance_id=mm.group_instance_id,
                client_id=mm.client_id,
                client_host=mm.client_host,
                rebalance_timeout_ms=mm.rebalance_timeout if mm.rebalance_timeout >= 0 else mm.session_timeout,
                session_timeout_ms=mm.session_timeout,
                protocol_type=value.protocol_type,
                protocols=[(value.protocol or "", mm.subscription)],
                assignment=mm.assignment,
            )
            group.add(member, None)
        group.protocol_type = value.protocol_type or None
        group.leader_id = value.leader if value.leader in group.members else next(iter(group.members), None)
        if group.members:
            group.state = GroupState.STABLE
            group.subscribed_topics = group.compute_subscribed_topics()
        return group

    async def ensure_log(self) -> ErrorCode:
        """Create the log's topic if it is missing (FindCoordinator does, as in Kafka)."""
        try:
            await self.log.ensure_topic()
        except CoordinatorLogError as exc:
            return exc.client_error(GROUP_METADATA)
        return ErrorCode.NONE

    def start(self, load: bool = True) -> None:
        """Load in the background (serving COORDINATOR_LOAD_IN_PROGRESS meanwhile) and run
        timers (the broker; tests call load() and tick() instead)."""
        if load:
            self._spawn(self._load_logged())
        self._runner = asyncio.get_running_loop().create_task(self._run())

    async def _load_logged(self) -> None:
        try:
            await self.load()
        except Exception:
            log.exception("loading __consumer_offsets failed")

    async def stop(self) -> None:
        self.status = "stopped"
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        # Kafka's onGroupUnloaded: waiting requests learn this broker no longer coordinates.
        for group in self.groups.values():
            for member in group.members.values():
                member.complete_join(JoinResult(ErrorCode.NOT_COORDINATOR, member.member_id))
                member.complete_sync(SyncResult(ErrorCode.NOT_COORDINATOR))

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                self.tick()
            except Exception:
                log.exception("group coordinator timer failed")
            deadline = self.timers.next_deadline()
            delay_ms = 1000 if deadline is None else max(0, min(deadline - self.clock.monotonic_ms(), 1000))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay_ms / 1000)

    def tick(self) -> None:
        """Run every timer that is due."""
        now = self.clock.monotonic_ms()
        while True:
            due = self.timers.pop_due(now)
            if not due:
                break
            for action in due:
                action()
        if now >= self._next_cleanup_ms and self.status == "active":
            self._next_cleanup_ms = now + self.config.offsets_retention_check_interval_ms
            self._spawn(self.cleanup_expired_offsets())

    def _spawn(self, coro: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("group coordinator task failed", exc_info=t.exception())

        task.add_done_callback(done)
        return task

    async def _run_to_end(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run a write and the state change that follows it to the end even when the
        request waiting for it is cancelled (its client left): as in Kafka, an append that
        became durable takes effect, one that failed does not, and pending marks are
        released either way."""
        return await asyncio.shield(self._spawn(coro))

    async def settle(self) -> None:
        """Wait for background appends to finish (tests)."""
        while self._tasks:
            await asyncio.wait(list(self._tasks))

    def _schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> None:
        self.timers.schedule(key, self.clock.monotonic_ms() + delay_ms, action)
        self._wake.set()

    def _validate(self, group_id: str | None, allow_empty: bool) -> ErrorCode | None:
        """Kafka's validateGroupStatus."""
        if group_id is None or (not allow_empty and group_id == ""):
            return ErrorCode.INVALID_GROUP_ID
        if self.status == "stopped":
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if self.status == "loading":
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        return None

    def _current(self, group: ClassicGroup) -> bool:
        return self.groups.get(group.group_id) is group

    async def _append(self, group_id: str, recs: list[tuple[bytes, bytes | None]]) -> int:
        try:
            return await self.log.append(self.partition_for(group_id), recs)
        except CoordinatorLogError:
            raise
        except Exception as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc

    # --- heartbeats and timers ----------------------------------------------------------

    def _schedule_heartbeat(self, group: ClassicGroup, member: Member, timeout_ms: int | None = None) -> None:
        member_id = member.member_id
        self._schedule(
            ("heartbeat", group.group_id, member_id),
            member.session_timeout_ms if timeout_ms is None else timeout_ms,
            lambda: self._on_expire_heartbeat(group, member_id),
        )

    def _cancel_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        self.timers.cancel(("heartbeat", group.group_id, member_id))

    def _on_expire_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        if not self._current(group):
            return
        if group.is_pending_member(member_id):
            self._remove_pending_member(group, member_id)
            return
        member = group.members.get(member_id)
        if member is not None and not member.has_satisfied_heartbeat():
            log.info("member session expired", group=group.group_id, member=member_id)
            self._remove_member_and_update_group(group, member)

    def _remove_pending_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_members.discard(member_id)
        self._cancel_heartbeat(group, member_id)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group)

    def _remove_member_and_update_group(self, group: ClassicGroup, member: Member) -> None:
        # A member removed while its JoinGroup waits is told to rejoin as a new member.
        member.complete_join(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member.member_id))
        member.complete_sync(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        self._cancel_heartbeat(group, member.member_id)
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(group)
        elif group.is_state(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group)

    # --- rebalancing --------------------------------------------------------------------

    def _maybe_prepare_rebalance(self, group: ClassicGroup) -> None:
        if group.can_rebalance():
            self._prepare_rebalance(group)

    def _prepare_rebalance(self, group: ClassicGroup) -> None:
        if group.is_state(GroupState.COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_error(group, ErrorCode.REBALANCE_IN_PROGRESS)
        self.timers.cancel(("sync", group.group_id))
        now = self.clock.now_ms()
        if group.is_state(GroupState.EMPTY):
            delay = self.config.initial_rebalance_delay_ms
            op = InitialJoin(delay, max(group.rebalance_timeout_ms - delay, 0))
            group.join_op = op
            group.transition_to(GroupState.PREPARING_REBALANCE, now)
            self._schedule(("join", group.group_id), delay, lambda: self._on_initial_join_expire(group, op))
        else:
            group.join_op = "delayed"
            group.transition_to(GroupState.PREPARING_REBALANCE, now)
            self._schedule(("join", group.group_id), group.rebalance_timeout_ms,
                           lambda: self._on_complete_join(group))
            self._try_complete_join(group)

    def _on_initial_join_expire(self, group: ClassicGroup, op: InitialJoin) -> None:
        if not self._current(group) or group.join_op is not op:
            return
        if group.new_member_added and op.remaining_ms != 0:
            # More members arrived during the delay: wait again, within the rebalance timeout.
            group.new_member_added = False
            delay = min(self.config.initial_rebalance_delay_ms, op.remaining_ms)
            nxt = InitialJoin(delay, max(op.remaining_ms - op.delay_ms, 0))
            group.join_op = nxt
            self._schedule(("join", group.group_id), delay, lambda: self._on_initial_join_expire(group, nxt))
        else:
            self._on_complete_join(group)

    def _try_complete_join(self, group: ClassicGroup) -> None:
        if group.join_op == "delayed" and group.has_all_members_joined():
            self._on_complete_join(group)

    def _on_complete_join(self, group: ClassicGroup) -> None:
        if not self._current(group) or not group.is_state(GroupState.PREPARING_REBALANCE):
            return
        self.timers.cancel(("join", group.group_id))
        group.join_op = None
        for member in group.not_yet_rejoined():
            if not member.is_static:
                group.remove(member.member_id)
                self._cancel_heartbeat(group, member.member_id)
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Only static members that have not rejoined remain: wait for them or their expiry.
            group.join_op = "delayed"
            self._schedule(("join", group.group_id), group.rebalance_timeout_ms,
                           lambda: self._on_complete_join(group))
            return
        group.init_next_generation(self.clock.now_ms())
        if group.is_state(GroupState.EMPTY):
            self._spawn(self._store_empty_group(group))
            return
        leader_metadata = group.current_member_metadata()
        for member in group.members.values():
            member.complete_join(JoinResult(
                ErrorCode.NONE,
                member.member_id,
                group.generation_id,
                group.protocol_type,
                group.protocol_name,
                group.leader_id or "",
                False,
                leader_metadata if group.is_leader(member.member_id) else [],
            ))
            self._schedule_heartbeat(group, member)
            member.is_new = False
            group.pending_sync_members.add(member.member_id)
        generation = group.generation_id
        self._schedule(("sync", group.group_id), group.rebalance_timeout_ms,
                       lambda: self._on_expire_pending_sync(group, generation))

    def _on_expire_pending_sync(self, group: ClassicGroup, generation: int) -> None:
        if not self._current(group) or generation != group.generation_id:
            return
        if group.state in (GroupState.COMPLETING_REBALANCE, GroupState.STABLE) and group.pending_sync_members:
            for member_id in list(group.pending_sync_members):
                member = group.members.get(member_id)
                group.remove(member_id)
                self._cancel_heartbeat(group, member_id)
                if member is not None:
                    member.complete_sync(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            self._prepare_rebalance(group)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: ErrorCode) -> None:
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: ClassicGroup, error: ErrorCode) -> None:
        for member in group.members.values():
            if member.awaiting_sync:
                member.complete_sync(SyncResult(error, group.protocol_type, group.protocol_name, member.assignment))
                self._schedule_heartbeat(group, member)

    async def _store_group(self, group: ClassicGroup, assignment: dict[str, bytes]) -> None:
        protocol = group.protocol_name
        value = GroupMetadataValue(
            protocol_type=group.protocol_type or "",
            generation=group.generation_id,
            protocol=protocol,
            leader=group.leader_id,
            current_state_timestamp=group.current_state_timestamp if group.current_state_timestamp else -1,
            members=[
                MemberMetadata(
                    member_id=m.member_id,
                    group_instance_id=m.group_instance_id,
                    client_id=m.client_id,
                    client_host=m.client_host,
                    rebalance_timeout=m.rebalance_timeout_ms,
                    session_timeout=m.session_timeout_ms,
                    subscription=m.metadata(protocol) if protocol is not None else b"",
                    assignment=assignment.get(m.member_id, b""),
                )
                for m in group.members.values()
            ],
        )
        await self._append(group.group_id, [(records.group_key(group.group_id), records.group_value(value))])

    async def _store_empty_group(self, group: ClassicGroup) -> None:
        try:
            await self._store_group(group, {})
        except CoordinatorLogError as exc:
            log.warning("failed to write the empty generation", group=group.group_id, error=exc.error.name)

    # --- JoinGroup ----------------------------------------------------------------------

    async def join_group(
        self,
        group_id: str,
        member_id: str,
        group_instance_id: str | None,
        require_known_member_id: bool,
        client_id: str,
        client_host: str,
        rebalance_timeout_ms: int,
        session_timeout_ms: int,
        protocol_type: str,
        protocols: list[tuple[str, bytes]],
    ) -> JoinResult:
        error = self._validate(group_id, allow_empty=False)
        if error is not None:
            return JoinResult(error, member_id)
        if not self.config.min_session_timeout_ms <= session_timeout_ms <= self.config.max_session_timeout_ms:
            return JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, member_id)
        is_unknown = member_id == ""
        group = self.groups.get(group_id)
        if group is None:
            if not is_unknown:
                return JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id)
            group = ClassicGroup(group_id, self.clock.now_ms())
            self.groups[group_id] = group
        fut: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()
        if not self._accept_joining_member(group, member_id):
            removed = group.members.get(member_id)
            if removed is not None:
                self._remove_member_and_update_group(group, removed)
            return JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, "")
        args = (client_id, client_host, rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols)
        if is_unknown:
            self._new_member_join(group, group_instance_id, require_known_member_id, *args, fut)
        else:
            self._current_member_join(group, member_id, group_instance_id, *args, fut)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group)
        return await fut

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        state = group.state
        if state in (GroupState.EMPTY, GroupState.DEAD):
            return True
        if state is GroupState.PREPARING_REBALANCE:
            known = group.has(member_id) and group.get(member_id).awaiting_join
            return known or group.num_awaiting_join < self.config.max_size
        return group.has(member_id) or len(group.members) < self.config.max_size

    def _new_member_join(
        self, group: ClassicGroup, instance_id: str | None, require_known: bool, client_id: str, client_host: str,
        rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str, protocols: list[tuple[str, bytes]],
        fut: asyncio.Future[JoinResult],
    ) -> None:
        if group.is_state(GroupState.DEAD):
            fut.set_result(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, ""))
            return
        if not group.supports_protocols(protocol_type, protocols):
            fut.set_result(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""))
            return
        new_id = f"{instance_id if instance_id is not None else client_id}-{uuid.uuid4()}"
        if instance_id is not None:
            old_id = group.current_static_member_id(instance_id)
            if old_id is not None:
                self._replace_static_member(group, instance_id, old_id, new_id, rebalance_timeout_ms,
                                            session_timeout_ms, protocols, fut)
                return
        elif require_known:
            # KIP-394: hand out the member id first, so a retried join is recognised.
            group.pending_members.add(new_id)
            self._schedule(("heartbeat", group.group_id, new_id), session_timeout_ms,
                           lambda: self._on_expire_heartbeat(group, new_id))
            fut.set_result(JoinResult(ErrorCode.MEMBER_ID_REQUIRED, new_id))
            return
        self._add_member_and_rebalance(group, new_id, instance_id, client_id, client_host, rebalance_timeout_ms,
                                       session_timeout_ms, protocol_type, protocols, fut)

    def _add_member_and_rebalance(
        self, group: ClassicGroup, member_id: str, instance_id: str | None, client_id: str, client_host: str,
        rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str, protocols: list[tuple[str, bytes]],
        fut: asyncio.Future[JoinResult],
    ) -> None:
        member = Member(member_id, instance_id, client_id, client_host, rebalance_timeout_ms, session_timeout_ms,
                        protocol_type, protocols, is_new=True)
        if group.is_state(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, fut)
        self._cancel_heartbeat(group, member_id)
        self._schedule_heartbeat(group, member, self.config.new_member_join_timeout_ms)
        self._maybe_prepare_rebalance(group)

    def _replace_static_member(
        self, group: ClassicGroup, instance_id: str, old_id: str, new_id: str, rebalance_timeout_ms: int,
        session_timeout_ms: int, protocols: list[tuple[str, bytes]], fut: asyncio.Future[JoinResult],
    ) -> None:
        current_leader = group.leader_id
        member = group.get(old_id)
        old = (member.protocols, member.rebalance_timeout_ms, member.session_timeout_ms)
        group.replace_static_member(instance_id, old_id, new_id)
        self._cancel_heartbeat(group, old_id)
        self._schedule_heartbeat(group, member)
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, fut)
        if group.is_state(GroupState.STABLE):
            if group.protocol_name == group.select_protocol():
                # Same protocol: persist the new member id and hand back the current generation.
                self._spawn(self._persist_static_replacement(group, member, instance_id, old_id, old, current_leader))
            else:
                self._maybe_prepare_rebalance(group)
        elif group.is_state(GroupState.COMPLETING_REBALANCE):
            # The leader may have assigned to the old id already: rebalance again.
            self._prepare_rebalance(group)

    async def _persist_static_replacement(
        self, group: ClassicGroup, member: Member, instance_id: str, old_id: str,
        old: tuple[list[tuple[str, bytes]], int, int], current_leader: str | None,
    ) -> None:
        new_id = member.member_id
        try:
            await self._store_group(group, {m.member_id: m.assignment for m in group.members.values()})
        except CoordinatorLogError as exc:
            fut = member.join_future
            member.join_future = None
            if self._current(group) and group.members.get(new_id) is member:
                group.replace_static_member(instance_id, new_id, old_id)
                group.update_member(member, old[0], old[1], old[2], None)
                self._cancel_heartbeat(group, new_id)
                self._schedule_heartbeat(group, member)
            if fut is not None and not fut.done():
                fut.set_result(JoinResult(exc.client_error(GROUP_METADATA), ""))
            return
        is_leader = group.is_leader(new_id)
        member.complete_join(JoinResult(
            ErrorCode.NONE, new_id, group.generation_id, group.protocol_type, group.protocol_name,
            current_leader or "", is_leader, group.current_member_metadata() if is_leader else [],
        ))

    def _current_member_join(
        self, group: ClassicGroup, member_id: str, instance_id: str | None, client_id: str, client_host: str,
        rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str, protocols: list[tuple[str, bytes]],
        fut: asyncio.Future[JoinResult],
    ) -> None:
        def reply(error: ErrorCode) -> None:
            fut.set_result(JoinResult(error, member_id))

        if group.is_state(GroupState.DEAD):
            return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if not group.supports_protocols(protocol_type, protocols):
            return reply(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        if group.is_pending_member(member_id):
            if instance_id is not None:
                return reply(ErrorCode.UNKNOWN_MEMBER_ID)
            self._add_member_and_rebalance(group, member_id, None, client_id, client_host, rebalance_timeout_ms,
                                           session_timeout_ms, protocol_type, protocols, fut)
            return None
        if group.is_static_member_fenced(instance_id, member_id):
            return reply(ErrorCode.FENCED_INSTANCE_ID)
        if not group.has(member_id) or (instance_id is not None and instance_id not in group.static_members):
            return reply(ErrorCode.UNKNOWN_MEMBER_ID)
        member = group.get(member_id)
        state = group.state
        current = JoinResult(
            ErrorCode.NONE, member_id, group.generation_id, group.protocol_type, group.protocol_name,
            group.leader_id or "", False,
        )
        if state is GroupState.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms, session_timeout_ms, fut)
        elif state is GroupState.COMPLETING_REBALANCE:
            if member.matches(protocols):
                # A retry of a JoinGroup whose response was lost: the current generation again.
                if group.is_leader(member_id):
                    current.members = group.current_member_metadata()
                fut.set_result(current)
            else:
                self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                  session_timeout_ms, fut)
        elif state is GroupState.STABLE:
            if group.is_leader(member_id) or not member.matches(protocols):
                # The leader rejoining forces a rebalance (e.g. for topic metadata changes).
                self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                  session_timeout_ms, fut)
            else:
                fut.set_result(current)
        else:
            reply(ErrorCode.UNKNOWN_MEMBER_ID)
        return None

    def _update_member_and_rebalance(
        self, group: ClassicGroup, member: Member, protocols: list[tuple[str, bytes]], rebalance_timeout_ms: int,
        session_timeout_ms: int, fut: asyncio.Future[JoinResult],
    ) -> None:
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, fut)
        self._maybe_prepare_rebalance(group)

    # --- SyncGroup ----------------------------------------------------------------------

    async def sync_group(
        self,
        group_id: str,
        generation_id: int,
        member_id: str,
        group_instance_id: str | None,
        protocol_type: str | None,
        protocol_name: str | None,
        assignments: dict[str, bytes],
    ) -> SyncResult:
        error = self._validate(group_id, allow_empty=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance state is lost while loading: have the member rejoin.
            return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
        if error is not None:
            return SyncResult(error)
        group = self.groups.get(group_id)
        if group is None:
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if group.is_state(GroupState.DEAD):
            return SyncResult(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if group.is_static_member_fenced(group_instance_id, member_id):
            return SyncResult(ErrorCode.FENCED_INSTANCE_ID)
        if not group.has(member_id):
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if generation_id != group.generation_id:
            return SyncResult(ErrorCode.ILLEGAL_GENERATION)
        if protocol_type is not None and group.protocol_type != protocol_type:
            return SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        if protocol_name is not None and group.protocol_name != protocol_name:
            return SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        member = group.get(member_id)
        if group.is_state(GroupState.EMPTY):
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
        if group.is_state(GroupState.STABLE):
            group.pending_sync_members.discard(member_id)
            self._schedule_heartbeat(group, member)
            return SyncResult(ErrorCode.NONE, group.protocol_type, group.protocol_name, member.assignment)
        # CompletingRebalance: wait for the leader's assignment.
        fut: asyncio.Future[SyncResult] = asyncio.get_running_loop().create_future()
        member.complete_sync(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        member.sync_future = fut
        group.pending_sync_members.discard(member_id)
        if group.is_leader(member_id):
            assignment = {mid: assignments.get(mid, b"") for mid in group.members}
            self._spawn(self._complete_leader_sync(group, group.generation_id, assignment))
        return await fut

    async def _complete_leader_sync(self, group: ClassicGroup, generation: int, assignment: dict[str, bytes]) -> None:
        error = ErrorCode.NONE
        try:
            await self._store_group(group, assignment)
        except CoordinatorLogError as exc:
            error = exc.client_error(GROUP_METADATA)
            log.warning("group metadata append failed", group=group.group_id, error=exc.error.name, reason=str(exc))
        # Members may have joined or left meanwhile: only the same generation completes.
        if not (self._current(group) and group.is_state(GroupState.COMPLETING_REBALANCE)
                and group.generation_id == generation):
            return
        if error is not ErrorCode.NONE:
            self._reset_and_propagate_assignment_error(group, error)
            self._maybe_prepare_rebalance(group)
            return
        for member in group.members.values():
            member.assignment = assignment.get(member.member_id, b"")
        self._propagate_assignment(group, ErrorCode.NONE)
        group.transition_to(GroupState.STABLE, self.clock.now_ms())

    # --- Heartbeat and LeaveGroup -------------------------------------------------------

    def heartbeat(self, group_id: str, generation_id: int, member_id: str, group_instance_id: str | None) -> ErrorCode:
        error = self._validate(group_id, allow_empty=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            return ErrorCode.NONE  # Kafka answers blindly while loading
        if error is not None:
            return error
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if group.is_static_member_fenced(group_instance_id, member_id):
            return ErrorCode.FENCED_INSTANCE_ID
        if not group.has(member_id):
            return ErrorCode.UNKNOWN_MEMBER_ID
        if generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        if group.is_state(GroupState.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID
        self._schedule_heartbeat(group, group.get(member_id))
        if group.is_state(GroupState.PREPARING_REBALANCE):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def leave_group(
        self, group_id: str, members: list[tuple[str, str | None]]
    ) -> tuple[ErrorCode, list[ErrorCode]]:
        """Removes (member id, group instance id) pairs; an empty member id names a static
        member by instance id (administrative removal)."""
        error = self._validate(group_id, allow_empty=False)
        if error is not None:
            return error, []
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID for _ in members]
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        errors = []
        for member_id, instance_id in members:
            if member_id == "":
                current = group.current_static_member_id(instance_id) if instance_id is not None else None
                if current is None:
                    errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
                else:
                    self._remove_member_and_update_group(group, group.get(current))
                    errors.append(ErrorCode.NONE)
            elif group.is_pending_member(member_id):
                self._remove_pending_member(group, member_id)
                errors.append(ErrorCode.NONE)
            else:
                member_error = self._validate_current_member(group, member_id, instance_id)
                if member_error is None:
                    self._remove_member_and_update_group(group, group.get(member_id))
                    member_error = ErrorCode.NONE
                errors.append(member_error)
        return ErrorCode.NONE, errors

    @staticmethod
    def _validate_current_member(group: ClassicGroup, member_id: str, instance_id: str | None) -> ErrorCode | None:
        if instance_id is not None:
            current = group.current_static_member_id(instance_id)
            if current is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if current != member_id:
                return ErrorCode.FENCED_INSTANCE_ID
        if not group.has(member_id):
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    # --- offsets ------------------------------------------------------------------------

    async def commit_offsets(
        self,
        group_id: str,
        member_id: str,
        group_instance_id: str | None,
        generation_id: int,
        offsets: dict[TopicPartition, OffsetAndMetadata],
    ) -> dict[TopicPartition, ErrorCode]:
        def all_with(error: ErrorCode) -> dict[TopicPartition, ErrorCode]:
            return dict.fromkeys(offsets, error)

        error = self._validate(group_id, allow_empty=True)
        if error is not None:
            return all_with(error)
        group = self.groups.get(group_id)
        created = False
        if group is None:
            if generation_id >= 0:
                return all_with(ErrorCode.ILLEGAL_GENERATION)
            # A standalone consumer that only uses Kafka to keep its offsets.
            group = ClassicGroup(group_id, self.clock.now_ms())
            self.groups[group_id] = group
            created = True
        error = self._validate_offset_commit(group, generation_id, member_id, group_instance_id)
        if error is not None:
            return all_with(error)
        if group.is_state(GroupState.COMPLETING_REBALANCE):
            return all_with(ErrorCode.REBALANCE_IN_PROGRESS)
        if group.state in (GroupState.STABLE, GroupState.PREPARING_REBALANCE):
            # Commits from a current member count as heartbeats; during PreparingRebalance
            # they are still accepted, the heartbeat tells the member to rejoin.
            self._schedule_heartbeat(group, group.get(member_id))
        result = await self._run_to_end(self._store_offsets(group, offsets))
        if created and self._current(group) and not group.offsets.committed and not group.members \
                and group.is_state(GroupState.EMPTY) and not any(group.offsets.has_pending(tp) for tp in offsets):
            del self.groups[group_id]  # nothing was stored: leave no trace
        return result

    def _validate_offset_commit(
        self, group: ClassicGroup, generation_id: int, member_id: str, instance_id: str | None,
        transactional: bool = False,
    ) -> ErrorCode | None:
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if generation_id >= 0 or member_id != "" or instance_id is not None:
            error = self._validate_current_member(group, member_id, instance_id)
            if error is not None:
                return error
            if generation_id != group.generation_id:
                return ErrorCode.ILLEGAL_GENERATION
            return None
        if not transactional and not group.is_state(GroupState.EMPTY):
            # Only members may commit to a group that has members; a transactional commit
            # without member fields is accepted (Kafka's validateOffsetCommit).
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    async def _store_offsets(
        self, group: ClassicGroup, offsets: dict[TopicPartition, OffsetAndMetadata]
    ) -> dict[TopicPartition, ErrorCode]:
        results: dict[TopicPartition, ErrorCode] = {}
        valid: dict[TopicPartition, OffsetAndMetadata] = {}
        for tp, om in offsets.items():
            if len(om.metadata.encode()) > self.config.offset_metadata_max_bytes:
                results[tp] = ErrorCode.OFFSET_METADATA_TOO_LARGE
            else:
                valid[tp] = om
        if valid:
            recs: list[tuple[bytes, bytes | None]] = [
                (
                    records.offset_key(group.group_id, tp[0], tp[1]),
                    records.offset_value(OffsetCommitValue(
                        offset=om.offset, leader_epoch=om.leader_epoch, metadata=om.metadata,
                        commit_timestamp=om.commit_timestamp, expire_timestamp=om.expire_timestamp,
                    )),
                )
                for tp, om in valid.items()
            ]
            applied: dict[TopicPartition, OffsetAndMetadata] = {}
            group.offsets.begin_commit(valid)
            try:
                base = await self._append(group.group_id, recs)
            except CoordinatorLogError as exc:
                for tp in valid:
                    results[tp] = exc.client_error(OFFSET_COMMIT)
            else:
                apply = self._current(group) and not group.is_state(GroupState.DEAD)
                for i, (tp, om) in enumerate(valid.items()):
                    om.record_offset = base + i
                    if apply:
                        applied[tp] = om
                    results[tp] = ErrorCode.NONE
            finally:
                # Released on every path, cancellation included: a partition left pending
                # would answer UNSTABLE_OFFSET_COMMIT to require_stable fetches for ever.
                for tp in valid:
                    group.offsets.end_commit(tp, applied.get(tp))
        return {tp: results[tp] for tp in offsets}

    def fetch_offsets(
        self, group_id: str, partitions: list[TopicPartition] | None, require_stable: bool
    ) -> tuple[ErrorCode, dict[TopicPartition, FetchedOffset]]:
        """Committed offsets of `partitions` (None: every partition with one)."""
        error = self._validate(group_id, allow_empty=True)
        if error is not None:
            return error, {}
        group = self.groups.get(group_id)
        if group is None or group.is_state(GroupState.DEAD):
            return ErrorCode.NONE, dict.fromkeys(partitions or [], _NO_OFFSET)
        wanted = partitions if partitions is not None else sorted(group.offsets.committed)
        out = {}
        for tp in wanted:
            if require_stable and group.offsets.has_pending(tp):
                out[tp] = FetchedOffset(-1, -1, "", ErrorCode.UNSTABLE_OFFSET_COMMIT)
                continue
            om = group.offsets.get(tp)
            out[tp] = _NO_OFFSET if om is None else FetchedOffset(om.offset, om.leader_epoch, om.metadata,
                                                                   ErrorCode.NONE)
        return ErrorCode.NONE, out

    async def delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        error = self._validate(group_id, allow_empty=False)
        if error is not None:
            return error, {}
        group = self.groups.get(group_id)
        if group is None or group.is_state(GroupState.DEAD):
            return ErrorCode.GROUP_ID_NOT_FOUND, {}
        results: dict[TopicPartition, ErrorCode] = {}
        if group.is_state(GroupState.EMPTY):
            eligible = list(partitions)
        elif group.protocol_type == CONSUMER_PROTOCOL_TYPE:
            eligible = []
            for tp in partitions:
                if group.is_subscribed_to_topic(tp[0]):
                    results[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
        else:
            return ErrorCode.NON_EMPTY_GROUP, {}
        to_remove = {tp: om for tp in eligible if (om := group.offsets.get(tp)) is not None}
        error = await self._run_to_end(self._remove_offsets(group, to_remove))
        if error is not ErrorCode.NONE:
            return error, {}
        for tp in eligible:
            results[tp] = ErrorCode.NONE
        return ErrorCode.NONE, {tp: results[tp] for tp in partitions}

    async def _remove_offsets(self, group: ClassicGroup, offsets: dict[TopicPartition, OffsetAndMetadata]) -> ErrorCode:
        """Tombstone `offsets`, and the group itself once it is Empty with no offsets left
        (Kafka's cleanupGroupMetadata)."""
        remove_group = (
            group.is_state(GroupState.EMPTY)
            and set(group.offsets.committed) <= set(offsets)
            and not group.offsets.pending_txn
        )
        recs: list[tuple[bytes, bytes | None]] = [
            (records.offset_key(group.group_id, tp[0], tp[1]), None) for tp in offsets
        ]
        if remove_group:
            recs.append((records.group_key(group.group_id), None))
        if recs:
            try:
                await self._append(group.group_id, recs)
            except CoordinatorLogError as exc:
                return exc.client_error(OFFSET_COMMIT)
        for tp, om in offsets.items():
            group.offsets.remove(tp, unless_newer_than=om.record_offset)
        if remove_group and self._current(group) and group.is_state(GroupState.EMPTY) \
                and not group.offsets.committed and not group.members:
            self._drop_group(group)
        return ErrorCode.NONE

    def _drop_group(self, group: ClassicGroup) -> None:
        group.transition_to(GroupState.DEAD, self.clock.now_ms())
        self.groups.pop(group.group_id, None)
        self.timers.cancel(("join", group.group_id))
        self.timers.cancel(("sync", group.group_id))
        for member_id in group.pending_members:
            self._cancel_heartbeat(group, member_id)

    def expired_offsets(self, group: ClassicGroup, now_ms: int) -> dict[TopicPartition, OffsetAndMetadata]:
        """Kafka's removeExpiredOffsets: which offsets retention would drop now."""
        retention = self.config.offsets_retention_ms
        store = group.offsets
        if group.protocol_type and group.is_state(GroupState.EMPTY):
            # Counted from when the group became Empty, if known.
            ts = group.current_state_timestamp
            return store.expired(now_ms, retention, lambda om: ts if ts is not None else om.commit_timestamp)
        if (group.protocol_type == CONSUMER_PROTOCOL_TYPE and group.subscribed_topics is not None
                and group.is_state(GroupState.STABLE)):
            return store.expired(now_ms, retention, lambda om: om.commit_timestamp, group.subscribed_topics)
        if not group.protocol_type:
            return store.expired(now_ms, retention, lambda om: om.commit_timestamp)
        return {}

    async def cleanup_expired_offsets(self) -> int:
        """Drop expired offsets, and Empty groups left with none; returns offsets removed."""
        now = self.clock.now_ms()
        removed = 0
        for group in list(self.groups.values()):
            if not self._current(group):
                continue
            expired = self.expired_offsets(group, now)
            empty = (group.is_state(GroupState.EMPTY) and not group.offsets.committed
                     and not group.members and not group.pending_members)
            if (expired or empty) and await self._remove_offsets(group, expired) is ErrorCode.NONE:
                removed += len(expired)
        return removed

    # --- transactional offsets (TxnOffsetCommit) -------------------------------------------

    async def commit_txn_offsets(
        self,
        group_id: str,
        producer_id: int,
        producer_epoch: int,
        member_id: str,
        group_instance_id: str | None,
        generation_id: int,
        offsets: dict[TopicPartition, OffsetAndMetadata],
        verify: Callable[[int], ErrorCode] | None = None,
    ) -> dict[TopicPartition, ErrorCode]:
        """Kafka's commitTransactionalOffset: append the offsets as a transactional batch
        and hold them pending for `producer_id` until a marker decides them. `verify`
        (log partition -> error) asks the transaction coordinator whether that partition
        is in the producer's transaction; it runs after the status checks, before the
        group checks, as in Kafka's coordinator runtime."""

        def all_with(error: ErrorCode) -> dict[TopicPartition, ErrorCode]:
            return dict.fromkeys(offsets, error)

        error = self._validate(group_id, allow_empty=False)
        if error is not None:
            return all_with(error)
        partition = self.partition_for(group_id)
        if verify is not None and (error := verify(partition)) is not ErrorCode.NONE:
            return all_with(error)
        group = self.groups.get(group_id)
        if group is None:
            if generation_id >= 0:
                return all_with(ErrorCode.ILLEGAL_GENERATION)
        else:
            # Zombie fencing (KIP-447); the group state itself is not enforced.
            error = self._validate_offset_commit(group, generation_id, member_id, group_instance_id,
                                                 transactional=True)
            if error is not None:
                return all_with(error)
        results: dict[TopicPartition, ErrorCode] = {}
        valid: dict[TopicPartition, OffsetAndMetadata] = {}
        for tp, om in offsets.items():
            if len(om.metadata.encode()) > self.config.offset_metadata_max_bytes:
                results[tp] = ErrorCode.OFFSET_METADATA_TOO_LARGE
            else:
                valid[tp] = om
        if valid:
            results.update(await self._run_to_end(
                self._store_txn_offsets(group_id, partition, producer_id, producer_epoch, valid)))
        return {tp: results[tp] for tp in offsets}

    async def _store_txn_offsets(
        self, group_id: str, partition: int, producer_id: int, producer_epoch: int,
        valid: dict[TopicPartition, OffsetAndMetadata],
    ) -> dict[TopicPartition, ErrorCode]:
        results: dict[TopicPartition, ErrorCode] = {}
        recs: list[tuple[bytes, bytes | None]] = [
            (
                records.offset_key(group_id, tp[0], tp[1]),
                records.offset_value(OffsetCommitValue(
                    offset=om.offset, leader_epoch=om.leader_epoch, metadata=om.metadata,
                    commit_timestamp=om.commit_timestamp, expire_timestamp=-1,
                )),
            )
            for tp, om in valid.items()
        ]
        key = (partition, producer_id)
        seen = self._txn_appends.setdefault(key, [])
        try:
            base = await self._append_transactional(partition, recs, producer_id, producer_epoch)
        except CoordinatorLogError as exc:
            for tp in valid:
                results[tp] = exc.client_error(TXN_OFFSET_COMMIT)
        else:
            for i, om in enumerate(valid.values()):
                om.record_offset = base + i
            decided = await self._decided_after(partition, producer_id, base) if seen else None
            if decided is None:
                self.prepare_txn_offsets(group_id, producer_id, valid)
            elif decided:
                group = self.groups.get(group_id) or self._new_simple_group(group_id)
                for tp, om in valid.items():
                    group.offsets.put(tp, om)
            for tp in valid:
                results[tp] = ErrorCode.NONE
        finally:
            if self._txn_appends.get(key) is seen:
                del self._txn_appends[key]
        return results

    async def _append_transactional(
        self, partition: int, recs: list[tuple[bytes, bytes | None]], producer_id: int, producer_epoch: int
    ) -> int:
        try:
            return await self.log.append(partition, recs, Producer(producer_id, producer_epoch))
        except CoordinatorLogError:
            raise
        except Exception as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc

    async def _decided_after(self, partition: int, producer_id: int, base: int) -> bool | None:
        """A marker for the producer reached the partition while its offsets were being
        appended: read the log to learn whether that marker follows them (then it decides
        them: True commit, False abort) or precedes them (None: still pending)."""
        try:
            entries = await self.log.replay(partition)
        except Exception:
            log.exception("re-reading __consumer_offsets after a concurrent marker failed")
            return None
        for entry in entries:
            if entry.offset > base and entry.producer_id == producer_id and entry.control_commit is not None:
                return entry.control_commit
        return None

    def _new_simple_group(self, group_id: str) -> ClassicGroup:
        group = ClassicGroup(group_id, self.clock.now_ms())
        self.groups[group_id] = group
        return group

    def prepare_txn_offsets(
        self, group_id: str, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]
    ) -> None:
        """Hold offsets a transaction appended; invisible until its marker."""
        group = self.groups.get(group_id) or self._new_simple_group(group_id)
        for tp, om in offsets.items():
            group.offsets.prepare_txn(producer_id, tp, om)

    def complete_txn(self, producer_id: int, commit: bool, partitions: set[int] | None = None) -> None:
        """A COMMIT/ABORT marker for `producer_id` was written to these log partitions."""
        for group in self.groups.values():
            if partitions is None or self.partition_for(group.group_id) in partitions:
                group.offsets.complete_txn(producer_id, commit)

    async def on_txn_marker(self, tp: tuple[str, int], producer_id: int, committed: bool) -> None:
        """MarkerListener for the transaction coordinator: a marker reached a partition."""
        if tp[0] != OFFSETS_TOPIC:
            return
        for (partition, pid), seen in self._txn_appends.items():
            if partition == tp[1] and pid == producer_id:
                seen.append(committed)
        if self.status == "loading":
            self._markers_while_loading.append((tp[1], producer_id, committed))
            return
        self.complete_txn(producer_id, committed, {tp[1]})

    # --- administration -----------------------------------------------------------------

    def describe_group(self, group_id: str) -> GroupDescription:
        error = self._validate(group_id, allow_empty=True)
        if error is not None:
            return GroupDescription(group_id, error, "", "", "", [])
        group = self.groups.get(group_id)
        if group is None:
            return GroupDescription(group_id, ErrorCode.NONE, GroupState.DEAD.value, "", "", [])
        stable = group.is_state(GroupState.STABLE) and group.protocol_name is not None
        protocol = group.protocol_name if stable and group.protocol_name is not None else ""
        members = [
            MemberDescription(
                m.member_id, m.group_instance_id, m.client_id, m.client_host,
                m.metadata(protocol) if stable else b"", m.assignment if stable else b"",
            )
            for m in group.members.values()
        ]
        return GroupDescription(group_id, ErrorCode.NONE, group.state.value, group.protocol_type or "", protocol,
                                members)

    def list_groups(self, states: list[str], types: list[str]) -> tuple[ErrorCode, list[ListedGroup]]:
        error = ErrorCode.NONE
        if self.status == "loading":
            error = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        elif self.status == "stopped":
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        wanted_states = {s.lower() for s in states}
        wanted_types = {t.lower() for t in types}
        out = []
        for group in self.groups.values():
            if wanted_states and group.state.value.lower() not in wanted_states:
                continue
            if wanted_types and GROUP_TYPE_CLASSIC not in wanted_types:
                continue
            out.append(ListedGroup(group.group_id, group.protocol_type or "", group.state.value, GROUP_TYPE_CLASSIC))
        return error, out

    async def delete_groups(self, group_ids: list[str]) -> list[tuple[str, ErrorCode]]:
        results = []
        for group_id in group_ids:
            error = self._validate(group_id, allow_empty=True)
            group = self.groups.get(group_id)
            if error is None:
                if group is None or group.is_state(GroupState.DEAD):
                    error = ErrorCode.GROUP_ID_NOT_FOUND
                elif not group.is_state(GroupState.EMPTY):
                    error = ErrorCode.NON_EMPTY_GROUP
            if error is None and group is not None:
                offsets = dict(group.offsets.committed)
                recs: list[tuple[bytes, bytes | None]] = [
                    (records.offset_key(group_id, tp[0], tp[1]), None) for tp in offsets
                ]
                recs.append((records.group_key(group_id), None))
                error = await self._run_to_end(self._delete_group(group, recs))
            results.append((group_id, error if error is not None else ErrorCode.NONE))
        return results

    async def _delete_group(self, group: ClassicGroup, recs: list[tuple[bytes, bytes | None]]) -> ErrorCode:
        try:
            await self._append(group.group_id, recs)
        except CoordinatorLogError as exc:
            return exc.client_error(OFFSET_COMMIT)
        if self._current(group) and group.is_state(GroupState.EMPTY):
            self._drop_group(group)
        return ErrorCode.NONE
