"""DeleteAcls: removes every ACL binding each filter matches (ALTER on the cluster) and
names what each filter removed."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.acl_requests import Change, InvalidAcl, acl_filter, alter_acls, invalid_filter_reason
from broker.security.acl.model import AclBinding
from protocol.messages.delete_acls_request import DeleteAclsFilter, DeleteAclsRequest
from protocol.messages.delete_acls_response import (
    DeleteAclsFilterResult,
    DeleteAclsMatchingAcl,
    DeleteAclsResponse,
)

API_KEY = 31


def _delete(current: frozenset[AclBinding], wire: DeleteAclsFilter) -> Change[DeleteAclsFilterResult]:
    f = acl_filter(
        wire.resource_type_filter, wire.resource_name_filter, wire.pattern_type_filter,
        wire.principal_filter, wire.host_filter, wire.operation, wire.permission_type,
    )
    reason = invalid_filter_reason(f)
    if reason is not None:
        raise InvalidAcl(reason)
    matched = sorted(a for a in current if f.matches(a))
    result = DeleteAclsFilterResult(
        error_message=None,
        matching_acls=[
            DeleteAclsMatchingAcl(
                error_message=None, resource_type=a.resource_type, resource_name=a.resource_name,
                pattern_type=a.pattern_type, principal=a.principal, host=a.host, operation=a.operation,
                permission_type=a.permission,
            )
            for a in matched
        ],
    )
    return result, set(), set(matched)


async def handle(ctx: RequestContext, request: DeleteAclsRequest) -> DeleteAclsResponse:
    results = await alter_acls(
        ctx,
        request.filters,
        lambda error, message: DeleteAclsFilterResult(error_code=error, error_message=message),
        _delete,
    )
    return DeleteAclsResponse(filter_results=results)
