"""`odradek perf produce`: Kafka's kafka-producer-perf-test.sh (its ProducerPerformance) over
the wire protocol: --num-records records of --record-size bytes (or lines of a
--payload-file) at up to --throughput records/s, batched as a producer batches them
(batch.size, linger.ms of --producer-props), one request in flight; Kafka's 5-second window
lines and final line (records/s, MB/s, latency avg, max and percentiles), a live progress
line on a terminal, the summary as JSON with --json."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.cli.perf_stats import MB, Clock, Progress, Stats, Throttler, summary_line
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData

PRODUCE_VERSION = 9
TIMEOUT_MS = 30_000
# Kafka 4.0's producer defaults for what is honoured here.
DEFAULTS = {"acks": "all", "batch.size": "16384", "linger.ms": "5", "compression.type": "none"}
ACKS = {"all": -1, "-1": -1, "1": 1, "0": 0}


TXN_KEY = 1  # FindCoordinator's key type of a transactional id
RETRY_SECONDS = 10.0


class Transaction:
    """A transactional producer's side of KIP-98 over the wire, as much as the perf tool
    needs: InitProducerId, AddPartitionsToTxn before a partition's first batch, sequences per
    partition, EndTxn to commit (the client protocol of transaction version 1)."""

    def __init__(self, cluster: Cluster, transactional_id: str, timeout_ms: int, clock: Clock) -> None:
        self.cluster, self.tid, self.clock = cluster, transactional_id, clock
        self.coordinator = cluster.coordinator(transactional_id, TXN_KEY)
        resp = self._retrying(lambda: self.coordinator.call(InitProducerIdRequest(
            transactional_id=transactional_id, transaction_timeout_ms=timeout_ms, producer_id=-1, producer_epoch=-1),
            4), "initializing the producer id")
        self.producer_id, self.epoch = resp.producer_id, resp.producer_epoch
        self.sequences: dict[int, int] = {}
        self.added: set[int] = set()
        self.started = clock.now()
        self.committed = 0

    def _retrying(self, call: Callable[[], Any], what: str) -> Any:
        deadline = self.clock.now() + RETRY_SECONDS
        while True:
            resp = call()
            code = resp.error_code
            if code == ErrorCode.NONE or not ErrorCode(code).retriable or self.clock.now() > deadline:
                check(code, f"{what} of {self.tid}")
                return resp
            self.clock.sleep(0.05)

    def add(self, topic: str, partition: int) -> None:
        if partition in self.added:
            return
        def call() -> Any:
            resp = self.coordinator.call(AddPartitionsToTxnRequest(
                v3_and_below_transactional_id=self.tid, v3_and_below_producer_id=self.producer_id,
                v3_and_below_producer_epoch=self.epoch,
                v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=[partition])]), 3)
            results = [p for t in resp.results_by_topic_v3_and_below for p in t.results_by_partition]
            resp.error_code = next((p.partition_error_code for p in results if p.partition_error_code), resp.error_code)
            return resp
        self._retrying(call, f"adding {topic}-{partition} to the transaction")
        self.added.add(partition)

    def batch(self, records: list[rb.Record], partition: int, compression: rb.Compression) -> bytes:
        sequence = self.sequences.get(partition, 0)
        self.sequences[partition] = sequence + len(records)
        return rb.build_batch(records, producer_id=self.producer_id, producer_epoch=self.epoch,
                              base_sequence=sequence, transactional=True, compression=compression)

    def commit(self) -> None:
        if self.added:
            self._retrying(lambda: self.coordinator.call(EndTxnRequest(
                transactional_id=self.tid, producer_id=self.producer_id, producer_epoch=self.epoch, committed=True),
                3), "committing the transaction")
            self.committed += 1
        self.added = set()
        self.started = self.clock.now()


def parse_props(items: list[str]) -> dict[str, str]:
    props = dict(DEFAULTS)
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"Invalid property: {item}: expected key=value")
        props[key.strip()] = value.strip()
    return props


def _payloads(record_size: int | None, payload_file: str | None, delimiter: str,
              rng: random.Random) -> Callable[[], bytes]:
    """Kafka's: one random payload of uppercase letters reused, or a random line of the file."""
    if payload_file is not None:
        try:
            with open(payload_file, encoding="utf-8") as f:
                lines = [p.encode() for p in f.read().split(delimiter) if p]
        except OSError as exc:
            raise CliError(f"{payload_file}: {exc.strerror or exc}") from None
        if not lines:
            raise CliError(f"File does not contain any payload: {payload_file}")
        return lambda: rng.choice(lines)
    if record_size is None or record_size < 0:
        raise CliError("either --record-size or --payload-file must be specified")
    payload = bytes(rng.randrange(65, 91) for _ in range(record_size))
    return lambda: payload


def produce(cluster: Cluster, topic: str, num_records: int, record_size: int | None, throughput: float,
            props_items: list[str], *, payload_file: str | None = None, payload_delimiter: str = "\n",
            report: Callable[[str], None] | None = None, clock: Clock | None = None,
            progress: Progress | None = None, rng: random.Random | None = None,
            transactional_id: str | None = None, transaction_duration_ms: int | None = None) -> Output:
    """With `transactional_id` the records go in transactions committed every
    `transaction_duration_ms` (Kafka's default: 3000) and at the end."""
    clock = clock or Clock()
    progress = progress or Progress(clock)
    props = parse_props(props_items)
    if num_records <= 0:
        raise CliError("--num-records must be greater than 0")
    if props["acks"] not in ACKS:
        raise CliError(f"Invalid value {props['acks']} for configuration acks: String must be one of: all, -1, 0, 1")
    try:
        compression = rb.Compression[props["compression.type"].upper()]
        batch_size, linger = int(props["batch.size"]), int(props["linger.ms"]) / 1000
    except (KeyError, ValueError) as exc:
        raise CliError(f"Invalid producer property: {exc}") from None
    if "bootstrap.servers" in props:
        cluster = Cluster(props["bootstrap.servers"], cluster.timeout, cluster.security)
    next_payload = _payloads(record_size, payload_file, payload_delimiter, rng or random.Random())
    leaders = cluster.leaders([topic])[topic]
    partitions = sorted(leaders)
    acks = ACKS[props["acks"]]
    duration = (3000 if transaction_duration_ms is None else transaction_duration_ms) / 1000
    if transactional_id is None and transaction_duration_ms is not None:
        raise CliError("--transaction-duration-ms needs --transactional-id")
    txn = None if transactional_id is None else Transaction(
        cluster, transactional_id, int(props.get("transaction.timeout.ms", "60000")), clock)
    if txn is not None and acks != -1:
        raise CliError("Must set acks to all in order to use the transactional producer.")
    stats = Stats(clock)
    throttler = Throttler(throughput, clock)
    sent = 0
    batches = 0
    while sent < num_records:
        # Kafka's sticky partitioner: a batch to one partition, the next batch to the next.
        partition = partitions[batches % len(partitions)]
        batches += 1
        records: list[rb.Record] = []
        sent_at: list[float] = []
        size = 0
        opened = clock.now()
        while sent < num_records and size < batch_size:
            due = throttler.start + sent / throughput if throughput > 0 else 0.0
            if records and due > opened + linger:
                break  # the next record is not due before linger.ms is up: send what is ready
            throttler.wait(sent)
            value = next_payload()
            records.append(rb.Record(None, value, [], int(time.time() * 1000)))
            sent_at.append(clock.now())
            size += len(value)
            sent += 1
        if txn is not None:
            txn.add(topic, partition)
        _send(cluster, leaders[partition], topic, partition, records, acks, compression, txn)
        if txn is not None and clock.now() - txn.started >= duration:
            txn.commit()
        acked = clock.now()
        for r, t in zip(records, sent_at, strict=True):
            stats.record(len(r.value or b""), (acked - t) * 1000)
        line = stats.window_line()
        if line is not None and report is not None:
            progress.clear()
            report(line)
        elapsed = max(clock.now() - stats.start, 1e-9)
        progress.show(f"{stats.count}/{num_records} records sent, {stats.count / elapsed:.1f} records/sec "
                      f"({stats.bytes / MB / elapsed:.2f} MB/sec), "
                      f"{stats.latency_total / max(stats.count, 1):.1f} ms avg latency")
    if txn is not None:
        txn.commit()
    progress.clear()
    summary = stats.summary()
    data: dict[str, Any] = {"topic": topic, **summary}
    if txn is not None:
        data["transactions_committed"] = txn.committed
    return Output(data, lines=[summary_line(summary)])


def _send(cluster: Cluster, leader: int, topic: str, partition: int, records: list[rb.Record], acks: int,
          compression: rb.Compression, txn: Transaction | None = None) -> None:
    batch = rb.build_batch(records, compression=compression) if txn is None else txn.batch(records, partition,
                                                                                             compression)
    request = ProduceRequest(transactional_id=None if txn is None else txn.tid, acks=acks, timeout_ms=TIMEOUT_MS,
                             topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(
                                 index=partition, records=batch)])])
    conn = cluster.node(leader)
    if acks == 0:
        # The broker answers nothing with acks=0: the request is written, not waited for.
        conn.wire.send(ProduceRequest.API_KEY, conn.version(ProduceRequest.API_KEY, PRODUCE_VERSION), request)
        return
    resp = conn.call(request, PRODUCE_VERSION)
    r = resp.responses[0].partition_responses[0]
    check(r.error_code, f"producing to {topic}-{partition}", r.error_message)
