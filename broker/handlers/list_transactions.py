"""ListTransactions (KIP-664): state and producer id filters; v1 adds the duration filter,
v2 the transactional id pattern."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.messages.list_transactions_request import ListTransactionsRequest
from protocol.messages.list_transactions_response import ListTransactionsResponse, TransactionState

API_KEY = 66
DURATION_FILTER_MIN_VERSION = 1
PATTERN_MIN_VERSION = 2


async def handle(ctx: RequestContext, request: ListTransactionsRequest) -> ListTransactionsResponse:
    coordinator = ctx.transactions
    result = coordinator.list_transactions(
        state_filters=request.state_filters,
        producer_id_filters=request.producer_id_filters,
        duration_filter_ms=request.duration_filter if ctx.api_version >= DURATION_FILTER_MIN_VERSION else -1,
        transactional_id_pattern=request.transactional_id_pattern
        if ctx.api_version >= PATTERN_MIN_VERSION
        else None,
    )
    return ListTransactionsResponse(
        error_code=result.error_code,
        unknown_state_filters=result.unknown_state_filters,
        transaction_states=[
            TransactionState(
                transactional_id=t.transactional_id,
                producer_id=t.producer_id,
                transaction_state=t.state.state_name,
            )
            for t in result.transactions
            if allowed(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactional_id)
        ],
    )
