"""Produce: validate each partition's record batch, append it, answer per partition.

Batches stay opaque: the log checks the header and CRC, rewrites the base offset and
appends. Every partition of a request is written before the one fsync that `acks=all`
waits for, so a request costs one group-committed flush however many partitions it has.

A transaction's batches are acknowledged once written: their fsync round starts after
the answer has gone out, and EndTxn is answered only once a round has covered them
(TransactionCoordinator.defers_data_durability).

Idempotence and transactions are checked by the log's producer state (sequences,
epochs, duplicates). Here, as in Kafka's KafkaApis/ReplicaManager: transactional batches
need a transactional id and a single producer per request, and a transactional batch
that would open a transaction at a partition is first verified with the transaction
coordinator (KIP-890 part 1). Verification is an in-process call, so the appends still
happen in request order before the handler first suspends.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

from broker.context import RequestContext
from broker.logging import get_logger
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.services import Services
from broker.topics import TOPIC_IDS_MIN_PRODUCE_VERSION, TopicResolver
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.produce_request import ProduceRequest
from protocol.messages.produce_response import (
    BatchIndexAndErrorMessage,
    PartitionProduceResponse,
    ProduceResponse,
    TopicProduceResponse,
)
from storage.errors import StorageError

API_KEY = 0
MIN_VERSION = 3  # v0-2 carry message format v0/v1, which Kafka 4 no longer stores
# librdkafka refuses to produce to a broker whose ApiVersions does not start Produce at v0
# (KAFKA-18659), so v0 is advertised although v0-2 are refused, as Kafka does.
ADVERTISED_MIN_VERSION = 0
ZSTD_MIN_VERSION = 7
TRANSACTION_ABORTABLE_MIN_VERSION = 11  # older producers get INVALID_TXN_STATE instead
# Transaction version 2 (KIP-890 part 2): a Produce above v11 adds its partitions to the
# transaction itself, as Kafka's TransactionSupportedOperation addPartition.
IMPLICIT_ADD_MIN_VERSION = 12

# Verification outcomes as the producer sees them (Kafka's AddPartitionsToTxnManager, KIP-890).
_VERIFY_RETRIABLE = frozenset(
    {
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.NETWORK_EXCEPTION,
        ErrorCode.CONCURRENT_TRANSACTIONS,
    }
)

log = get_logger("odradek.produce")


def _partition_error(index: int, code: ErrorCode, message: str | None = None) -> PartitionProduceResponse:
    return PartitionProduceResponse(
        index=index, error_code=code, base_offset=-1, log_append_time_ms=-1, log_start_offset=-1, error_message=message
    )


async def handle(ctx: RequestContext, request: ProduceRequest) -> ProduceResponse | None:
    services = ctx.services
    version = ctx.api_version
    acks = request.acks
    topics_out: list[TopicProduceResponse] = []
    resolver = TopicResolver(services)
    appended = False
    # A transaction's data is made durable by the round its EndTxn waits for.
    deferred = request.transactional_id is not None and services.transactions.defers_data_durability(
        request.transactional_id
    )
    must_sync = False
    if acks not in (-1, 0, 1):
        for topic in request.topic_data:
            topics_out.append(
                TopicProduceResponse(
                    name=topic.name,
                    topic_id=topic.topic_id,
                    partition_responses=[
                        _partition_error(p.index, ErrorCode.INVALID_REQUIRED_ACKS) for p in topic.partition_data
                    ],
                )
            )
        return ProduceResponse(responses=topics_out)

    txn_error = _transactional_request_error(ctx, request)
    if txn_error is not None:
        for topic in request.topic_data:
            topics_out.append(
                TopicProduceResponse(
                    name=topic.name,
                    topic_id=topic.topic_id,
                    partition_responses=[_partition_error(p.index, txn_error) for p in topic.partition_data],
                )
            )
        return None if acks == 0 else ProduceResponse(responses=topics_out)

    for topic in request.topic_data:
        partitions_out: list[PartitionProduceResponse] = []
        topics_out.append(
            TopicProduceResponse(name=topic.name, topic_id=topic.topic_id, partition_responses=partitions_out)
        )
        # Kafka checks WRITE on the topic before whether it exists (KafkaApis.handleProduceRequest).
        topic_error: ErrorCode | None
        if topic.name and not allowed(ctx, AclOperation.WRITE, ResourceType.TOPIC, topic.name):
            info, topic_error = None, ErrorCode.TOPIC_AUTHORIZATION_FAILED
        else:
            info, topic_error = await resolver.for_produce(topic.name, topic.topic_id, version, ctx.client_id)
            if info is not None and not topic.name and not allowed(ctx, AclOperation.WRITE, ResourceType.TOPIC, info.name):
                info, topic_error = None, ErrorCode.TOPIC_AUTHORIZATION_FAILED
        for partition in topic.partition_data:
            if topic_error is not None:
                partitions_out.append(_partition_error(partition.index, topic_error))
                continue
            assert info is not None
            if not 0 <= partition.index < info.num_partitions:
                partitions_out.append(_partition_error(partition.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
                continue
            records = partition.records
            if records is None or len(records) == 0:
                partitions_out.append(_partition_error(partition.index, ErrorCode.INVALID_RECORD, "no records"))
                continue
            if version < ZSTD_MIN_VERSION and _uses_zstd(records):
                partitions_out.append(_partition_error(partition.index, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE))
                continue
            try:
                # A topic resolved earlier in this request may have been deleted since.
                partition_log = services.storage.log(info.name, partition.index)
            except StorageError as exc:
                code = ErrorCode.UNKNOWN_TOPIC_ID if version >= TOPIC_IDS_MIN_PRODUCE_VERSION else ErrorCode(exc.error_code)
                partitions_out.append(_partition_error(partition.index, code))
                continue
            header = _peek_header(records)
            verify = header is not None and header.is_transactional and partition_log.needs_verification(header)
            implicit = verify and version >= IMPLICIT_ADD_MIN_VERSION
            # The implicit add, and the verification of a partition whose add is still being
            # made durable, suspend; the producer's pipelined batches wait behind them so
            # they still reach the log in the order sent.
            order = _producer_order(request.transactional_id) if verify else contextlib.nullcontext()
            async with order:
                if verify:
                    assert header is not None
                    tp = (info.name, partition.index)
                    if implicit:
                        code = await _add_implicitly(services, request.transactional_id, header, tp, version)
                    else:
                        code = await _verify(services, request.transactional_id, header, tp, version)
                    if code != ErrorCode.NONE:
                        log.info("transactional produce not verified", topic=info.name, partition=partition.index,
                                 producer_id=header.producer_id, error=code.name)
                        partitions_out.append(_partition_error(partition.index, code))
                        continue
                lazy = deferred and header is not None and header.is_transactional
                try:
                    result = await partition_log.append(records, lazy=lazy)
                except StorageError as exc:
                    code = ErrorCode(exc.error_code)
                    log.info("produce refused", topic=info.name, partition=partition.index, error=code.name,
                             reason=str(exc))
                    # Kafka verifies a stale transactional batch with the coordinator before the
                    # log sees it, and that answer has no message (the client's own: "Producer
                    # attempted to produce with an old epoch.").
                    stale_txn = code == ErrorCode.INVALID_PRODUCER_EPOCH and header is not None and header.is_transactional
                    refused = _partition_error(partition.index, code, None if stale_txn else str(exc))
                    # KIP-467 (v8+): which records of the batch were at fault, and why.
                    refused.record_errors = [BatchIndexAndErrorMessage(i, message) for i, message in exc.record_errors]
                    partitions_out.append(refused)
                    continue
            appended = True
            must_sync = must_sync or not lazy
            partitions_out.append(
                PartitionProduceResponse(
                    index=partition.index,
                    error_code=ErrorCode.NONE,
                    base_offset=result.base_offset,
                    log_append_time_ms=result.log_append_time,
                    log_start_offset=result.log_start_offset,
                )
            )
    # Parked fetches were woken by the appends themselves (StorageEngine.appended); the
    # flush below only gates this producer's acknowledgement.
    if appended and acks == -1 and must_sync:
        try:
            await services.storage.sync()
        except StorageError as exc:
            log.error("flush failed", error=str(exc))
            for topic_out in topics_out:
                for p in topic_out.partition_responses:
                    if p.error_code == ErrorCode.NONE:
                        p.error_code = ErrorCode.KAFKA_STORAGE_ERROR
                        p.base_offset = -1
    if acks == 0:
        return None
    return ProduceResponse(responses=topics_out)


def _peek_header(records: bytes | bytearray | memoryview) -> rb.BatchHeader | None:
    """The first batch's header, unvalidated (the append validates it)."""
    if len(records) < rb.HEADER_SIZE:
        return None
    return rb.BatchHeader.parse(records)


def _transactional_request_error(ctx: RequestContext, request: ProduceRequest) -> ErrorCode | None:
    """Request-wide refusals of transactional batches, answered for every partition."""
    producers: set[tuple[int, int]] = set()
    for topic in request.topic_data:
        for partition in topic.partition_data:
            header = _peek_header(partition.records) if partition.records else None
            # Control batches are refused by the log's validation (INVALID_RECORD).
            if header is not None and header.is_transactional and not header.is_control and header.producer_id >= 0:
                producers.add((header.producer_id, header.producer_epoch))
    if not producers:
        return None
    if request.transactional_id is None or not allowed(
        ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
    ):
        # Kafka's authorisation of the transactional id fails when there is none.
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    if len(producers) > 1:
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING
    return None


# One lock per transactional id while an implicit add is in flight (dropped when unused).
_ORDER_LOCKS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def _producer_order(transactional_id: str | None) -> asyncio.Lock:
    key = transactional_id or ""
    lock = _ORDER_LOCKS.get(key)
    if lock is None:
        lock = _ORDER_LOCKS[key] = asyncio.Lock()
    return lock


async def _verify(
    services: Services, transactional_id: str | None, header: rb.BatchHeader, tp: tuple[str, int], version: int
) -> ErrorCode:
    """Is this partition part of the producer's ongoing transaction (once its add is
    durable)? Translated for the producer as Kafka's ReplicaManager does."""
    if transactional_id is None:
        return ErrorCode.NOT_ENOUGH_REPLICAS
    result = await services.transactions.verify_when_settled(
        transactional_id, header.producer_id, header.producer_epoch, [tp]
    )
    return _for_producer(ErrorCode(result.get(tp, ErrorCode.NONE)), version)


async def _add_implicitly(
    services: Services, transactional_id: str | None, header: rb.BatchHeader, tp: tuple[str, int], version: int
) -> ErrorCode:
    """Transaction version 2: add the partition to the producer's transaction (starting
    one if needed). A producer of an earlier epoch, such as a late Produce of a transaction
    already ended (KAFKA-17754), is fenced here."""
    if transactional_id is None:
        return ErrorCode.NOT_ENOUGH_REPLICAS
    code = await services.transactions.add_partitions(
        transactional_id, header.producer_id, header.producer_epoch, [tp], client_transaction_version=2
    )
    return _for_producer(ErrorCode(code), version)


def _for_producer(code: ErrorCode, version: int) -> ErrorCode:
    """A coordinator answer translated for the producer, as Kafka's AddPartitionsToTxnManager."""
    if code == ErrorCode.TRANSACTION_ABORTABLE and version < TRANSACTION_ABORTABLE_MIN_VERSION:
        return ErrorCode.INVALID_TXN_STATE
    if code == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if code in _VERIFY_RETRIABLE:
        return ErrorCode.NOT_ENOUGH_REPLICAS
    return code


def _uses_zstd(records: bytes | bytearray | memoryview) -> bool:
    if len(records) < rb.HEADER_SIZE:
        return False
    attributes = int.from_bytes(records[rb.ATTRIBUTES_OFFSET : rb.ATTRIBUTES_OFFSET + 2], "big")
    return bool((attributes & rb.COMPRESSION_MASK) == rb.Compression.ZSTD)
