"""CreateAcls: adds ACL bindings (ALTER on the cluster), each accepted or refused alone."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.acl_requests import NO_AUTHORIZER, code
from broker.security.acl.model import (
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    invalid_binding_reason,
)
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.create_acls_request import CreateAclsRequest
from protocol.messages.create_acls_response import AclCreationResult, CreateAclsResponse

API_KEY = 30


async def handle(ctx: RequestContext, request: CreateAclsRequest) -> CreateAclsResponse:
    authorizer = ctx.authorizer
    if authorizer is None:
        return CreateAclsResponse(results=[
            AclCreationResult(error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER)
            for _ in request.creations
        ])
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return CreateAclsResponse(results=[
            AclCreationResult(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
            for _ in request.creations
        ])
    results = []
    added: set[AclBinding] = set()
    for creation in request.creations:
        binding = AclBinding(
            code(ResourceType, creation.resource_type), creation.resource_name,
            code(PatternType, creation.resource_pattern_type), creation.principal, creation.host,
            code(AclOperation, creation.operation), code(Permission, creation.permission_type),
        )
        reason = invalid_binding_reason(binding)
        if reason is not None:
            results.append(AclCreationResult(error_code=ErrorCode.INVALID_REQUEST, error_message=reason))
            continue
        added.add(binding)
        results.append(AclCreationResult(error_message=None))
    if added:
        authorizer.store.replace(set(authorizer.store.acls) | added)
    return CreateAclsResponse(results=results)
