"""`odradek transactions` (KIP-664, like Kafka's kafka-transactions.sh) and
`odradek producers describe`."""

from __future__ import annotations

import time
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from protocol.errors import ErrorCode
from protocol.messages.describe_producers_request import DescribeProducersRequest, TopicRequest
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.list_transactions_request import ListTransactionsRequest
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)

TXN_KEY = 1
# States in which the coordinator still expects markers to be written to its partitions.
OPEN_STATES = ("Ongoing", "PrepareCommit", "PrepareAbort")


def list_transactions(cluster: Cluster) -> Output:
    cluster.metadata([])
    rows: list[dict[str, Any]] = []
    for node_id in sorted(cluster.nodes):
        resp = cluster.node(node_id).call(ListTransactionsRequest(state_filters=[], producer_id_filters=[]), 1)
        check(resp.error_code, "ListTransactions")
        rows += [{"transactional_id": t.transactional_id, "coordinator": node_id, "producer_id": t.producer_id,
                  "state": t.transaction_state} for t in resp.transaction_states]
    rows.sort(key=lambda r: r["transactional_id"])
    return Output(rows, ["transactional_id", "coordinator", "producer_id", "state"], rows)


def _describe(cluster: Cluster, tid: str) -> dict[str, Any]:
    conn = cluster.coordinator(tid, TXN_KEY)
    resp = conn.call(DescribeTransactionsRequest(transactional_ids=[tid]), 0)
    s = resp.transaction_states[0]
    if s.error_code == ErrorCode.TRANSACTIONAL_ID_NOT_FOUND:
        raise CliError(f"transactional id {tid} does not exist")
    check(s.error_code, f"transactional id {tid}")
    partitions = sorted(f"{t.topic}-{p}" for t in s.topics for p in t.partitions)
    return {
        "transactional_id": tid, "producer_id": s.producer_id, "producer_epoch": s.producer_epoch,
        "state": s.transaction_state, "timeout_ms": s.transaction_timeout_ms,
        "start_time_ms": s.transaction_start_time_ms, "partitions": partitions,
    }


def describe(cluster: Cluster, tid: str) -> Output:
    d = _describe(cluster, tid)
    return Output(d, list(d), [d])


def _partitions(cluster: Cluster, topic: str | None, partition: int | None, broker_id: int | None
                ) -> dict[int, dict[str, list[int]]]:
    """The partitions to search, grouped by leader: one topic (or one partition of it), or
    every partition a broker leads."""
    if topic is not None:
        leaders = cluster.leaders([topic])[topic]
        if partition is not None and partition not in leaders:
            raise CliError(f"topic {topic} has no partition {partition}")
        chosen = [partition] if partition is not None else sorted(leaders)
        out: dict[int, dict[str, list[int]]] = {}
        for p in chosen:
            out.setdefault(leaders[p], {}).setdefault(topic, []).append(p)
        return out
    if broker_id is None:
        raise CliError("name the partitions to search: --topic TOPIC [--partition P] or --broker-id ID")
    resp = cluster.metadata(None)
    by_topic: dict[str, list[int]] = {}
    for t in resp.topics:
        for p in t.partitions:
            if p.leader_id == broker_id:
                by_topic.setdefault(t.name, []).append(p.partition_index)
    return {broker_id: by_topic}


def open_transactions(cluster: Cluster, targets: dict[int, dict[str, list[int]]]) -> list[dict[str, Any]]:
    """Every producer with a transaction open at the partitions, by DescribeProducers."""
    found: list[dict[str, Any]] = []
    for leader, topics in targets.items():
        if not topics:
            continue
        resp = cluster.node(leader).call(DescribeProducersRequest(
            topics=[TopicRequest(name=t, partition_indexes=ps) for t, ps in sorted(topics.items())]), 0)
        for t in resp.topics:
            for p in t.partitions:
                check(p.error_code, f"producers of {t.name}-{p.partition_index}", p.error_message)
                found += [{"topic": t.name, "partition": p.partition_index, "producer_id": s.producer_id,
                           "producer_epoch": s.producer_epoch, "coordinator_epoch": s.coordinator_epoch,
                           "start_offset": s.current_txn_start_offset, "last_timestamp": s.last_timestamp,
                           "last_sequence": s.last_sequence}
                          for s in p.active_producers]
    return found


def describe_producers(cluster: Cluster, topic: str, partition: int | None) -> Output:
    rows = open_transactions(cluster, _partitions(cluster, topic, partition, None))
    rows.sort(key=lambda r: (r["topic"], r["partition"], r["producer_id"]))
    return Output(rows, ["topic", "partition", "producer_id", "producer_epoch", "last_sequence",
                         "last_timestamp", "coordinator_epoch", "start_offset"], rows)


def _transactional_ids(cluster: Cluster, producer_ids: list[int]) -> dict[int, str]:
    cluster.metadata([])
    out: dict[int, str] = {}
    for node_id in sorted(cluster.nodes):
        resp = cluster.node(node_id).call(
            ListTransactionsRequest(state_filters=[], producer_id_filters=producer_ids), 1)
        check(resp.error_code, "ListTransactions")
        out.update({t.producer_id: t.transactional_id for t in resp.transaction_states})
    return out


def _is_hanging(txn: dict[str, Any], desc: dict[str, Any] | None) -> bool:
    """Kafka's FindHangingTransactionsCommand: the partition has a transaction open that its
    coordinator does not know of, or no longer expects to complete there."""
    if desc is None:
        return True
    if desc["state"] not in OPEN_STATES:
        return True
    return desc["producer_id"] != txn["producer_id"] or f"{txn['topic']}-{txn['partition']}" not in desc["partitions"]


def find_hanging(cluster: Cluster, topic: str | None, partition: int | None, broker_id: int | None,
                 max_timeout_minutes: int) -> Output:
    candidates = open_transactions(cluster, _partitions(cluster, topic, partition, broker_id))
    candidates = [c for c in candidates if c["start_offset"] >= 0]
    # A transaction younger than the longest timeout a producer may have can still complete.
    now = int(time.time() * 1000)
    candidates = [c for c in candidates if now - c["last_timestamp"] > max_timeout_minutes * 60_000]
    tids = _transactional_ids(cluster, sorted({c["producer_id"] for c in candidates})) if candidates else {}
    described: dict[str, dict[str, Any] | None] = {}
    for known in sorted(set(tids.values())):
        try:
            described[known] = _describe(cluster, known)
        except CliError:
            described[known] = None
    hanging = []
    for c in candidates:
        tid = tids.get(c["producer_id"])
        if _is_hanging(c, described.get(tid) if tid is not None else None):
            hanging.append({**c, "transactional_id": tid, "duration_ms": now - c["last_timestamp"]})
    hanging.sort(key=lambda r: (r["topic"], r["partition"], r["producer_id"]))
    columns = ["topic", "partition", "producer_id", "producer_epoch", "coordinator_epoch", "start_offset",
               "last_timestamp", "duration_ms", "transactional_id"]
    return Output(hanging, columns, hanging)


def abort(cluster: Cluster, topic: str, partition: int, start_offset: int | None, producer_id: int | None,
          producer_epoch: int | None, coordinator_epoch: int | None) -> Output:
    """Writes an abort marker at one partition (WriteTxnMarkers to its leader), like
    kafka-transactions.sh abort: the producer is found by its transaction's start offset,
    or named with its id, epoch and coordinator epoch."""
    leaders = cluster.leaders([topic])[topic]
    if partition not in leaders:
        raise CliError(f"topic {topic} has no partition {partition}")
    if start_offset is not None:
        open_txns = open_transactions(cluster, {leaders[partition]: {topic: [partition]}})
        match = [t for t in open_txns if t["start_offset"] == start_offset]
        if not match:
            raise CliError(f"no transaction open at {topic}-{partition} starts at offset {start_offset}")
        producer_id = match[0]["producer_id"]
        producer_epoch = match[0]["producer_epoch"]
        coordinator_epoch = match[0]["coordinator_epoch"]
    if producer_id is None or producer_epoch is None or coordinator_epoch is None:
        raise CliError("give --start-offset, or all of --producer-id, --producer-epoch and --coordinator-epoch")
    resp = cluster.node(leaders[partition]).call(WriteTxnMarkersRequest(markers=[WritableTxnMarker(
        producer_id=producer_id, producer_epoch=producer_epoch, transaction_result=False,
        topics=[WritableTxnMarkerTopic(name=topic, partition_indexes=[partition])],
        coordinator_epoch=max(coordinator_epoch, 0),
    )]), 1)
    for m in resp.markers:
        for t in m.topics:
            for p in t.partitions:
                check(p.error_code, f"aborting the transaction at {t.name}-{p.partition_index}")
    data = {"topic": topic, "partition": partition, "producer_id": producer_id, "producer_epoch": producer_epoch,
            "coordinator_epoch": coordinator_epoch, "aborted": True}
    return Output(data, lines=[f"Aborted the transaction of producer {producer_id} at {topic}-{partition}."])
