"""Fuzz target: segment and index recovery from arbitrary bytes (storage/log_loader.py,
storage/segment.py, storage/index.py, storage/txn_index.py), in process on a temp dir.

The input is one partition directory's first segment: a flags byte, then the offset
index, the time index and the transaction index (each a 16-bit length and its bytes),
then the log file. Flag bit 0 says the broker shut down cleanly (indexes are trusted if
they check out), otherwise the segment is recovered. Invariants: opening the directory
raises nothing but the storage error family; after recovery the log is a prefix of the
bytes given, every batch it keeps is valid (CRC included) with offsets increasing, the
segment's next offset follows its last batch, and the rebuilt index finds every batch.
On both paths reads through the indexes raise nothing but storage errors.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import struct
import tempfile

from fuzz.harness import instrumented, main

with instrumented("protocol", "storage"):
    from protocol import record_batch as rb
    from storage.errors import StorageError
    from storage.log_loader import load_segments
    from storage.segment import (
        INDEX_SUFFIX,
        LOG_SUFFIX,
        TIME_INDEX_SUFFIX,
        TXN_INDEX_SUFFIX,
        LogSegment,
        segment_name,
    )
    from storage.topic_config import TopicConfig
    from storage.txn_index import AbortedTxn

CLEAN = 1
# Small intervals, so a few batches already make index entries.
CONFIG = TopicConfig({"index.interval.bytes": "100", "segment.index.bytes": "4096"})
_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)


@functools.cache
def _work_dir() -> str:
    """One scratch directory per process, emptied for every input (made on first use, so
    importing the module for its `check` leaves nothing behind)."""
    return tempfile.mkdtemp(prefix="odradek-fuzz-segments-")


def _split(data: bytes) -> tuple[int, list[bytes], bytes]:
    flags, pos, blobs = data[0], 1, []
    for _ in _SUFFIXES:
        n = int.from_bytes(data[pos : pos + 2], "big")
        blobs.append(data[pos + 2 : pos + 2 + n])
        pos += 2 + n
    return flags, blobs, data[pos:]


def join(flags: int, indexes: list[bytes], log: bytes) -> bytes:
    return bytes([flags]) + b"".join(len(b).to_bytes(2, "big") + b for b in indexes) + log


def check(data: bytes) -> None:
    if not data:
        return
    flags, blobs, log = _split(data)
    directory = os.path.join(_work_dir(), "p")
    shutil.rmtree(directory, ignore_errors=True)
    os.mkdir(directory)
    stem = os.path.join(directory, segment_name(0))
    for suffix, blob in zip((LOG_SUFFIX, *_SUFFIXES), (log, *blobs), strict=True):
        with open(stem + suffix, "wb") as f:
            f.write(blob)
    clean = bool(flags & CLEAN)
    try:
        segments, _report = load_segments(directory, CONFIG, clean=clean, now_ms=0, log_start_offset=0)
    except StorageError:
        return
    try:
        for segment in segments:
            if not clean:
                _check_recovered(segment, log)
            _read_through_indexes(segment)
    finally:
        for segment in segments:
            segment.close()


def _check_recovered(segment: LogSegment, original: bytes) -> None:
    kept = segment.store.read(0, segment.size)
    assert original.startswith(kept), "recovery kept bytes that were not in the log"
    prev_next = segment.base_offset
    for pos, header in rb.iter_batches(kept, strict=True):
        rb.validate_batch(kept, pos, allow_control=True)  # raises if a kept batch is bad
        assert header.base_offset >= prev_next, f"offset {header.base_offset} after {prev_next}"
        prev_next = header.next_offset
        found = segment.find_batch(header.base_offset)
        assert found is not None and found[0] == pos, f"index misses the batch at {pos}"
    assert segment.next_offset == prev_next, f"next offset {segment.next_offset}, batches end at {prev_next}"


def _read_through_indexes(segment: LogSegment) -> None:
    try:
        segment.txn_index.load()
        segment.txn_index.collect(segment.base_offset, segment.next_offset)
        for offset in {segment.base_offset, (segment.base_offset + segment.next_offset) // 2, segment.next_offset}:
            found = segment.find_batch(offset)
            if found is not None:
                segment.read(found[0], 1 << 16, segment.next_offset, True)
        segment.time_index.lookup_before(0)
    except StorageError:
        return


def _segment_files() -> tuple[list[bytes], bytes]:
    """A segment written by the project's own code: idempotent, transactional and control
    batches, an aborted transaction in the transaction index, a final time entry."""
    directory = tempfile.mkdtemp(prefix="odradek-fuzz-seed-")
    try:
        segment = LogSegment.open_file(directory, 0, index_interval_bytes=100, index_max_bytes=4096, now_ms=0)
        offset = 0
        batches = [
            rb.build_batch([rb.Record(b"k", b"v" * 30, [], 10), rb.Record(None, b"w", [], 12)]),
            rb.build_batch([rb.Record(b"a", b"b", [], 20)], producer_id=3, producer_epoch=0, base_sequence=0),
            rb.build_batch([rb.Record(b"t", b"x" * 50, [], 30)], producer_id=4, producer_epoch=0, base_sequence=0,
                           transactional=True, compression=rb.Compression.GZIP),
            rb.build_control_batch(rb.ControlType.ABORT, producer_id=4, producer_epoch=0, coordinator_epoch=1,
                                   timestamp=40),
            rb.build_batch([rb.Record(b"z", b"y", [], 50)] * 3, compression=rb.Compression.ZSTD),
        ]
        for raw in batches:
            data = bytearray(raw)
            rb.assign_offsets(data, offset)
            header = rb.BatchHeader.parse(data)
            segment.append(header, data)
            offset = header.next_offset
        segment.txn_index.append(AbortedTxn(4, 2, 3, 2))
        segment.on_become_inactive()
        segment.sync()
        segment.close()
        stem = os.path.join(directory, segment_name(0))
        blobs = []
        for suffix in _SUFFIXES:
            with open(stem + suffix, "rb") as f:
                blobs.append(f.read())
        with open(stem + LOG_SUFFIX, "rb") as f:
            return blobs, f.read()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def seeds() -> list[bytes]:
    blobs, log = _segment_files()
    torn = log[: len(log) - 7]
    flipped = bytearray(log)
    flipped[len(log) // 2] ^= 0xFF
    return [join(f, blobs, body) for f in (0, CLEAN) for body in (log, torn, bytes(flipped))] + [
        join(0, [b"", b"", b""], log),
        join(CLEAN, [blobs[0][:-3], struct.pack(">qi", 1 << 40, 0), b""], log),
    ]


if __name__ == "__main__":
    logging.disable(logging.WARNING)  # every truncation is logged; millions of runs need no log
    main(check, seeds)
