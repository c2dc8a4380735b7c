"""One log segment: a file of raw record batches plus its sparse offset and time indexes.

Only batch headers are ever parsed here; records stay opaque bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from protocol import record_batch as rb
from protocol.limits import INT32_MAX
from protocol.record_batch import HEADER_SIZE, BatchHeader

from .file_records import FILE_RECORDS_MAX_BATCHES, FILE_RECORDS_MIN_BYTES, FileRecords
from .files import ByteStore, FileStore, MemoryStore
from .index import OFFSET_ENTRY, TIME_ENTRY, OffsetIndex, TimeIndex
from .txn_index import TransactionIndex

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TXN_INDEX_SUFFIX = ".txnindex"  # aborted transactions, created with the segment's first entry
# A segment rewritten by the log cleaner is written under CLEANED_SUFFIX, renamed to
# SWAP_SUFFIX once complete and durable, and renamed to its final name after the
# segments it replaces are deleted (storage.cleaner, storage.log_loader).
CLEANED_SUFFIX = ".cleaned"
SWAP_SUFFIX = ".swap"
SCAN_CHUNK = 64 * 1024


def segment_name(base_offset: int) -> str:
    return f"{base_offset:020d}"


class LogSegment:
    def __init__(
        self,
        base_offset: int,
        store: ByteStore,
        offset_index: OffsetIndex,
        time_index: TimeIndex,
        *,
        index_interval_bytes: int,
        created_ms: int,
        txn_index: TransactionIndex | None = None,
    ) -> None:
        self.base_offset = base_offset
        self.store = store
        self.offset_index = offset_index
        self.time_index = time_index
        self.txn_index = txn_index if txn_index is not None else TransactionIndex(None)
        self.index_interval_bytes = index_interval_bytes
        self.next_offset = base_offset  # one past the last offset written
        self.max_timestamp = -1
        self.offset_of_max_timestamp = -1  # base offset of the batch holding max_timestamp
        # The segment's age when its first batch has no timestamp (Kafka's LogSegment.created).
        self.created_ms = created_ms
        # Subtracted from segment.ms, drawn by the log when the segment becomes active.
        self.roll_jitter_ms = 0
        # The first batch's max timestamp (Kafka's rollingBasedTimestamp); None: not known,
        # read from the segment when asked (a segment loaded from its indexes).
        self._first_batch_timestamp: int | None = None
        self._bytes_since_index = 0

    # --- construction -----------------------------------------------------------------

    @classmethod
    def open_file(
        cls,
        directory: str,
        base_offset: int,
        *,
        index_interval_bytes: int,
        index_max_bytes: int,
        now_ms: int,
        suffix: str = "",
        lazy: bool = False,
    ) -> LogSegment:
        """The segment's files; `suffix` (CLEANED_SUFFIX, SWAP_SUFFIX) names a rewrite in
        progress. `lazy`: a new, empty segment whose files are made when first written."""
        stem = os.path.join(directory, segment_name(base_offset))
        return cls(
            base_offset,
            FileStore(stem + LOG_SUFFIX + suffix, lazy=lazy),
            OffsetIndex(base_offset, stem + INDEX_SUFFIX + suffix, index_max_bytes // OFFSET_ENTRY.size, lazy=lazy),
            TimeIndex(base_offset, stem + TIME_INDEX_SUFFIX + suffix, index_max_bytes // TIME_ENTRY.size, lazy=lazy),
            index_interval_bytes=index_interval_bytes,
            created_ms=now_ms,
            txn_index=TransactionIndex(stem + TXN_INDEX_SUFFIX + suffix),
        )

    @classmethod
    def in_memory(
        cls, base_offset: int, *, index_interval_bytes: int, index_max_bytes: int, now_ms: int
    ) -> LogSegment:
        return cls(
            base_offset,
            MemoryStore(),
            OffsetIndex(base_offset, None, index_max_bytes // OFFSET_ENTRY.size),
            TimeIndex(base_offset, None, index_max_bytes // TIME_ENTRY.size),
            index_interval_bytes=index_interval_bytes,
            created_ms=now_ms,
        )

    # --- state ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.store.size

    @property
    def is_empty(self) -> bool:
        return self.store.size == 0

    @property
    def is_index_full(self) -> bool:
        return self.offset_index.is_full or self.time_index.is_full

    def time_waited_for_roll(self, now: int, batch_max_timestamp: int) -> int:
        """How far past its start a batch of max timestamp `batch_max_timestamp` appended at
        `now` would be, for segment.ms (Kafka's LogSegment.timeWaitedForRoll): from the
        first batch's max timestamp, or from the segment's creation where that has none."""
        first = self._first_batch_timestamp
        if first is None:
            first = self._load_first_batch_timestamp()
        if first >= 0:
            return batch_max_timestamp - first
        return now - self.created_ms

    def _load_first_batch_timestamp(self) -> int:
        """Kafka's loadFirstBatchTimestamp: once the segment holds a batch, its first
        batch's max timestamp is kept (-1 while empty)."""
        if self.store.size < HEADER_SIZE:
            return -1
        first = BatchHeader.parse(self.store.read(0, HEADER_SIZE)).max_timestamp
        self._first_batch_timestamp = first
        return first

    # --- writes -----------------------------------------------------------------------

    def append(self, header: BatchHeader, data: bytes | bytearray | memoryview) -> int:
        """Append one batch whose offsets are already assigned; returns its position."""
        position = self.store.size
        self.store.append(data)
        self._track(header, position)
        return position

    def _track(self, header: BatchHeader, position: int) -> None:
        if position == 0:
            self._first_batch_timestamp = header.max_timestamp
        if header.max_timestamp > self.max_timestamp:
            self.max_timestamp = header.max_timestamp
            self.offset_of_max_timestamp = header.base_offset
        if self._bytes_since_index >= self.index_interval_bytes and position > 0:
            self.offset_index.append(header.base_offset, position)
            self.time_index.maybe_append(self.max_timestamp, self.offset_of_max_timestamp)
            self._bytes_since_index = 0
        self._bytes_since_index += header.size
        self.next_offset = header.next_offset

    def on_become_inactive(self) -> None:
        """Record the segment's final max timestamp so a reload knows it without a scan,
        and cut the log file to its data (zeros preallocated ahead of it go)."""
        self.time_index.maybe_append(self.max_timestamp, self.offset_of_max_timestamp)
        self.store.seal()

    # --- reads ------------------------------------------------------------------------

    def iter_headers(
        self, position: int = 0, end: int | None = None, chunk_size: int = SCAN_CHUNK
    ) -> Iterator[tuple[int, BatchHeader]]:
        """Batch headers from `position`, reading in chunks (records are skipped, not parsed)."""
        limit = self.store.size if end is None else end
        while position + HEADER_SIZE <= limit:
            chunk = self.store.read(position, min(chunk_size, limit - position))
            p = 0
            while p + HEADER_SIZE <= len(chunk):
                header = BatchHeader.parse(chunk, p)
                if header.length < rb.MIN_LENGTH or position + p + header.size > limit:
                    return
                yield position + p, header
                p += header.size
            if p == 0:  # a batch header straddles nothing we can read: stop
                return
            position += p

    def find_batch(self, offset: int) -> tuple[int, BatchHeader] | None:
        """Position and header of the first batch whose last offset >= `offset`."""
        _, position = self.offset_index.lookup(offset)
        # The target is usually within one index interval: don't read much more than that.
        chunk = min(SCAN_CHUNK, max(4096, self.index_interval_bytes + 1024))
        for pos, header in self.iter_headers(position, chunk_size=chunk):
            if header.last_offset >= offset:
                return pos, header
        return None

    def read(self, position: int, max_bytes: int, upper_bound: int, min_one_batch: bool) -> bytes | memoryview:
        """Whole batches from `position` up to max_bytes, stopping at batches whose base
        offset reaches `upper_bound`. KIP-74: the first batch is returned whole even when
        larger than max_bytes if min_one_batch. One pread in the common case."""
        available = self.store.size - position
        if available <= 0:
            return b""
        buf = self.store.read(position, min(available, max(max_bytes, HEADER_SIZE)))
        end = 0
        while end + HEADER_SIZE <= len(buf):
            header = BatchHeader.parse(buf, end)
            if header.base_offset >= upper_bound or header.length < rb.MIN_LENGTH:
                break
            if end + header.size > len(buf):
                if end == 0 and min_one_batch:
                    return self.store.read(position, header.size)
                break
            if end + header.size > max_bytes and not (end == 0 and min_one_batch):
                break
            end += header.size
        return buf if end == len(buf) else memoryview(buf)[:end]

    def file_records(
        self, position: int, max_bytes: int, upper_bound: int, min_one_batch: bool
    ) -> FileRecords | None:
        """What `read` returns, as a range of the file (storage.file_records) for a Fetch to
        send without copying: whole batches cut by their headers alone, read one by one.
        None where `read` serves better: not a file, less than FILE_RECORDS_MIN_BYTES, or
        many small batches."""
        store = self.store
        if not isinstance(store, FileStore):
            return None
        size = store.size
        if size - position < FILE_RECORDS_MIN_BYTES or max_bytes < FILE_RECORDS_MIN_BYTES:
            return None
        end = position
        next_offset = -1
        for _ in range(FILE_RECORDS_MAX_BATCHES):
            if end + HEADER_SIZE > size:
                break
            header = BatchHeader.parse(store.read(end, HEADER_SIZE))
            if header.base_offset >= upper_bound or header.length < rb.MIN_LENGTH or end + header.size > size:
                break
            if end + header.size - position > max_bytes and not (end == position and min_one_batch):
                break
            end += header.size
            next_offset = header.next_offset
        else:
            if end + HEADER_SIZE <= size and end - position < max_bytes:
                return None  # more batches would fit: many small ones, `read` cuts them
        if end - position < FILE_RECORDS_MIN_BYTES:
            return None
        fd = store.duplicate_fd()
        return None if fd is None else FileRecords(fd, position, end - position, next_offset)

    # --- recovery ---------------------------------------------------------------------

    def load_indexes(self) -> bool:
        """Load index files and derive next offset / max timestamp (clean segments).
        Returns False when an index file is damaged; the caller then rebuilds."""
        size = self.store.size
        if not self.offset_index.load(size):
            return False
        # Scan from the last indexed batch to find where the segment ends.
        last_pos = self.offset_index.last_position()
        end = last_pos
        self.next_offset = self.base_offset
        found = False
        for pos, header in self.iter_headers(last_pos):
            end = pos + header.size
            self.next_offset = header.next_offset
            found = True
            self._note_timestamp(header)
        if (size and not found) or end != size:
            return False
        if not self.time_index.load(self.next_offset):
            return False
        last = self.time_index.last_entry()
        if last is not None and last[0] > self.max_timestamp:
            self.max_timestamp, self.offset_of_max_timestamp = last
        elif last is None and size:
            return False  # no final time entry: rebuild to learn the max timestamp
        self._bytes_since_index = size - last_pos
        return True

    def _note_timestamp(self, header: BatchHeader) -> None:
        if header.max_timestamp > self.max_timestamp:
            self.max_timestamp = header.max_timestamp
            self.offset_of_max_timestamp = header.base_offset

    def _reset_state(self) -> None:
        self.offset_index.reset()
        self.time_index.reset()
        self.next_offset = self.base_offset
        self.max_timestamp = -1
        self.offset_of_max_timestamp = -1
        self._first_batch_timestamp = None
        self._bytes_since_index = 0

    def recover(self, expected_next: int | None, allow_gaps: bool) -> int:
        """Validate every batch (header, length, CRC, offsets), truncate at the first bad
        one and rebuild the indexes. Returns the number of bytes truncated, not counting a
        tail of zeros only: those were preallocated (storage.files.FileStore), never data,
        so cutting them loses nothing, even in a segment that rolled before its cut to size
        was durable."""
        self._reset_state()
        size = self.store.size
        position = 0
        prev_next = self.base_offset if expected_next is None else max(expected_next, self.base_offset)
        while position < size:
            head = self.store.read(position, HEADER_SIZE)
            if len(head) < HEADER_SIZE:
                break
            header = BatchHeader.parse(head)
            if header.magic != rb.CURRENT_MAGIC or header.length < rb.MIN_LENGTH or position + header.size > size:
                break
            data = self.store.read(position, header.size)
            try:
                rb.validate_batch(data, allow_control=True)
            except rb.RecordBatchError:
                break
            if header.base_offset < prev_next or (not allow_gaps and header.base_offset != prev_next):
                break
            if header.last_offset - self.base_offset > INT32_MAX:
                break  # the log rolls before this (storage/log.py): indexes hold 32-bit deltas
            self._track(header, position)
            prev_next = header.next_offset
            position += header.size
        truncated = size - position
        if truncated:
            zeros = self._only_zeros(position, size)
            self.store.truncate(position)
            if zeros:
                return 0
        return truncated

    def _only_zeros(self, position: int, end: int) -> bool:
        while position < end:
            chunk = self.store.read(position, min(SCAN_CHUNK, end - position))
            if not chunk or chunk.count(0) != len(chunk):
                return False
            position += len(chunk)
        return True

    # --- lifecycle --------------------------------------------------------------------

    def sync(self) -> None:
        self.store.sync()
        self.offset_index.sync()
        self.time_index.sync()
        self.txn_index.sync()

    def close(self) -> None:
        self.store.close()
        self.offset_index.close()
        self.time_index.close()
        self.txn_index.close()

    def rename_files(self, old_suffix: str, new_suffix: str) -> None:
        """Rename every file of the segment from `<name><old_suffix>` to `<name><new_suffix>`
        (open descriptors stay valid). Memory segments have no files: nothing happens."""

        def renamed(path: str | None) -> str | None:
            if not path or not path.endswith(old_suffix):
                return path
            new_path = path[: len(path) - len(old_suffix)] + new_suffix
            if os.path.exists(path):
                os.replace(path, new_path)
            return new_path

        if isinstance(self.store, FileStore):
            self.store.path = renamed(self.store.path) or self.store.path
        self.offset_index.path = renamed(self.offset_index.path)
        self.time_index.path = renamed(self.time_index.path)
        self.txn_index.rename(renamed)

    def delete(self) -> None:
        self.store.delete()
        self.offset_index.delete()
        self.time_index.delete()
        self.txn_index.delete()
