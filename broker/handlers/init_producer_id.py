"""InitProducerId: producer ids for idempotent producers, id and epoch (fencing older
instances) for transactional ones. v6 adds KIP-939 two-phase commit: Enable2Pc (allowed by
`transaction.two.phase.commit.enable`) and KeepPreparedTxn, answered with the prepared
transaction's id and epoch. Kafka marks v6 unstable; it is served here as the spec has it."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_any, cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.init_producer_id_response import InitProducerIdResponse

API_KEY = 22
TWO_PHASE_COMMIT_MIN_VERSION = 6
PRODUCER_FENCED_MIN_VERSION = 4  # KIP-588: older clients know only INVALID_PRODUCER_EPOCH


def _authorization_error(ctx: RequestContext, transactional_id: str | None) -> ErrorCode | None:
    """Kafka's KafkaApis.handleInitProducerIdRequest: WRITE on the transactional id; without
    one, IDEMPOTENT_WRITE on the cluster or WRITE on some topic."""
    if transactional_id is not None:
        if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
            return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        return None
    if cluster_allowed(ctx, AclOperation.IDEMPOTENT_WRITE) or allowed_any(ctx, AclOperation.WRITE, ResourceType.TOPIC):
        return None
    return ErrorCode.CLUSTER_AUTHORIZATION_FAILED


async def handle(ctx: RequestContext, request: InitProducerIdRequest) -> InitProducerIdResponse:
    coordinator = ctx.transactions
    denied = _authorization_error(ctx, request.transactional_id)
    if denied is not None:
        return InitProducerIdResponse(error_code=denied, producer_id=-1, producer_epoch=-1)
    result = await coordinator.init_producer_id(
        request.transactional_id,
        request.transaction_timeout_ms,
        request.producer_id,
        request.producer_epoch,
        enable_2pc=ctx.api_version >= TWO_PHASE_COMMIT_MIN_VERSION and request.enable2_pc,
        keep_prepared_txn=ctx.api_version >= TWO_PHASE_COMMIT_MIN_VERSION and request.keep_prepared_txn,
    )
    error = result.error_code
    if error == ErrorCode.PRODUCER_FENCED and ctx.api_version < PRODUCER_FENCED_MIN_VERSION:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return InitProducerIdResponse(
        error_code=error,
        producer_id=result.producer_id,
        producer_epoch=result.producer_epoch,
        ongoing_txn_producer_id=result.ongoing_txn_producer_id,
        ongoing_txn_producer_epoch=result.ongoing_txn_producer_epoch,
    )
