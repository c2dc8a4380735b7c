"""The finalized features file (broker/features.py): a feature added after a data directory's
file was written starts at its setting's level, one the file disabled stays off."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from broker.features import FEATURES_FILE, Features

INITIAL = {"transaction.version": 2, "share.version": 1, "group.version": 1}


def test_an_older_file_gains_group_version_and_keeps_its_disabled_features(tmp_path: Path) -> None:
    # Written before group.version existed, with share.version disabled.
    (tmp_path / FEATURES_FILE).write_text(json.dumps({"epoch": 3, "finalized": {"transaction.version": 1}}))
    features = Features.load(tmp_path, INITIAL)
    assert (features.finalized, features.epoch) == ({"transaction.version": 1, "group.version": 1}, 3)


def test_a_disabled_group_version_stays_disabled_across_a_restart(tmp_path: Path) -> None:
    features = Features.load(tmp_path, INITIAL)
    asyncio.run(features.update({"group.version": 0}))
    again = Features.load(tmp_path, INITIAL)
    assert (again.finalized, again.epoch) == ({"transaction.version": 2, "share.version": 1}, 1)


def test_a_fresh_directory_finalizes_the_settings_levels(tmp_path: Path) -> None:
    features = Features.load(tmp_path, {**INITIAL, "transaction.version": 0})
    assert (features.finalized, features.epoch) == ({"share.version": 1, "group.version": 1}, 0)
