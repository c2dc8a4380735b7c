"""EndTxn v0-v4 (transaction version 1). v5 belongs to transaction version 2, which this
broker does not finalize in ApiVersions, so clients never send it."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.end_txn_response import EndTxnResponse

API_KEY = 26
MAX_VERSION = 4
PRODUCER_FENCED_MIN_VERSION = 2


async def handle(ctx: RequestContext, request: EndTxnRequest) -> EndTxnResponse:
    coordinator = ctx.services.transactions
    if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return EndTxnResponse(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    error = await coordinator.end_txn(
        request.transactional_id, request.producer_id, request.producer_epoch, request.committed
    )
    if error == ErrorCode.PRODUCER_FENCED and ctx.api_version < PRODUCER_FENCED_MIN_VERSION:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return EndTxnResponse(error_code=error)
