"""AddOffsetsToTxn: adds the group's `__consumer_offsets` partition to the transaction, so
the EndTxn markers reach the group coordinator's pending transactional offsets."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.partitioning import partition_for
from protocol.errors import ErrorCode
from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.add_offsets_to_txn_response import AddOffsetsToTxnResponse

API_KEY = 25
PRODUCER_FENCED_MIN_VERSION = 2
OFFSETS_TOPIC = "__consumer_offsets"


async def handle(ctx: RequestContext, request: AddOffsetsToTxnRequest) -> AddOffsetsToTxnResponse:
    coordinator = ctx.transactions
    if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return AddOffsetsToTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AddOffsetsToTxnResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    partition = partition_for(request.group_id, int(ctx.config.get("offsets.topic.num.partitions")))
    error = await coordinator.add_partitions(
        request.transactional_id, request.producer_id, request.producer_epoch, [(OFFSETS_TOPIC, partition)]
    )
    if error == ErrorCode.PRODUCER_FENCED and ctx.api_version < PRODUCER_FENCED_MIN_VERSION:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return AddOffsetsToTxnResponse(error_code=error)
