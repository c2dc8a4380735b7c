"""The narrow doors through which handlers reach the broker: one Protocol per family of
calls, handed out by the request context (broker/context.py), each naming only what its
handlers call. `broker.services.Services` provides them all (`BrokerPorts`).

A leaf of `broker`: it imports no module that imports the context, so the context, the
router, the quotas and the security checks never import the broker's assembly
(broker/services.py) and no import circle can close through them (pyproject.toml's
acyclic contract)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from broker.config import Config, Listener
    from broker.dataplane.types import (
        AppendEntry,
        FetchPartitionData,
        FetchTarget,
        PartitionAppend,
        TransactionSupportedOperation,
        TransactionVerifier,
    )
    from broker.dynamic_config import DynamicConfigs
    from broker.features import Features
    from broker.fetch_sessions import FetchSessionCache
    from broker.quotas import ClientQuotas
    from broker.security.acl.authorizer import StandardAuthorizer
    from broker.security.sasl.servers import SaslServers
    from coordinator.group import GroupCoordinator
    from coordinator.share.coordinator import ShareCoordinator
    from coordinator.transaction import InitProducerIdResult, ListTransactionsResult, TransactionDescription
    from coordinator.transaction.coordinator import EndTxnResult
    from protocol.errors import ErrorCode
    from storage.clock import Clock
    from storage.engine import OffsetAndTimestamp, PartitionLog, StorageEngine, TopicInfo
    from storage.topic_config import ConfigEntry
    from storage.topic_partition import TopicPartition
    from storage.txn_markers import MarkerListener


class DataPlane(Protocol):
    """Produce, Fetch, ListOffsets, DeleteRecords and WriteTxnMarkers
    (broker/dataplane/replica_manager.py)."""

    async def append_records(
        self,
        entries: Sequence[AppendEntry],
        *,
        acks: int,
        transactional_id: str | None,
        operation: TransactionSupportedOperation,
    ) -> list[PartitionAppend]: ...

    async def fetch(
        self,
        targets: Sequence[FetchTarget],
        *,
        by_id: bool,
        isolation_level: int,
        max_bytes: int,
        min_bytes: int,
        max_wait_ms: int,
        file_records: bool = False,
    ) -> list[FetchPartitionData]: ...

    async def offset_for_timestamp(
        self, topic: str, partition: int, timestamp: int, isolation_level: int | None,
        current_leader_epoch: int = -1,
    ) -> tuple[OffsetAndTimestamp | None, int]: ...

    async def delete_records(self, topic: str, partition: int, offset: int) -> tuple[int, int]: ...

    async def write_txn_markers(
        self,
        *,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: Iterable[TopicPartition],
        listeners: Iterable[MarkerListener] = (),
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]: ...


class Topics(Protocol):
    """The topic catalog and its admin: the storage engine's calls of the topic APIs
    (storage.engine.StorageEngine without the engine's own lifecycle: sync, retention,
    compaction, checkpoints, close)."""

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        configs: Mapping[str, str | None] | None = None,
        *,
        topic_id: uuid.UUID | None = None,
        validate_only: bool = False,
    ) -> TopicInfo: ...

    async def delete_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo: ...

    async def create_partitions(self, name: str, total_count: int, *, validate_only: bool = False) -> TopicInfo: ...

    async def alter_topic_configs(
        self,
        name: str,
        changes: Mapping[str, str | None],
        *,
        replace: bool = False,
        validate_only: bool = False,
    ) -> TopicInfo: ...

    def list_topics(self) -> list[TopicInfo]: ...

    def describe_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo: ...

    def describe_configs(self, name: str, names: list[str] | None = None) -> list[ConfigEntry]: ...

    def log(self, topic: str, partition: int) -> PartitionLog:
        """A partition's log, for what a topic API reports of it (sizes, producers, epochs)."""
        ...


class Transactions(Protocol):
    """The transaction coordinator's calls of the transaction APIs (TransactionCoordinator)."""

    async def ensure_log(self) -> ErrorCode: ...

    async def init_producer_id(
        self,
        transactional_id: str | None,
        transaction_timeout_ms: int,
        expected_producer_id: int = ...,
        expected_producer_epoch: int = ...,
        enable_2pc: bool = False,
        keep_prepared_txn: bool = False,
    ) -> InitProducerIdResult: ...

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: int | None = None,
        *,
        answer_before_durable: bool = False,
    ) -> int: ...

    async def verify_when_settled(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, int]: ...

    async def end_transaction(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        commit: bool,
        client_transaction_version: int = 0,
    ) -> EndTxnResult: ...

    def describe(self, transactional_id: str) -> tuple[int, TransactionDescription | None]: ...

    def list_transactions(
        self,
        state_filters: Iterable[str] = (),
        producer_id_filters: Iterable[int] = (),
        duration_filter_ms: int = -1,
        transactional_id_pattern: str | None = None,
    ) -> ListTransactionsResult: ...


class ApiCatalog(Protocol):
    """The APIs this broker serves (ApiVersions)."""

    def advertised(self) -> list[tuple[int, int, int]]: ...


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """A live broker as a listener advertises it (Metadata, DescribeCluster)."""

    node_id: int
    host: str
    port: int
    rack: str | None


class Cluster(Protocol):
    """Who this broker is and where clients reach it (Metadata, DescribeCluster, ...)."""

    @property
    def node_id(self) -> int: ...

    @property
    def cluster_id(self) -> str: ...

    def advertised_listener(self, listener_name: str) -> Listener: ...

    def live_brokers(self, listener_name: str) -> list[BrokerAddress]:
        """The live brokers with an address on this listener (this broker alone outside a cluster)."""
        ...

    @property
    def controller_id(self) -> int:
        """The controller's node id, -1 when none is known."""
        ...

    def partition_leader(self, topic_id: uuid.UUID, partition: int) -> tuple[int, int]:
        """(leader node id or -1, leader epoch) of a partition."""
        ...

    def leader_epoch_error(self, topic_id: uuid.UUID, partition: int, current_leader_epoch: int) -> ErrorCode | None:
        """Cluster mode: NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH
        (or NONE) for a request on the partition; None outside a cluster."""
        ...

    def leader_epochs(self, topic_id: uuid.UUID, partition: int) -> list[tuple[int, int]] | None:
        """Cluster mode: the served partition's (leader epoch, start offset) history; None
        outside a cluster."""
        ...


class OpenConnection(Protocol):
    """What the broker does with its open connections (broker/connection.py): the idle
    sweep (broker/connection_limits.py) and the drain on shutdown."""

    def idle_since_ms(self) -> int | None: ...

    def close_idle(self, idle_ms: int) -> None: ...

    async def drain(self, timeout: float) -> None: ...


class BrokerPorts(Protocol):
    """Every door at once: what a request context is built from (broker.services.Services)."""

    @property
    def replica_manager(self) -> DataPlane: ...

    @property
    def storage(self) -> StorageEngine: ...

    @property
    def transactions(self) -> Transactions: ...

    @property
    def txn_verifier(self) -> TransactionVerifier: ...

    @property
    def group_coordinator(self) -> GroupCoordinator: ...

    @property
    def share_coordinator(self) -> ShareCoordinator: ...

    @property
    def router(self) -> ApiCatalog: ...

    @property
    def node_id(self) -> int: ...

    @property
    def cluster_id(self) -> str: ...

    def advertised_listener(self, listener_name: str) -> Listener: ...

    def live_brokers(self, listener_name: str) -> list[BrokerAddress]: ...

    @property
    def controller_id(self) -> int: ...

    def partition_leader(self, topic_id: uuid.UUID, partition: int) -> tuple[int, int]: ...

    def leader_epoch_error(
        self, topic_id: uuid.UUID, partition: int, current_leader_epoch: int
    ) -> ErrorCode | None: ...

    def leader_epochs(self, topic_id: uuid.UUID, partition: int) -> list[tuple[int, int]] | None: ...

    @property
    def config(self) -> Config: ...

    @property
    def dynamic_configs(self) -> DynamicConfigs: ...

    @property
    def features(self) -> Features: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def authorizer(self) -> StandardAuthorizer | None: ...

    @property
    def sasl_servers(self) -> SaslServers: ...

    @property
    def quotas(self) -> ClientQuotas: ...

    @property
    def fetch_sessions(self) -> FetchSessionCache: ...
