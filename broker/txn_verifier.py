"""KIP-890 verification in a cluster (Kafka's AddPartitionsToTxnManager): a partition leader
asks the coordinator of the producer's transactional id, the leader of the id's
`__transaction_state` partition, with the batched AddPartitionsToTxn a broker sends
(v5): `verify_only` to check that the partition is in the ongoing transaction (part 1), or
not, to add it (transaction version 2's implicit add, part 2). When this broker is that
coordinator, its own coordinator answers without a request.

Nothing is cached: each transactional batch that needs verification (storage's
`needs_verification`, which holds the partition's own verification state) asks again, so
a coordinator that moved is found at once. Failing to reach the coordinator answers
NETWORK_EXCEPTION, and no known coordinator COORDINATOR_NOT_AVAILABLE: both are answered to
the producer as NOT_ENOUGH_REPLICAS, which it retries (broker/dataplane/verification.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import structlog

from broker.dataplane.types import TopicPartition
from broker.inter_broker import InterBrokerClient, PeerUnavailable
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTransaction,
)
from storage.errors import StorageError

if TYPE_CHECKING:
    from coordinator.transaction import TransactionCoordinator

log = structlog.get_logger("odradek.txn")

ADD_PARTITIONS_TO_TXN_KEY = 24
# The batched form brokers send; v5 answers TRANSACTION_ABORTABLE as it is.
ADD_PARTITIONS_TO_TXN_VERSION = 5

LeaderOf = Callable[[tuple[uuid.UUID, int]], tuple[int | None, int]]
TopicId = Callable[[str], uuid.UUID]


class ClusterTransactionVerifier:
    """A TransactionVerifier (broker/dataplane/types.py) that asks the transactional id's
    coordinator wherever it is."""

    def __init__(
        self,
        node_id: int,
        local: TransactionCoordinator,
        client: InterBrokerClient,
        leader_of: LeaderOf,
        topic_id: TopicId,
    ) -> None:
        self.node_id = node_id
        self.local = local
        self.client = client
        self.leader_of = leader_of
        self.topic_id = topic_id

    def _coordinator(self, transactional_id: str) -> int | None:
        try:
            key = (self.topic_id(TRANSACTION_STATE_TOPIC), self.local.partition_for(transactional_id))
        except StorageError:
            return None
        leader, _ = self.leader_of(key)
        return leader if leader is not None and leader >= 0 else None

    def defers_data_durability(self, transactional_id: str | None) -> bool:
        return self.local.defers_data_durability(transactional_id)

    async def verify_when_settled(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, int]:
        tps = list(partitions)
        coordinator = self._coordinator(transactional_id)
        if coordinator == self.node_id:
            return await self.local.verify_when_settled(transactional_id, producer_id, producer_epoch, tps)
        return await self._ask(coordinator, transactional_id, producer_id, producer_epoch, tps, verify_only=True)

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: int | None = None,
        *,
        answer_before_durable: bool = False,
    ) -> int:
        tps = list(partitions)
        coordinator = self._coordinator(transactional_id)
        if coordinator == self.node_id:
            return await self.local.add_partitions(
                transactional_id, producer_id, producer_epoch, tps, client_transaction_version,
                answer_before_durable=answer_before_durable,
            )
        # The coordinator's handler adds a broker's non-verify-only partitions with
        # transaction version 2, as this implicit add of a Produce v12+ is.
        errors = await self._ask(coordinator, transactional_id, producer_id, producer_epoch, tps, verify_only=False)
        return next((e for e in errors.values() if e != ErrorCode.NONE), ErrorCode.NONE)

    async def _ask(
        self,
        coordinator: int | None,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: list[TopicPartition],
        *,
        verify_only: bool,
    ) -> dict[TopicPartition, int]:
        if coordinator is None:
            return dict.fromkeys(partitions, ErrorCode.COORDINATOR_NOT_AVAILABLE)
        by_topic: dict[str, list[int]] = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append(partition)
        request = AddPartitionsToTxnRequest(
            transactions=[
                AddPartitionsToTxnTransaction(
                    transactional_id=transactional_id,
                    producer_id=producer_id,
                    producer_epoch=producer_epoch,
                    verify_only=verify_only,
                    topics=[AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in by_topic.items()],
                )
            ]
        )
        try:
            response: Any = await self.client.call(
                coordinator, ADD_PARTITIONS_TO_TXN_KEY, ADD_PARTITIONS_TO_TXN_VERSION, request
            )
        except PeerUnavailable:
            return dict.fromkeys(partitions, ErrorCode.NETWORK_EXCEPTION)
        if response.error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
            # As Kafka's AddPartitionsToTxnManager: the producer is not told of the brokers'
            # own authorization, only that its batch could not be verified.
            log.warning("transaction verification refused: CLUSTER_AUTHORIZATION_FAILED; the inter-broker "
                        "principal needs CLUSTER_ACTION on the cluster", coordinator=coordinator)
            return dict.fromkeys(partitions, ErrorCode.INVALID_TXN_STATE)
        if response.error_code != ErrorCode.NONE:
            return dict.fromkeys(partitions, response.error_code)
        # A partition the answer leaves out is asked again by the producer's retry.
        result: dict[TopicPartition, int] = dict.fromkeys(partitions, ErrorCode.NETWORK_EXCEPTION)
        for txn in response.results_by_transaction:
            if txn.transactional_id != transactional_id:
                continue
            for topic in txn.topic_results:
                for p in topic.results_by_partition:
                    if (topic.name, p.partition_index) in result:
                        result[(topic.name, p.partition_index)] = p.partition_error_code
        return result

