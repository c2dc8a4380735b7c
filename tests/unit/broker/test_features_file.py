"""The finalized features file (broker/features.py): a feature added after a data directory's
file was written starts at its setting's level, one the file disabled stays off; and the checks
of an update, metadata.version's and kraft.version's as Kafka 4.0 makes them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from broker.features import FEATURES_FILE, FeatureUpdate, FileFeatures, UpgradeType
from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError

INITIAL = {"transaction.version": 2, "share.version": 1, "group.version": 1}


def test_an_older_file_gains_group_version_and_keeps_its_disabled_features(tmp_path: Path) -> None:
    # Written before group.version existed, with share.version disabled.
    (tmp_path / FEATURES_FILE).write_text(json.dumps({"epoch": 3, "finalized": {"transaction.version": 1}}))
    features = FileFeatures.load(tmp_path, INITIAL)
    assert (features.finalized, features.epoch) == ({"transaction.version": 1, "group.version": 1}, 3)


def test_a_disabled_group_version_stays_disabled_across_a_restart(tmp_path: Path) -> None:
    features = FileFeatures.load(tmp_path, INITIAL)
    asyncio.run(features.update({"group.version": 0}))
    again = FileFeatures.load(tmp_path, INITIAL)
    assert (again.finalized, again.epoch) == ({"transaction.version": 2, "share.version": 1}, 1)


def test_a_fresh_directory_finalizes_the_settings_levels(tmp_path: Path) -> None:
    features = FileFeatures.load(tmp_path, {**INITIAL, "transaction.version": 0})
    assert (features.finalized, features.epoch) == ({"share.version": 1, "group.version": 1}, 0)


def test_an_older_file_gains_metadata_version_at_kafkas_latest(tmp_path: Path) -> None:
    # Written before metadata.version was kept: it starts at the level a new broker has.
    (tmp_path / FEATURES_FILE).write_text(json.dumps({"epoch": 2, "finalized": {"transaction.version": 2},
                                                      "known": ["group.version", "share.version"]}))
    features = FileFeatures.load(tmp_path, {**INITIAL, "metadata.version": 25})
    assert (features.finalized, features.epoch) == ({"transaction.version": 2, "metadata.version": 25}, 2)
    # kraft.version is the quorum's, reported beside them and never kept.
    assert features.reported() == {"transaction.version": 2, "metadata.version": 25, "kraft.version": 1}


def test_metadata_and_kraft_version_checks_as_kafka_4_0(tmp_path: Path) -> None:
    """Kafka 4.0's FeatureControlManager, in its order; the texts are what Kafka 4.0 answered."""
    features = FileFeatures.load(tmp_path, {**INITIAL, "metadata.version": 25})
    safe, unsafe, upgrade = UpgradeType.SAFE_DOWNGRADE, UpgradeType.UNSAFE_DOWNGRADE, UpgradeType.UPGRADE
    refused = ErrorCode.INVALID_UPDATE_VERSION
    assert features.check("metadata.version", 25, 4, 1) == (
        refused, "Invalid update version 25 for feature metadata.version. The controller does not support the "
        "given upgrade type.")
    assert features.check("metadata.version", -1, safe, 1) == (
        refused, "Invalid update version -1 for feature metadata.version. A feature version cannot be less than 0.")
    assert features.check("metadata.version", 6, safe, 3) == (
        refused, "Invalid update version 6 for feature metadata.version. Local controller 3 only supports "
        "versions 7-25")
    assert features.check("metadata.version", 24, upgrade, 1) == (
        refused, "Invalid update version 24 for feature metadata.version. Can't downgrade the version of this "
        "feature without setting the upgrade type to either safe or unsafe downgrade.")
    # Down to 4.0-IV2 and 4.0-IV1 nothing in the metadata records changed; 4.0-IV1 changed them.
    assert features.check("metadata.version", 24, safe, 1) == (ErrorCode.NONE, None)
    assert features.check("metadata.version", 23, unsafe, 1) == (ErrorCode.NONE, None)
    assert features.check("metadata.version", 22, safe, 1) == (
        refused, "Invalid metadata.version 22. Refusing to perform the requested downgrade because it might "
        "delete metadata information.")
    assert features.check("metadata.version", 7, unsafe, 1) == (
        refused, "Invalid metadata.version 7. Unsafe metadata downgrade is not supported in this version.")
    # kraft.version counts as 0 for the controller: any type takes 0, only an upgrade takes 1.
    assert features.check("kraft.version", 0, upgrade, 1) == (ErrorCode.NONE, None)
    assert features.check("kraft.version", 1, safe, 1) == (
        refused, "Invalid update version 1 for feature kraft.version. Can't downgrade to a newer version.")
    assert features.check("no.such", 1, upgrade, 1) == (
        refused, "Invalid update version 1 for feature no.such. Local controller 1 does not support this feature.")
    asyncio.run(features.update({"metadata.version": 24, "kraft.version": 0}))
    again = FileFeatures.load(tmp_path, {**INITIAL, "metadata.version": 25})
    assert (again.reported(), again.epoch) == ({**INITIAL, "metadata.version": 24, "kraft.version": 1}, 1)


def test_a_failed_write_changes_nothing_and_is_a_storage_error(tmp_path: Path) -> None:
    """As every other state: changed once stored. The file cannot be written (here a directory
    in its place's temporary name): KafkaStorageError, and the levels and epoch stay."""
    features = FileFeatures.load(tmp_path, INITIAL)
    (tmp_path / (FEATURES_FILE + ".tmp")).mkdir()
    update = [FeatureUpdate("group.version", 0, UpgradeType.SAFE_DOWNGRADE)]
    with pytest.raises(KafkaStorageError):
        asyncio.run(features.change(update, 1, validate_only=False))
    assert (features.finalized, features.epoch) == (INITIAL, 0)
    (tmp_path / (FEATURES_FILE + ".tmp")).rmdir()
    assert asyncio.run(features.change(update, 1, validate_only=False)) == (ErrorCode.NONE, None)
    assert (features.finalized, features.epoch) == ({"transaction.version": 2, "share.version": 1}, 1)


def test_concurrent_updates_are_stored_in_their_order(tmp_path: Path) -> None:
    """Each checked against the one before, and the file ends with the last one's levels."""
    features = FileFeatures.load(tmp_path, INITIAL)

    async def both() -> list[tuple[int, str | None]]:
        return list(await asyncio.gather(
            features.change([FeatureUpdate("group.version", 0, UpgradeType.SAFE_DOWNGRADE)], 1, False),
            features.change([FeatureUpdate("share.version", 0, UpgradeType.SAFE_DOWNGRADE)], 1, False),
        ))

    assert asyncio.run(both()) == [(ErrorCode.NONE, None)] * 2
    again = FileFeatures.load(tmp_path, INITIAL)
    assert (features.finalized, features.epoch) == ({"transaction.version": 2}, 2)
    assert (again.finalized, again.epoch) == (features.finalized, features.epoch)


async def test_a_file_finalizing_a_level_this_version_does_not_support_stops_the_start(tmp_path: Path) -> None:
    """broker/metadata_stores.py: a features file of a later version (a level above this one's
    range) is refused as Kafka's controller refuses the broker's registration; the logs are
    closed cleanly."""
    from broker.config import Config
    from broker.dynamic_config import DynamicConfigs
    from broker.metadata_stores import open_metadata_stores
    from broker.storage_setup import StorageUnavailableError
    from storage.clock import SystemClock
    from storage.file_storage import CLEAN_SHUTDOWN_FILE, FileStorage

    config = Config.load(None, cli={"log.dirs": str(tmp_path)})
    (tmp_path / FEATURES_FILE).write_text(json.dumps({"epoch": 4, "finalized": {"transaction.version": 3}}))
    storage = await FileStorage.open(tmp_path, clock=SystemClock(), producer_id_expiration_ms=86_400_000)
    with pytest.raises(StorageUnavailableError) as refused:
        await open_metadata_stores(config, storage, DynamicConfigs.load(tmp_path))
    assert str(refused.value) == (
        "Unable to register because the broker does not support finalized version 3 of transaction.version. "
        "The broker wants a version between 0 and 2, inclusive.")
    assert (tmp_path / CLEAN_SHUTDOWN_FILE).exists()
