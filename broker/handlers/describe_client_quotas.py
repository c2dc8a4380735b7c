"""DescribeClientQuotas (KIP-546): the quota configs of the entities a filter matches, as
Kafka's ClientQuotasImage.describe; DESCRIBE_CONFIGS on the cluster, as KafkaApis checks."""

from __future__ import annotations

from broker.context import RequestContext
from broker.quotas.store import QuotaError, parse_filter
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_client_quotas_request import DescribeClientQuotasRequest
from protocol.messages.describe_client_quotas_response import (
    DescribeClientQuotasResponse,
    EntityData,
    EntryData,
    ValueData,
)

API_KEY = 48


async def handle(ctx: RequestContext, request: DescribeClientQuotasRequest) -> DescribeClientQuotasResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE_CONFIGS):
        return DescribeClientQuotasResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
            error_message="Cluster authorization failed.",
            entries=None,
        )
    try:
        wanted = parse_filter(((c.entity_type, c.match_type, c.match) for c in request.components), request.strict)
    except QuotaError as exc:
        return DescribeClientQuotasResponse(error_code=exc.error_code, error_message=exc.message, entries=None)
    entries = [
        EntryData(
            entity=[EntityData(entity_type=t, entity_name=n) for t, n in entity],
            values=[ValueData(key=k, value=v) for k, v in sorted(values.items())],
        )
        for entity, values in ctx.quotas.store.describe(wanted)
    ]
    return DescribeClientQuotasResponse(error_message=None, entries=entries)
