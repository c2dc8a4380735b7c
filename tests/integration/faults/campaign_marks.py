"""The marks of the fault campaign's tests: they mount tmpfs and FUSE (root, libfuse 3)
and run for minutes."""

from __future__ import annotations

import os
import shutil

import pytest


def can_mount() -> str | None:
    if os.geteuid() != 0:
        return "mounting tmpfs and FUSE needs root"
    if not os.path.exists("/dev/fuse") or shutil.which("fusermount3") is None:
        return "no FUSE here (make installs the fuse3 package where it may)"
    try:
        import mfusepy  # noqa: F401
    except OSError as exc:
        return f"libfuse: {exc}"
    return None


CAMPAIGN_MARKS = [
    pytest.mark.skipif(can_mount() is not None, reason=str(can_mount())),
    pytest.mark.timeout(240),
]
