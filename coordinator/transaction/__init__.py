"""The transaction coordinator: the coordinator side of KIP-98 (transaction version 1).

- `state`: the states and the table of valid transitions.
- `metadata`: per-transactional-id metadata with prepare/complete transitions.
- `records`: `__transaction_state` records (the log itself is `coordinator/log.py`).
- `markers`: the `MarkerWriter` interface the partition side implements.
- `state_manager`: the metadata cache, its durable appends and the load from the log.
- `completion`: markers and CompleteCommit/CompleteAbort, one object per transactional id.
- `busy`: requests that find their id busy wait for the work in flight, on the clock.
- `expiry`: transaction timeouts and transactional-id expiry on the injected clock.
- `producer_id`: InitProducerId's rules (KIP-360 expected producer, id rotation).
- `describe`: DescribeTransactions and ListTransactions (KIP-664).
- `config`: the coordinator's settings.
- `coordinator`: `TransactionCoordinator`, which the API handlers call.
"""

from coordinator.transaction.config import TransactionConfig
from coordinator.transaction.coordinator import TransactionCoordinator
from coordinator.transaction.describe import ListTransactionsResult, TransactionDescription
from coordinator.transaction.markers import InMemoryMarkerWriter, MarkerWriter
from coordinator.transaction.metadata import TransactionMetadata
from coordinator.transaction.producer_id import InitProducerIdResult
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from coordinator.transaction.state import VALID_PREVIOUS_STATES, TransactionState
from coordinator.transaction.state_manager import CoordinatorStatus
from storage.topic_partition import TopicPartition

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
