"""A failed fsync stops the broker at once, as Kafka halts when every log dir has failed
(ReplicaManager.handleLogDirFailure). After a failed fsync the kernel may already have
dropped the dirty pages while the records stay readable: serving on would expose records
that a power loss takes back, and a later fsync that succeeds would not bring them back.
Recovery at the next start decides from what is on disk."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from broker.logging import get_logger
from storage.errors import KafkaStorageError

log = get_logger("odradek.log_dir")


def halt_on_failure(data_dir: Path) -> Callable[[KafkaStorageError], None]:
    def halt(error: KafkaStorageError) -> None:
        log.critical("log directory failed, halting the broker", data_dir=str(data_dir), error=str(error))
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(1)  # no clean shutdown: nothing more may be written or answered

    return halt
