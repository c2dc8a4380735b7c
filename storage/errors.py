"""Storage exceptions. Every member carries the Kafka error code the broker answers with.

The record-validation errors also subclass their `protocol.record_batch` counterparts,
so a caller may catch either family.
"""

from __future__ import annotations

from protocol import record_batch as rb


class StorageError(Exception):
    error_code: int = 56  # KAFKA_STORAGE_ERROR unless a subclass says otherwise
    # KIP-467: the records of a refused batch at fault, as (index in the batch, message).
    record_errors: tuple[tuple[int, str], ...] = ()


class OffsetOutOfRangeError(StorageError):
    error_code = 1


class CorruptRecordError(StorageError, rb.CorruptRecordError):
    error_code = 2


class UnknownTopicOrPartitionError(StorageError):
    error_code = 3


class UnknownTopicIdError(UnknownTopicOrPartitionError):
    """UNKNOWN_TOPIC_ID (100): the request named a topic by an id we don't know."""

    error_code = 100


class MessageTooLargeError(StorageError, rb.MessageTooLargeError):
    error_code = 10


class InvalidTopicError(StorageError):
    error_code = 17


class RecordListTooLargeError(StorageError):
    error_code = 18


class TopicAlreadyExistsError(StorageError):
    error_code = 36


class InvalidPartitionsError(StorageError):
    error_code = 37


class ConfigError(StorageError):
    """INVALID_CONFIG: unknown topic config name or a value that fails validation."""

    error_code = 40


class InvalidTimestampError(StorageError):
    error_code = 32


class InvalidRecordError(StorageError, rb.InvalidRecordError):
    error_code = 87


class OutOfOrderSequenceError(StorageError):
    """A batch's first sequence does not follow the producer's last one (or a new epoch
    does not start at 0)."""

    error_code = 45


class InvalidProducerEpochError(StorageError):
    """The batch or marker carries an epoch older than the partition has seen."""

    error_code = 47


class InvalidTxnStateError(StorageError):
    """A non-transactional write from a producer with a transaction open here."""

    error_code = 48


class TransactionCoordinatorFencedError(StorageError):
    """A marker from a coordinator epoch older than the last one seen for the producer."""

    error_code = 52


class KafkaStorageError(StorageError):
    """The log directory failed (I/O error, fsync failure)."""

    error_code = 56


_FROM_BATCH_ERROR: dict[type[rb.RecordBatchError], type[StorageError]] = {
    rb.CorruptRecordError: CorruptRecordError,
    rb.InvalidRecordError: InvalidRecordError,
    rb.MessageTooLargeError: MessageTooLargeError,
}


def from_batch_error(exc: rb.RecordBatchError) -> StorageError:
    """Translate a record_batch validation error into the storage family."""
    if isinstance(exc, StorageError):
        return exc
    return _FROM_BATCH_ERROR.get(type(exc), CorruptRecordError)(str(exc))
