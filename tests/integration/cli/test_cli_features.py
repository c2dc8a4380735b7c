"""`odradek features` (kafka-features.sh) against a broker of the test's own (its feature
levels are changed): describe, a dry run that changes nothing, upgrade, downgrade, disable,
and a refused update as Kafka's line on stdout, the count on stderr and exit code 1."""

from __future__ import annotations

import pytest

from odradek.__main__ import main
from odradek.testing import OdradekBroker
from tests.integration.cli.cli_helpers import cli


def _line(level: int, epoch: int) -> str:
    """The describe output: group.version and share.version (finalized at 1 on a new broker),
    KRaft's kraft.version and metadata.version (its levels named as kafka-features.sh names
    them) and transaction.version at `level`, under the features' common epoch."""
    return (f"Feature: group.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\t"
            f"FinalizedVersionLevel: 1\tEpoch: {epoch}\n"
            f"Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\t"
            f"FinalizedVersionLevel: 1\tEpoch: {epoch}\n"
            f"Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: 4.0-IV3\t"
            f"FinalizedVersionLevel: 4.0-IV3\tEpoch: {epoch}\n"
            f"Feature: share.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\t"
            f"FinalizedVersionLevel: 1\tEpoch: {epoch}\n"
            f"Feature: transaction.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 2\t"
            f"FinalizedVersionLevel: {level}\tEpoch: {epoch}\n")


def test_describe_upgrade_downgrade_disable(capsys: pytest.CaptureFixture[str], fresh_broker: OdradekBroker) -> None:
    bootstrap = fresh_broker.bootstrap

    def plain(*args: str) -> tuple[int, str, str]:  # the text output: without --json
        capsys.readouterr()
        code = main(["--bootstrap-server", bootstrap, *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    assert plain("features", "describe") == (0, _line(0, 0), "")
    assert cli(capsys, bootstrap, "features", "describe").json == [
        {"feature": "group.version", "supported_min_version": 0, "supported_max_version": 1,
         "finalized_version_level": 1, "epoch": 0},
        {"feature": "kraft.version", "supported_min_version": 0, "supported_max_version": 1,
         "finalized_version_level": 1, "epoch": 0},
        {"feature": "metadata.version", "supported_min_version": 7, "supported_max_version": 25,
         "finalized_version_level": 25, "epoch": 0},
        {"feature": "share.version", "supported_min_version": 0, "supported_max_version": 1,
         "finalized_version_level": 1, "epoch": 0},
        {"feature": "transaction.version", "supported_min_version": 0, "supported_max_version": 2,
         "finalized_version_level": 0, "epoch": 0},
    ]

    assert plain("features", "upgrade", "--feature", "transaction.version=2", "--dry-run") == (
        0, "transaction.version can be upgraded to 2.\n", "")
    assert plain("features", "describe") == (0, _line(0, 0), "")
    # kafka-features.sh's lines for metadata.version: a dry run's failure is "Can not".
    assert plain("features", "downgrade", "--feature", "metadata.version=24", "--dry-run") == (
        0, "metadata.version can be downgraded to 24.\n", "")
    assert plain("features", "downgrade", "--feature", "metadata.version=22", "--dry-run") == (
        1, "Can not downgrade metadata.version to 22. The update failed for all features since the following "
        "feature had an error: Invalid metadata.version 22. Refusing to perform the requested downgrade because "
        "it might delete metadata information.\n", "Error: 1 out of 1 operation(s) failed.\n")
    assert plain("features", "upgrade", "--feature", "transaction.version=2") == (
        0, "transaction.version was upgraded to 2.\n", "")
    assert plain("features", "describe") == (0, _line(2, 1), "")

    run = cli(capsys, bootstrap, "features", "downgrade", "--feature", "transaction.version=1")
    assert (run.code, run.json) == (0, {"dry_run": False, "results": [
        {"feature": "transaction.version", "level": 1, "error": None, "error_message": None}]})
    assert plain("features", "describe") == (0, _line(1, 2), "")

    code, out, err = plain("features", "upgrade", "--feature", "transaction.version=3")
    assert (code, err) == (1, "Error: 1 out of 1 operation(s) failed.\n")
    assert out.startswith("Could not upgrade transaction.version to 3. ")
    code, out, err = plain("features", "upgrade", "--feature", "no.such.feature=1")
    assert (code, err) == (1, "Error: 1 out of 1 operation(s) failed.\n")
    assert out.startswith("Could not upgrade no.such.feature to 1. ")
    assert plain("features", "describe") == (0, _line(1, 2), "")

    assert plain("features", "disable", "--feature", "transaction.version") == (
        0, "transaction.version was disabled.\n", "")
    assert plain("features", "describe") == (0, _line(0, 3), "")
    assert plain("features", "upgrade", "--feature", "transaction.version") == (
        1, "", "Error: Can't parse feature=transaction.version: expected name=level, e.g. transaction.version=2\n")
