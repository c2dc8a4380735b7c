"""What an append is told (its origin) and what it answers (its offsets).

A leaf of `storage`: the engine interface (storage/engine.py) and the producer state
(storage/producer_state.py) both speak these types, so they live below both.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class AppendOrigin(Enum):
    CLIENT = "client"  # produce requests: control batches rejected
    COORDINATOR = "coordinator"  # group/transaction coordinators: may write control batches


@dataclass(frozen=True, slots=True)
class AppendResult:
    base_offset: int
    last_offset: int
    log_append_time: int  # -1 unless the topic uses LogAppendTime
    log_start_offset: int
