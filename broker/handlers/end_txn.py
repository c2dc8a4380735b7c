"""EndTxn. v5 is transaction version 2 (KIP-890 part 2): the coordinator bumps the
producer epoch at every end and answers with the producer id and epoch to go on with."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.end_txn_response import EndTxnResponse

API_KEY = 26
PRODUCER_FENCED_MIN_VERSION = 2
TRANSACTION_V2_MIN_VERSION = 5


async def handle(ctx: RequestContext, request: EndTxnRequest) -> EndTxnResponse:
    coordinator = ctx.transactions
    if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return EndTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    version = 2 if ctx.api_version >= TRANSACTION_V2_MIN_VERSION else 0
    result = await coordinator.end_transaction(
        request.transactional_id, request.producer_id, request.producer_epoch, request.committed, version
    )
    error = result.error_code
    if error == ErrorCode.PRODUCER_FENCED and ctx.api_version < PRODUCER_FENCED_MIN_VERSION:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return EndTxnResponse(error_code=error, producer_id=result.producer_id, producer_epoch=result.producer_epoch)
