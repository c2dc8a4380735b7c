"""Building the transaction coordinator for a broker process and driving its clock."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

from coordinator.log import StorageCoordinatorLog
from coordinator.producer_ids import ProducerIdManager
from coordinator.settings import Settings
from coordinator.transaction.coordinator import TransactionConfig, TransactionCoordinator
from coordinator.transaction.markers import EngineMarkerWriter, MarkerListener, MarkerWriter
from coordinator.transaction.records import TOPIC_CONFIGS, TRANSACTION_STATE_TOPIC

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine

log = structlog.get_logger("odradek.txn")

TICK_MS = 1_000


async def start_transaction_coordinator(
    config: Settings,
    clock: Clock,
    storage: StorageEngine,
    marker_writer: MarkerWriter | None = None,
    *,
    marker_listeners: Sequence[MarkerListener] = (),
    producer_ids: ProducerIdManager | None = None,
    owns_all_partitions: bool = True,
) -> TransactionCoordinator:
    """A coordinator over `__transaction_state` in `storage`. `marker_listeners` are told
    of each marker it writes once durable (the group coordinator's `on_txn_marker`); they
    apply to the default marker writer. `producer_ids` defaults to the data directory's
    block file. With `owns_all_partitions` (a single broker) it is loaded and serving on
    return; otherwise it owns no partition until `on_election`."""
    txn_config = TransactionConfig.from_broker_config(config)
    log_store = StorageCoordinatorLog(
        storage, TRANSACTION_STATE_TOPIC, txn_config.num_partitions, clock, TOPIC_CONFIGS
    )
    if log_store.exists():
        txn_config.num_partitions = log_store.num_partitions
    coordinator = TransactionCoordinator(
        log_store,
        marker_writer or EngineMarkerWriter(storage, clock, list(marker_listeners)),
        producer_ids or ProducerIdManager(config.data_dir),
        clock,
        txn_config,
        owns_all_partitions,
    )
    if owns_all_partitions:
        await coordinator.load(after_unclean_shutdown=not storage.clean_start)
    return coordinator


async def run_ticks(coordinator: TransactionCoordinator, every_ms: int = TICK_MS) -> None:
    """Timeouts and expiry for a running broker, on the coordinator's clock; cancel to stop."""
    while True:
        await coordinator.clock.sleep(every_ms)
        try:
            await coordinator.tick()
        except Exception:
            log.exception("transaction coordinator tick failed")
