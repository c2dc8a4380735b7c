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
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData

PRODUCE_VERSION = 9
TIMEOUT_MS = 30_000
# Kafka 4.0's producer defaults for what is honoured here.
DEFAULTS = {"acks": "all", "batch.size": "16384", "linger.ms": "5", "compression.type": "none"}
ACKS = {"all": -1, "-1": -1, "1": 1, "0": 0}


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
            progress: Progress | None = None, rng: random.Random | None = None) -> Output:
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
        _send(cluster, leaders[partition], topic, partition, records, acks, compression)
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
    progress.clear()
    summary = stats.summary()
    data: dict[str, Any] = {"topic": topic, **summary}
    return Output(data, lines=[summary_line(summary)])


def _send(cluster: Cluster, leader: int, topic: str, partition: int, records: list[rb.Record], acks: int,
          compression: rb.Compression) -> None:
    request = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=TIMEOUT_MS, topic_data=[TopicProduceData(
        name=topic, partition_data=[PartitionProduceData(
            index=partition, records=rb.build_batch(records, compression=compression))])])
    conn = cluster.node(leader)
    if acks == 0:
        # The broker answers nothing with acks=0: the request is written, not waited for.
        conn.wire.send(ProduceRequest.API_KEY, conn.version(ProduceRequest.API_KEY, PRODUCE_VERSION), request)
        return
    resp = conn.call(request, PRODUCE_VERSION)
    r = resp.responses[0].partition_responses[0]
    check(r.error_code, f"producing to {topic}-{partition}", r.error_message)
