"""Contract tests: every test here runs against both MemoryStorage and FileStorage."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from protocol import record_batch as rb
from storage import errors
from storage.engine import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    READ_COMMITTED,
    AppendOrigin,
    OffsetAndTimestamp,
    PartitionLog,
    StorageEngine,
)
from tests.unit.storage.storage_helpers import Draws, Harness, make_batch

T0 = 1_700_000_000_000


def offsets_in(data: bytes) -> list[int]:
    return [r.offset for b in rb.decode_batches(data) for r in b.records]


def batch_bases(data: bytes) -> list[int]:
    return [h.base_offset for _, h in rb.iter_batches(data, strict=True)]


async def test_append_read_round_trip(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    sent = [make_batch(n) for n in (1, 5, 3, 7)]
    results = [await log.append(b, durable=True) for b in sent]
    assert [(r.base_offset, r.last_offset) for r in results] == [(0, 0), (1, 5), (6, 8), (9, 15)]
    assert log.log_end_offset == log.high_watermark == log.last_stable_offset == 16
    out = await log.read(0, 1 << 20)
    assert offsets_in(out.records) == list(range(16))
    assert out.high_watermark == 16 and out.log_start_offset == 0 and out.log_end_offset == 16
    # Payloads are untouched apart from the header rewrite.
    for original, (pos, h) in zip(sent, rb.iter_batches(out.records), strict=True):
        stored = out.records[pos : pos + h.size]
        assert stored[rb.HEADER_SIZE :] == original[rb.HEADER_SIZE :]
        rb.validate_batch(stored)


async def test_read_every_offset_returns_containing_batch(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"index.interval.bytes": "100"})
    log = s.log("t", 0)
    for n in (4, 1, 6, 2, 3, 5, 1, 1, 8):
        await log.append(make_batch(n, value_size=60), durable=True)
    bounds = []
    data = (await log.read(0, 1 << 20)).records
    for _, h in rb.iter_batches(data):
        bounds.append((h.base_offset, h.last_offset))
    for offset in range(log.log_end_offset):
        out = await log.read(offset, 1 << 20)
        first = rb.BatchHeader.parse(out.records)
        assert first.base_offset <= offset <= first.last_offset
        assert (first.base_offset, first.last_offset) in bounds
    end = await log.read(log.log_end_offset, 1 << 20)
    assert end.records == b""


async def test_max_bytes_and_min_one_batch(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    sizes = []
    for _ in range(4):
        b = make_batch(5, value_size=100)
        sizes.append(len(b))
        await log.append(b, durable=True)
    out = await log.read(0, sizes[0] + sizes[1] + sizes[2] - 1)
    assert batch_bases(out.records) == [0, 5]
    out = await log.read(0, 1)
    assert batch_bases(out.records) == [0]  # KIP-74: one whole batch even if too large
    out = await log.read(0, 1, min_one_batch=False)
    assert out.records == b""
    out = await log.read(7, sizes[1], min_one_batch=False)
    assert batch_bases(out.records) == [5]
    out = await log.read(0, 1 << 20, upper_bound=10)
    assert batch_bases(out.records) == [0, 5]


async def test_out_of_range(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(make_batch(3), durable=True)
    with pytest.raises(errors.OffsetOutOfRangeError) as info:
        await log.read(4, 100)
    assert info.value.error_code == 1
    with pytest.raises(errors.OffsetOutOfRangeError):
        await log.read(-1, 100)
    assert (await log.read(3, 100)).records == b""
    await log.append(make_batch(3), durable=True)
    assert await log.delete_records_before(4) == 4
    with pytest.raises(errors.OffsetOutOfRangeError):
        await log.read(3, 100)
    out = await log.read(4, 1 << 20)
    assert batch_bases(out.records) == [3]  # the batch holding the log start offset


async def test_unknown_partition(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    with pytest.raises(errors.UnknownTopicOrPartitionError) as info:
        s.log("nope", 0)
    assert info.value.error_code == 3
    await s.create_topic("t", 2)
    s.log("t", 1)
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        s.log("t", 2)


async def test_roll_by_size_and_read_across_segments(harness: Harness) -> None:
    harness.segment_bytes = 2000
    s = await harness.reopen()
    await s.create_topic("t", 1, {"index.interval.bytes": "200"})
    log = s.log("t", 0)
    for _ in range(30):
        await log.append(make_batch(3, value_size=100), durable=True)
    bases = log.segment_base_offsets()
    assert len(bases) > 3
    assert bases == sorted(bases) and bases[0] == 0
    assert all(seg.size <= 2000 for seg in log.segments)
    for offset in range(90):
        first = rb.BatchHeader.parse((await log.read(offset, 10)).records)
        assert first.base_offset <= offset <= first.last_offset
    # Reads stay within one segment.
    out = await log.read(0, 1 << 20)
    assert offsets_in(out.records)[-1] == bases[1] - 1


async def test_oversized_batch_gets_its_own_segment(harness: Harness) -> None:
    harness.segment_bytes = 500
    s = await harness.reopen()
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(make_batch(1), durable=True)
    await log.append(make_batch(2, value_size=1000), durable=True)
    await log.append(make_batch(1), durable=True)
    assert log.segment_base_offsets() == [0, 1, 3]


async def test_roll_by_time(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000"})
    log = s.log("t", 0)
    await log.append(make_batch(2, ts=harness.clock.now_ms()), durable=True)  # max timestamp T+1
    harness.clock.advance(999)
    await log.append(make_batch(2, ts=harness.clock.now_ms()), durable=True)
    assert log.segment_base_offsets() == [0]
    harness.clock.advance(1)
    # 1000 ms past the first batch's max timestamp: Kafka rolls only beyond segment.ms.
    await log.append(make_batch(2, ts=harness.clock.now_ms()), durable=True)
    assert log.segment_base_offsets() == [0]
    harness.clock.advance(1)
    await log.append(make_batch(2, ts=harness.clock.now_ms()), durable=True)
    assert log.segment_base_offsets() == [0, 6]


async def test_roll_by_time_counts_batch_timestamps(harness: Harness) -> None:
    # Kafka's LogSegment.timeWaitedForRoll: a CreateTime batch's max timestamp against the
    # segment's first batch's, whatever the clock says.
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000"})
    log = s.log("t", 0)
    await log.append(make_batch(2, ts=T0), durable=True)  # max timestamp T0+1
    harness.clock.advance(50_000)
    await log.append(make_batch(2, ts=T0 + 1000), durable=True)  # max 1000 ms past: no roll
    await log.append(make_batch(2, ts=T0 - 60_000), durable=True)  # older than the first: no roll
    assert log.segment_base_offsets() == [0]
    await log.append(make_batch(2, ts=T0 + 1001), durable=True)  # max T0+1002, 1001 ms past
    assert log.segment_base_offsets() == [0, 6]
    # The new segment counts from its first batch: the one that rolled the last.
    await log.append(make_batch(1, ts=T0 + 2002), durable=True)
    assert log.segment_base_offsets() == [0, 6]
    await log.append(make_batch(1, ts=T0 + 2003), durable=True)
    assert log.segment_base_offsets() == [0, 6, 9]


async def test_roll_by_time_log_append_time(harness: Harness) -> None:
    # LogAppendTime: the batches' timestamps are the broker's clock when appended.
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000", "message.timestamp.type": "LogAppendTime"})
    log = s.log("t", 0)
    start = harness.clock.now_ms()
    await log.append(make_batch(2, ts=start - 5000), durable=True)
    harness.clock.advance(1000)
    await log.append(make_batch(2, ts=start + 50_000), durable=True)
    assert log.segment_base_offsets() == [0]
    harness.clock.advance(1)
    await log.append(make_batch(2, ts=start - 5000), durable=True)
    assert log.segment_base_offsets() == [0, 4]
    out = await log.read(4, 1 << 20)
    assert rb.BatchHeader.parse(out.records).max_timestamp == start + 1001


async def test_roll_by_time_without_timestamps(harness: Harness) -> None:
    # A first batch with no timestamp (-1): the segment's age counts from its creation, not
    # from its first append.
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000"})
    log = s.log("t", 0)
    harness.clock.advance(600)
    await log.append(make_batch(1, ts=-1), durable=True)
    harness.clock.advance(400)
    await log.append(make_batch(1, ts=-1), durable=True)
    assert log.segment_base_offsets() == [0]
    harness.clock.advance(1)
    await log.append(make_batch(1, ts=T0), durable=True)
    assert log.segment_base_offsets() == [0, 2]


async def test_empty_segment_never_rolls_by_time(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000"})
    log = s.log("t", 0)
    harness.clock.advance(1_000_000)
    await log.append(make_batch(1, ts=T0 - 1_000_000), durable=True)
    assert log.segment_base_offsets() == [0]
    await log.append(make_batch(1, ts=T0 + 1000), durable=True)  # rolls: 1001 ms past the first
    harness.clock.advance(1_000_000)
    await log.append(make_batch(1, ts=T0 + 1000), durable=True)  # the new segment's first batch
    assert log.segment_base_offsets() == [0, 1]


async def test_roll_jitter(harness: Harness) -> None:
    # Each segment draws its jitter when it becomes active (Kafka: when created or
    # loaded), as LogConfig.randomSegmentJitter: abs(nextInt()) % min(segment.jitter.ms,
    # segment.ms); it rolls once segment.ms less the jitter is exceeded.
    draws = Draws(1_000_000_450, 1_999_999_900, 3)
    harness.random = draws
    s = await harness.reopen()
    await s.create_topic("t", 1, {"segment.ms": "1000", "segment.jitter.ms": "300"})
    log = s.log("t", 0)
    assert draws.stops == [1 << 31] and draws.values == [1_999_999_900, 3]
    await log.append(make_batch(1, ts=T0), durable=True)
    # Jitter 1_000_000_450 % 300 = 250: 750 ms is not past 1000 - 250.
    await log.append(make_batch(1, ts=T0 + 750), durable=True)
    assert log.segment_base_offsets() == [0]
    await log.append(make_batch(1, ts=T0 + 751), durable=True)
    assert log.segment_base_offsets() == [0, 2]
    # The new segment drew 1_999_999_900 % 300 = 100.
    assert draws.values == [3]
    await log.append(make_batch(1, ts=T0 + 751 + 900), durable=True)
    assert log.segment_base_offsets() == [0, 2]
    await log.append(make_batch(1, ts=T0 + 751 + 901), durable=True)
    assert log.segment_base_offsets() == [0, 2, 4]
    assert draws.values == []


async def test_roll_by_time_after_restart(harness: Harness) -> None:
    # A reload reads the active segment's first batch timestamp back (Kafka reads it
    # lazily); the clock has not moved, so only that timestamp can roll the segment.
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000"})
    log = s.log("t", 0)
    await log.append(make_batch(2, ts=T0), durable=True)  # max timestamp T0+1
    await log.append(make_batch(2, ts=T0 + 500), durable=True)
    s = await harness.reopen()
    log = s.log("t", 0)
    await log.append(make_batch(1, ts=T0 + 1001), durable=True)  # 1000 ms past
    assert log.segment_base_offsets() == [0]
    await log.append(make_batch(1, ts=T0 + 1002), durable=True)
    assert log.segment_base_offsets() == [0, 5]


async def test_compacted_segments_roll_by_max_compaction_lag(harness: Harness) -> None:
    # Kafka's LogConfig.maxSegmentMs: a compacted topic's segment rolls by
    # max.compaction.lag.ms when that is below segment.ms.
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "5000", "cleanup.policy": "compact", "max.compaction.lag.ms": "1000"})
    await s.create_topic("d", 1, {"segment.ms": "5000", "max.compaction.lag.ms": "1000"})
    for name, rolled in (("t", [0, 1]), ("d", [0])):
        log = s.log(name, 0)
        await log.append(make_batch(1, ts=T0), durable=True)
        await log.append(make_batch(1, ts=T0 + 1001), durable=True)
        assert log.segment_base_offsets() == rolled


async def test_retention_by_time(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"segment.ms": "1000", "retention.ms": "5000"})
    log = s.log("t", 0)
    for _ in range(4):
        await log.append(make_batch(2, ts=harness.clock.now_ms()), durable=True)
        harness.clock.advance(1001)  # each batch's max timestamp 1001 ms past the last: a roll
    assert log.segment_base_offsets() == [0, 2, 4, 6]
    assert await s.enforce_retention() == 0
    harness.clock.advance(2500)  # now = T+6504: segments with max ts T+1, T+1002 are past 5000 ms
    assert await s.enforce_retention() == 2
    assert log.segment_base_offsets() == [4, 6]
    assert log.log_start_offset == 4
    harness.clock.advance(100_000)
    await s.enforce_retention()
    assert log.segment_base_offsets() == [6]  # the active segment stays
    assert log.log_end_offset == 8
    assert (await log.append(make_batch(1), durable=True)).base_offset == 8


async def test_retention_infinite_and_compact(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("keep", 1, {"segment.ms": "1000", "retention.ms": "-1"})
    await s.create_topic("__consumer_offsets", 1, {"segment.ms": "1000", "retention.ms": "1"})
    for name in ("keep", "__consumer_offsets"):
        log = s.log(name, 0)
        for _ in range(3):
            await log.append(make_batch(1, ts=harness.clock.now_ms()), durable=True)
            harness.clock.advance(2000)
    harness.clock.advance(10**9)
    assert await s.enforce_retention() == 0
    assert s.describe_topic("__consumer_offsets").config.compact


async def test_retention_by_size(harness: Harness) -> None:
    harness.segment_bytes = 1000
    s = await harness.reopen()
    await s.create_topic("t", 1, {"retention.bytes": "2500"})
    log = s.log("t", 0)
    for _ in range(20):
        await log.append(make_batch(2, value_size=100), durable=True)
    assert log.size_bytes > 2500
    deleted = await s.enforce_retention()
    assert deleted > 0
    # Like Kafka, a segment goes only if the log stays at or above retention.bytes without it.
    first = log.segments[0].size
    assert log.size_bytes - first < 2500 <= log.size_bytes
    assert log.log_start_offset == log.segment_base_offsets()[0]
    assert offsets_in((await log.read(log.log_start_offset, 1 << 20)).records)[0] == log.log_start_offset


async def test_delete_records(harness: Harness) -> None:
    harness.segment_bytes = 1000
    s = await harness.reopen()
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    for _ in range(10):
        await log.append(make_batch(2, value_size=100), durable=True)
    with pytest.raises(errors.OffsetOutOfRangeError):
        await log.delete_records_before(21)
    assert await log.delete_records_before(7) == 7
    assert await log.delete_records_before(3) == 7  # never moves back
    assert log.segment_base_offsets()[0] <= 7
    assert (await log.list_offset(EARLIEST_TIMESTAMP)) == OffsetAndTimestamp(7, -1)
    s = await harness.reopen()
    log = s.log("t", 0)
    assert log.log_start_offset == 7
    assert log.log_end_offset == 20
    assert await log.delete_records_before(-1) == 20
    s = await harness.reopen()
    log = s.log("t", 0)
    assert log.log_start_offset == 20
    assert (await log.append(make_batch(1), durable=True)).base_offset == 20


async def test_list_offsets(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"index.interval.bytes": "50"})
    log = s.log("t", 0)
    assert await log.list_offset(MAX_TIMESTAMP) is None
    assert await log.list_offset(LATEST_TIMESTAMP) == OffsetAndTimestamp(0, -1)
    # Timestamps 1000,1010,...; batch of 3 records each, 10 ms apart.
    ts = 1000
    for _ in range(6):
        await log.append(make_batch(3, ts=ts, step_ms=10), durable=True)
        ts += 30
    await log.append(make_batch(2, ts=500, step_ms=1), durable=True)  # out-of-order timestamps
    assert await log.list_offset(EARLIEST_TIMESTAMP) == OffsetAndTimestamp(0, -1)
    assert await log.list_offset(LATEST_TIMESTAMP) == OffsetAndTimestamp(20, -1)
    assert await log.list_offset(0) == OffsetAndTimestamp(0, 1000)
    assert await log.list_offset(1000) == OffsetAndTimestamp(0, 1000)
    assert await log.list_offset(1001) == OffsetAndTimestamp(1, 1010)
    assert await log.list_offset(1100) == OffsetAndTimestamp(10, 1100)
    assert await log.list_offset(1105) == OffsetAndTimestamp(11, 1110)
    assert await log.list_offset(1170) == OffsetAndTimestamp(17, 1170)
    assert await log.list_offset(1171) is None
    assert await log.list_offset(MAX_TIMESTAMP) == OffsetAndTimestamp(17, 1170)
    await log.delete_records_before(11)
    assert await log.list_offset(1000) == OffsetAndTimestamp(11, 1110)


async def test_list_offsets_stop_at_the_last_fetchable_offset(harness: Harness) -> None:
    """Kafka's Partition.fetchOffsetForTimestamp: latest is the LSO (read_committed) or the
    high watermark (read_uncommitted); a record found by timestamp, or the max-timestamp
    record, is an answer only below that bound; earliest is never bounded."""
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(make_batch(2, ts=1000, step_ms=10), durable=True)  # 0-1: plain, ts 1000 and 1010
    pid = 7
    await log.append(
        make_batch(2, ts=2000, step_ms=10, producer_id=pid, producer_epoch=0, base_sequence=0, transactional=True)
    , durable=True)  # 2-3: an open transaction, ts 2000 and 2010
    committed, uncommitted, no_level = 1, 0, None
    assert log.last_stable_offset == 2 and log.high_watermark == 4
    assert await log.list_offset(LATEST_TIMESTAMP, isolation_level=committed) == OffsetAndTimestamp(2, -1)
    assert await log.list_offset(LATEST_TIMESTAMP, isolation_level=uncommitted) == OffsetAndTimestamp(4, -1)
    assert await log.list_offset(LATEST_TIMESTAMP, isolation_level=no_level) == OffsetAndTimestamp(4, -1)
    assert await log.list_offset(EARLIEST_TIMESTAMP, isolation_level=committed) == OffsetAndTimestamp(0, -1)
    # Below the LSO both levels answer.
    assert await log.list_offset(1005, isolation_level=committed) == OffsetAndTimestamp(1, 1010)
    assert await log.list_offset(1005, isolation_level=uncommitted) == OffsetAndTimestamp(1, 1010)
    # At or above the LSO only read_uncommitted does.
    assert await log.list_offset(1500, isolation_level=committed) is None
    assert await log.list_offset(2000, isolation_level=committed) is None
    assert await log.list_offset(1500, isolation_level=uncommitted) == OffsetAndTimestamp(2, 2000)
    assert await log.list_offset(MAX_TIMESTAMP, isolation_level=committed) is None
    assert await log.list_offset(MAX_TIMESTAMP, isolation_level=uncommitted) == OffsetAndTimestamp(3, 2010)
    # Committing moves the bound past the marker.
    await log.append(
        rb.build_control_batch(rb.ControlType.COMMIT, producer_id=pid, producer_epoch=0, coordinator_epoch=0,
                               timestamp=2005),
        origin=AppendOrigin.COORDINATOR,
     durable=True,)  # 4: the COMMIT marker
    assert await log.list_offset(LATEST_TIMESTAMP, isolation_level=committed) == OffsetAndTimestamp(5, -1)
    assert await log.list_offset(1500, isolation_level=committed) == OffsetAndTimestamp(2, 2000)
    assert await log.list_offset(MAX_TIMESTAMP, isolation_level=committed) == OffsetAndTimestamp(3, 2010)


async def test_log_append_time(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.type": "LogAppendTime"})
    log = s.log("t", 0)
    result = await log.append(make_batch(3, ts=5), durable=True)
    assert result.log_append_time == harness.clock.now_ms()
    decoded = rb.decode_batches((await log.read(0, 1 << 20)).records)
    assert [r.timestamp for r in decoded[0].records] == [harness.clock.now_ms()] * 3
    assert decoded[0].header.timestamp_type == rb.TimestampType.LOG_APPEND_TIME
    normal = await s.create_topic("c", 1)
    assert (await s.log(normal.name, 0).append(make_batch(1), durable=True)).log_append_time == -1


async def test_append_validation_errors(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"max.message.bytes": "2000"})
    log = s.log("t", 0)
    bad = bytearray(make_batch(2))
    bad[-1] ^= 1
    with pytest.raises(errors.CorruptRecordError) as c:
        await log.append(bytes(bad), durable=True)
    assert c.value.error_code == 2
    with pytest.raises(errors.MessageTooLargeError) as m:
        await log.append(make_batch(3, value_size=1000), durable=True)
    assert m.value.error_code == 10
    with pytest.raises(errors.InvalidRecordError) as i:
        await log.append(make_batch(1) + make_batch(1), durable=True)
    assert i.value.error_code == 87
    marker = rb.build_control_batch(rb.ControlType.ABORT, producer_id=1, producer_epoch=0, coordinator_epoch=0,
                                    timestamp=T0)
    with pytest.raises(errors.InvalidRecordError):
        await log.append(marker, durable=True)
    assert (await log.append(marker, origin=AppendOrigin.COORDINATOR, durable=True)).base_offset == 0
    assert log.log_end_offset == 1
    # Also catchable as the protocol-level error family.
    with pytest.raises(rb.RecordBatchError):
        await log.append(bytes(bad), durable=True)


async def test_timestamp_bounds(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.after.max.ms": "1000", "message.timestamp.before.max.ms": "1000"})
    log = s.log("t", 0)
    now = harness.clock.now_ms()
    await log.append(make_batch(1, ts=now + 1000), durable=True)
    with pytest.raises(errors.InvalidTimestampError) as info:
        await log.append(make_batch(1, ts=now + 1001), durable=True)
    assert info.value.error_code == 32
    with pytest.raises(errors.InvalidTimestampError):
        await log.append(make_batch(1, ts=now - 1001), durable=True)


async def test_durable_append(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 2)
    r = await s.log("t", 0).append(make_batch(2), durable=True)
    assert r.base_offset == 0
    await s.log("t", 1).append(make_batch(2), durable=True)
    await s.sync()
    assert s.flusher.rounds >= 1


async def test_catalog_survives_reopen(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    info = await s.create_topic("orders", 3, {"retention.ms": "1000", "cleanup.policy": "compact,delete"})
    await s.log("orders", 2).append(make_batch(4), durable=True)
    s = await harness.reopen()
    again = s.describe_topic("orders")
    assert again.topic_id == info.topic_id and again.num_partitions == 3
    assert again.config.retention_ms == 1000 and again.config.cleanup_policy == {"compact", "delete"}
    assert s.describe_topic(info.topic_id).name == "orders"
    assert s.log_by_id(info.topic_id, 2).log_end_offset == 4
    with pytest.raises(errors.UnknownTopicIdError) as unknown:
        s.log_by_id(uuid.uuid4(), 0)
    assert unknown.value.error_code == 100
    assert s.log("orders", 2).log_end_offset == 4
    assert (await s.log("orders", 2).append(make_batch(1), durable=True)).base_offset == 4
    assert [t.name for t in s.list_topics()] == ["orders"]


async def test_concurrent_topic_admin_all_lands_in_the_catalog(harness: Harness) -> None:
    """Requests on different connections change the catalog at the same time; each change
    is durable once it returns, whatever the order the writes finish in."""
    s = harness.storage
    assert s is not None
    await asyncio.gather(*(s.create_topic(f"gone{i}", 1) for i in range(10)))
    await asyncio.gather(
        *(s.create_topic(f"t{i}", 1) for i in range(20)),
        *(s.delete_topic(f"gone{i}") for i in range(10)),
    )
    await asyncio.gather(*(s.create_partitions(f"t{i}", 3) for i in range(0, 20, 2)))
    s = await harness.reopen()
    assert {t.name: t.num_partitions for t in s.list_topics()} == {f"t{i}": 3 if i % 2 == 0 else 1 for i in range(20)}


async def test_a_topic_recreated_while_its_namesake_is_deleted_keeps_its_data(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    old = await s.create_topic("a", 1)
    await s.log("a", 0).append(make_batch(3), durable=True)
    # The deletion suspends while it writes the catalog; the new topic is created then.
    _, new = await asyncio.gather(s.delete_topic("a"), s.create_topic("a", 1))
    assert new.topic_id != old.topic_id
    assert s.log("a", 0).log_end_offset == 0
    assert (await s.log("a", 0).append(make_batch(2), durable=True)).base_offset == 0
    # Durable when answered: the sync covered the new log's writes (its lane kept).
    assert s.log("a", 0).high_watermark == 2
    await s.sync()
    assert s.log("a", 0).high_watermark == 2
    s = await harness.reopen()
    assert s.describe_topic("a").topic_id == new.topic_id
    assert s.log("a", 0).log_end_offset == 2


async def test_create_delete_and_add_partitions(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("a", 1)
    with pytest.raises(errors.TopicAlreadyExistsError) as exists:
        await s.create_topic("a", 1)
    assert exists.value.error_code == 36
    with pytest.raises(errors.InvalidPartitionsError) as parts:
        await s.create_topic("b", 0)
    assert parts.value.error_code == 37
    assert (await s.create_topic("b", 2, validate_only=True)).num_partitions == 2
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        s.describe_topic("b")
    await s.log("a", 0).append(make_batch(3), durable=True)
    info = await s.create_partitions("a", 3)
    assert info.num_partitions == 3
    assert s.log("a", 2).log_end_offset == 0
    assert s.log("a", 0).log_end_offset == 3
    with pytest.raises(errors.InvalidPartitionsError):
        await s.create_partitions("a", 3)
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        await s.create_partitions("zzz", 3)
    s = await harness.reopen()
    assert s.describe_topic("a").num_partitions == 3
    deleted = await s.delete_topic("a")
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        s.log("a", 0)
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        await s.delete_topic(deleted.topic_id)
    # A recreated topic starts empty with a new id.
    again = await s.create_topic("a", 1)
    assert again.topic_id != deleted.topic_id
    assert s.log("a", 0).log_end_offset == 0
    s = await harness.reopen()
    assert s.log("a", 0).log_end_offset == 0
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        await s.delete_topic(uuid.uuid4())


@pytest.mark.parametrize(
    "name", ["", ".", "..", "a" * 250, "has space", "sl/ash", "ü"],
)
async def test_invalid_topic_names(harness: Harness, name: str) -> None:
    s = harness.storage
    assert s is not None
    with pytest.raises(errors.InvalidTopicError) as info:
        await s.create_topic(name, 1)
    assert info.value.error_code == 17


async def test_valid_topic_names(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    for name in ["a" * 249, "with.dot", "with_under-dash", "__consumer_offsets", "...", "0-1"]:
        await s.create_topic(name, 1)


async def test_config_validation_and_alter(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    for bad in (
        {"no.such.config": "1"},
        {"segment.bytes": "1000"},
        {"retention.ms": "-2"},
        {"cleanup.policy": "forever"},
        {"compression.type": "brotli"},
        {"max.message.bytes": "lots"},
        {"min.insync.replicas": "0"},
        {"unclean.leader.election.enable": "maybe"},
        {"message.timestamp.type": "Now"},
    ):
        with pytest.raises(errors.ConfigError) as info:
            await s.create_topic("t", 1, bad)
        assert info.value.error_code == 40
    await s.create_topic("t", 1, {"segment.bytes": "1048576", "compression.type": "zstd"})
    entries = {e.name: e for e in s.describe_configs("t")}
    assert entries["segment.bytes"].value == "1048576" and not entries["segment.bytes"].is_default
    assert entries["retention.ms"].value == "604800000" and entries["retention.ms"].is_default
    assert entries["max.message.bytes"].value == "1048588"
    assert not entries["retention.ms"].read_only and not entries["retention.ms"].sensitive
    await s.alter_topic_configs("t", {"retention.ms": "1000", "compression.type": None})
    config = s.describe_topic("t").config
    assert config.retention_ms == 1000 and config.compression_type == "producer"
    assert config.segment_bytes == 1048576
    assert s.log("t", 0).config.retention_ms == 1000
    await s.alter_topic_configs("t", {"retention.bytes": "5"}, replace=True)
    config = s.describe_topic("t").config
    assert config.overrides == {"retention.bytes": "5"}
    with pytest.raises(errors.ConfigError):
        await s.alter_topic_configs("t", {"retention.bytes": "x"})
    await s.alter_topic_configs("t", {"retention.bytes": "7"}, validate_only=True)
    assert s.describe_topic("t").config.retention_bytes == 5
    s = await harness.reopen()
    assert s.describe_topic("t").config.overrides == {"retention.bytes": "5"}


async def test_partitions_are_there_as_soon_as_the_topic_is(harness: Harness) -> None:
    """A request served while create_topic or create_partitions is still writing the
    catalog sees either no topic or every one of its partitions."""
    import asyncio

    s = harness.storage
    assert s is not None

    def visible_partitions(name: str) -> int | None:
        try:
            info = s.describe_topic(name)
        except errors.UnknownTopicOrPartitionError:
            return None
        for p in range(info.num_partitions):
            s.log(name, p)
        return info.num_partitions

    create = asyncio.ensure_future(s.create_topic("racy", 50))
    await asyncio.sleep(0)
    assert visible_partitions("racy") in (None, 50)
    await create
    grow = asyncio.ensure_future(s.create_partitions("racy", 60))
    await asyncio.sleep(0)
    assert visible_partitions("racy") in (50, 60)
    await grow
    assert visible_partitions("racy") == 60


async def test_partitions_added_at_once_and_beside_a_deletion(harness: Harness) -> None:
    """Growths of one topic run one after the other, each from the count it finds; one
    whose topic is deleted meanwhile fails as an unknown topic and leaves nothing to a
    topic created again under the name. Grown partitions are written to and survive."""
    s = harness.storage
    assert s is not None
    await s.create_topic("g", 2)
    to_4, to_6, to_3 = await asyncio.gather(
        s.create_partitions("g", 4), s.create_partitions("g", 6), s.create_partitions("g", 3),
        return_exceptions=True,
    )
    assert [to_4.num_partitions, to_6.num_partitions] == [4, 6]  # type: ignore[union-attr]
    assert isinstance(to_3, errors.InvalidPartitionsError)
    assert str(to_3) == "Topic currently has 6 partitions, which is higher than or equal to the requested 3."
    assert (await s.log("g", 5).append(make_batch(3))).base_offset == 0
    await s.create_topic("d", 1)
    grow = asyncio.ensure_future(s.create_partitions("d", 200))
    await asyncio.sleep(0)
    await s.delete_topic("d")
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        await grow
    await s.create_topic("d", 3)
    s = await harness.reopen()
    assert s.describe_topic("g").num_partitions == 6
    assert [s.log("g", p).log_end_offset for p in range(6)] == [0, 0, 0, 0, 0, 3]
    assert s.describe_topic("d").num_partitions == 3
    assert [s.log("d", p).log_end_offset for p in range(3)] == [0, 0, 0]
    with pytest.raises(errors.UnknownTopicOrPartitionError):
        s.log("d", 3)



async def test_a_partition_first_looked_up_later_sees_the_topic_as_it_is_then(harness: Harness) -> None:
    """A new topic's partitions are opened at their first lookup: one looked up after a
    config change has the new config, and a topic deleted before some of its partitions
    were looked up takes them all with it."""
    s = harness.storage
    assert s is not None
    await s.create_topic("late", 3)
    opened = s.log("late", 0)
    await s.alter_topic_configs("late", {"retention.ms": "1234"})
    assert [s.log("late", p).config.retention_ms for p in range(3)] == [1234] * 3
    s.set_broker_defaults({"retention.ms": "5678"})
    await s.alter_topic_configs("late", {"retention.ms": None})
    assert s.log("late", 2).config.retention_ms == 5678
    assert s.log("late", 0) is opened
    await s.create_topic("gone", 3)
    await s.log("gone", 1).append(make_batch(2), durable=True)
    await s.delete_topic("gone")
    for p in range(3):
        with pytest.raises(errors.UnknownTopicOrPartitionError):
            s.log("gone", p)
    await s.create_topic("gone", 2)
    assert [s.log("gone", p).log_end_offset for p in range(2)] == [0, 0]
    s = await harness.reopen()
    assert [s.log("gone", p).log_end_offset for p in range(2)] == [0, 0]


# --- what the broker and the coordinators use, through the interface only -------------

PID = 4000
WAIT_S = 5.0  # never reached: every waiter below is woken or checked without waiting


def engine_of(harness: Harness) -> StorageEngine:
    assert harness.storage is not None
    return harness.storage


def txn_batch(seq: int, *, epoch: int = 0, n: int = 2) -> bytes:
    return make_batch(n, producer_id=PID, producer_epoch=epoch, base_sequence=seq, transactional=True)


def marker(commit: bool, *, epoch: int = 0) -> bytes:
    return rb.build_control_batch(
        rb.ControlType.COMMIT if commit else rb.ControlType.ABORT,
        producer_id=PID, producer_epoch=epoch, coordinator_epoch=0, timestamp=T0,
    )


async def parked(engine: StorageEngine, *partitions: tuple[str, int]) -> asyncio.Task[bool]:
    """A waiter registered on `partitions` (the task has run up to its wait)."""
    task = asyncio.ensure_future(engine.appended.wait(list(partitions), WAIT_S))
    await asyncio.sleep(0)
    assert not task.done()
    return task


async def woken(task: asyncio.Task[bool]) -> bool:
    for _ in range(3):
        await asyncio.sleep(0)
    return task.done() and task.result()


async def test_append_signal_wakes_only_the_partition_appended_to(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 2)
    on_zero = await parked(engine, ("t", 0))
    on_both = await parked(engine, ("t", 0), ("t", 1))
    assert engine.appended.waiting("t", 0) == 2 and engine.appended.waiting("t", 1) == 1
    await engine.log("t", 1).append(make_batch(1), durable=True)
    assert await woken(on_both)
    assert not await woken(on_zero)
    await engine.log("t", 0).append(make_batch(1), durable=True)
    assert await woken(on_zero)
    # Woken waiters leave nothing registered behind.
    assert engine.appended.waiting("t", 0) == engine.appended.waiting("t", 1) == 0


async def test_append_signal_fires_when_a_marker_moves_the_lso(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log = engine.log("t", 0)
    await log.append(txn_batch(0), durable=True)
    assert (log.high_watermark, log.last_stable_offset) == (2, 0)
    waiter = await parked(engine, ("t", 0))
    await log.append(marker(True), origin=AppendOrigin.COORDINATOR, durable=True)
    assert await woken(waiter)
    assert log.last_stable_offset == 3
    read = await log.read(0, 1 << 20, upper_bound=log.last_stable_offset)
    assert offsets_in(bytes(read.records)) == [0, 1, 2]


async def test_append_signal_fires_when_the_log_start_moves(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log = engine.log("t", 0)
    await log.append(make_batch(4), durable=True)
    waiter = await parked(engine, ("t", 0))
    assert await log.delete_records_before(2) == 2
    assert await woken(waiter)


async def test_append_signal_fires_when_the_topic_is_deleted(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    waiter = await parked(engine, ("t", 0))
    await engine.delete_topic("t")
    assert await woken(waiter)


async def test_append_signal_since_catches_a_change_before_the_wait(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    seen = engine.appended.changes
    assert not await engine.appended.wait([("t", 0)], 0, since=seen)
    await engine.log("t", 0).append(make_batch(1), durable=True)
    assert engine.appended.changes > seen
    assert await engine.appended.wait([("t", 0)], WAIT_S, since=seen)


async def test_duplicate_append_does_not_signal(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log = engine.log("t", 0)
    batch = make_batch(2, producer_id=PID, producer_epoch=0, base_sequence=0)
    await log.append(batch, durable=True)
    waiter = await parked(engine, ("t", 0))
    again = await log.append(batch, durable=True)
    assert (again.base_offset, log.log_end_offset) == (0, 2)
    assert not await woken(waiter)
    waiter.cancel()


async def test_needs_verification_when_a_batch_would_open_a_transaction(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log: PartitionLog = engine.log("t", 0)

    def header(batch: bytes) -> rb.BatchHeader:
        return rb.BatchHeader.parse(batch)

    first = txn_batch(0)
    assert log.needs_verification(header(first))
    assert not log.needs_verification(header(make_batch(1)))  # not transactional
    await log.append(first, durable=True)
    # The transaction is open here: later batches of it, and a retry of the first, go on.
    assert not log.needs_verification(header(txn_batch(2)))
    assert not log.needs_verification(header(first))
    await log.append(marker(True), origin=AppendOrigin.COORDINATOR, durable=True)
    assert log.needs_verification(header(txn_batch(2)))
    # A marker with a bumped epoch fences epoch 0: its batches are refused by the append
    # itself, not verified.
    await log.append(marker(False, epoch=1), origin=AppendOrigin.COORDINATOR, durable=True)
    assert not log.needs_verification(header(txn_batch(2)))
    with pytest.raises(errors.InvalidProducerEpochError):
        await log.append(txn_batch(2), durable=True)


async def test_a_batch_of_a_bumped_epoch_is_verified_while_the_previous_transaction_is_open(
    harness: Harness,
) -> None:
    """Transaction version 2: the next transaction's first batch, at the epoch its EndTxn
    bumped to, can arrive before the previous transaction's marker (the coordinator on
    another broker): it opens a new transaction, so it is verified, not appended to the old."""
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log: PartitionLog = engine.log("t", 0)
    await log.append(txn_batch(0, epoch=1), durable=True)
    assert not log.needs_verification(rb.BatchHeader.parse(txn_batch(2, epoch=1)))
    assert log.needs_verification(rb.BatchHeader.parse(txn_batch(0, epoch=2)))


async def test_marker_epoch_rule_of_transaction_version_2(harness: Harness) -> None:
    engine = engine_of(harness)
    await engine.create_topic("t", 1)
    log = engine.log("t", 0)
    await log.append(txn_batch(0, epoch=3), durable=True)
    # Version 2 coordinators bump the epoch before writing the marker: an equal epoch
    # with the transaction still open is refused, and nothing is written.
    with pytest.raises(errors.InvalidProducerEpochError):
        await log.append(marker(True, epoch=3), origin=AppendOrigin.COORDINATOR, transaction_version=2, durable=True)
    assert (log.log_end_offset, log.last_stable_offset) == (2, 0)
    await log.append(marker(True, epoch=4), origin=AppendOrigin.COORDINATOR, transaction_version=2, durable=True)
    assert (log.log_end_offset, log.last_stable_offset) == (3, 3)
    # The retry of that marker (same epoch, nothing open) is accepted, as Kafka does.
    await log.append(marker(True, epoch=4), origin=AppendOrigin.COORDINATOR, transaction_version=2, durable=True)
    assert log.log_end_offset == 4
    # Version 1 markers keep the equal-epoch rule.
    await log.append(txn_batch(0, epoch=5), durable=True)
    await log.append(marker(False, epoch=5), origin=AppendOrigin.COORDINATOR, durable=True)
    assert log.last_stable_offset == log.log_end_offset == 7
    read = await log.list_offset(-1, isolation_level=READ_COMMITTED)
    assert read is not None and read.offset == 7


async def test_a_creation_whose_request_is_cancelled_runs_to_its_end(harness: Harness) -> None:
    """A client gone mid-CreateTopics cancels the request, not the creation: the topic is
    made whole (every partition open, in the catalog after a reopen) and the name stays
    taken meanwhile."""
    s = harness.storage
    assert s is not None
    request = asyncio.ensure_future(s.create_topic("c", 40))
    await asyncio.sleep(0)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    with pytest.raises(errors.TopicAlreadyExistsError):
        await s.create_topic("c", 1)
    for _ in range(1000):  # the creation finishes on its own (a worker thread for files)
        if "c" in {t.name for t in s.list_topics()}:
            break
        await asyncio.sleep(0.01)
    assert s.describe_topic("c").num_partitions == 40
    assert (await s.log("c", 39).append(make_batch(2), durable=True)).base_offset == 0
    s = await harness.reopen()
    assert [s.log("c", p).log_end_offset for p in (0, 39)] == [0, 2]
