"""What a handler knows about the request it serves, and the doors it may go through
(broker/ports.py): each handler takes the few it calls, never the whole broker."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from broker.config import Config
    from broker.dataplane.types import TransactionVerifier
    from broker.dynamic_config import DynamicConfigs
    from broker.features import Features
    from broker.fetch_sessions import FetchSessionCache
    from broker.ports import ApiCatalog, BrokerPorts, Cluster, DataPlane, Topics, Transactions
    from broker.quotas import ClientQuotas
    from broker.security.acl.authorizer import StandardAuthorizer
    from broker.security.sasl.servers import SaslServers
    from broker.security.sasl.session import SaslSession
    from coordinator.group import GroupCoordinator
    from coordinator.share.coordinator import ShareCoordinator
    from storage.clock import Clock


@dataclass
class ConnectionInfo:
    """One client connection, shared by every request on it."""

    connection_id: str
    peer: str
    listener: str
    principal: str = "User:ANONYMOUS"
    authenticated: bool = True
    attributes: dict[str, object] = field(default_factory=dict)
    # The SASL exchange of a SASL listener's connection; None elsewhere.
    sasl: SaslSession | None = None


@dataclass
class RequestContext:
    # The doors a handler goes through are the properties below.
    ports: BrokerPorts
    connection: ConnectionInfo
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    # The request frame's size (the produce byte rate counts it).
    request_size: int = 0
    # Set by a handler that applied a byte-rate quota itself (Fetch).
    bandwidth_throttle_ms: int = 0

    @property
    def data_plane(self) -> DataPlane:
        """Appends, reads, offset lookups and deletions of records."""
        return self.ports.replica_manager

    @property
    def topics(self) -> Topics:
        """The topic catalog and its admin."""
        return self.ports.storage

    @property
    def transactions(self) -> Transactions:
        return self.ports.transactions

    @property
    def txn_verifier(self) -> TransactionVerifier:
        """KIP-890 verification with the transactional id's coordinator, wherever it is."""
        return self.ports.txn_verifier

    @property
    def groups(self) -> GroupCoordinator:
        return self.ports.group_coordinator

    @property
    def share(self) -> ShareCoordinator:
        return self.ports.share_coordinator

    @property
    def apis(self) -> ApiCatalog:
        return self.ports.router

    @property
    def cluster(self) -> Cluster:
        return self.ports

    @property
    def config(self) -> Config:
        """The static configuration (broker/config.py)."""
        return self.ports.config

    @property
    def dynamic_configs(self) -> DynamicConfigs:
        return self.ports.dynamic_configs

    @property
    def features(self) -> Features:
        return self.ports.features

    @property
    def clock(self) -> Clock:
        return self.ports.clock

    @property
    def authorizer(self) -> StandardAuthorizer | None:
        """None without `authorizer.class.name`: every request is allowed."""
        return self.ports.authorizer

    @property
    def sasl_servers(self) -> SaslServers:
        return self.ports.sasl_servers

    @property
    def quotas(self) -> ClientQuotas:
        return self.ports.quotas

    @property
    def fetch_sessions(self) -> FetchSessionCache:
        return self.ports.fetch_sessions
