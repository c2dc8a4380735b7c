"""UpdateFeatures (KIP-584): an operator finalizes, upgrades or downgrades a feature level
(here `transaction.version`). All updates of a request are checked before any is applied,
and none is applied if one fails or ValidateOnly is set."""

from __future__ import annotations

from broker.context import RequestContext
from broker.features import UpgradeType
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.update_features_request import UpdateFeaturesRequest
from protocol.messages.update_features_response import UpdatableFeatureResult, UpdateFeaturesResponse

API_KEY = 57
PER_FEATURE_RESULTS_MAX_VERSION = 1  # v2 answers with the top-level error only


async def handle(ctx: RequestContext, request: UpdateFeaturesRequest) -> UpdateFeaturesResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return UpdateFeaturesResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None)
    features = ctx.features
    v = ctx.api_version
    outcomes: dict[str, tuple[int, str | None]] = {}
    levels: dict[str, int] = {}
    for update in request.feature_updates:
        if update.feature in outcomes:
            outcomes[update.feature] = (ErrorCode.INVALID_REQUEST, "the feature is named twice")
            continue
        if v == 0:
            upgrade = UpgradeType.SAFE_DOWNGRADE if update.allow_downgrade else UpgradeType.UPGRADE
        else:
            try:
                upgrade = UpgradeType(update.upgrade_type)
            except ValueError:
                outcomes[update.feature] = (ErrorCode.INVALID_REQUEST, f"unknown upgrade type {update.upgrade_type}")
                continue
        outcomes[update.feature] = features.check(update.feature, update.max_version_level, upgrade)
        levels[update.feature] = max(update.max_version_level, 0)
    failed = [(name, code, msg) for name, (code, msg) in outcomes.items() if code != ErrorCode.NONE]
    if not failed and not (v >= 1 and request.validate_only) and levels:
        await features.update(levels)
    if v > PER_FEATURE_RESULTS_MAX_VERSION:
        if failed:
            _name, code, msg = failed[0]
            return UpdateFeaturesResponse(error_code=code, error_message=msg)
        return UpdateFeaturesResponse(error_code=ErrorCode.NONE, error_message=None)
    # Kafka fails every update of a request when one fails; the others say why.
    results = [
        UpdatableFeatureResult(
            feature=name,
            error_code=code if code != ErrorCode.NONE or not failed else ErrorCode.FEATURE_UPDATE_FAILED,
            error_message=msg if code != ErrorCode.NONE or not failed else "another update of the request failed",
        )
        for name, (code, msg) in outcomes.items()
    ]
    return UpdateFeaturesResponse(error_code=ErrorCode.NONE, error_message=None, results=results)
