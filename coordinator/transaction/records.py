"""`__transaction_state` records, as Kafka's TransactionLog writes them.

Key: int16 record type 0 + TransactionLogKey. Value: int16 version + TransactionLogValue;
a null value is a tombstone (the id expired). The topic is compacted: on load the last
record per key wins.
"""

from __future__ import annotations

from coordinator.transaction.metadata import TxnTransit
from coordinator.transaction.state import TransactionState
from protocol.codec import Reader, Writer
from protocol.messages.transaction_log_key import TransactionLogKey
from protocol.messages.transaction_log_value import PartitionsSchema, TransactionLogValue

TRANSACTION_STATE_TOPIC = "__transaction_state"
KEY_VERSION = 0
# v1 (flexible) keeps PreviousProducerId, which the retry after a producer-id rotation needs.
VALUE_VERSION = 1

# Set when the topic is created; compaction keeps the last record per transactional id.
TOPIC_CONFIGS = {"cleanup.policy": "compact", "compression.type": "uncompressed"}


def encode_key(transactional_id: str) -> bytes:
    w = Writer()
    w.int16(KEY_VERSION)
    TransactionLogKey(transactional_id=transactional_id).write(w, KEY_VERSION)
    return w.getvalue()


def decode_key(raw: bytes) -> str:
    r = Reader(raw)
    version = r.int16()
    if version != KEY_VERSION:
        raise ValueError(f"unknown __transaction_state key type {version}")
    return TransactionLogKey.read(r, 0).transactional_id


def encode_value(transit: TxnTransit) -> bytes:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in sorted(transit.partitions):
        by_topic.setdefault(topic, []).append(partition)
    value = TransactionLogValue(
        producer_id=transit.producer_id,
        previous_producer_id=transit.prev_producer_id,
        next_producer_id=transit.next_producer_id,
        producer_epoch=transit.producer_epoch,
        transaction_timeout_ms=transit.timeout_ms,
        transaction_status=transit.state.id,
        # Kafka writes a null partition list for Empty.
        transaction_partitions=None
        if transit.state == TransactionState.EMPTY
        else [PartitionsSchema(topic=t, partition_ids=ps) for t, ps in by_topic.items()],
        transaction_last_update_timestamp_ms=transit.last_update_timestamp,
        transaction_start_timestamp_ms=transit.start_timestamp,
        client_transaction_version=transit.client_transaction_version,
    )
    w = Writer()
    w.int16(VALUE_VERSION)
    value.write(w, VALUE_VERSION)
    return w.getvalue()


def decode_value(raw: bytes) -> TxnTransit:
    r = Reader(raw)
    version = r.int16()
    if version not in (0, 1):
        raise ValueError(f"unknown __transaction_state value version {version}")
    value = TransactionLogValue.read(r, version)
    partitions = frozenset(
        (p.topic, pid) for p in (value.transaction_partitions or []) for pid in p.partition_ids
    )
    return TxnTransit(
        producer_id=value.producer_id,
        prev_producer_id=value.previous_producer_id,
        next_producer_id=value.next_producer_id,
        producer_epoch=value.producer_epoch,
        last_producer_epoch=-1,
        timeout_ms=value.transaction_timeout_ms,
        state=TransactionState.from_id(value.transaction_status),
        partitions=partitions,
        start_timestamp=value.transaction_start_timestamp_ms,
        last_update_timestamp=value.transaction_last_update_timestamp_ms,
        client_transaction_version=value.client_transaction_version,
    )
