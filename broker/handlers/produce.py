"""Produce: the version gates, ACLs and response of a Produce; the appends are the data
plane's (broker/dataplane/replica_manager.py).

As in Kafka's KafkaApis: WRITE on each topic, and transactional batches need a
transactional id the principal may write, and a single producer per request.
"""

from __future__ import annotations

from broker.context import RequestContext
from broker.dataplane import AppendEntry, PartitionAppend, TransactionSupportedOperation
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
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


def _partition_error(index: int, code: ErrorCode, message: str | None = None) -> PartitionProduceResponse:
    return PartitionProduceResponse(
        index=index, error_code=code, base_offset=-1, log_append_time_ms=-1, log_start_offset=-1, error_message=message
    )


async def handle(ctx: RequestContext, request: ProduceRequest) -> ProduceResponse | None:
    version = ctx.api_version
    acks = request.acks
    topics_out: list[TopicProduceResponse] = []
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

    resolver = TopicResolver(ctx)
    # The partitions refused here are answered at once; the others once appended, each
    # answer in its request place.
    entries: list[AppendEntry] = []
    awaiting: list[PartitionProduceResponse] = []
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
            out = _partition_error(partition.index, ErrorCode.NONE)
            partitions_out.append(out)
            awaiting.append(out)
            entries.append(AppendEntry(info.name, partition.index, records))

    if entries:
        outcomes = await ctx.data_plane.append_records(
            entries, acks=acks, transactional_id=request.transactional_id, operation=_supported_operation(version)
        )
        for out, outcome in zip(awaiting, outcomes, strict=True):
            _answer(out, outcome, version)
    if acks == 0:
        return None
    return ProduceResponse(responses=topics_out)


def _supported_operation(version: int) -> TransactionSupportedOperation:
    if version >= IMPLICIT_ADD_MIN_VERSION:
        return TransactionSupportedOperation.ADD_PARTITION
    if version >= TRANSACTION_ABORTABLE_MIN_VERSION:
        return TransactionSupportedOperation.GENERIC_ERROR_SUPPORTED
    return TransactionSupportedOperation.DEFAULT_ERROR


def _answer(out: PartitionProduceResponse, outcome: PartitionAppend, version: int) -> None:
    if outcome.result is not None:
        out.base_offset = outcome.result.base_offset
        out.log_append_time_ms = outcome.result.log_append_time
        out.log_start_offset = outcome.result.log_start_offset
        return
    code = outcome.error
    if outcome.log_missing and version >= TOPIC_IDS_MIN_PRODUCE_VERSION:
        code = ErrorCode.UNKNOWN_TOPIC_ID
    out.error_code = code
    out.error_message = outcome.message
    # KIP-467 (v8+): which records of the batch were at fault, and why.
    out.record_errors = [BatchIndexAndErrorMessage(i, message) for i, message in outcome.record_errors]


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


def _uses_zstd(records: bytes | bytearray | memoryview) -> bool:
    if len(records) < rb.HEADER_SIZE:
        return False
    attributes = int.from_bytes(records[rb.ATTRIBUTES_OFFSET : rb.ATTRIBUTES_OFFSET + 2], "big")
    return bool((attributes & rb.COMPRESSION_MASK) == rb.Compression.ZSTD)
