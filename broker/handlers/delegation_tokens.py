"""CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken and
DescribeDelegationToken (KIP-48): odradek has no delegation token authentication, so it
answers as a Kafka broker whose token support is off (no `delegation.token.secret.key`).

Kafka's KafkaApis refuses token requests first on channels that may not carry them
(DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: PLAINTEXT, SSL without a client certificate), then
checks a create's owner and renewers, and its controller (DelegationTokenControlManager)
answers DELEGATION_TOKEN_AUTH_DISABLED."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.create_delegation_token_request import CreateDelegationTokenRequest
from protocol.messages.create_delegation_token_response import CreateDelegationTokenResponse
from protocol.messages.describe_delegation_token_request import DescribeDelegationTokenRequest
from protocol.messages.describe_delegation_token_response import DescribeDelegationTokenResponse
from protocol.messages.expire_delegation_token_request import ExpireDelegationTokenRequest
from protocol.messages.expire_delegation_token_response import ExpireDelegationTokenResponse
from protocol.messages.renew_delegation_token_request import RenewDelegationTokenRequest
from protocol.messages.renew_delegation_token_response import RenewDelegationTokenResponse

CREATE_API_KEY = 38
RENEW_API_KEY = 39
EXPIRE_API_KEY = 40
DESCRIBE_API_KEY = 41

ANONYMOUS = "User:ANONYMOUS"
# Kafka's DelegationTokenManager.ERROR_TIMESTAMP, in the broker's own refusals.
ERROR_TIMESTAMP = -1


def _channel_allows_tokens(ctx: RequestContext) -> bool:
    """Kafka's KafkaApis.allowTokenRequests."""
    protocol = ctx.config.security_protocols.get(ctx.connection.listener, "PLAINTEXT")
    if protocol == "PLAINTEXT":
        return False
    return not (protocol == "SSL" and ctx.connection.principal == ANONYMOUS)


def _principal(principal: str) -> tuple[str, str]:
    kind, _, name = principal.partition(":")
    return kind, name


async def create(ctx: RequestContext, request: CreateDelegationTokenRequest) -> CreateDelegationTokenResponse:
    requester = ctx.connection.principal
    owner = requester
    if request.owner_principal_name:
        owner = f"{request.owner_principal_type}:{request.owner_principal_name}"
    owner_type, owner_name = _principal(owner)
    requester_type, requester_name = _principal(requester)
    response = CreateDelegationTokenResponse(
        principal_type=owner_type, principal_name=owner_name,
        token_requester_principal_type=requester_type, token_requester_principal_name=requester_name,
        hmac=b"",
    )
    if not _channel_allows_tokens(ctx):
        response.error_code = ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
        response.issue_timestamp_ms = response.expiry_timestamp_ms = response.max_timestamp_ms = ERROR_TIMESTAMP
    elif owner != requester and not allowed(ctx, AclOperation.CREATE_TOKENS, ResourceType.USER, owner):
        response.error_code = ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED
        response.issue_timestamp_ms = response.expiry_timestamp_ms = response.max_timestamp_ms = ERROR_TIMESTAMP
    elif any(r.principal_type != "User" for r in request.renewers):
        response.error_code = ErrorCode.INVALID_PRINCIPAL_TYPE
        response.issue_timestamp_ms = response.expiry_timestamp_ms = response.max_timestamp_ms = ERROR_TIMESTAMP
    else:
        response.error_code = ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED
    return response


async def renew(ctx: RequestContext, request: RenewDelegationTokenRequest) -> RenewDelegationTokenResponse:
    if not _channel_allows_tokens(ctx):
        return RenewDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry_timestamp_ms=ERROR_TIMESTAMP)
    return RenewDelegationTokenResponse(error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED)


async def expire(ctx: RequestContext, request: ExpireDelegationTokenRequest) -> ExpireDelegationTokenResponse:
    if not _channel_allows_tokens(ctx):
        return ExpireDelegationTokenResponse(
            error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry_timestamp_ms=ERROR_TIMESTAMP)
    return ExpireDelegationTokenResponse(error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED)


async def describe(ctx: RequestContext, request: DescribeDelegationTokenRequest) -> DescribeDelegationTokenResponse:
    if not _channel_allows_tokens(ctx):
        return DescribeDelegationTokenResponse(error_code=ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
    return DescribeDelegationTokenResponse(error_code=ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED)
