"""The broker's disk: a size-limited tmpfs (so it can be filled) under a lazyfs mount
(`faults/lazyfs.py`, so power can be lost), both mounted here and needing root."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Disk:
    def __init__(self, workdir: Path, size_mb: int) -> None:
        self.tmpfs = workdir / "disk"
        self.backing = self.tmpfs / "log"
        self.mount = workdir / "mnt"
        self.eio_flag = workdir / "eio"
        self.ballast = self.tmpfs / "ballast"
        self.size_mb = size_mb
        self.log_path = workdir / "lazyfs.log"
        self.lazyfs: subprocess.Popen[bytes] | None = None

    def setup(self) -> None:
        self.tmpfs.mkdir(parents=True, exist_ok=True)
        self.mount.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={self.size_mb}m", "tmpfs", str(self.tmpfs)], check=True
        )
        self.backing.mkdir()
        self._mount_lazyfs()

    def _mount_lazyfs(self) -> None:
        with open(self.log_path, "ab") as log:
            self.lazyfs = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "faults.lazyfs",
                    str(self.backing),
                    str(self.mount),
                    str(self.eio_flag),
                ],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        while not os.path.ismount(self.mount):
            if self.lazyfs.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"lazyfs did not mount: {self.log_path.read_text(errors='replace')}")
            time.sleep(0.05)

    def _unmount_lazyfs(self) -> None:
        if self.lazyfs is not None:
            self.lazyfs.send_signal(signal.SIGKILL)
            self.lazyfs.wait(10)
            self.lazyfs = None
        subprocess.run(["umount", "-l", str(self.mount)], check=False, capture_output=True)

    def power_loss(self) -> None:
        """Everything not fsynced is gone: lazyfs dies with it; then power comes back. Call
        with the broker dead."""
        self._unmount_lazyfs()
        self._mount_lazyfs()

    def fill(self) -> int:
        """Fill the disk; returns the bytes of ballast written."""
        written = 0
        chunk = bytes(1 << 20)
        with open(self.ballast, "ab") as f:
            while True:
                try:
                    written += f.write(chunk)
                    f.flush()
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        return written

    def free(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.ballast.unlink()

    def fail_io(self, on: bool) -> None:
        if on:
            self.eio_flag.touch()
        else:
            with contextlib.suppress(FileNotFoundError):
                self.eio_flag.unlink()

    def used_mb(self) -> float:
        st = os.statvfs(self.tmpfs)
        return (st.f_blocks - st.f_bfree) * st.f_frsize / (1 << 20)

    def teardown(self) -> None:
        self.fail_io(False)
        self._unmount_lazyfs()
        subprocess.run(["umount", "-l", str(self.tmpfs)], check=False, capture_output=True)
