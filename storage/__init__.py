"""Kafka's log on local disk (FileStorage) or in memory (MemoryStorage)."""

from .append_signal import AppendSignal
from .clock import Clock, ManualClock, SystemClock
from .engine import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    AbortedTransaction,
    AppendOrigin,
    AppendResult,
    OffsetAndTimestamp,
    PartitionLog,
    ReadResult,
    StorageEngine,
    TopicInfo,
)
from .errors import StorageError
from .file_storage import FileStorage
from .memory import MemoryState, MemoryStorage
from .topic_config import ConfigEntry, TopicConfig

__all__ = [
    "EARLIEST_TIMESTAMP",
    "LATEST_TIMESTAMP",
    "MAX_TIMESTAMP",
    "AbortedTransaction",
    "AppendOrigin",
    "AppendResult",
    "AppendSignal",
    "Clock",
    "ConfigEntry",
    "FileStorage",
    "ManualClock",
    "MemoryState",
    "MemoryStorage",
    "OffsetAndTimestamp",
    "PartitionLog",
    "ReadResult",
    "StorageEngine",
    "StorageError",
    "SystemClock",
    "TopicConfig",
    "TopicInfo",
]
