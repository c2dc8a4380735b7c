"""Committed offsets of one group, plus the commits not yet visible.

Plain commits are pending while their append is in flight. Transactional commits
(TxnOffsetCommit) are held per producer id until the transaction's COMMIT marker makes
them visible or its ABORT marker discards them; `require_stable` fetches report
UNSTABLE_OFFSET_COMMIT for a partition while either kind is pending.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from storage.topic_partition import TopicPartition


@dataclass(slots=True)
class OffsetAndMetadata:
    offset: int
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp: int = -1
    expire_timestamp: int = -1  # -1: none; only v1 records (OffsetCommit v2-v4 retention) carry one
    # Position of the record in __consumer_offsets: a later record always wins.
    record_offset: int = -1


class OffsetStore:
    def __init__(self) -> None:
        self.committed: dict[TopicPartition, OffsetAndMetadata] = {}
        self._in_flight: Counter[TopicPartition] = Counter()
        self.pending_txn: dict[int, dict[TopicPartition, OffsetAndMetadata]] = {}

    def __len__(self) -> int:
        return len(self.committed)

    def get(self, tp: TopicPartition) -> OffsetAndMetadata | None:
        return self.committed.get(tp)

    def has_pending(self, tp: TopicPartition) -> bool:
        return self._in_flight[tp] > 0 or any(tp in offsets for offsets in self.pending_txn.values())

    # --- plain commits ----------------------------------------------------------------

    def begin_commit(self, tps: Iterable[TopicPartition]) -> None:
        for tp in tps:
            self._in_flight[tp] += 1

    def end_commit(self, tp: TopicPartition, committed: OffsetAndMetadata | None) -> None:
        """The append finished; `committed` is None when it failed."""
        self._in_flight[tp] -= 1
        if self._in_flight[tp] <= 0:
            del self._in_flight[tp]
        if committed is not None:
            self.put(tp, committed)

    def replay(self, tp: TopicPartition, committed: OffsetAndMetadata | None, record_offset: int,
               producer_id: int | None = None) -> None:
        """Apply the offset record at `record_offset` of `__consumer_offsets` (Kafka's
        OffsetMetadataManager.replay): the one way committed offsets change, on load and
        once a commit or deletion is durable. A tombstone removes what no later record
        wrote; a transactional record is held for its producer until the marker."""
        if producer_id is not None:
            if committed is not None:
                self.prepare_txn(producer_id, tp, committed)
        elif committed is None:
            self.remove(tp, unless_newer_than=record_offset)
        else:
            self.put(tp, committed)

    def put(self, tp: TopicPartition, committed: OffsetAndMetadata) -> None:
        current = self.committed.get(tp)
        if current is None or committed.record_offset < 0 or committed.record_offset > current.record_offset:
            self.committed[tp] = committed

    def remove(self, tp: TopicPartition, unless_newer_than: int | None = None) -> None:
        """Drop an offset; with `unless_newer_than`, keep one written after that record."""
        current = self.committed.get(tp)
        if current is None:
            return
        if unless_newer_than is not None and current.record_offset > unless_newer_than:
            return
        del self.committed[tp]

    # --- transactional commits --------------------------------------------------------

    def prepare_txn(self, producer_id: int, tp: TopicPartition, offset: OffsetAndMetadata) -> None:
        self.pending_txn.setdefault(producer_id, {})[tp] = offset

    def complete_txn(self, producer_id: int, commit: bool) -> None:
        pending = self.pending_txn.pop(producer_id, {})
        if commit:
            for tp, offset in pending.items():
                self.put(tp, offset)

    # --- retention --------------------------------------------------------------------

    def expired(
        self,
        now_ms: int,
        retention_ms: int,
        base_timestamp: Callable[[OffsetAndMetadata], int],
        keep_topics: set[str] | frozenset[str] = frozenset(),
    ) -> dict[TopicPartition, OffsetAndMetadata]:
        """Offsets past retention (Kafka's removeExpiredOffsets, without removing)."""
        out = {}
        for tp, om in self.committed.items():
            if tp[0] in keep_topics or self.has_pending(tp):
                continue
            if om.expire_timestamp >= 0:
                due = now_ms >= om.expire_timestamp
            else:
                due = now_ms - base_timestamp(om) >= retention_ms
            if due:
                out[tp] = om
        return out
