"""The data plane: what the Produce, Fetch, ListOffsets and DeleteRecords handlers ask of
the partitions' logs (Kafka's ReplicaManager), behind `ReplicaManager`."""

from broker.dataplane.replica_manager import ReplicaManager
from broker.dataplane.types import (
    AppendEntry,
    FetchPartitionData,
    FetchTarget,
    PartitionAppend,
    TransactionSupportedOperation,
    TransactionVerifier,
)

__all__ = [
    "AppendEntry",
    "FetchPartitionData",
    "FetchTarget",
    "PartitionAppend",
    "ReplicaManager",
    "TransactionSupportedOperation",
    "TransactionVerifier",
]
