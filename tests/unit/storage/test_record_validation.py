"""Per-record validation (Kafka's LogValidator, KIP-467): both engines refuse a batch with
bad records whole, naming each bad record by its index in the batch."""

from __future__ import annotations

import pytest

from protocol import record_batch as rb
from storage import errors
from storage.engine import AppendOrigin
from tests.unit.storage.storage_helpers import Harness

NOW = 1_700_000_000_000
DAY_MS = 86_400_000


def batch(keys: list[bytes | None], *, ts: list[int] | None = None, compression: rb.Compression = rb.Compression.NONE,
          **kwargs: object) -> bytes:
    stamps = ts or [NOW] * len(keys)
    records = [rb.Record(k, b"v%d" % i, [], t) for i, (k, t) in enumerate(zip(keys, stamps, strict=True))]
    return rb.build_batch(records, compression=compression, **kwargs)  # type: ignore[arg-type]


def no_key_message(topic: str) -> str:
    return f"Compacted topic cannot accept message without key in topic partition {topic}-0"


@pytest.mark.parametrize("compression", [rb.Compression.NONE, rb.Compression.GZIP, rb.Compression.ZSTD], ids=lambda c: c.name)
async def test_compacted_topic_refuses_keyless_records_by_index(harness: Harness, compression: rb.Compression) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("c", 1, {"cleanup.policy": "compact"})
    log = s.log("c", 0)
    assert (await log.append(batch([b"a"], compression=compression))).base_offset == 0
    with pytest.raises(errors.InvalidRecordError) as info:
        await log.append(batch([b"k0", None, b"k2", None], compression=compression))
    assert info.value.error_code == 87
    assert info.value.record_errors == ((1, no_key_message("c")), (3, no_key_message("c")))
    assert str(info.value) == (
        "One or more records have been rejected due to 2 record errors in total, and only showing the first three "
        f"errors at most: [RecordError(batchIndex=1, message='{no_key_message('c')}'), "
        f"RecordError(batchIndex=3, message='{no_key_message('c')}')]"
    )
    # Refused whole: nothing of the batch is in the log.
    assert log.log_end_offset == 1
    assert (await log.append(batch([b"b", b"c"], compression=compression))).base_offset == 1


async def test_message_names_at_most_three_records(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("c", 1, {"cleanup.policy": "compact,delete"})
    with pytest.raises(errors.InvalidRecordError) as info:
        await s.log("c", 0).append(batch([None] * 5))
    assert [i for i, _ in info.value.record_errors] == [0, 1, 2, 3, 4]
    assert str(info.value).count("RecordError(") == 3


async def test_keys_are_not_checked_where_not_compacted_nor_for_coordinators(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("d", 1)
    await s.create_topic("c", 1, {"cleanup.policy": "compact"})
    assert (await s.log("d", 0).append(batch([None, None]))).last_offset == 1
    coordinator_write = await s.log("c", 0).append(batch([None]), origin=AppendOrigin.COORDINATOR)
    assert coordinator_write.base_offset == 0


async def test_timestamp_errors_name_the_records_out_of_range(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.before.max.ms": str(DAY_MS),
                                  "message.timestamp.after.max.ms": str(DAY_MS)})
    log = s.log("t", 0)
    old = NOW - 2 * DAY_MS
    with pytest.raises(errors.InvalidTimestampError) as info:
        await log.append(batch([b"a", b"b", b"c"], ts=[old, NOW, old + 1]))
    assert info.value.error_code == 32
    assert str(info.value) == "One or more records have been rejected due to invalid timestamp"
    window = f"[{NOW - DAY_MS}, {NOW + DAY_MS}]"
    assert info.value.record_errors == (
        (0, f"Timestamp {old} of message with offset 0 is out of range. The timestamp should be within {window}"),
        (2, f"Timestamp {old + 1} of message with offset 2 is out of range. The timestamp should be within {window}"),
    )
    assert log.log_end_offset == 0


async def test_a_key_error_wins_over_a_timestamp_error_on_the_same_record(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("c", 1, {"cleanup.policy": "compact", "message.timestamp.before.max.ms": str(DAY_MS)})
    with pytest.raises(errors.InvalidRecordError) as info:
        await s.log("c", 0).append(batch([None, b"k"], ts=[NOW - 2 * DAY_MS, NOW]))
    assert info.value.record_errors == ((0, no_key_message("c")),)


async def test_the_window_is_worded_as_kafka_computes_it(harness: Harness) -> None:
    """With message.timestamp.after.max.ms at Long.MAX_VALUE (the default before Kafka 4)
    Kafka's upper bound wraps around as a Java long."""
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.before.max.ms": str(DAY_MS),
                                  "message.timestamp.after.max.ms": str(2**63 - 1)})
    with pytest.raises(errors.InvalidTimestampError) as info:
        await s.log("t", 0).append(batch([b"a"], ts=[0]))
    wrapped = NOW + 2**63 - 1 - 2**64
    assert info.value.record_errors == (
        (0, f"Timestamp 0 of message with offset 0 is out of range. The timestamp should be within "
            f"[{NOW - DAY_MS}, {wrapped}]"),
    )


async def test_the_default_window_ends_one_hour_ahead(harness: Harness) -> None:
    """Kafka 4's message.timestamp.after.max.ms default (KIP-1030): one hour."""
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {})
    hour = 3_600_000
    assert (await s.log("t", 0).append(batch([b"a"], ts=[NOW + hour]))).last_offset == 0
    with pytest.raises(errors.InvalidTimestampError) as info:
        await s.log("t", 0).append(batch([b"b"], ts=[NOW + hour + 1]))
    assert info.value.record_errors == (
        (0, f"Timestamp {NOW + hour + 1} of message with offset 0 is out of range. The timestamp should be "
            f"within [{NOW - 2**63 + 1}, {NOW + hour}]"),
    )


async def test_records_without_timestamps_are_not_range_checked(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.before.max.ms": str(DAY_MS)})
    assert (await s.log("t", 0).append(batch([b"a", b"b"], ts=[-1, -1]))).last_offset == 1


async def test_log_append_time_topics_skip_the_timestamp_check(harness: Harness) -> None:
    s = harness.storage
    assert s is not None
    await s.create_topic("t", 1, {"message.timestamp.type": "LogAppendTime",
                                  "message.timestamp.before.max.ms": str(DAY_MS)})
    result = await s.log("t", 0).append(batch([b"a"], ts=[NOW - 2 * DAY_MS]))
    assert result.log_append_time == NOW


async def test_a_malformed_record_in_a_sound_batch_is_an_invalid_record(harness: Harness) -> None:
    """The CRC holds but a record's length runs past the batch: only a compacted topic
    decodes records, and it refuses the batch as Kafka does (INVALID_RECORD)."""
    s = harness.storage
    assert s is not None
    await s.create_topic("c", 1, {"cleanup.policy": "compact"})
    buf = bytearray(batch([b"a"]))
    buf[rb.HEADER_SIZE] = 0x7E  # the record's length varint: 63 bytes, more than there are
    rb.HEADER.pack_into(buf, 0, *rb.BatchHeader.parse(buf)._replace(crc=rb.batch_crc(buf, 0, len(buf))))
    with pytest.raises(errors.InvalidRecordError):
        await s.log("c", 0).append(bytes(buf))
    assert s.log("c", 0).log_end_offset == 0


async def test_a_producer_may_not_claim_log_append_time(harness: Harness) -> None:
    """LogValidator.validateTimestamp: on a LogAppendTime topic every record of a batch
    the producer marked LogAppendTime is refused; on a CreateTime topic the batch's
    timestamp is range-checked like any other."""
    s = harness.storage
    assert s is not None
    await s.create_topic("lat", 1, {"message.timestamp.type": "LogAppendTime"})
    await s.create_topic("ct", 1)
    marked = batch([b"key", None], ts=[NOW, NOW + 5], timestamp_type=rb.TimestampType.LOG_APPEND_TIME)
    with pytest.raises(errors.InvalidTimestampError) as info:
        await s.log("lat", 0).append(marked)
    suffix = ". Producer should not set timestamp type to LogAppendTime."
    assert info.value.record_errors == (
        (0, f"Invalid timestamp type in message DefaultRecord(offset=0, timestamp={NOW + 5}, key=3 bytes, "
            f"value=2 bytes){suffix}"),
        (1, f"Invalid timestamp type in message DefaultRecord(offset=1, timestamp={NOW + 5}, key=0 bytes, "
            f"value=2 bytes){suffix}"),
    )
    assert (await s.log("ct", 0).append(marked)).last_offset == 1


async def test_only_a_coordinators_own_batch_is_trusted(harness: Harness) -> None:
    """`trusted` (a coordinator's batch built in-process) skips the CRC and record checks,
    not the size limit; a client's batch marked trusted is validated all the same."""
    s = harness.storage
    assert s is not None
    await s.create_topic("c", 1, {"cleanup.policy": "compact", "max.message.bytes": "200"})
    log = s.log("c", 0)
    bad_crc = bytearray(batch([b"k"]))
    bad_crc[rb.CRC_OFFSET] ^= 0xFF
    with pytest.raises(errors.CorruptRecordError):
        await log.append(bytes(bad_crc), trusted=True)
    with pytest.raises(errors.InvalidRecordError):
        await log.append(batch([None]), trusted=True)
    with pytest.raises(errors.MessageTooLargeError):
        await log.append(batch([b"k" * 300]), origin=AppendOrigin.COORDINATOR, trusted=True)
    assert log.log_end_offset == 0
    own = bytearray(batch([b"k", b"l"]))
    result = await log.append(own, origin=AppendOrigin.COORDINATOR, trusted=True, durable=True)
    assert (result.base_offset, result.last_offset) == (0, 1)
    records = (await log.read(0, 1 << 20)).records
    assert [r.key for b in rb.decode_batches(records) for r in b.records] == [b"k", b"l"]
    later = bytearray(batch([b"m"]))
    assert (await log.append(later, origin=AppendOrigin.COORDINATOR, trusted=True)).base_offset == 2
    assert rb.BatchHeader.parse(later).base_offset == 2  # stamped in place, not copied
