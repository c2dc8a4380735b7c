"""DescribeUserScramCredentials (KIP-554): which SCRAM mechanisms each user has a credential
for, and its iteration count; never the credential itself (Kafka's `ScramImage.describe`)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from broker.security.scram_credentials import MECHANISM_TYPES
from protocol.errors import ErrorCode
from protocol.messages.describe_user_scram_credentials_request import DescribeUserScramCredentialsRequest
from protocol.messages.describe_user_scram_credentials_response import (
    CredentialInfo,
    DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResult,
)

API_KEY = 50


async def handle(
    ctx: RequestContext, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        return DescribeUserScramCredentialsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
    known = ctx.sasl_servers.scram.users()
    # user -> asked for more than once
    wanted: dict[str, bool] = {}
    if not request.users:
        wanted = dict.fromkeys(known, False)
    else:
        for asked in request.users:
            wanted[asked.name] = asked.name in wanted
    results = []
    for user, duplicate in wanted.items():
        if duplicate:
            results.append(DescribeUserScramCredentialsResult(
                user=user,
                error_code=ErrorCode.DUPLICATE_RESOURCE,
                error_message=f"Cannot describe SCRAM credentials for the same user twice in a single request: {user}",
            ))
        elif user not in known:
            results.append(DescribeUserScramCredentialsResult(
                user=user,
                error_code=ErrorCode.RESOURCE_NOT_FOUND,
                error_message=f"Attempt to describe a user credential that does not exist: {user}",
            ))
        else:
            infos = [
                CredentialInfo(mechanism=MECHANISM_TYPES[mechanism], iterations=iterations)
                for mechanism, iterations in sorted(known[user].items(), key=lambda m: MECHANISM_TYPES[m[0]])
            ]
            results.append(DescribeUserScramCredentialsResult(user=user, error_message=None, credential_infos=infos))
    return DescribeUserScramCredentialsResponse(error_message=None, results=results)
