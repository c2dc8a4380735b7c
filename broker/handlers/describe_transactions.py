"""DescribeTransactions (KIP-664): the coordinator's view of each transactional id."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.describe_transactions_response import (
    DescribeTransactionsResponse,
    TopicData,
    TransactionState,
)

API_KEY = 65


async def handle(ctx: RequestContext, request: DescribeTransactionsRequest) -> DescribeTransactionsResponse:
    coordinator = ctx.transactions
    states: list[TransactionState] = []
    for tid in request.transactional_ids:
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, tid):
            states.append(TransactionState(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                                           transactional_id=tid))
            continue
        error, found = coordinator.describe(tid)
        if found is None:
            states.append(TransactionState(error_code=error, transactional_id=tid))
            continue
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(found.partitions):
            # Kafka lists only the partitions of topics the principal may describe.
            if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic):
                continue
            by_topic.setdefault(topic, []).append(partition)
        states.append(
            TransactionState(
                error_code=ErrorCode.NONE,
                transactional_id=tid,
                transaction_state=found.state.state_name,
                transaction_timeout_ms=found.timeout_ms,
                transaction_start_time_ms=found.start_timestamp,
                producer_id=found.producer_id,
                producer_epoch=found.producer_epoch,
                topics=[TopicData(topic=t, partitions=ps) for t, ps in by_topic.items()],
            )
        )
    return DescribeTransactionsResponse(transaction_states=states)
