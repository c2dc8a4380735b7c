"""SaslAuthenticate: one round of the SASL exchange chosen by SaslHandshake."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.sasl.mechanisms import SaslFailure
from protocol.errors import ErrorCode
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_authenticate_response import SaslAuthenticateResponse

API_KEY = 36


async def handle(ctx: RequestContext, request: SaslAuthenticateRequest) -> SaslAuthenticateResponse:
    session = ctx.connection.sasl
    if session is None or ctx.connection.authenticated:
        return SaslAuthenticateResponse(
            error_code=ErrorCode.ILLEGAL_SASL_STATE,
            error_message="SaslAuthenticate request received after successful authentication",
        )
    try:
        step = session.authenticate(bytes(request.auth_bytes))
    except SaslFailure as exc:
        return SaslAuthenticateResponse(error_code=ErrorCode.SASL_AUTHENTICATION_FAILED, error_message=str(exc))
    # The session's lifetime once the exchange is complete (KIP-368); 0 before, or without one.
    lifetime = session.session_lifetime_ms if step.user is not None else 0
    return SaslAuthenticateResponse(error_message=None, auth_bytes=step.challenge, session_lifetime_ms=lifetime)
