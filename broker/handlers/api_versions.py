"""ApiVersions: the versions of every API this broker serves, derived from the router."""

from __future__ import annotations

import re

from broker.context import RequestContext
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersion, ApiVersionsResponse

API_KEY = 18

# KIP-511: client software names and versions are restricted to this pattern.
_SOFTWARE = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")


async def handle(ctx: RequestContext, request: ApiVersionsRequest) -> ApiVersionsResponse:
    api_keys = [ApiVersion(key, lo, hi) for key, lo, hi in ctx.services.router.advertised()]
    response = ApiVersionsResponse(api_keys=api_keys)
    if ctx.api_version >= 3 and not (
        _SOFTWARE.match(request.client_software_name) and _SOFTWARE.match(request.client_software_version)
    ):
        response.error_code = ErrorCode.INVALID_REQUEST
    return response
