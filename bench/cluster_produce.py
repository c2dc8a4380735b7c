"""Aggregate produce throughput of a cluster: one producer process per broker, each writing
to the partitions that broker leads (its share of the total), all started at once.

A process per broker rather than threads: librdkafka's own threads are fine with the GIL,
but one client process would put the whole cluster's load on one client's queues and
delivery loop. Each process connects, fetches metadata and gets its producer id first
(one record to each of its partitions), then waits for the common start."""

from __future__ import annotations

import multiprocessing
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from typing import Any

from confluent_kafka import Producer

from bench.clients import WorkloadError, payload, producer_config

_CTX = multiprocessing.get_context("spawn")
MB = 1_000_000


def _produce_share(
    bootstrap: str, topic: str, partitions: list[int], count: int, size: int, timeout: float,
    go: Event, results: Queue[Any],
) -> None:
    try:
        producer = Producer(producer_config(bootstrap, "all", True))
        value = payload(size)
        failures: list[str] = []

        def failed(err: Any, _msg: Any) -> None:
            if err is not None and len(failures) < 3:
                failures.append(err.str())

        for p in partitions:
            producer.produce(topic, value, partition=p, on_delivery=failed)
        if producer.flush(timeout) or failures:
            raise WorkloadError(f"warm-up: {failures[:1] or 'unacknowledged'}")
        results.put(("ready", None))
        if not go.wait(timeout):
            raise WorkloadError("no start signal")
        cpu0, start = time.process_time(), time.time()
        deadline = time.monotonic() + timeout
        n = len(partitions)
        for i in range(count):
            while True:
                try:
                    producer.produce(topic, value, partition=partitions[i % n], on_delivery=failed)
                    break
                except BufferError:
                    producer.poll(0.005)
                    if time.monotonic() > deadline:
                        raise WorkloadError("queue full until the timeout") from None
            if i % 1000 == 0:
                producer.poll(0)
        left = producer.flush(max(0.1, deadline - time.monotonic()))
        if left or failures:
            raise WorkloadError(f"{left} unacknowledged, failures: {failures[:1]}")
        results.put(("done", (start, time.time(), time.process_time() - cpu0)))
    except BaseException as exc:
        results.put(("error", str(exc)[:200] or type(exc).__name__))


def produce_per_leader(
    bootstrap: str, topic: str, by_leader: dict[int, list[int]], count: int, size: int, timeout: float
) -> dict[str, float]:
    """`count` records of `size` bytes over the partitions of `by_leader` (leader -> its
    partitions), split evenly between one producer process per leader. Returns MB/s and
    records/s over the window from the first start to the last acknowledgement, that window
    (`seconds`, `ended_at`: wall clock) and the producers' CPU seconds (`client_cpu_s`)."""
    go = _CTX.Event()
    results: Queue[Any] = _CTX.Queue()
    shares = [count // len(by_leader) + (1 if i < count % len(by_leader) else 0) for i in range(len(by_leader))]
    procs = [
        _CTX.Process(
            target=_produce_share,
            args=(bootstrap, topic, parts, share, size, timeout, go, results),
            name=f"bench-producer-{leader}",
        )
        for (leader, parts), share in zip(sorted(by_leader.items()), shares, strict=True)
    ]
    for proc in procs:
        proc.start()
    try:
        ready = 0
        while ready < len(procs):
            kind, value = results.get(timeout=timeout + 30)
            if kind == "error":
                raise WorkloadError(value)
            ready += 1
        go.set()
        windows = []
        while len(windows) < len(procs):
            kind, value = results.get(timeout=timeout + 30)
            if kind == "error":
                raise WorkloadError(value)
            windows.append(value)
    finally:
        go.set()
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join(5)
    start = min(w[0] for w in windows)
    end = max(w[1] for w in windows)
    seconds = max(end - start, 1e-9)
    return {
        "mb_s": count * size / seconds / MB,
        "records_s": count / seconds,
        "seconds": seconds,
        "ended_at": end,
        "client_cpu_s": sum(w[2] for w in windows),
    }
