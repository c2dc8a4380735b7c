"""DescribeAcls: the ACL bindings one filter matches (DESCRIBE on the cluster), grouped by
resource pattern."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.acl_requests import NO_AUTHORIZER_ON_BROKER, acl_filter, invalid_filter_reason
from broker.security.acl.model import AclBinding, AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_acls_request import DescribeAclsRequest
from protocol.messages.describe_acls_response import (
    AclDescription,
    DescribeAclsResource,
    DescribeAclsResponse,
)

API_KEY = 29


async def handle(ctx: RequestContext, request: DescribeAclsRequest) -> DescribeAclsResponse:
    authorizer = ctx.authorizer
    if authorizer is None:
        return DescribeAclsResponse(error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER_ON_BROKER)
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        return DescribeAclsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
    f = acl_filter(
        request.resource_type_filter, request.resource_name_filter, request.pattern_type_filter,
        request.principal_filter, request.host_filter, request.operation, request.permission_type,
    )
    reason = invalid_filter_reason(f)
    if reason is not None:
        return DescribeAclsResponse(error_code=ErrorCode.INVALID_REQUEST, error_message=reason)
    grouped: dict[tuple[int, str, int], list[AclBinding]] = {}
    for acl in sorted(a for a in authorizer.store.acls if f.matches(a)):
        grouped.setdefault((acl.resource_type, acl.resource_name, acl.pattern_type), []).append(acl)
    return DescribeAclsResponse(
        error_message=None,
        resources=[
            DescribeAclsResource(
                resource_type=rtype, resource_name=name, pattern_type=ptype,
                acls=[AclDescription(a.principal, a.host, a.operation, a.permission) for a in acls],
            )
            for (rtype, name, ptype), acls in grouped.items()
        ],
    )
