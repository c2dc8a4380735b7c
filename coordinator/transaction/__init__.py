"""The transaction coordinator: the coordinator side of KIP-98 (transaction version 1).

- `state`: the states and the table of valid transitions.
- `metadata`: per-transactional-id metadata with prepare/complete transitions.
- `records`: `__transaction_state` records (the log itself is `coordinator/log.py`).
- `markers`: the `MarkerWriter` interface the partition side implements.
- `coordinator`: `TransactionCoordinator`, which the API handlers call.
"""

from coordinator.transaction.coordinator import (
    CoordinatorStatus,
    InitProducerIdResult,
    ListTransactionsResult,
    TransactionConfig,
    TransactionCoordinator,
    TransactionDescription,
)
from coordinator.transaction.markers import InMemoryMarkerWriter, MarkerWriter
from coordinator.transaction.metadata import TopicPartition, TransactionMetadata
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from coordinator.transaction.state import VALID_PREVIOUS_STATES, TransactionState

__all__ = [
    "TRANSACTION_STATE_TOPIC",
    "VALID_PREVIOUS_STATES",
    "CoordinatorStatus",
    "InMemoryMarkerWriter",
    "InitProducerIdResult",
    "ListTransactionsResult",
    "MarkerWriter",
    "TopicPartition",
    "TransactionConfig",
    "TransactionCoordinator",
    "TransactionDescription",
    "TransactionMetadata",
    "TransactionState",
]
