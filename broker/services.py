"""Everything a handler may use, built once per broker process."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from broker.config import Config, Listener
from broker.connection_limits import ConnectionLimits
from broker.coordinator_leadership import CoordinatorLeadership
from broker.dataplane import ReplicaManager
from broker.dataplane.types import TransactionVerifier
from broker.features import Features
from broker.metrics import BrokerMetrics
from broker.ports import BrokerAddress
from broker.quotas import ClientQuotas
from broker.request_queue import RequestQueue
from broker.router import Router
from broker.txn_verifier import ClusterTransactionVerifier
from protocol.errors import ErrorCode
from storage.clock import Clock
from storage.engine import StorageEngine

if TYPE_CHECKING:
    from broker.dynamic_config import DynamicConfigs
    from broker.fetch_sessions import FetchSessionCache
    from broker.inter_broker import InterBrokerClient
    from broker.ports import OpenConnection
    from broker.security.acl.authorizer import StandardAuthorizer
    from broker.security.sasl.servers import SaslServers
    from coordinator.group import GroupCoordinator
    from coordinator.share.coordinator import ShareCoordinator
    from coordinator.transaction import TransactionCoordinator
    from storage.postgres.cluster.node import ClusterNode


@dataclass
class Services:
    """Built once the storage and both coordinators are up: nothing in it is optional."""

    config: Config
    clock: Clock
    cluster_id: str
    router: Router
    storage: StorageEngine
    transactions: TransactionCoordinator
    group_coordinator: GroupCoordinator
    share_coordinator: ShareCoordinator
    dynamic_configs: DynamicConfigs
    fetch_sessions: FetchSessionCache
    sasl_servers: SaslServers
    # None without `authorizer.class.name`: every request is allowed (broker/security/authorization.py).
    authorizer: StandardAuthorizer | None
    # The finalized feature levels: the data directory's, or on PostgreSQL the cluster's
    # (broker/metadata_stores.py).
    features: Features
    # Cluster mode (`cluster.enable`): membership and leadership; None for a single broker.
    cluster_node: ClusterNode | None = None
    # Cluster mode: requests to the other brokers (broker/inter_broker.py).
    inter_broker: InterBrokerClient | None = None
    connections: set[OpenConnection] = field(default_factory=set)
    metrics: BrokerMetrics = field(default_factory=BrokerMetrics)
    request_queue: RequestQueue = field(init=False)
    connection_limits: ConnectionLimits = field(init=False)
    quotas: ClientQuotas = field(init=False)
    # The data plane: appends, reads, offset lookups and deletions on the logs.
    replica_manager: ReplicaManager = field(init=False)
    # KIP-890 verification (the data plane's and TxnOffsetCommit's): the coordinator itself,
    # or in a cluster whichever broker coordinates the transactional id.
    txn_verifier: TransactionVerifier = field(init=False)
    # Who leads each partition (FindCoordinator): this broker alone until a cluster sets its own.
    # What a cluster calls when this broker gains or loses an internal partition's leadership.
    coordinator_leadership: CoordinatorLeadership = field(init=False)

    def __post_init__(self) -> None:
        node = self.cluster_node
        verifier: TransactionVerifier = self.transactions
        if node is not None and self.inter_broker is not None:
            # KIP-890 verification asks the transactional id's coordinator, wherever it is.
            verifier = ClusterTransactionVerifier(
                self.node_id, self.transactions, self.inter_broker, node.leadership.leader_of,
                lambda name: self.storage.describe_topic(name).topic_id,
            )
        self.txn_verifier = verifier
        self.replica_manager = ReplicaManager(
            self.storage, verifier, self.clock,
            leadership=node.leadership if node is not None else None,
        )
        self.coordinator_leadership = CoordinatorLeadership(
            self.group_coordinator, self.transactions, self.share_coordinator
        )
        self.request_queue = RequestQueue(self.config.get_int("queued.max.requests"))
        self.quotas = ClientQuotas.load(
            self.config.data_dir,
            self.clock,
            self.config.get_int("quota.window.num"),
            self.config.get_int("quota.window.size.seconds"),
        )
        self.connection_limits = ConnectionLimits(self.config, self.clock, self.quotas.store)

    @property
    def node_id(self) -> int:
        return self.config.node_id

    def advertised_listener(self, listener_name: str) -> Listener:
        """The address clients on a listener are told to use: the advertised listener of the
        same name, or else the first one."""
        for adv in self.config.advertised_listeners:
            if adv.name == listener_name:
                return adv
        return self.config.advertised_listeners[0]

    def live_brokers(self, listener_name: str) -> list[BrokerAddress]:
        node = self.cluster_node
        if node is None:
            listener = self.advertised_listener(listener_name)
            return [BrokerAddress(self.node_id, listener.host, listener.port, None)]
        out = []
        for broker in node.brokers:
            # As Kafka: a broker without the client's listener is left out.
            endpoint = next((e for e in broker.endpoints if e.listener == listener_name), None)
            if endpoint is None and broker.node_id == self.node_id:
                endpoint = broker.endpoints[0] if broker.endpoints else None
            if endpoint is not None:
                out.append(BrokerAddress(broker.node_id, endpoint.host, endpoint.port, broker.rack))
        return out

    @property
    def controller_id(self) -> int:
        node = self.cluster_node
        if node is None:
            return self.node_id
        return node.controller if node.controller is not None else -1

    def partition_leader(self, topic_id: uuid.UUID, partition: int) -> tuple[int, int]:
        node = self.cluster_node
        if node is None:
            return self.node_id, 0
        leader, epoch = node.leadership.leader_of((topic_id, partition))
        return (leader if leader is not None else -1), epoch

    def leader_epoch_error(self, topic_id: uuid.UUID, partition: int, current_leader_epoch: int) -> ErrorCode | None:
        node = self.cluster_node
        if node is None:
            return None
        return node.leadership.check((topic_id, partition), current_leader_epoch)

    def leader_epochs(self, topic_id: uuid.UUID, partition: int) -> list[tuple[int, int]] | None:
        node = self.cluster_node
        if node is None:
            return None
        return node.leadership.epochs.get((topic_id, partition), [])
