"""`odradek produce`, `odradek consume` (quick checks, like kcat or Kafka's console tools)
and `odradek records delete-before` (kafka-delete-records.sh)."""

from __future__ import annotations

import time
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.offsets import EARLIEST, LATEST, list_offsets
from odradek.cli.output import Output
from odradek.cli.partitioner import partition_for_key
from odradek.cli.topics import parse_pairs
from protocol import record_batch as rb
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData

TIMEOUT_MS = 30_000
FETCH_WAIT_MS = 200


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode(errors="replace")


def produce(cluster: Cluster, topic: str, partition: int | None, values: list[str], key: str | None,
            headers: list[str]) -> Output:
    """One batch of `values` to one partition: `partition`, else the key's partition by
    Kafka's default partitioner, else partition 0."""
    if not values:
        raise CliError("nothing to produce: give --value or lines on standard input")
    leaders = cluster.leaders([topic])[topic]
    if partition is None:
        partition = 0 if key is None else partition_for_key(key.encode(), len(leaders))
    if partition not in leaders:
        raise CliError(f"topic {topic} has no partition {partition}")
    now = int(time.time() * 1000)
    header_pairs: list[tuple[str, bytes | None]] = [(k, v.encode()) for k, v in parse_pairs(headers, "--header").items()]
    batch = rb.build_batch([
        rb.Record(None if key is None else key.encode(), v.encode(), header_pairs, now) for v in values
    ])
    resp = cluster.node(leaders[partition]).call(ProduceRequest(
        transactional_id=None, acks=-1, timeout_ms=TIMEOUT_MS,
        topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=partition, records=batch)])],
    ), 9)
    r = resp.responses[0].partition_responses[0]
    check(r.error_code, f"producing to {topic}-{partition}", r.error_message)
    data = {"topic": topic, "partition": partition, "base_offset": r.base_offset, "count": len(values)}
    return Output(data, lines=[f"Produced {len(values)} record(s) to {topic}-{partition} at offset {r.base_offset}."])


def _committed_records(part: Any, batches: list[rb.DecodedBatch]) -> list[rb.Record]:
    """The records a read_committed consumer returns: aborted transactions' records and
    control records dropped (Kafka's Fetcher, from the response's aborted transactions)."""
    aborted = sorted((a.first_offset, a.producer_id) for a in part.aborted_transactions or [])
    open_aborted: set[int] = set()
    out: list[rb.Record] = []
    for batch in batches:
        h = batch.header
        while aborted and aborted[0][0] <= h.last_offset:
            open_aborted.add(aborted.pop(0)[1])
        if h.is_control:
            if rb.parse_control_record(batch.records[0]).control_type == rb.ControlType.ABORT:
                open_aborted.discard(h.producer_id)
            continue
        if h.is_transactional and h.producer_id in open_aborted:
            continue
        out += batch.records
    return out


def _fetch(cluster: Cluster, leader: int, topic: str, offsets: dict[int, int], committed: bool) -> Any:
    resp = cluster.node(leader).call(FetchRequest(
        replica_id=-1, max_wait_ms=FETCH_WAIT_MS, min_bytes=1, max_bytes=10_000_000,
        isolation_level=1 if committed else 0, session_id=0, session_epoch=-1,
        topics=[FetchTopic(topic=topic, partitions=[
            FetchPartition(partition=p, fetch_offset=off, partition_max_bytes=1_000_000)
            for p, off in sorted(offsets.items())])],
    ), 12)
    check(resp.error_code, f"fetching {topic}")
    return resp.responses[0].partitions


def consume(cluster: Cluster, topic: str, partition: int | None, *, from_beginning: bool, offset: int | None,
            max_messages: int | None, committed: bool, timeout_ms: int) -> Output:
    """Records of one partition, or of all, from the start, the end or `offset`, until
    `max_messages` or `timeout_ms` without a new record."""
    leaders = cluster.leaders([topic])[topic]
    if partition is not None and partition not in leaders:
        raise CliError(f"topic {topic} has no partition {partition}")
    chosen = [partition] if partition is not None else sorted(leaders)
    if offset is not None:
        positions = dict.fromkeys(chosen, offset)
    else:
        start = EARLIEST if from_beginning else LATEST
        positions = {p: off for (_, p), off in list_offsets(cluster, [(topic, p) for p in chosen], start).items()}
    by_leader: dict[int, list[int]] = {}
    for p in chosen:
        by_leader.setdefault(leaders[p], []).append(p)
    records: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_ms / 1000
    while (max_messages is None or len(records) < max_messages) and time.monotonic() < deadline:
        for leader, parts in by_leader.items():
            for part in _fetch(cluster, leader, topic, {p: positions[p] for p in parts}, committed):
                check(part.error_code, f"fetching {topic}-{part.partition_index}")
                raw = bytes(part.records or b"")
                batches = rb.decode_batches(raw[: rb.valid_prefix_length(raw)])
                if not batches:
                    continue
                got = _committed_records(part, batches) if committed else [
                    r for b in batches if not b.header.is_control for r in b.records]
                for r in got:
                    if r.offset >= positions[part.partition_index] and (
                            max_messages is None or len(records) < max_messages):
                        records.append({"partition": part.partition_index, "offset": r.offset,
                                         "timestamp": r.timestamp, "key": _text(r.key), "value": _text(r.value),
                                         "headers": {k: _text(v) for k, v in r.headers}})
                positions[part.partition_index] = batches[-1].header.next_offset
                deadline = time.monotonic() + timeout_ms / 1000
    return Output(records, ["partition", "offset", "key", "value", "headers"], records)


def delete_before(cluster: Cluster, topic: str, partition: int | None, offset: int) -> Output:
    leaders = cluster.leaders([topic])[topic]
    chosen = [partition] if partition is not None else sorted(leaders)
    rows: list[dict[str, Any]] = []
    for p in chosen:
        if p not in leaders:
            raise CliError(f"topic {topic} has no partition {p}")
        resp = cluster.node(leaders[p]).call(DeleteRecordsRequest(topics=[DeleteRecordsTopic(
            name=topic, partitions=[DeleteRecordsPartition(partition_index=p, offset=offset)])], timeout_ms=TIMEOUT_MS), 2)
        r = resp.topics[0].partitions[0]
        check(r.error_code, f"deleting records of {topic}-{p}")
        rows.append({"topic": topic, "partition": p, "low_watermark": r.low_watermark})
    return Output(rows, ["topic", "partition", "low_watermark"], rows)
