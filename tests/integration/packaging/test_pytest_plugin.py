"""The pytest plugin as a user meets it: a test file of theirs, run by pytest in a process
of its own, gets a real broker (with the ini file's settings) and its own brokers from the
factory, and every broker process is gone afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
USER_FILE = Path(__file__).with_name("user_test_file.py")


def test_users_test_file_with_aiokafka(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # This checkout's code, whichever copy of the package is installed.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeini("[pytest]\nasyncio_mode = auto\nodradek_overrides =\n    num.partitions=3\n")
    pytester.makepyfile(test_user=USER_FILE.read_text())
    result = pytester.runpytest_subprocess("-p", "odradek.pytest_plugin", "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=2)
    # Three brokers (the session's and two from the factory), each stopped with SIGTERM.
    logs = sorted(pytester.path.rglob("*-broker.log"))
    assert len(logs) == 3
    assert all("broker stopped" in log.read_text() for log in logs)
