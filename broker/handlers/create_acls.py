"""CreateAcls: adds ACL bindings (ALTER on the cluster), each accepted or refused alone."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.acl_requests import Change, InvalidAcl, alter_acls, code
from broker.security.acl.model import (
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    invalid_binding_reason,
)
from protocol.messages.create_acls_request import AclCreation, CreateAclsRequest
from protocol.messages.create_acls_response import AclCreationResult, CreateAclsResponse

API_KEY = 30


def _create(current: frozenset[AclBinding], creation: AclCreation) -> Change[AclCreationResult]:
    binding = AclBinding(
        code(ResourceType, creation.resource_type), creation.resource_name,
        code(PatternType, creation.resource_pattern_type), creation.principal, creation.host,
        code(AclOperation, creation.operation), code(Permission, creation.permission_type),
    )
    reason = invalid_binding_reason(binding)
    if reason is not None:
        raise InvalidAcl(reason)
    return AclCreationResult(error_message=None), {binding}, set()


async def handle(ctx: RequestContext, request: CreateAclsRequest) -> CreateAclsResponse:
    results = await alter_acls(
        ctx,
        request.creations,
        lambda error, message: AclCreationResult(error_code=error, error_message=message),
        _create,
    )
    return CreateAclsResponse(results=results)
