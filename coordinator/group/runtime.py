"""What every part of the group coordinator shares: the groups, the log, the clock and
its timers, the coordinator's status, and the writes in flight. It holds both kinds of
groups, so it sits above `classic/` and `consumer/`, which use it through the Protocols
they declare (`classic/ports.py`, `consumer/ports.py`).

A write (`GroupRuntime.write`, Kafka's CoordinatorRuntime.scheduleWriteOperation) runs an
operation that returns the records of a change with the response, one write per group at
a time. A consumer group changes only by its records: what the operation did to it is
undone (`coordinator/group/snapshot.py`) and the records are replayed into it once they
are durable (`consumer/replay.py`, the replay a load uses). A classic group keeps what the
operation did to it, as Kafka's does (it does not replay classic records while serving),
unless the append fails: then it is put back as it was too. Either way a failed append
answers the error and changes nothing. What a change does outside the group (timers set or
cancelled, waiting requests completed) happens once the append succeeded, never before."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine, Hashable, Mapping
from dataclasses import fields
from enum import Enum
from typing import Any, TypeVar

import structlog

from coordinator.group.classic.group import ClassicGroup
from coordinator.group.classic.states import GroupState
from coordinator.group.config import GroupConfig
from coordinator.group.consumer import records as consumer_records
from coordinator.group.consumer import replay as consumer_replay
from coordinator.group.consumer.group import ConsumerGroup, TopicImage
from coordinator.group.snapshot import GroupSnapshot
from coordinator.group.timers import NamedTimers, heartbeat_key, join_key, sync_key
from coordinator.log import CoordinatorLog, CoordinatorLogError, Producer, Record
from coordinator.ownership import Ownership
from coordinator.partitioning import partition_for
from protocol.errors import ErrorCode
from storage.clock import Clock

log = structlog.get_logger("odradek.groups")

_T = TypeVar("_T")
# What an operation run by `GroupRuntime.write` returns: its records and its response.
Operation = Callable[[], tuple[list[Record], _T]]


class CoordinatorStatus(Enum):
    LOADING = "loading"  # while a partition loads: its groups get COORDINATOR_LOAD_IN_PROGRESS
    ACTIVE = "active"
    STOPPED = "stopped"  # after stop(): COORDINATOR_NOT_AVAILABLE


class GroupRuntime:
    def __init__(self, coordinator_log: CoordinatorLog, clock: Clock, config: GroupConfig,
                 owns_all_partitions: bool = True) -> None:
        self.log = coordinator_log
        self.clock = clock
        self.config = config
        self.groups: dict[str, ClassicGroup] = {}
        # KIP-848 groups; a classic group of the same id, if any, is empty and holds the offsets.
        self.consumer_groups: dict[str, ConsumerGroup] = {}
        # Topic id -> name, for the partitions consumer group records store by id (the
        # broker sets it to its storage's topics).
        self.topic_names: Callable[[], Mapping[uuid.UUID, str]] = dict
        # The topics by name, for assigning to classic members of consumer groups (set as above).
        self.topic_images: Callable[[], Mapping[str, TopicImage]] = dict
        self.timers = NamedTimers(clock)
        # The partitions of `__consumer_offsets` this coordinator serves (coordinator/ownership.py).
        self.ownership = Ownership(coordinator_log.num_partitions, owns_all_partitions)
        self.stopped = False
        self.tasks: set[asyncio.Task[Any]] = set()
        # Topic ids the consumer group records of this process named (the ones of deleted
        # topics too, so that replaying a write finds every partition it holds).
        self.topic_ids: dict[uuid.UUID, str] = {}
        # Writes to one group run one at a time (a failed one reverts what followed it
        # otherwise): group id -> its lock and how many writes hold or wait for it.
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        # The effects of the operation running now, held until its append succeeds.
        self._effects: list[Callable[[], None]] | None = None
        # Whether a group id is a share group's (the broker sets it to the share
        # coordinator's): Kafka's groups of one id are of one type, so a consumer or classic
        # member may not join it.
        self.share_group: Callable[[str], bool] = lambda group_id: False

    def learn_topics(self, topics: Mapping[str, TopicImage]) -> None:
        for name, image in topics.items():
            self.topic_ids[image.topic_id] = name

    @property
    def status(self) -> CoordinatorStatus:
        """STOPPED once stopped, LOADING while any owned partition loads, else ACTIVE."""
        if self.stopped:
            return CoordinatorStatus.STOPPED
        return CoordinatorStatus.LOADING if self.ownership.any_loading() else CoordinatorStatus.ACTIVE

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.log.num_partitions)

    def validate(self, group_id: str | None, allow_empty: bool) -> ErrorCode | None:
        """Kafka's validateGroupStatus: the group's partition must be owned and loaded."""
        if group_id is None or (not allow_empty and group_id == ""):
            return ErrorCode.INVALID_GROUP_ID
        if self.stopped:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return self.ownership.serving_error(self.partition_for(group_id))

    # --- groups ------------------------------------------------------------------------

    def current(self, group: ClassicGroup) -> bool:
        """Whether `group` is still the one registered under its id (not deleted or reloaded)."""
        return self.groups.get(group.group_id) is group

    def new_group(self, group_id: str) -> ClassicGroup:
        group = ClassicGroup(group_id, self.clock.now_ms())
        self.groups[group_id] = group
        return group

    def drop_consumer_group(self, group: ConsumerGroup) -> None:
        """Forget a consumer group whose tombstones are durable, unless a member joined it
        since (its records follow the tombstones)."""
        if self.consumer_groups.get(group.group_id) is group and not group.members:
            del self.consumer_groups[group.group_id]

    def drop_group(self, group: ClassicGroup) -> None:
        group.transition_to(GroupState.DEAD, self.clock.now_ms())
        self.groups.pop(group.group_id, None)
        self.cancel(join_key(group.group_id))
        self.cancel(sync_key(group.group_id))
        for member_id in group.pending_members:
            self.cancel(heartbeat_key(group.group_id, member_id))

    # --- timers on the injected clock --------------------------------------------------

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> None:
        self.after_write(lambda: self.timers.schedule(key, delay_ms, action))

    def cancel(self, key: Hashable) -> None:
        self.after_write(lambda: self.timers.cancel(key))

    def after_write(self, effect: Callable[[], None]) -> None:
        """Run `effect` once the running write's records are durable (now outside a write;
        never if its append fails)."""
        if self._effects is None:
            effect()
        else:
            self._effects.append(effect)

    # --- writes --------------------------------------------------------------------------

    async def write(self, group_id: str, operation: Operation[_T],
                    failed: Callable[[CoordinatorLogError], _T]) -> _T:
        """Run `operation` on the groups, append its records, and answer its response once
        they are durable; if the append fails, the group is put back and `failed` answers.
        Runs to the end even when the caller is cancelled (see `run_to_end`)."""
        return await self.run_to_end(self._write(group_id, operation, failed))

    async def _write(self, group_id: str, operation: Operation[_T],
                     failed: Callable[[CoordinatorLogError], _T]) -> _T:
        lock, users = self._locks.setdefault(group_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                return await self._write_locked(group_id, operation, failed)
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[group_id]

    async def _write_locked(self, group_id: str, operation: Operation[_T],
                            failed: Callable[[CoordinatorLogError], _T]) -> _T:
        owned = self.ownership.active(self.partition_for(group_id))
        if owned is None:
            # Resigned while this write waited for the group's lock.
            return failed(CoordinatorLogError(ErrorCode.NOT_LEADER_OR_FOLLOWER))
        snapshot = GroupSnapshot(group_id, self.groups.get(group_id), self.consumer_groups.get(group_id))
        effects: list[Callable[[], None]] = []
        self._effects = effects
        try:
            records, response = operation()
        except BaseException:
            self._effects = None
            snapshot.restore(self.groups, self.consumer_groups, self.groups.get(group_id),
                             self.consumer_groups.get(group_id))
            raise
        self._effects = None
        classic_now, consumer_now = self.groups.get(group_id), self.consumer_groups.get(group_id)
        kept = None if consumer_now is None else (
            consumer_now.subscription_metadata, consumer_now.assignor_name, consumer_now.resolved_regexes)
        if not records:
            # Nothing to be durable: the operation changed nothing the log holds (the
            # failed-append tests compare what is served with a reload of the log), and a
            # consumer group it made for a request it refused is no group.
            if snapshot.consumer is None and consumer_now is not None:
                del self.consumer_groups[group_id]
            for effect in effects:
                effect()
            return response
        # A consumer group changes only by its records (Kafka's replay): what the operation
        # did to it is undone, and its records make it again once they are durable.
        snapshot.restore_consumer(self.consumer_groups, consumer_now)
        if records:
            try:
                await self.append(group_id, records)
            except CoordinatorLogError as exc:
                log.warning("group write failed; the group is as it was", group=group_id, error=exc.error.name)
                if self.ownership.holds(owned):  # else resigned: its groups are gone
                    snapshot.restore_classic(self.groups, classic_now)
                return failed(exc)
            except BaseException:
                # Cancelled with the loop: whether the records are in is unknown, and the
                # next load decides; until then nothing is served that may not be.
                if self.ownership.holds(owned):
                    snapshot.restore_classic(self.groups, classic_now)
                raise
        self._replay(group_id, records, consumer_now, kept)
        for effect in effects:
            effect()
        return response

    def _replay(self, group_id: str, records: list[Record], made: ConsumerGroup | None,
                kept: tuple[dict[str, int] | None, str, dict[str, tuple[frozenset[str], frozenset[str]]]] | None,
                ) -> None:
        """Apply a write's consumer group records, durable now (the same replay as a load's,
        `consumer/replay.py`). `made` is the group object the operation left: timers refer
        to it, so it is the one the records rebuild; what the log does not hold (the
        partition counts its target was computed from, the assignor used, the resolved
        regexes) is carried over."""
        ours = [(key, value) for key, value in records if _record_type(key) in consumer_records.RECORD_TYPES]
        if ours and made is not None and group_id not in self.consumer_groups:
            fresh = ConsumerGroup(group_id, subscription_metadata=None)
            for f in fields(fresh):
                setattr(made, f.name, getattr(fresh, f.name))
            self.consumer_groups[group_id] = made
        names = {**self.topic_names(), **self.topic_ids}
        for key, value in ours:
            consumer_replay.replay(self.consumer_groups, _record_type(key), key[2:], value, names)
        if made is not None and kept is not None and self.consumer_groups.get(group_id) is made:
            made.subscription_metadata, made.assignor_name, made.resolved_regexes = kept

    async def append(self, group_id: str, records: list[Record], producer: Producer | None = None) -> int:
        """Append to the group's partition, which must be owned and loaded before and after:
        what a resigned partition's append left is for whoever loads the partition next,
        and the caller gets NOT_COORDINATOR (Kafka fails the writes pending at unload)."""
        partition = self.partition_for(group_id)
        owned = self.ownership.active(partition)
        if owned is None:
            raise CoordinatorLogError(ErrorCode.NOT_LEADER_OR_FOLLOWER, "not the coordinator of this group")
        try:
            base = await self.log.append(partition, records, producer)
        except CoordinatorLogError:
            raise
        except Exception as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc
        if not self.ownership.holds(owned):
            raise CoordinatorLogError(ErrorCode.NOT_LEADER_OR_FOLLOWER, "resigned while appending")
        return base

    def spawn(self, coro: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        """Run in the background; stop() and settle() wait for it."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self.tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("group coordinator task failed", exc_info=t.exception())

        task.add_done_callback(done)
        return task

    async def run_to_end(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run a write and the state change that follows it to the end even when the
        request waiting for it is cancelled (its client left): as in Kafka, an append that
        became durable takes effect, one that failed does not, and pending marks are
        released either way."""
        return await asyncio.shield(self.spawn(coro))

    async def settle(self) -> None:
        """Wait until no background write is in flight."""
        while self.tasks:
            await asyncio.wait(list(self.tasks))


def _record_type(key: bytes) -> int:
    return int.from_bytes(key[:2], "big", signed=True) if len(key) >= 2 else -1
