"""UpdateFeatures (KIP-584, KIP-778): an operator finalizes, upgrades or downgrades feature
levels. All updates of a request are checked before any is applied, and none is applied if
one fails or ValidateOnly is set.

The answer is Kafka 4.0's QuorumController's: a failure is the request's top-level error,
its message prefixed as Kafka prefixes it, with no per-feature results; a success lists
every feature (v0-v1 only) with NONE, whose message Kafka fills with the error's name."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.update_features_request import UpdateFeaturesRequest
from protocol.messages.update_features_response import UpdatableFeatureResult, UpdateFeaturesResponse

API_KEY = 57
PER_FEATURE_RESULTS_MAX_VERSION = 1  # v2 answers with the top-level error only
FAILED_PREFIX = "The update failed for all features since the following feature had an error: "


async def handle(ctx: RequestContext, request: UpdateFeaturesRequest) -> UpdateFeaturesResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return UpdateFeaturesResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
    features = ctx.features
    controller = ctx.cluster.controller_id
    controller = controller if controller >= 0 else ctx.cluster.node_id
    levels: dict[str, int] = {}
    for update in request.feature_updates:
        if update.feature in levels:
            return _failed(ErrorCode.INVALID_REQUEST, f"The feature {update.feature} is named twice.")
        # v0 has no UpgradeType: its default, an upgrade, as Kafka 4.0's controller reads it.
        code, message = features.check(update.feature, update.max_version_level, update.upgrade_type, controller)
        if code != ErrorCode.NONE:
            return _failed(code, message)
        levels[update.feature] = update.max_version_level
    if not (ctx.api_version >= 1 and request.validate_only) and levels:
        await features.update(levels)
    results = []
    if ctx.api_version <= PER_FEATURE_RESULTS_MAX_VERSION:
        results = [UpdatableFeatureResult(feature=name, error_code=ErrorCode.NONE, error_message="NONE") for name in levels]
    return UpdateFeaturesResponse(error_code=ErrorCode.NONE, error_message=None, results=results)


def _failed(code: int, message: str | None) -> UpdateFeaturesResponse:
    return UpdateFeaturesResponse(error_code=code, error_message=FAILED_PREFIX + (message or ""))
