"""The transaction coordinator's markers in a cluster (Kafka's TransactionMarkerChannelManager):
each partition's marker goes to the partition's leader, the partitions grouped by leader into
one WriteTxnMarkers request each, sent concurrently. Partitions this broker leads keep the
local path (coordinator/transaction/markers.py's EngineMarkerWriter, the code WriteTxnMarkers
runs on the leader).

Nothing is retried here: the coordinator's completion (coordinator/transaction/completion.py)
retries the partitions answered NOT_LEADER_OR_FOLLOWER, NETWORK_EXCEPTION and the like after
its backoff, and each attempt looks the leaders up again, so a marker follows its partition
to the new leader. A marker written twice (an answer lost on the way) is harmless: the
leader's checks (storage/txn_markers.py) refuse a marker of an older coordinator epoch
(TRANSACTION_COORDINATOR_FENCED, ending the completion) and a second marker of the same
transaction closes nothing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog

from broker.inter_broker import InterBrokerClient, PeerUnavailable
from coordinator.transaction.markers import MarkerWriter
from protocol.errors import ErrorCode
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from storage.errors import StorageError, UnknownTopicOrPartitionError
from storage.topic_partition import TopicPartition

if TYPE_CHECKING:
    from storage.postgres.cluster.node import ClusterNode

log = structlog.get_logger("odradek.txn")

WRITE_TXN_MARKERS_KEY = 27
# v2 carries the transaction version (KIP-890 part 2: the leader's strict epoch rule).
WRITE_TXN_MARKERS_VERSION = 2

LeaderOf = Callable[[tuple[uuid.UUID, int]], tuple[int | None, int]]
# Whether this broker serves a partition now (NONE), as the data plane checks it.
Serving = Callable[[tuple[uuid.UUID, int]], ErrorCode]
TopicId = Callable[[str], uuid.UUID]


class ClusterMarkerWriter:
    """A MarkerWriter for a broker of a cluster. `leader_of` is the cluster's leadership
    view; `topic_id(name)` raises UnknownTopicOrPartitionError for a deleted topic."""

    def __init__(
        self,
        node_id: int,
        local: MarkerWriter,
        client: InterBrokerClient,
        leader_of: LeaderOf,
        serving: Serving,
        topic_id: TopicId,
    ) -> None:
        self.node_id = node_id
        self.local = local
        self.client = client
        self.leader_of = leader_of
        self.serving = serving
        self.topic_id = topic_id
        # Leaders whose last answer refused this broker's principal.
        self._refusing: set[int] = set()

    async def write_markers(
        self,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: list[TopicPartition],
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]:
        result: dict[TopicPartition, int] = {}
        by_leader: dict[int, list[TopicPartition]] = {}
        for tp in partitions:
            try:
                key = (self.topic_id(tp[0]), tp[1])
            except UnknownTopicOrPartitionError:
                result[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            except StorageError as exc:
                result[tp] = exc.error_code
                continue
            leader, _ = self.leader_of(key)
            if leader is None or leader < 0:
                # No leader now (its broker died, the controller has yet to move it).
                result[tp] = ErrorCode.NOT_LEADER_OR_FOLLOWER
                continue
            if leader == self.node_id and (refused := self.serving(key)) != ErrorCode.NONE:
                # Elected here but not served yet (still reading the partition back).
                result[tp] = refused
                continue
            by_leader.setdefault(leader, []).append(tp)

        async def send(leader: int, tps: list[TopicPartition]) -> dict[TopicPartition, int]:
            if leader == self.node_id:
                return await self.local.write_markers(
                    producer_id, producer_epoch, coordinator_epoch, committed, tps, transaction_version
                )
            return await self._remote(
                leader, producer_id, producer_epoch, coordinator_epoch, committed, tps, transaction_version
            )

        answers = await asyncio.gather(*(send(leader, tps) for leader, tps in by_leader.items()))
        for answer in answers:
            result.update(answer)
        return result

    async def _remote(
        self,
        leader: int,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: list[TopicPartition],
        transaction_version: int,
    ) -> dict[TopicPartition, int]:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append(partition)
        request = WriteTxnMarkersRequest(
            markers=[
                WritableTxnMarker(
                    producer_id=producer_id,
                    producer_epoch=producer_epoch,
                    transaction_result=committed,
                    topics=[WritableTxnMarkerTopic(name=t, partition_indexes=ps) for t, ps in by_topic.items()],
                    coordinator_epoch=coordinator_epoch,
                    transaction_version=transaction_version,
                )
            ]
        )
        try:
            response = await self.client.call(leader, WRITE_TXN_MARKERS_KEY, WRITE_TXN_MARKERS_VERSION, request)
        except PeerUnavailable as exc:
            log.info("transaction markers not sent", leader=leader, error=str(exc))
            return dict.fromkeys(partitions, ErrorCode.NETWORK_EXCEPTION)
        # A partition the answer leaves out is retried.
        result: dict[TopicPartition, int] = dict.fromkeys(partitions, ErrorCode.UNKNOWN_SERVER_ERROR)
        for marker in response.markers:
            for topic in marker.topics:
                for p in topic.partitions:
                    if (topic.name, p.partition_index) in result:
                        result[(topic.name, p.partition_index)] = p.error_code
        self._note_authorization(leader, ErrorCode.CLUSTER_AUTHORIZATION_FAILED in result.values())
        return result

    def _note_authorization(self, leader: int, refused: bool) -> None:
        """Logs once when a leader starts refusing this broker's markers for want of
        CLUSTER_ACTION (retried until an ACL allows them), and once when it stops."""
        if refused and leader not in self._refusing:
            self._refusing.add(leader)
            log.warning(
                "transaction markers refused: CLUSTER_AUTHORIZATION_FAILED, retrying; the inter-broker "
                "principal needs CLUSTER_ACTION on the cluster", leader=leader,
            )
        elif not refused and leader in self._refusing:
            self._refusing.discard(leader)
            log.info("transaction markers accepted again", leader=leader)


def inter_broker_addresses(node: ClusterNode, listener: str) -> Callable[[int], tuple[str, int] | None]:
    """Where each live broker of `node`'s cluster listens on `listener`, as it registered it
    (None for a broker without one: every broker of a cluster must have the inter-broker
    listener, as in Kafka)."""

    def address(node_id: int) -> tuple[str, int] | None:
        for broker in node.brokers:
            if broker.node_id == node_id:
                endpoint = next((e for e in broker.endpoints if e.listener == listener), None)
                return (endpoint.host, endpoint.port) if endpoint is not None else None
        return None

    return address
