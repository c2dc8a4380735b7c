"""Committed offsets: OffsetCommit and TxnOffsetCommit (one validation path, one record
builder), OffsetFetch, the transaction markers that decide transactional offsets, and
retention (Kafka's OffsetMetadataManager)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

from coordinator.group import records
from coordinator.group.api import NO_OFFSET, CommitOffsets, CommitTxnOffsets, FetchedOffset
from coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, ClassicGroup
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.classic.states import GroupState
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.group.runtime import GroupRuntime
from coordinator.log import OFFSET_COMMIT, TXN_OFFSET_COMMIT, CoordinatorLogError, Producer, Record
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition

log = structlog.get_logger("odradek.groups")

Results = dict[TopicPartition, ErrorCode]


class OffsetManager:
    def __init__(self, rt: GroupRuntime, rebalance: Rebalancer) -> None:
        self.rt = rt
        self.rebalance = rebalance
        # Markers that reached __consumer_offsets while loading, applied once loaded.
        self._markers_while_loading: list[tuple[int, int, bool]] = []
        # (log partition, producer id) of transactional appends in flight -> markers seen meanwhile.
        self.txn_appends: dict[tuple[int, int], list[bool]] = {}

    # --- validation and records, shared by both commits ---------------------------------

    @staticmethod
    def _validate_commit(
        group: ClassicGroup | None, generation_id: int, member_id: str, instance_id: str | None,
        transactional: bool, api_version: int | None = None,
    ) -> ErrorCode | None:
        """Kafka's OffsetMetadataManager.validateOffsetCommit / validateTransactionalOffsetCommit
        and ClassicGroup.validateOffsetCommit; KIP-447 zombie fencing for transactional commits,
        whose group state itself is not enforced."""
        if group is None:
            if generation_id < 0:
                # The admin client's or a standalone consumer's commit creates a simple group,
                # whatever member id or instance id it carries.
                return None
            if not transactional and api_version is not None and api_version >= 9:
                return ErrorCode.GROUP_ID_NOT_FOUND
            return ErrorCode.ILLEGAL_GENERATION  # OffsetCommit v1-v8 and TxnOffsetCommit
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_state(GroupState.EMPTY):
            return None  # as for an absent group: member fields are not looked at
        if generation_id >= 0 or member_id != "" or instance_id is not None:
            error = group.validate_member(member_id, instance_id)
            if error is not None:
                return error
            if generation_id != group.generation_id:
                return ErrorCode.ILLEGAL_GENERATION
            return None
        if not transactional and not group.is_state(GroupState.EMPTY):
            # Only members may commit to a group that has members; a transactional commit
            # without member fields is accepted.
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    def _split(
        self, offsets: dict[TopicPartition, OffsetAndMetadata]
    ) -> tuple[Results, dict[TopicPartition, OffsetAndMetadata]]:
        """Refuse metadata over offset.metadata.max.bytes; the rest is to be written."""
        limit = self.rt.config.offset_metadata_max_bytes
        refused: Results = {}
        valid: dict[TopicPartition, OffsetAndMetadata] = {}
        for tp, om in offsets.items():
            if len(om.metadata.encode()) > limit:
                refused[tp] = ErrorCode.OFFSET_METADATA_TOO_LARGE
            else:
                valid[tp] = om
        return refused, valid

    @staticmethod
    def _records(group_id: str, offsets: dict[TopicPartition, OffsetAndMetadata]) -> list[Record]:
        return [records.offset_record(group_id, tp, om) for tp, om in offsets.items()]

    # --- OffsetCommit ----------------------------------------------------------------------

    async def commit_offsets(self, req: CommitOffsets) -> Results:
        offsets = req.offsets
        error = self.rt.validate(req.group_id, allow_empty=True)
        group = self.rt.groups.get(req.group_id)
        consumer_group = self.rt.consumer_groups.get(req.group_id)
        if error is None and self.rt.share_group(req.group_id):
            # Kafka's ShareGroup.validateOffsetCommit: a share group keeps no committed offsets.
            error = ErrorCode.GROUP_ID_NOT_FOUND
        elif error is None and consumer_group is not None:
            # A KIP-848 group: member epochs, not generations (its classic twin holds the offsets).
            error = consumer_group.validate_offset_commit(req.member_id, req.generation_id, req.api_version)
        elif error is None:
            error = self._validate_commit(group, req.generation_id, req.member_id, req.group_instance_id,
                                          transactional=False, api_version=req.api_version)
        if error is not None:
            return dict.fromkeys(offsets, error)
        created = group is None
        if group is None:
            group = self.rt.new_group(req.group_id)
        if group.is_state(GroupState.COMPLETING_REBALANCE):
            return dict.fromkeys(offsets, ErrorCode.REBALANCE_IN_PROGRESS)
        if group.state in (GroupState.STABLE, GroupState.PREPARING_REBALANCE):
            # Commits from a current member count as heartbeats; during PreparingRebalance
            # they are still accepted, the heartbeat tells the member to rejoin.
            self.rebalance.schedule_heartbeat(group, group.get(req.member_id))
        results, valid = self._split(offsets)
        if valid:
            results.update(await self.rt.run_to_end(self._store_offsets(group, valid)))
        if created and self.rt.current(group) and not group.offsets.committed and not group.members \
                and group.is_state(GroupState.EMPTY) and not any(group.offsets.has_pending(tp) for tp in offsets):
            del self.rt.groups[req.group_id]  # nothing was stored: leave no trace
        return {tp: results[tp] for tp in offsets}

    async def _store_offsets(self, group: ClassicGroup, valid: dict[TopicPartition, OffsetAndMetadata]) -> Results:
        results: Results = {}
        recs = self._records(group.group_id, valid)
        group.offsets.begin_commit(valid)
        try:
            base = await self.rt.append(group.group_id, recs)
        except CoordinatorLogError as exc:
            results = dict.fromkeys(valid, exc.client_error(OFFSET_COMMIT))
        else:
            apply = self.rt.current(group) and not group.is_state(GroupState.DEAD)
            for i, tp in enumerate(valid):
                if apply:
                    _replay(group, tp, recs[i], base + i)
                results[tp] = ErrorCode.NONE
        finally:
            # Released on every path, cancellation included: a partition left pending
            # would answer UNSTABLE_OFFSET_COMMIT to require_stable fetches for ever.
            for tp in valid:
                group.offsets.end_commit(tp, None)
        return results

    # --- TxnOffsetCommit -------------------------------------------------------------------

    async def commit_txn_offsets(
        self, req: CommitTxnOffsets, verify: Callable[[int], Awaitable[ErrorCode]] | None
    ) -> Results:
        """Kafka's commitTransactionalOffset: append the offsets as a transactional batch
        and hold them pending for the producer until a marker decides them. `verify`
        (log partition -> error) asks the transaction coordinator whether that partition
        is in the producer's transaction (or, transaction version 2, adds it); it runs after the status checks, before the
        group checks, as in Kafka's coordinator runtime."""
        offsets = req.offsets
        error = self.rt.validate(req.group_id, allow_empty=False)
        if error is not None:
            return dict.fromkeys(offsets, error)
        partition = self.rt.partition_for(req.group_id)
        if verify is not None and (error := await verify(partition)) is not ErrorCode.NONE:
            return dict.fromkeys(offsets, error)
        if self.rt.share_group(req.group_id):  # ShareGroup.validateOffsetCommit, as above
            return dict.fromkeys(offsets, ErrorCode.GROUP_ID_NOT_FOUND)
        consumer_group = self.rt.consumer_groups.get(req.group_id)
        if consumer_group is not None:
            # A KIP-848 group's members and epochs are its own, not its classic twin's.
            error = consumer_group.validate_offset_commit(
                req.member_id, req.generation_id, None, req.group_instance_id, transactional=True)
        else:
            error = self._validate_commit(self.rt.groups.get(req.group_id), req.generation_id, req.member_id,
                                          req.group_instance_id, transactional=True)
        if error is not None:
            return dict.fromkeys(offsets, error)
        results, valid = self._split(offsets)
        if valid:
            results.update(await self.rt.run_to_end(self._store_txn_offsets(req, partition, valid)))
        return {tp: results[tp] for tp in offsets}

    async def _store_txn_offsets(
        self, req: CommitTxnOffsets, partition: int, valid: dict[TopicPartition, OffsetAndMetadata]
    ) -> Results:
        key = (partition, req.producer_id)
        seen = self.txn_appends.setdefault(key, [])
        recs = self._records(req.group_id, valid)
        try:
            base = await self.rt.append(req.group_id, recs, Producer(req.producer_id, req.producer_epoch))
        except CoordinatorLogError as exc:
            return dict.fromkeys(valid, exc.client_error(TXN_OFFSET_COMMIT))
        else:
            decided = await self._decided_after(partition, req.producer_id, base) if seen else None
            if decided is not False:
                group = self.rt.groups.get(req.group_id) or self.rt.new_group(req.group_id)
                # Held for the producer, or (a commit marker already follows them) committed.
                producer_id = req.producer_id if decided is None else None
                for i, tp in enumerate(valid):
                    _replay(group, tp, recs[i], base + i, producer_id)
            return dict.fromkeys(valid, ErrorCode.NONE)
        finally:
            if self.txn_appends.get(key) is seen:
                del self.txn_appends[key]

    async def _decided_after(self, partition: int, producer_id: int, base: int) -> bool | None:
        """A marker for the producer reached the partition while its offsets were being
        appended: read the log to learn whether that marker follows them (then it decides
        them: True commit, False abort) or precedes them (None: still pending)."""
        try:
            entries = await self.rt.log.replay(partition)
        except Exception:
            log.exception("re-reading __consumer_offsets after a concurrent marker failed")
            return None
        for entry in entries:
            if entry.offset > base and entry.producer_id == producer_id and entry.control_commit is not None:
                return entry.control_commit
        return None

    def prepare_txn_offsets(
        self, group_id: str, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]
    ) -> None:
        """Hold offsets a transaction appended; invisible until its marker."""
        group = self.rt.groups.get(group_id) or self.rt.new_group(group_id)
        for tp, om in offsets.items():
            group.offsets.prepare_txn(producer_id, tp, om)

    def complete_txn(self, producer_id: int, commit: bool, partitions: set[int] | None = None) -> None:
        """A COMMIT/ABORT marker for `producer_id` was written to these log partitions."""
        for group in self.rt.groups.values():
            if partitions is None or self.rt.partition_for(group.group_id) in partitions:
                group.offsets.complete_txn(producer_id, commit)

    def on_txn_marker(self, partition: int, producer_id: int, committed: bool) -> None:
        for (p, pid), seen in self.txn_appends.items():
            if p == partition and pid == producer_id:
                seen.append(committed)
        error = self.rt.ownership.error(partition)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            self._markers_while_loading.append((partition, producer_id, committed))
        elif error is None:
            self.complete_txn(producer_id, committed, {partition})
        # Not owned: whoever loads the partition replays the marker.

    def apply_markers_seen_while_loading(self, partition: int) -> None:
        """The partition is loaded: the markers that reached it meanwhile decide its offsets.
        A marker replay already saw finds nothing pending: applying it again is harmless."""
        kept = []
        for entry in self._markers_while_loading:
            if entry[0] == partition:
                self.complete_txn(entry[1], entry[2], {partition})
            else:
                kept.append(entry)
        self._markers_while_loading = kept

    def forget_partition(self, partition: int) -> None:
        """The partition was resigned: markers held for its load are the next owner's."""
        self._markers_while_loading = [e for e in self._markers_while_loading if e[0] != partition]

    # --- OffsetFetch -----------------------------------------------------------------------

    def fetch_offsets(
        self, group_id: str, partitions: list[TopicPartition] | None, require_stable: bool,
        member_id: str | None = None, member_epoch: int = -1,
    ) -> tuple[ErrorCode, dict[TopicPartition, FetchedOffset]]:
        """Committed offsets of `partitions` (None: every partition with one); a member of
        a KIP-848 group names itself and its epoch (OffsetFetch v9+)."""
        error = self.rt.validate(group_id, allow_empty=True)
        consumer_group = self.rt.consumer_groups.get(group_id)
        if error is None and consumer_group is not None:
            error = consumer_group.validate_offset_fetch(member_id, member_epoch)
        if error is not None:
            return error, {}
        group = self.rt.groups.get(group_id)
        if group is None or group.is_state(GroupState.DEAD) or self.rt.share_group(group_id):
            # Kafka's fetchOffsets fails every partition of a group it cannot validate (a
            # share group: ShareGroup.validateOffsetFetch) into "no offset", with no error.
            return ErrorCode.NONE, dict.fromkeys(partitions or [], NO_OFFSET)
        wanted = partitions if partitions is not None else sorted(group.offsets.committed)
        out = {}
        for tp in wanted:
            if require_stable and group.offsets.has_pending(tp):
                out[tp] = FetchedOffset(-1, -1, "", ErrorCode.UNSTABLE_OFFSET_COMMIT)
                continue
            om = group.offsets.get(tp)
            out[tp] = NO_OFFSET if om is None else FetchedOffset(om.offset, om.leader_epoch, om.metadata,
                                                                  ErrorCode.NONE)
        return ErrorCode.NONE, out

    # --- removal and retention ---------------------------------------------------------------

    async def remove_offsets(self, group: ClassicGroup, offsets: dict[TopicPartition, OffsetAndMetadata]) -> ErrorCode:
        """Tombstone `offsets`, and the group itself once it is Empty with no offsets left
        (Kafka's cleanupGroupMetadata)."""
        remove_group = (
            group.is_state(GroupState.EMPTY)
            and set(group.offsets.committed) <= set(offsets)
            and not group.offsets.pending_txn
        )
        recs: list[Record] = [(records.offset_key(group.group_id, tp[0], tp[1]), None) for tp in offsets]
        if remove_group:
            recs.append((records.group_key(group.group_id), None))
        if recs:
            try:
                base = await self.rt.append(group.group_id, recs)
            except CoordinatorLogError as exc:
                return exc.client_error(OFFSET_COMMIT)
            # A commit appended after its tombstone stays, as it does on a reload.
            for i, tp in enumerate(offsets):
                _replay(group, tp, recs[i], base + i)
        if remove_group and self.rt.current(group) and group.is_state(GroupState.EMPTY) \
                and not group.offsets.committed and not group.members:
            self.rt.drop_group(group)
        return ErrorCode.NONE

    def expired_offsets(self, group: ClassicGroup, now_ms: int) -> dict[TopicPartition, OffsetAndMetadata]:
        """Kafka's removeExpiredOffsets: which offsets retention would drop now."""
        retention = self.rt.config.offsets_retention_ms
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
        now = self.rt.clock.now_ms()
        removed = 0
        for group in list(self.rt.groups.values()):
            if not self.rt.current(group):
                continue
            expired = self.expired_offsets(group, now)
            empty = (group.is_state(GroupState.EMPTY) and not group.offsets.committed
                     and not group.members and not group.pending_members)
            if (expired or empty) and await self.remove_offsets(group, expired) is ErrorCode.NONE:
                removed += len(expired)
        return removed


def _replay(group: ClassicGroup, tp: TopicPartition, record: Record, record_offset: int,
            producer_id: int | None = None) -> None:
    """Apply an offset record this coordinator appended, as a load would (`OffsetStore.replay`)."""
    value = record[1]
    om = None if value is None else records.offset_from_record(value, record_offset)
    group.offsets.replay(tp, om, record_offset, producer_id)
