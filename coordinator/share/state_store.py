"""The durable state of share partitions (Kafka's ShareCoordinatorShard): `__share_group_state`
holds, per share partition, a ShareSnapshot and the ShareUpdates written after it
(`coordinator/share/records.py`). A write appends one record and changes the state held here
only once the append is durable; after `snapshot_every` updates the next write is a snapshot
(`share.coordinator.snapshot.update.records.per.snapshot`), so that compaction keeps a load
short.

Each partition of the topic is held by the broker that leads it (Kafka's share coordinator
is the leader of the state partition; `coordinator/ownership.py`): `on_election` replays the
partition as Kafka's shard replays it, `on_resignation` drops its share partitions' state.
A single broker owns every partition and `load` replays them all at start. A key whose
partition is not held answers NOT_COORDINATOR, one being loaded COORDINATOR_LOAD_IN_PROGRESS."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from coordinator.log import CoordinatorLog, CoordinatorLogError
from coordinator.ownership import OwnedPartition, Ownership
from coordinator.partitioning import partition_for
from coordinator.share import records as rec
from coordinator.share.partition import PersistedBatch
from coordinator.share.record_state import RecordState
from coordinator.share.records import SharePartitionKey, ShareSnapshot, ShareUpdate
from protocol.errors import ErrorCode
from storage.clock import Clock

log = structlog.get_logger("odradek.share")

# Kafka's ShareCoordinatorConfig defaults.
DEFAULT_STATE_TOPIC_PARTITIONS = 50
DEFAULT_SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT = 500
# A read or write that carries no leader epoch: nothing fenced, nothing recorded.
NO_LEADER_EPOCH = -1
# A write that carries no state epoch (this broker's own share partitions): nothing fenced.
NO_STATE_EPOCH = -1


@dataclass(frozen=True)
class ShareState:
    """One share partition's durable state: the snapshot with its updates merged in."""

    start_offset: int
    batches: tuple[PersistedBatch, ...]
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    create_timestamp: int


@dataclass(frozen=True)
class ShareSummary:
    """What ReadShareGroupStateSummary answers of a share partition's state."""

    state_epoch: int
    leader_epoch: int
    start_offset: int
    # KIP-1226: the offsets at or past the start offset whose delivery is over; -1 unknown.
    delivery_complete_count: int


def next_state_epoch(found: ShareSummary | None) -> int:
    """The state epoch an AlterShareGroupOffsets initializes a share partition under: past
    the one it has, and past 0 when it has none, the epoch a leader that read no state writes
    with, so that leader's stale writes are fenced (FENCED_STATE_EPOCH) all the same."""
    return 1 if found is None else found.state_epoch + 1


def summary(state: ShareState) -> ShareSummary:
    done = -1 if state.start_offset < 0 else sum(
        b.last_offset - b.first_offset + 1 for b in state.batches
        if b.state in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED))
    return ShareSummary(state.state_epoch, state.leader_epoch, state.start_offset, done)


def coordinator_key(key: SharePartitionKey) -> str:
    """Kafka's SharePartitionKey.asCoordinatorKey: what picks the state topic's partition."""
    return f"{key.group_id}:{key.topic_id}:{key.partition}"


def merge_batches(
    older: Sequence[PersistedBatch], newer: Sequence[PersistedBatch], start_offset: int
) -> tuple[PersistedBatch, ...]:
    """`newer` over `older`, offset by offset (Kafka's PersisterStateBatchCombiner), dropping
    what lies below the start offset."""
    out: list[PersistedBatch] = []
    for b in older:
        for lo, hi in _minus(b.first_offset, b.last_offset, newer):
            out.append(PersistedBatch(lo, hi, b.state, b.delivery_count))
    out.extend(newer)
    kept = []
    for b in sorted(out, key=lambda b: b.first_offset):
        if b.last_offset < start_offset:
            continue
        if b.first_offset < start_offset:
            b = PersistedBatch(start_offset, b.last_offset, b.state, b.delivery_count)
        kept.append(b)
    return tuple(kept)


def _minus(first: int, last: int, cover: Sequence[PersistedBatch]) -> list[tuple[int, int]]:
    parts = [(first, last)]
    for c in cover:
        nxt: list[tuple[int, int]] = []
        for lo, hi in parts:
            if c.last_offset < lo or c.first_offset > hi:
                nxt.append((lo, hi))
                continue
            if lo < c.first_offset:
                nxt.append((lo, c.first_offset - 1))
            if hi > c.last_offset:
                nxt.append((c.last_offset + 1, hi))
        parts = nxt
    return parts


class ShareStateStore:
    def __init__(
        self,
        coordinator_log: CoordinatorLog,
        clock: Clock,
        snapshot_every: int = DEFAULT_SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT,
        owns_all: bool = True,
    ) -> None:
        self.log = coordinator_log
        self.clock = clock
        self.snapshot_every = snapshot_every
        self.states: dict[SharePartitionKey, ShareState] = {}
        # Updates written since the last snapshot of each share partition.
        self._updates: dict[SharePartitionKey, int] = {}
        self.loaded = False
        self._locks: dict[int, asyncio.Lock] = {}
        self._partition_of: dict[SharePartitionKey, tuple[int, int]] = {}
        # The encoded record keys of each share partition (snapshot, update): one per write.
        self._record_keys: dict[SharePartitionKey, tuple[bytes, bytes]] = {}
        # Which partitions of the topic this broker holds (all of them without a cluster).
        self.ownership = Ownership(coordinator_log.num_partitions, owns_all)

    def partition_for(self, key: SharePartitionKey) -> int:
        # Asked on every write: the Java string hash of the key is kept (per partition count).
        n = self.log.num_partitions
        found = self._partition_of.get(key)
        if found is None or found[0] != n:
            found = (n, partition_for(coordinator_key(key), n))
            self._partition_of[key] = found
        return found[1]

    def _record_key(self, record_type: int, key: SharePartitionKey) -> bytes:
        keys = self._record_keys.get(key)
        if keys is None:
            keys = self._record_keys[key] = (rec.encode_key(rec.SNAPSHOT, key), rec.encode_key(rec.UPDATE, key))
        return keys[0] if record_type == rec.SNAPSHOT else keys[1]

    async def ensure_log(self) -> ErrorCode:
        """Create `__share_group_state` if it is missing (FindCoordinator and the persister
        do, as in Kafka): in a cluster its partitions need leaders before anyone writes."""
        try:
            await self.log.ensure_topic()
        except CoordinatorLogError:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return ErrorCode.NONE

    def error(self, key: SharePartitionKey) -> ErrorCode | None:
        """None when this broker holds the key's partition, loaded; else what to answer."""
        return self.ownership.serving_error(self.partition_for(key))

    # --- load, following the leadership of the topic's partitions -------------------------

    async def load(self) -> None:
        """Replay every partition owned from the start (a single broker)."""
        for partition in self.ownership.partitions():
            owned = self.ownership.get(partition)
            if owned is not None:
                await self._load_partition(owned)
        self.loaded = True

    def on_election(self, partition: int, leader_epoch: int) -> asyncio.Task[None] | None:
        """This broker leads `partition` at `leader_epoch`: its keys answer
        COORDINATOR_LOAD_IN_PROGRESS until the task returned has replayed it. None for a
        stale election."""
        _, owned = self.ownership.elect(partition, leader_epoch)
        if owned is None:
            return None
        self._forget(partition)
        return asyncio.get_running_loop().create_task(self._load_partition(owned))

    def on_resignation(self, partition: int, leader_epoch: int | None) -> None:
        """Another broker leads `partition` now: its keys answer NOT_COORDINATOR and their
        state is dropped here."""
        if self.ownership.resign(partition, leader_epoch) is not None:
            self._forget(partition)

    def _forget(self, partition: int) -> None:
        for key in [k for k in self.states if self.partition_for(k) == partition]:
            self.states.pop(key, None)
            self._updates.pop(key, None)
            self._record_keys.pop(key, None)

    async def _load_partition(self, owned: OwnedPartition) -> None:
        # Under the partition's lock: a write under way when leadership came back is in
        # the log before the replay reads it.
        async with self._lock(owned.partition):
            try:
                records = await self.log.replay(owned.partition)
            except Exception:
                # Kafka's failed load: NOT_COORDINATOR until elected again.
                log.exception("loading a __share_group_state partition failed", partition=owned.partition)
                if self.ownership.get(owned.partition) is owned:
                    self.ownership.resign(owned.partition, None)
                return
            if self.ownership.get(owned.partition) is not owned:
                return  # resigned (or elected again) meanwhile
            self._forget(owned.partition)
            for record in records:
                if record.key is not None:
                    self._replay(record.key, record.value)
            self.ownership.loaded(owned)

    def _replay(self, raw_key: bytes, raw_value: bytes | None) -> None:
        record_type, key = rec.decode_key(raw_key)
        if raw_value is None:
            self.states.pop(key, None)
            self._updates.pop(key, None)
        elif record_type == rec.SNAPSHOT:
            self._apply_snapshot(key, rec.decode_snapshot(raw_value))
        else:
            self._apply_update(key, rec.decode_update(raw_value))

    # A write applies the record it made as `_replay` would, without decoding it again.

    def _apply_snapshot(self, key: SharePartitionKey, s: ShareSnapshot) -> None:
        self.states[key] = ShareState(
            s.start_offset, tuple(s.batches), s.snapshot_epoch, s.state_epoch, s.leader_epoch, s.create_timestamp
        )
        self._updates[key] = 0

    def _apply_update(self, key: SharePartitionKey, u: ShareUpdate) -> None:
        old = self.states.get(key)
        if old is None:
            # An update with no snapshot before it (compacted away with a tombstone): Kafka
            # ignores it too.
            return
        start = old.start_offset if u.start_offset < 0 else u.start_offset
        self.states[key] = ShareState(
            start, merge_batches(old.batches, u.batches, start), old.snapshot_epoch, old.state_epoch,
            u.leader_epoch, old.create_timestamp,
        )
        self._updates[key] = self._updates.get(key, 0) + 1

    # --- reads and writes (ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState) -

    def read(self, key: SharePartitionKey) -> ShareState | None:
        """The share partition's durable state (None: it has none yet); CoordinatorLogError
        when this broker does not hold the key's partition."""
        self._held(self.partition_for(key))
        return self.states.get(key)

    def _lock(self, partition: int) -> asyncio.Lock:
        lock = self._locks.get(partition)
        if lock is None:  # not setdefault: that would build a Lock on every write
            lock = self._locks[partition] = asyncio.Lock()
        return lock

    async def read_for_leader(self, key: SharePartitionKey, leader_epoch: int) -> ShareState | None:
        """ReadShareGroupState of the data partition's leader at `leader_epoch` (Kafka's
        readStateAndMaybeUpdateLeaderEpoch): a newer epoch is written before the state is
        answered, so that a former leader's writes are fenced from then on; an older one
        raises FENCED_LEADER_EPOCH. `NO_LEADER_EPOCH` neither checks nor records."""
        partition = self.partition_for(key)
        async with self._lock(partition):
            owned = self._held(partition)
            old = self.states.get(key)
            if old is None or leader_epoch == NO_LEADER_EPOCH or leader_epoch == old.leader_epoch:
                return old
            self._fence(old, leader_epoch)
            update = ShareUpdate(old.snapshot_epoch, leader_epoch, -1, ())
            record = (self._record_key(rec.UPDATE, key), rec.encode_update(update))
            await self._append(partition, [record])
            if self.ownership.holds(owned):
                self._apply_update(key, update)
            return self.states.get(key)

    @staticmethod
    def _fence(old: ShareState | None, leader_epoch: int) -> None:
        if old is not None and leader_epoch != NO_LEADER_EPOCH and leader_epoch < old.leader_epoch:
            raise CoordinatorLogError(
                ErrorCode.FENCED_LEADER_EPOCH,
                f"leader epoch {leader_epoch} is older than the share partition's {old.leader_epoch}",
            )

    async def write(
        self,
        key: SharePartitionKey,
        start_offset: int,
        batches: Sequence[PersistedBatch],
        leader_epoch: int = NO_LEADER_EPOCH,
        state_epoch: int = NO_STATE_EPOCH,
    ) -> None:
        """Make (start offset, batches) the durable state of the share partition; raises
        CoordinatorLogError, and then nothing changed. The batches are the whole window, so
        an update replaces every offset it names. A write of a leader epoch older than the
        state's is refused (FENCED_LEADER_EPOCH): its data partition has a newer leader; one
        of a state epoch older than the state's too (FENCED_STATE_EPOCH): the share partition
        was initialized again since its leader read it (AlterShareGroupOffsets)."""
        partition = self.partition_for(key)
        async with self._lock(partition):
            owned = self._held(partition)
            old = self.states.get(key)
            self._fence(old, leader_epoch)
            if old is not None and state_epoch != NO_STATE_EPOCH and state_epoch < old.state_epoch:
                raise CoordinatorLogError(
                    ErrorCode.FENCED_STATE_EPOCH,
                    f"state epoch {state_epoch} is older than the share partition's {old.state_epoch}",
                )
            now = self.clock.now_ms()
            batches = tuple(batches)
            epoch = leader_epoch if leader_epoch != NO_LEADER_EPOCH else 0 if old is None else old.leader_epoch
            if old is None or self._updates.get(key, 0) >= self.snapshot_every:
                snapshot = ShareSnapshot(
                    snapshot_epoch=0 if old is None else old.snapshot_epoch + 1,
                    state_epoch=0 if old is None else old.state_epoch,
                    leader_epoch=epoch,
                    start_offset=start_offset,
                    batches=batches,
                    create_timestamp=now if old is None else old.create_timestamp,
                    write_timestamp=now,
                )
                record = (self._record_key(rec.SNAPSHOT, key), rec.encode_snapshot(snapshot))
                change: ShareSnapshot | ShareUpdate = snapshot
            else:
                change = ShareUpdate(old.snapshot_epoch, epoch, start_offset, batches)
                record = (self._record_key(rec.UPDATE, key), rec.encode_update(change))
            try:
                await self.log.append(partition, [record])
            except CoordinatorLogError:
                raise
            except Exception as exc:  # as `_append`, one frame less on every acknowledgement's way
                raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc
            if self.ownership.holds(owned):
                if isinstance(change, ShareSnapshot):
                    self._apply_snapshot(key, change)
                else:
                    self._apply_update(key, change)

    async def initialize(self, key: SharePartitionKey, state_epoch: int, start_offset: int) -> None:
        """InitializeShareGroupState (Kafka's ShareCoordinatorShard.initializeState): the
        share partition starts over at `start_offset` (-1: left to its leader's
        share.auto.offset.reset) under `state_epoch`, a snapshot with no batches and leader
        epoch 0. A state epoch older than the state's is refused (FENCED_STATE_EPOCH)."""
        partition = self.partition_for(key)
        async with self._lock(partition):
            owned = self._held(partition)
            old = self.states.get(key)
            if old is not None and old.state_epoch > state_epoch:
                raise CoordinatorLogError(
                    ErrorCode.FENCED_STATE_EPOCH,
                    f"state epoch {state_epoch} is older than the share partition's {old.state_epoch}",
                )
            now = self.clock.now_ms()
            snapshot = ShareSnapshot(
                snapshot_epoch=0 if old is None else old.snapshot_epoch + 1,
                state_epoch=state_epoch,
                leader_epoch=0,
                start_offset=start_offset,
                batches=(),
                create_timestamp=now,
                write_timestamp=now,
                delivery_complete_count=-1 if start_offset < 0 else 0,
            )
            await self._append(partition, [(self._record_key(rec.SNAPSHOT, key), rec.encode_snapshot(snapshot))])
            if self.ownership.holds(owned):
                self._apply_snapshot(key, snapshot)

    async def delete(self, key: SharePartitionKey) -> None:
        """Tombstones for the share partition's records (DeleteShareGroupOffsets, group deletion)."""
        partition = self.partition_for(key)
        async with self._lock(partition):
            self._held(partition)
            if key not in self.states:
                return
            records: list[tuple[bytes, bytes | None]] = [
                (self._record_key(rec.SNAPSHOT, key), None),
                (self._record_key(rec.UPDATE, key), None),
            ]
            await self._append(partition, records)
            self.states.pop(key, None)
            self._updates.pop(key, None)
            self._partition_of.pop(key, None)
            self._record_keys.pop(key, None)

    def _held(self, partition: int) -> OwnedPartition:
        """The partition's loaded ownership, else CoordinatorLogError (NOT_COORDINATOR,
        COORDINATOR_LOAD_IN_PROGRESS): a broker writes only the partitions it leads."""
        owned = self.ownership.active(partition)
        if owned is None:
            error = self.ownership.error(partition) or ErrorCode.NOT_COORDINATOR
            raise CoordinatorLogError(error, f"{rec.SHARE_GROUP_STATE_TOPIC}-{partition} is not held here")
        return owned

    async def _append(self, partition: int, records: list[tuple[bytes, bytes | None]]) -> None:
        try:
            await self.log.append(partition, records)
        except CoordinatorLogError:
            raise
        except Exception as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc
