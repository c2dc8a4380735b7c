"""`odradek features`: describe, upgrade, downgrade and disable feature levels as Kafka's
kafka-features.sh (its FeatureCommand) does (KIP-584, KIP-778): the levels from ApiVersions
v3+, changes through UpdateFeatures, `--dry-run` as its validate_only."""

from __future__ import annotations

from typing import Any

from odradek import __version__
from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.wire import error_name
from protocol import metadata_version
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.update_features_request import FeatureUpdateKey, UpdateFeaturesRequest

# UpdateFeatures' upgrade types (Kafka's FeatureUpdate.UpgradeType).
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
TIMEOUT_MS = 30_000


def describe(cluster: Cluster) -> Output:
    """A line per feature the broker supports, as FeatureCommand's describe: the supported
    range, the finalized level (0 when not finalized) and the finalized features' epoch;
    metadata.version's levels by their release names ("4.0-IV3"), as Kafka prints them."""
    resp: Any = cluster.any_node().call(ApiVersionsRequest(client_software_name="odradek-cli",
                                                           client_software_version=__version__), 3)
    check(resp.error_code, "ApiVersions")
    finalized = {f.name: f.max_version_level for f in resp.finalized_features}
    epoch = resp.finalized_features_epoch if resp.finalized_features_epoch >= 0 else None
    data = [{"feature": f.name, "supported_min_version": f.min_version, "supported_max_version": f.max_version,
             "finalized_version_level": finalized.get(f.name, 0), "epoch": epoch}
            for f in sorted(resp.supported_features, key=lambda f: f.name)]
    def level(d: dict[str, Any], key: str) -> str:
        value = d[key]
        return metadata_version.name(value) if d["feature"] == metadata_version.FEATURE_NAME else str(value)

    lines = [f"Feature: {d['feature']}\tSupportedMinVersion: {level(d, 'supported_min_version')}\t"
             f"SupportedMaxVersion: {level(d, 'supported_max_version')}\t"
             f"FinalizedVersionLevel: {level(d, 'finalized_version_level')}\tEpoch: {'-' if epoch is None else epoch}"
             for d in data]
    return Output(data, lines=lines)


def parse_features(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        name, sep, level = item.partition("=")
        if not sep or not name.strip():
            raise CliError(f"Can't parse feature={item}: expected name=level, e.g. transaction.version=2")
        try:
            out[name.strip()] = int(level)
        except ValueError:
            raise CliError(f"Can't parse feature={item}: the level is not a number") from None
    return out


def update(cluster: Cluster, action: str, features: dict[str, int], dry_run: bool, unsafe: bool = False) -> Output:
    """`action` upgrade, downgrade or disable (a downgrade to 0). Per feature a line as
    FeatureCommand prints it; any failure makes the exit code 1."""
    if not features:
        raise CliError(f"You must specify at least one feature to {action} (--feature NAME=LEVEL)")
    kind = UPGRADE if action == "upgrade" else UNSAFE_DOWNGRADE if unsafe else SAFE_DOWNGRADE
    resp = cluster.any_node().call(UpdateFeaturesRequest(timeout_ms=TIMEOUT_MS, validate_only=dry_run, feature_updates=[
        FeatureUpdateKey(feature=name, max_version_level=level, allow_downgrade=kind != UPGRADE, upgrade_type=kind)
        for name, level in features.items()]), 1)
    by_feature = {r.feature: (r.error_code, r.error_message) for r in resp.results}
    data: list[dict[str, Any]] = []
    lines: list[str] = []
    past = {"upgrade": "upgraded", "downgrade": "downgraded", "disable": "disabled"}[action]
    for name, level in features.items():
        code, message = by_feature.get(name, (resp.error_code, resp.error_message))
        if code == ErrorCode.NONE:
            target = "" if action == "disable" else f" to {level}"
            lines.append(f"{name} {'can be' if dry_run else 'was'} {past}{target}.")
        else:
            target = "" if action == "disable" else f" to {level}"
            # FeatureCommand's wording: "Can not" in a dry run, "Could not" otherwise.
            lines.append(f"{'Can not' if dry_run else 'Could not'} {action} {name}{target}. {message or error_name(code)}")
        data.append({"feature": name, "level": level, "error": None if code == ErrorCode.NONE else error_name(code),
                     "error_message": None if code == ErrorCode.NONE else message})
    output = Output({"dry_run": dry_run, "results": data}, lines=lines)
    failed = sum(1 for d in data if d["error"] is not None)
    if failed:
        raise CliError(f"{failed} out of {len(data)} operation(s) failed.", output)
    return output
