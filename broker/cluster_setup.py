"""Cluster mode (`cluster.enable`, docs/cluster.md): this broker joins the others over the
PostgreSQL engine (storage/postgres/cluster/node.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from broker.config import Config, ConfigError
from broker.logging import get_logger
from broker.storage_setup import StorageUnavailableError
from storage.log_manager import LogManager

if TYPE_CHECKING:
    from storage.postgres.cluster.node import ClusterNode

log = get_logger("odradek.cluster")


async def start_cluster(config: Config, storage: LogManager) -> ClusterNode:
    """Register this broker and start its membership; the ClusterNode. Exits the broker
    (StorageUnavailableError, status 1) when its node id is taken by a live broker."""
    from broker.features import SUPPORTED
    from storage.postgres.cluster.membership import BrokerEndpoint, NodeIdInUseError, incarnation_of
    from storage.postgres.cluster.node import ClusterNode
    from storage.postgres.engine import PostgresStorage

    if not isinstance(storage, PostgresStorage):
        raise ConfigError("cluster.enable: a cluster needs a postgresql:// URL as storage.engine")
    session_timeout_ms = config.get_int("broker.session.timeout.ms")
    heartbeat_ms = config.get_int("broker.heartbeat.interval.ms")
    if not 0 < heartbeat_ms < session_timeout_ms:
        raise ConfigError("broker.heartbeat.interval.ms must be positive and below broker.session.timeout.ms")
    node = ClusterNode(
        storage.connect,
        storage,
        node_id=config.node_id,
        # The engine's sessions are named with it (storage_setup.open_storage).
        incarnation=incarnation_of(storage.application_name),
        endpoints=[BrokerEndpoint(a.name, a.host, a.port) for a in config.advertised_listeners],
        rack=config.get_str("broker.rack") or None,
        session_timeout_ms=session_timeout_ms,
        heartbeat_interval_ms=heartbeat_ms,
        # Registered for UpdateFeatures on any broker to check (broker/features.py).
        supported_features=SUPPORTED,
    )
    try:
        await node.start()
    except NodeIdInUseError as exc:
        await storage.abort()
        raise StorageUnavailableError(str(exc)) from None
    log.info("joined the cluster", node_id=config.node_id, controller=node.controller,
             brokers=[b.node_id for b in node.brokers])
    return node
