"""DeleteAcls: removes every ACL binding each filter matches (ALTER on the cluster) and
names what each filter removed."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.acl_requests import NO_AUTHORIZER, acl_filter, invalid_filter_reason
from broker.security.acl.model import AclBinding, AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.delete_acls_request import DeleteAclsRequest
from protocol.messages.delete_acls_response import (
    DeleteAclsFilterResult,
    DeleteAclsMatchingAcl,
    DeleteAclsResponse,
)

API_KEY = 31


async def handle(ctx: RequestContext, request: DeleteAclsRequest) -> DeleteAclsResponse:
    authorizer = ctx.authorizer
    if authorizer is None:
        return DeleteAclsResponse(filter_results=[
            DeleteAclsFilterResult(error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER)
            for _ in request.filters
        ])
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return DeleteAclsResponse(filter_results=[
            DeleteAclsFilterResult(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
            for _ in request.filters
        ])
    current = set(authorizer.store.acls)
    removed: set[AclBinding] = set()
    results = []
    for wire in request.filters:
        f = acl_filter(
            wire.resource_type_filter, wire.resource_name_filter, wire.pattern_type_filter,
            wire.principal_filter, wire.host_filter, wire.operation, wire.permission_type,
        )
        reason = invalid_filter_reason(f)
        if reason is not None:
            results.append(DeleteAclsFilterResult(error_code=ErrorCode.INVALID_REQUEST, error_message=reason))
            continue
        matched = sorted(a for a in current if f.matches(a))
        removed.update(matched)
        results.append(DeleteAclsFilterResult(
            error_message=None,
            matching_acls=[
                DeleteAclsMatchingAcl(
                    error_message=None, resource_type=a.resource_type, resource_name=a.resource_name,
                    pattern_type=a.pattern_type, principal=a.principal, host=a.host, operation=a.operation,
                    permission_type=a.permission,
                )
                for a in matched
            ],
        ))
    if removed:
        authorizer.store.replace(current - removed)
    return DeleteAclsResponse(filter_results=results)
