"""Storage exceptions. Every member carries the Kafka error code the broker answers with.

The record-validation errors also subclass their `protocol.record_batch` counterparts,
so a caller may catch either family.
"""

from __future__ import annotations

from protocol import record_batch as rb
from protocol.errors import ErrorCode


class StorageError(Exception):
    error_code: int = ErrorCode.KAFKA_STORAGE_ERROR  # unless a subclass says otherwise
    # KIP-467: the records of a refused batch at fault, as (index in the batch, message).
    record_errors: tuple[tuple[int, str], ...] = ()


class OffsetOutOfRangeError(StorageError):
    error_code = ErrorCode.OFFSET_OUT_OF_RANGE


class CorruptRecordError(StorageError, rb.CorruptRecordError):
    error_code = ErrorCode.CORRUPT_MESSAGE


class UnknownTopicOrPartitionError(StorageError):
    error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


class UnknownTopicIdError(UnknownTopicOrPartitionError):
    """The request named a topic by an id we don't know."""

    error_code = ErrorCode.UNKNOWN_TOPIC_ID


class MessageTooLargeError(StorageError, rb.MessageTooLargeError):
    error_code = ErrorCode.MESSAGE_TOO_LARGE


class InvalidTopicError(StorageError):
    error_code = ErrorCode.INVALID_TOPIC_EXCEPTION


class RecordListTooLargeError(StorageError):
    error_code = ErrorCode.RECORD_LIST_TOO_LARGE


class TopicAlreadyExistsError(StorageError):
    error_code = ErrorCode.TOPIC_ALREADY_EXISTS


class InvalidPartitionsError(StorageError):
    error_code = ErrorCode.INVALID_PARTITIONS


class ConfigError(StorageError):
    """INVALID_CONFIG: unknown topic config name or a value that fails validation."""

    error_code = ErrorCode.INVALID_CONFIG


class InvalidTimestampError(StorageError):
    error_code = ErrorCode.INVALID_TIMESTAMP


class InvalidRecordError(StorageError, rb.InvalidRecordError):
    error_code = ErrorCode.INVALID_RECORD


class OutOfOrderSequenceError(StorageError):
    """A batch's first sequence does not follow the producer's last one (or a new epoch
    does not start at 0)."""

    error_code = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


class InvalidProducerEpochError(StorageError):
    """The batch or marker carries an epoch older than the partition has seen."""

    error_code = ErrorCode.INVALID_PRODUCER_EPOCH


class InvalidTxnStateError(StorageError):
    """A non-transactional write from a producer with a transaction open here."""

    error_code = ErrorCode.INVALID_TXN_STATE


class TransactionCoordinatorFencedError(StorageError):
    """A marker from a coordinator epoch older than the last one seen for the producer."""

    error_code = ErrorCode.TRANSACTION_COORDINATOR_FENCED


class KafkaStorageError(StorageError):
    """The log directory failed (I/O error, fsync failure)."""

    error_code = ErrorCode.KAFKA_STORAGE_ERROR


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
