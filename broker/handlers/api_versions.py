"""ApiVersions: the versions of every API this broker serves, derived from the router."""

from __future__ import annotations

import re

from broker.context import RequestContext
from broker.features import SUPPORTED
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import (
    ApiVersion,
    ApiVersionsResponse,
    FinalizedFeatureKey,
    SupportedFeatureKey,
)

API_KEY = 18

# KIP-511: client software names and versions are restricted to this pattern.
_SOFTWARE = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")


async def handle(ctx: RequestContext, request: ApiVersionsRequest) -> ApiVersionsResponse:
    api_keys = [ApiVersion(key, lo, hi) for key, lo, hi in ctx.apis.advertised()]
    features = ctx.features
    response = ApiVersionsResponse(
        api_keys=api_keys,
        # KIP-584 (v3+, tagged): what this broker supports and what the cluster finalized.
        supported_features=[SupportedFeatureKey(name, lo, hi) for name, (lo, hi) in SUPPORTED.items()],
        finalized_features_epoch=features.epoch,
        finalized_features=[FinalizedFeatureKey(name, level, level) for name, level in features.reported().items()],
    )
    if ctx.api_version >= 3 and not (
        _SOFTWARE.match(request.client_software_name) and _SOFTWARE.match(request.client_software_version)
    ):
        response.error_code = ErrorCode.INVALID_REQUEST
    return response
