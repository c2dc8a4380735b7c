"""SaslHandshake: the client picks a SASL mechanism before authenticating."""

from __future__ import annotations

from broker.context import RequestContext
from protocol.errors import ErrorCode
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.messages.sasl_handshake_response import SaslHandshakeResponse

API_KEY = 17


async def handle(ctx: RequestContext, request: SaslHandshakeRequest) -> SaslHandshakeResponse:
    session = ctx.connection.sasl
    if session is None or ctx.connection.authenticated:
        # A listener without SASL, or a connection already authenticated (Kafka's KafkaApis).
        return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, mechanisms=[])
    mechanisms = session.mechanisms
    if not session.handshake(request.mechanism, ctx.api_version):
        return SaslHandshakeResponse(error_code=ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms=mechanisms)
    return SaslHandshakeResponse(mechanisms=mechanisms)
