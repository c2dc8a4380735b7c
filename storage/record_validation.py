"""Per-record validation of a produced batch, with KIP-467's per-record errors.

As Kafka's LogValidator: on a compacted topic every record needs a key, with CreateTime
every record's timestamp must lie within message.timestamp.before/after.max.ms of now,
and a producer may not claim LogAppendTime for its records. A batch with any bad record is refused whole, naming each bad record by its index
in the batch. Records are decoded only where that is needed: on compacted topics, for batches
marked LogAppendTime by their producer, and when the header's timestamps (the first
record's and the batch maximum) are out of range, which the hot path checks without
decoding.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol import record_batch as rb
from protocol.record_batch import BatchHeader

from .errors import InvalidRecordError, InvalidTimestampError, StorageError, from_batch_error

NO_TIMESTAMP = -1
MAX_ERRORS_IN_MESSAGE = 3  # Kafka shows at most the first three in the error message


class TimestampBounds(NamedTuple):  # a tuple: built on every append, so cheaply
    before_max_ms: int
    after_max_ms: int

    def allows(self, timestamp: int, now: int) -> bool:
        return not (now - timestamp > self.before_max_ms or timestamp - now > self.after_max_ms)


def header_timestamps_allowed(header: BatchHeader, now: int, bounds: TimestampBounds) -> bool:
    """The hot path's check: the first record's timestamp and the batch maximum. When it
    fails, `check_records` finds the records actually at fault."""
    return bounds.allows(header.base_timestamp, now) and bounds.allows(header.max_timestamp, now)


def check_records(
    records: bytes | bytearray | memoryview,
    header: BatchHeader,
    *,
    topic_partition: str,
    compacted: bool,
    now: int,
    bounds: TimestampBounds | None,
) -> None:
    """Raise the batch's error (INVALID_RECORD or INVALID_TIMESTAMP, with `record_errors`)
    when any record is refused; `bounds` None: the topic uses LogAppendTime."""
    errors: list[tuple[int, str]] = []
    timestamp_error = False
    producer_log_append = header.timestamp_type == rb.TimestampType.LOG_APPEND_TIME
    try:
        for index, record in enumerate(rb.iter_record_fields(records, header)):
            if compacted and not record.has_key:
                errors.append((index, f"Compacted topic cannot accept message without key in topic partition "
                                      f"{topic_partition}"))
            elif bounds is not None and record.timestamp != NO_TIMESTAMP:
                if not bounds.allows(record.timestamp, now):
                    timestamp_error = True
                    errors.append((index, f"Timestamp {record.timestamp} of message with offset {record.offset} is "
                                          f"out of range. The timestamp should be within "
                                          f"[{_long(now - bounds.before_max_ms)}, {_long(now + bounds.after_max_ms)}]"))
            elif producer_log_append:
                timestamp_error = True
                errors.append((index, f"Invalid timestamp type in message DefaultRecord(offset={record.offset}, "
                                      f"timestamp={record.timestamp}, key={record.key_size} bytes, "
                                      f"value={record.value_size} bytes). Producer should not set timestamp type "
                                      "to LogAppendTime."))
    except rb.RecordBatchError as exc:
        raise from_batch_error(exc) from exc
    if errors:
        raise rejected(errors, timestamp_error=timestamp_error)


def _long(value: int) -> int:
    """`value` as a Java long: Kafka computes the window's bounds in 64 bits, so a
    message.timestamp.after.max.ms of Long.MAX_VALUE wraps the upper bound around."""
    return (value + 2**63) % 2**64 - 2**63


def rejected(errors: list[tuple[int, str]], *, timestamp_error: bool) -> StorageError:
    """The error of a batch with refused records, worded as Kafka's LogValidator words it."""
    exc: StorageError
    if timestamp_error:
        exc = InvalidTimestampError("One or more records have been rejected due to invalid timestamp")
    else:
        shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in errors[:MAX_ERRORS_IN_MESSAGE])
        exc = InvalidRecordError(
            f"One or more records have been rejected due to {len(errors)} record errors in total, and only "
            f"showing the first three errors at most: [{shown}]"
        )
    exc.record_errors = tuple(errors)
    return exc
