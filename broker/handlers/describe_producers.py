"""DescribeProducers (KIP-664): the active producers of partitions, from each partition's
producer state. An open transaction shows as its first offset (-1 when none): that is how
a hanging transaction is found, to be aborted with WriteTxnMarkers."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_producers_request import DescribeProducersRequest
from protocol.messages.describe_producers_response import (
    DescribeProducersResponse,
    PartitionResponse,
    ProducerState,
    TopicResponse,
)
from storage.errors import StorageError

API_KEY = 61


def _describe(ctx: RequestContext, topic: str, partition: int) -> PartitionResponse:
    if not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, topic):
        return PartitionResponse(partition_index=partition, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    try:
        log = ctx.topics.log(topic, partition)
    except StorageError as exc:
        return PartitionResponse(partition_index=partition, error_code=exc.error_code, error_message=str(exc))
    producers = [
        ProducerState(
            producer_id=p.producer_id,
            producer_epoch=p.producer_epoch,
            last_sequence=p.last_sequence,
            last_timestamp=p.last_timestamp,
            coordinator_epoch=p.coordinator_epoch,
            current_txn_start_offset=p.current_txn_start_offset,
        )
        for p in sorted(log.active_producers(), key=lambda p: p.producer_id)
    ]
    return PartitionResponse(partition_index=partition, error_code=ErrorCode.NONE, active_producers=producers)


async def handle(ctx: RequestContext, request: DescribeProducersRequest) -> DescribeProducersResponse:
    return DescribeProducersResponse(
        topics=[
            TopicResponse(name=t.name, partitions=[_describe(ctx, t.name, p) for p in t.partition_indexes])
            for t in request.topics
        ]
    )
