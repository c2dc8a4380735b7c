"""A transactional producer on the wire codec, for the sink's two-phase commit (KIP-939).

Unlike a client library it hands out its (producer id, epoch), can leave a transaction open
when it is done (prepared), and can take over the prepared transaction of an earlier
instance of its transactional id (KeepPreparedTxn) to end it."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from odradek.cli.partitioner import partition_for_key
from pipeline.wire import TRANSACTION_KEY, Cluster, KafkaWireError, check
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from protocol.messages.txn_offset_commit_request import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)

INIT_PRODUCER_ID = (22, 6)
ADD_PARTITIONS_TO_TXN = (24, 3)
ADD_OFFSETS_TO_TXN = (25, 3)
END_TXN = (26, 3)
TXN_OFFSET_COMMIT = (28, 3)
PRODUCE = (0, 9)
NO_PRODUCER_ID = -1
# A batch is sent once its records reach this size (Kafka's batch.size is 16 KiB; larger
# batches cost fewer round trips on this synchronous path, and stay below message.max.bytes).
BATCH_BYTES = 256 * 1024
PRODUCE_TIMEOUT_MS = 30_000

TopicPartition = tuple[str, int]
Row = tuple[str, int, bytes | None, bytes | None, list[tuple[str, bytes]]]


class TxnProducer:
    def __init__(self, cluster: Cluster, transactional_id: str) -> None:
        self.cluster = cluster
        self.transactional_id = transactional_id
        self.producer_id = NO_PRODUCER_ID
        self.producer_epoch = -1
        self._added: set[TopicPartition] = set()
        self._sequences: dict[TopicPartition, int] = {}
        self._pending: dict[TopicPartition, list[rb.Record]] = {}
        self._pending_bytes: dict[TopicPartition, int] = {}
        self._round_robin: dict[str, int] = {}

    # -- producer id ----------------------------------------------------------------------

    def init(self, *, two_phase: bool, keep_prepared: bool = False, timeout_ms: int = 60_000) -> tuple[int, int]:
        """InitProducerId v6. Returns the (producer id, epoch) of the prepared transaction taken
        over with `keep_prepared`, (-1, -1) if none was open (an open one is aborted without it)."""

        def attempt() -> Any:
            resp = self.cluster.coordinator(self.transactional_id, TRANSACTION_KEY).call(
                *INIT_PRODUCER_ID,
                InitProducerIdRequest(
                    transactional_id=self.transactional_id,
                    transaction_timeout_ms=timeout_ms,
                    enable2_pc=two_phase,
                    keep_prepared_txn=keep_prepared,
                ),
            )
            check(resp.error_code, f"InitProducerId({self.transactional_id})")
            return resp

        resp = self.cluster.retrying(attempt, "InitProducerId")
        self.producer_id, self.producer_epoch = resp.producer_id, resp.producer_epoch
        self._added.clear()
        self._sequences.clear()
        return resp.ongoing_txn_producer_id, resp.ongoing_txn_producer_epoch

    def end(self, commit: bool) -> None:
        """EndTxn under this instance's producer id and epoch."""

        def attempt() -> None:
            resp = self.cluster.coordinator(self.transactional_id, TRANSACTION_KEY).call(
                *END_TXN,
                EndTxnRequest(
                    transactional_id=self.transactional_id,
                    producer_id=self.producer_id,
                    producer_epoch=self.producer_epoch,
                    committed=commit,
                ),
            )
            check(resp.error_code, f"EndTxn({self.transactional_id}, commit={commit})")

        self.cluster.retrying(attempt, "EndTxn")

    # -- records --------------------------------------------------------------------------

    def append(self, row: Row) -> None:
        topic, partition, key, value, headers = row
        if partition < 0:
            partition = self._partition_for(topic, key)
        tp = (topic, partition)
        self._pending.setdefault(tp, []).append(
            rb.Record(key, value, list(headers), int(time.time() * 1000))
        )
        size = self._pending_bytes.get(tp, 0) + 32 + len(key or b"") + len(value or b"")
        self._pending_bytes[tp] = size
        if size >= BATCH_BYTES:
            self._send([tp])

    def flush(self) -> None:
        self._send(list(self._pending))

    def _partition_for(self, topic: str, key: bytes | None) -> int:
        """Kafka's default partitioner for keyed records (murmur2); records without a key go
        round robin from a random start."""
        count = self.cluster.partitions(topic)
        if key is not None:
            return partition_for_key(key, count)
        nxt = self._round_robin.get(topic, random.randrange(count))
        self._round_robin[topic] = (nxt + 1) % count
        return nxt

    def _send(self, tps: Sequence[TopicPartition]) -> None:
        tps = [tp for tp in tps if self._pending.get(tp)]
        if not tps:
            return
        self._add_partitions([tp for tp in tps if tp not in self._added])
        by_leader: dict[int, dict[TopicPartition, bytes]] = {}
        for tp in tps:
            records = self._pending.pop(tp)
            self._pending_bytes.pop(tp, None)
            seq = self._sequences.get(tp, 0)
            self._sequences[tp] = seq + len(records)
            batch = rb.build_batch(
                records,
                producer_id=self.producer_id,
                producer_epoch=self.producer_epoch,
                base_sequence=seq,
                transactional=True,
            )
            by_leader.setdefault(self.cluster.leader(*tp), {})[tp] = batch
        for batches in by_leader.values():
            self._produce(batches)

    def _produce(self, batches: dict[TopicPartition, bytes]) -> None:
        """One Produce (acks=all) resent until every batch is appended; a resent batch keeps
        its sequence, so the broker's idempotence check drops a duplicate."""
        left = dict(batches)

        def attempt() -> None:
            topics: dict[str, list[PartitionProduceData]] = {}
            for (topic, partition), batch in left.items():
                topics.setdefault(topic, []).append(PartitionProduceData(index=partition, records=batch))
            node = self.cluster.leader(*next(iter(left)))
            resp = self.cluster.node(node).call(
                *PRODUCE,
                ProduceRequest(
                    transactional_id=self.transactional_id,
                    acks=-1,
                    timeout_ms=PRODUCE_TIMEOUT_MS,
                    topic_data=[TopicProduceData(name=t, partition_data=p) for t, p in topics.items()],
                ),
            )
            failed: KafkaWireError | None = None
            for t in resp.responses:
                for p in t.partition_responses:
                    if p.error_code in (ErrorCode.NONE, ErrorCode.DUPLICATE_SEQUENCE_NUMBER):
                        left.pop((t.name, p.index), None)
                    elif failed is None:
                        failed = KafkaWireError(p.error_code, f"Produce to {t.name}-{p.index}")
            if failed is not None:
                raise failed
            if left:
                raise KafkaWireError(ErrorCode.UNKNOWN_SERVER_ERROR, f"no Produce answer for {sorted(left)}")

        self.cluster.retrying(attempt, "Produce")

    def _add_partitions(self, tps: list[TopicPartition]) -> None:
        if not tps:
            return
        topics: dict[str, list[int]] = {}
        for topic, partition in tps:
            topics.setdefault(topic, []).append(partition)

        def attempt() -> None:
            resp = self.cluster.coordinator(self.transactional_id, TRANSACTION_KEY).call(
                *ADD_PARTITIONS_TO_TXN,
                AddPartitionsToTxnRequest(
                    v3_and_below_transactional_id=self.transactional_id,
                    v3_and_below_producer_id=self.producer_id,
                    v3_and_below_producer_epoch=self.producer_epoch,
                    v3_and_below_topics=[AddPartitionsToTxnTopic(name=t, partitions=p) for t, p in topics.items()],
                ),
            )
            for t in resp.results_by_topic_v3_and_below:
                for p in t.results_by_partition:
                    check(p.partition_error_code, f"AddPartitionsToTxn({t.name}-{p.partition_index})")

        self.cluster.retrying(attempt, "AddPartitionsToTxn")
        self._added.update(tps)

    # -- offsets in the transaction (KIP-98 sendOffsetsToTransaction) ------------------------

    def commit_offsets(self, group: str, offsets: dict[TopicPartition, tuple[int, str]]) -> None:
        def add() -> None:
            resp = self.cluster.coordinator(self.transactional_id, TRANSACTION_KEY).call(
                *ADD_OFFSETS_TO_TXN,
                AddOffsetsToTxnRequest(
                    transactional_id=self.transactional_id,
                    producer_id=self.producer_id,
                    producer_epoch=self.producer_epoch,
                    group_id=group,
                ),
            )
            check(resp.error_code, f"AddOffsetsToTxn({group})")

        topics: dict[str, list[TxnOffsetCommitRequestPartition]] = {}
        for (topic, partition), (offset, metadata) in offsets.items():
            topics.setdefault(topic, []).append(
                TxnOffsetCommitRequestPartition(
                    partition_index=partition, committed_offset=offset, committed_metadata=metadata
                )
            )

        def commit() -> None:
            resp = self.cluster.coordinator(group, 0).call(
                *TXN_OFFSET_COMMIT,
                TxnOffsetCommitRequest(
                    transactional_id=self.transactional_id,
                    group_id=group,
                    producer_id=self.producer_id,
                    producer_epoch=self.producer_epoch,
                    topics=[TxnOffsetCommitRequestTopic(name=t, partitions=p) for t, p in topics.items()],
                ),
            )
            for t in resp.topics:
                for p in t.partitions:
                    check(p.error_code, f"TxnOffsetCommit({group}, {t.name}-{p.partition_index})")

        self.cluster.retrying(add, "AddOffsetsToTxn")
        self.cluster.retrying(commit, "TxnOffsetCommit")
