"""UpdateFeatures (KIP-584, KIP-778): an operator finalizes, upgrades or downgrades feature
levels. All updates of a request are checked before any is applied, and none is applied if
one fails or ValidateOnly is set.

The answer is Kafka 4.0's QuorumController's: a failure is the request's top-level error,
its message prefixed as Kafka prefixes it, with no per-feature results; a success lists
every feature (v0-v1 only) with NONE, whose message Kafka fills with the error's name.

On PostgreSQL the levels are the cluster's (broker/shared_features.py): the checks are made
against them as committed, so another broker's concurrent update is seen."""

from __future__ import annotations

from broker.context import RequestContext
from broker.features import FeatureUpdate
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.update_features_request import UpdateFeaturesRequest
from protocol.messages.update_features_response import UpdatableFeatureResult, UpdateFeaturesResponse
from storage.errors import KafkaStorageError

API_KEY = 57
PER_FEATURE_RESULTS_MAX_VERSION = 1  # v2 answers with the top-level error only
FAILED_PREFIX = "The update failed for all features since the following feature had an error: "


async def handle(ctx: RequestContext, request: UpdateFeaturesRequest) -> UpdateFeaturesResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return UpdateFeaturesResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
    controller = ctx.cluster.controller_id
    controller = controller if controller >= 0 else ctx.cluster.node_id
    # v0 has no UpgradeType: its default, an upgrade, as Kafka 4.0's controller reads it.
    updates = [FeatureUpdate(u.feature, u.max_version_level, u.upgrade_type) for u in request.feature_updates]
    validate_only = ctx.api_version >= 1 and request.validate_only
    try:
        code, message = await ctx.features.change(updates, controller, validate_only)
    except KafkaStorageError as exc:
        # PostgreSQL failed: nothing was stored (retriable).
        return UpdateFeaturesResponse(error_code=ErrorCode.KAFKA_STORAGE_ERROR,
                                      error_message=f"Cannot store the finalized features: {exc}")
    if code != ErrorCode.NONE:
        return _failed(code, message)
    results = []
    if ctx.api_version <= PER_FEATURE_RESULTS_MAX_VERSION:
        results = [UpdatableFeatureResult(feature=u.name, error_code=ErrorCode.NONE, error_message="NONE") for u in updates]
    return UpdateFeaturesResponse(error_code=ErrorCode.NONE, error_message=None, results=results)


def _failed(code: int, message: str | None) -> UpdateFeaturesResponse:
    return UpdateFeaturesResponse(error_code=code, error_message=FAILED_PREFIX + (message or ""))
