"""Per-partition producer state: idempotence and transactions at the partition leader.

Kafka's ProducerStateManager / ProducerAppendInfo (KIP-98, KIP-890). Per producer
id the partition keeps the epoch, the metadata of the last 5 batches (so a retried
batch is answered with its original offsets instead of being written twice), the
coordinator epoch of the last marker, and the first offset of its open transaction. The
open transactions give the first unstable offset, which bounds read_committed fetches;
completed aborts go to the segment's `.txnindex`.

State survives restarts as `<offset>.snapshot` files (written at segment roll and on
clean shutdown) plus a replay of the batch headers after the newest usable snapshot.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from crc32c import crc32c

from protocol import record_batch as rb
from protocol.limits import INT32_MAX
from protocol.record_batch import BatchHeader, ControlType

from .append_types import AppendOrigin, AppendResult
from .errors import (
    InvalidProducerEpochError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    TransactionCoordinatorFencedError,
)
from .files import write_atomically
from .txn_index import AbortedTxn

NUM_BATCHES_TO_RETAIN = 5
EXPIRATION_CHECK_INTERVAL_MS = 600_000
SNAPSHOTS_TO_KEEP = 3
SNAPSHOT_SUFFIX = ".snapshot"
NO_EPOCH = -1


# --- state ----------------------------------------------------------------------------


class BatchMetadata(NamedTuple):  # a tuple: cheap to build on every append
    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    log_append_time: int  # -1 for CreateTime topics, as in the original AppendResult


@dataclass(slots=True)
class ProducerStateEntry:
    producer_id: int
    epoch: int = NO_EPOCH
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=NUM_BATCHES_TO_RETAIN))
    coordinator_epoch: int = -1
    # When it last wrote: the broker's clock at append; on replay, the batch's max
    # timestamp (Kafka uses that one always, which makes producers sending old
    # timestamps expire at once).
    last_timestamp: int = -1
    current_txn_first_offset: int | None = None

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else rb.NO_SEQUENCE

    def update_epoch(self, epoch: int) -> None:
        if epoch != self.epoch:
            self.epoch = epoch
            self.batches.clear()

    def find_duplicate(self, epoch: int, first_seq: int, last_seq: int) -> BatchMetadata | None:
        if epoch != self.epoch:
            return None
        for batch in self.batches:
            if batch.first_seq == first_seq and batch.last_seq == last_seq:
                return batch
        return None


@dataclass(frozen=True, slots=True)
class ProducerInfo:
    """What DescribeProducers reports for one producer."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int
    current_txn_start_offset: int


def in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)


def read_control_record(data: bytes | bytearray | memoryview) -> tuple[ControlType | None, int]:
    """(type, coordinator epoch) of a control batch's single record, read in place: the
    record sits uncompressed right after the header, so only a few varints are decoded.
    An unknown type gives (None, -1); such batches are ignored, as Kafka does."""
    pos = rb.HEADER_SIZE
    try:
        _length, pos = rb.decode_varint(data, pos)
        pos += 1  # record attributes
        _ts_delta, pos = rb.decode_varint(data, pos)
        _offset_delta, pos = rb.decode_varint(data, pos)
        key_length, pos = rb.decode_varint(data, pos)
        if key_length < 4:
            return None, -1
        ctype = struct.unpack_from(">h", data, pos + 2)[0]
        pos += key_length
        value_length, pos = rb.decode_varint(data, pos)
        coordinator_epoch = struct.unpack_from(">i", data, pos + 2)[0] if value_length >= 6 else -1
    except (IndexError, struct.error, rb.RecordBatchError):
        return None, -1
    try:
        return ControlType(ctype), coordinator_epoch
    except ValueError:
        return None, -1


# --- snapshots ------------------------------------------------------------------------


class SnapshotStore(Protocol):
    """Where `<offset>.snapshot` blobs live (a partition directory, or memory)."""

    def offsets(self) -> list[int]: ...

    def read(self, offset: int) -> bytes | None: ...

    def write(self, offset: int, data: bytes, *, durable: bool) -> None: ...

    def delete(self, offset: int) -> None: ...


class FileSnapshotStore:
    def __init__(self, directory: str) -> None:
        self.directory = directory

    def _path(self, offset: int) -> str:
        return os.path.join(self.directory, f"{offset:020d}{SNAPSHOT_SUFFIX}")

    def offsets(self) -> list[int]:
        found = []
        for name in os.listdir(self.directory):
            stem, ext = os.path.splitext(name)
            if ext == SNAPSHOT_SUFFIX and len(stem) == 20 and stem.isdigit():
                found.append(int(stem))
        return sorted(found)

    def read(self, offset: int) -> bytes | None:
        try:
            with open(self._path(offset), "rb") as f:
                return f.read()
        except OSError:
            return None

    def write(self, offset: int, data: bytes, *, durable: bool) -> None:
        path = self._path(offset)
        if durable:
            write_atomically(path, data)
            return
        # At segment roll: no fsync on the append path. A torn file fails its CRC and is
        # ignored, and after a crash only snapshots below the recovery point are trusted.
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def delete(self, offset: int) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._path(offset))


class MemorySnapshotStore:
    def __init__(self, blobs: dict[int, bytes] | None = None) -> None:
        self.blobs: dict[int, bytes] = {} if blobs is None else blobs

    def offsets(self) -> list[int]:
        return sorted(self.blobs)

    def read(self, offset: int) -> bytes | None:
        return self.blobs.get(offset)

    def write(self, offset: int, data: bytes, *, durable: bool) -> None:
        self.blobs[offset] = data

    def delete(self, offset: int) -> None:
        self.blobs.pop(offset, None)


# Own format (Kafka's is not needed for interoperability): magic, version, crc32c of the
# rest, then the entries with all their cached batches, so duplicates are still
# recognised after a restart.
_SNAP_MAGIC = b"ODPS"
_SNAP_VERSION = 1
_SNAP_HEAD = struct.Struct(">4shIi")  # magic, version, crc, entry count
_SNAP_ENTRY = struct.Struct(">qhiqqB")  # pid, epoch, coordinator epoch, last ts, txn first, batches
_SNAP_BATCH = struct.Struct(">iiqqq")


def encode_snapshot(entries: Iterable[ProducerStateEntry]) -> bytes:
    body = bytearray()
    count = 0
    for e in entries:
        count += 1
        txn_first = -1 if e.current_txn_first_offset is None else e.current_txn_first_offset
        body += _SNAP_ENTRY.pack(
            e.producer_id, e.epoch, e.coordinator_epoch, e.last_timestamp, txn_first, len(e.batches)
        )
        for b in e.batches:
            body += _SNAP_BATCH.pack(b.first_seq, b.last_seq, b.first_offset, b.last_offset, b.log_append_time)
    return _SNAP_HEAD.pack(_SNAP_MAGIC, _SNAP_VERSION, crc32c(bytes(body)), count) + bytes(body)


def decode_snapshot(data: bytes) -> list[ProducerStateEntry] | None:
    """The entries, or None if the blob is torn, corrupt or of an unknown version."""
    if len(data) < _SNAP_HEAD.size:
        return None
    magic, version, crc, count = _SNAP_HEAD.unpack_from(data)
    body = data[_SNAP_HEAD.size :]
    if magic != _SNAP_MAGIC or version != _SNAP_VERSION or crc32c(body) != crc or count < 0:
        return None
    entries: list[ProducerStateEntry] = []
    pos = 0
    try:
        for _ in range(count):
            pid, epoch, coord_epoch, last_ts, txn_first, nbatches = _SNAP_ENTRY.unpack_from(body, pos)
            pos += _SNAP_ENTRY.size
            entry = ProducerStateEntry(pid, epoch, coordinator_epoch=coord_epoch, last_timestamp=last_ts,
                                       current_txn_first_offset=None if txn_first < 0 else txn_first)
            for _b in range(nbatches):
                entry.batches.append(BatchMetadata(*_SNAP_BATCH.unpack_from(body, pos)))
                pos += _SNAP_BATCH.size
            entries.append(entry)
    except struct.error:
        return None
    return entries if pos == len(body) else None


class ProducerStateManager:
    def __init__(
        self,
        snapshots: SnapshotStore | None = None,
        *,
        producer_id_expiration_ms: int,
    ) -> None:
        self.snapshots: SnapshotStore = snapshots if snapshots is not None else MemorySnapshotStore()
        self.expiration_ms = producer_id_expiration_ms
        self.producers: dict[int, ProducerStateEntry] = {}
        self._ongoing: dict[int, int] = {}  # producer id -> first offset of its open transaction
        # Transactions whose marker is written but not yet below the high watermark (not
        # durable): first offset -> marker offset. Still unstable, as Kafka's
        # ProducerStateManager keeps its unreplicated transactions until the marker is
        # replicated, so read_committed never reads a decision a crash could undo.
        self._settling: dict[int, int] = {}
        self._next_expiry_check = 0

    # --- queries ----------------------------------------------------------------------

    def first_unstable_offset(self) -> int | None:
        """The first offset of a transaction that is open or whose marker is not durable."""
        ongoing = min(self._ongoing.values()) if self._ongoing else None
        if not self._settling:
            return ongoing
        settling = min(self._settling)
        return settling if ongoing is None else min(ongoing, settling)

    def on_high_watermark(self, high_watermark: int) -> None:
        """Markers below the high watermark are durable: their transactions are decided."""
        if self._settling:
            self._settling = {first: marker for first, marker in self._settling.items() if marker >= high_watermark}

    def has_ongoing_txn(self, producer_id: int) -> bool:
        return producer_id in self._ongoing

    def active_producers(self) -> list[ProducerInfo]:
        return [
            ProducerInfo(
                e.producer_id, e.epoch, e.last_seq, e.last_timestamp, e.coordinator_epoch,
                -1 if e.current_txn_first_offset is None else e.current_txn_first_offset,
            )
            for e in self.producers.values()
        ]

    def needs_verification(self, header: BatchHeader) -> bool:
        """Whether a client's transactional batch must be checked against the transaction
        coordinator first (KIP-890): it opens a transaction at this partition. Duplicates
        and stale epochs are answered by the append itself, ahead of verification."""
        if not header.is_transactional or header.is_control or header.producer_id < 0:
            return False
        entry = self.producers.get(header.producer_id)
        if entry is None:
            return True
        if header.producer_epoch < entry.epoch:
            return False
        if entry.find_duplicate(header.producer_epoch, header.base_sequence, header.last_sequence):
            return False
        # An open transaction of an earlier epoch is not this batch's (Kafka's
        # UnifiedLog.hasOngoingTransaction compares the epoch): with transaction version 2
        # the next transaction's first batch, at the bumped epoch, can reach the partition
        # before the previous one's marker, which a coordinator on another broker sends.
        return entry.current_txn_first_offset is None or header.producer_epoch != entry.epoch

    def check_strict_marker_epoch(self, producer_id: int, epoch: int) -> None:
        """Transaction version 2: the coordinator bumps the epoch before writing a marker,
        so it must exceed the partition's epoch; an equal epoch is accepted only with no
        open transaction, as the retry of a marker already written (KAFKA-19999)."""
        entry = self.producers.get(producer_id)
        if entry is None or epoch > entry.epoch:
            return
        if epoch == entry.epoch and entry.current_txn_first_offset is None:
            return
        raise InvalidProducerEpochError(f"marker epoch {epoch} is not above producer {producer_id}'s {entry.epoch}")

    def _is_expired(self, entry: ProducerStateEntry, now_ms: int) -> bool:
        return entry.current_txn_first_offset is None and now_ms - entry.last_timestamp >= self.expiration_ms

    # --- append path ------------------------------------------------------------------

    def before_append(
        self, header: BatchHeader, records: bytes | bytearray | memoryview, origin: AppendOrigin, now_ms: int
    ) -> AppendResult | None:
        if now_ms >= self._next_expiry_check:
            self.remove_expired(now_ms)
        pid = header.producer_id
        if pid < 0:
            return None
        # No expiry at lookup: as Kafka's ProducerStateManager, idle producers are forgotten
        # only by the periodic check above. Their age is measured from the batch's CreateTime,
        # which a client may set anywhere in the past; expiring at lookup would forget a
        # producer between two of its batches and accept any sequence.
        entry = self.producers.get(pid)
        epoch = header.producer_epoch
        if header.is_control:
            if entry is not None:
                if epoch < entry.epoch:
                    raise InvalidProducerEpochError(
                        f"marker epoch {epoch} is older than producer {pid}'s epoch {entry.epoch}"
                    )
                _ctype, coordinator_epoch = read_control_record(records)
                if coordinator_epoch < entry.coordinator_epoch:
                    raise TransactionCoordinatorFencedError(
                        f"marker coordinator epoch {coordinator_epoch} is older than {entry.coordinator_epoch}"
                    )
            return None
        first_seq = header.base_sequence
        if origin is AppendOrigin.CLIENT and entry is not None:
            dup = entry.find_duplicate(epoch, first_seq, header.last_sequence)
            if dup is not None:
                return AppendResult(dup.first_offset, dup.last_offset, dup.log_append_time, -1)
        if entry is not None and epoch < entry.epoch:
            raise InvalidProducerEpochError(f"epoch {epoch} is older than producer {pid}'s epoch {entry.epoch}")
        if origin is AppendOrigin.CLIENT and entry is not None and entry.epoch != NO_EPOCH:
            if epoch != entry.epoch:
                if first_seq != 0:
                    raise OutOfOrderSequenceError(
                        f"producer {pid}'s new epoch {epoch} starts at sequence {first_seq}, not 0"
                    )
            elif not in_sequence(entry.last_seq, first_seq):
                raise OutOfOrderSequenceError(
                    f"producer {pid} sent sequence {first_seq} after {entry.last_seq} (epoch {epoch})"
                )
        if not header.is_transactional and entry is not None and entry.current_txn_first_offset is not None:
            raise InvalidTxnStateError(f"expected a transactional write from producer {pid}")
        return None

    def after_append(
        self, header: BatchHeader, records: bytes | bytearray | memoryview, origin: AppendOrigin, now_ms: int
    ) -> AbortedTxn | None:
        if header.producer_id < 0:
            return None
        if header.is_control:
            ctype, coordinator_epoch = read_control_record(records)
            return self._apply_marker(header, ctype, coordinator_epoch, now_ms)
        self._apply_data(header, now_ms)
        return None

    def _apply_data(self, header: BatchHeader, now_ms: int) -> None:
        pid = header.producer_id
        entry = self.producers.get(pid)
        if entry is None:
            entry = self.producers[pid] = ProducerStateEntry(pid)
        entry.update_epoch(header.producer_epoch)
        log_append_time = header.max_timestamp if header.timestamp_type == rb.TimestampType.LOG_APPEND_TIME else -1
        entry.batches.append(
            BatchMetadata(header.base_sequence, header.last_sequence, header.base_offset, header.last_offset,
                          log_append_time)
        )
        # Kafka's ProducerAppendInfo keeps the batch's max timestamp (DescribeProducers'
        # lastTimestamp, and what producer-id expiry measures from), not the time of the write.
        entry.last_timestamp = header.max_timestamp
        if header.is_transactional and entry.current_txn_first_offset is None:
            entry.current_txn_first_offset = header.base_offset
            self._ongoing[pid] = header.base_offset

    def _apply_marker(
        self, header: BatchHeader, ctype: ControlType | None, coordinator_epoch: int, now_ms: int
    ) -> AbortedTxn | None:
        if ctype not in (ControlType.COMMIT, ControlType.ABORT):
            return None
        pid = header.producer_id
        entry = self.producers.get(pid)
        if entry is None:
            entry = self.producers[pid] = ProducerStateEntry(pid)
        first = entry.current_txn_first_offset
        entry.update_epoch(header.producer_epoch)
        entry.current_txn_first_offset = None
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = now_ms
        self._ongoing.pop(pid, None)
        # A marker for a transaction without data here moves nothing and indexes nothing.
        if first is None:
            return None
        self._settling[first] = header.base_offset
        if ctype is not ControlType.ABORT:
            return None
        last = header.base_offset
        # As Kafka's lastStableOffset(completedTxn): the first offset of another open transaction.
        unstable = min(self._ongoing.values()) if self._ongoing else None
        return AbortedTxn(pid, first, last, last + 1 if unstable is None else unstable)

    # --- expiry -----------------------------------------------------------------------

    def remove_expired(self, now_ms: int) -> int:
        """Forget producers idle for producer.id.expiration.ms without an open transaction."""
        self._next_expiry_check = now_ms + min(EXPIRATION_CHECK_INTERVAL_MS, max(1, self.expiration_ms))
        doomed = [pid for pid, e in self.producers.items() if self._is_expired(e, now_ms)]
        for pid in doomed:
            del self.producers[pid]
        return len(doomed)

    # --- snapshots, loading, truncation -------------------------------------------------

    def take_snapshot(self, offset: int, *, durable: bool = False) -> None:
        """Persist the state as of log end `offset` (segment roll, clean shutdown)."""
        self.snapshots.write(offset, encode_snapshot(self.producers.values()), durable=durable)
        for old in self.snapshots.offsets()[:-SNAPSHOTS_TO_KEEP]:
            self.snapshots.delete(old)

    def _restore(self, entries: Sequence[ProducerStateEntry]) -> None:
        self.producers = {e.producer_id: e for e in entries}
        self._settling = {}
        self._ongoing = {
            e.producer_id: e.current_txn_first_offset for e in entries if e.current_txn_first_offset is not None
        }

    def restore_snapshot(self, log_start: int, log_end_offset: int, *, max_snapshot_offset: int) -> int:
        """Start over from the newest valid snapshot between `log_start` and
        `max_snapshot_offset` (snapshots past the log end belong to truncated data, corrupt
        ones are rebuilt from the log: both are deleted). Returns the offset the log must be
        replayed from (storage.log_loader.rebuild_producer_state)."""
        self.producers = {}
        self._ongoing = {}
        self._settling = {}
        start = log_start
        for offset in reversed(self.snapshots.offsets()):
            if offset > log_end_offset:
                self.snapshots.delete(offset)
                continue
            if offset > max_snapshot_offset or offset < start:
                continue
            data = self.snapshots.read(offset)
            entries = decode_snapshot(data) if data is not None else None
            if entries is None:
                self.snapshots.delete(offset)
                continue
            self._restore(entries)
            return offset
        return start

    def replay(self, header: BatchHeader, control: bytes | bytearray | memoryview | None) -> AbortedTxn | None:
        """Apply a batch read back from the log while loading it (`control`: the batch's
        bytes when it is a marker). Its max timestamp stands for the append time. Returns
        the transaction-index entry of an ABORT that completed a transaction."""
        if header.producer_id < 0:
            return None
        if header.is_control:
            assert control is not None
            ctype, coordinator_epoch = read_control_record(control)
            return self._apply_marker(header, ctype, coordinator_epoch, header.max_timestamp)
        self._apply_data(header, header.max_timestamp)
        return None

    def on_log_start_offset(self, first_segment_base: int) -> None:
        """Segments below `first_segment_base` are gone: so are their snapshots. Producer
        entries stay until they expire, as in Kafka, so a quiet producer keeps its sequence."""
        for offset in self.snapshots.offsets():
            if offset < first_segment_base:
                self.snapshots.delete(offset)
