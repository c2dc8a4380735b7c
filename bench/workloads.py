"""The workloads. Each takes a bootstrap address and its parameters, sets up a topic of its
own, times only the measured part, and returns its figures by metric name. A broker that
misbehaves makes it raise; the runner turns that into an error cell."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer
from confluent_kafka import TopicPartition as CkTopicPartition

from bench.clients import (
    REQUEST_TIMEOUT_MS,
    WorkloadError,
    confluent_base,
    create_topic,
    payload,
    prefill,
    produce_all,
    producer_config,
    stamp_of,
    stamped,
    unique,
)

Metrics = dict[str, float]
MB = 1_000_000


def throughput(records: int, size: int, seconds: float) -> Metrics:
    """Called at the end of the measured part: its window (`ended_at` minus `seconds`, wall
    clock) lets the bench cut the brokers' CPU time of that part out (bench/cpu.py)."""
    seconds = max(seconds, 1e-9)
    return {
        "mb_s": records * size / seconds / MB,
        "records_s": records / seconds,
        "mb": records * size / MB,
        "seconds": seconds,
        "ended_at": time.time(),
    }


def _run_async(coro: Any, timeout: float) -> Any:
    async def bounded() -> Any:
        try:
            return await asyncio.wait_for(coro, timeout)
        except TimeoutError:
            raise WorkloadError(f"timed out after {timeout:.0f}s") from None

    return asyncio.run(bounded())


def _aio_producer(bootstrap: str, acks: str, idempotent: bool, **extra: Any) -> AIOKafkaProducer:
    return AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        acks="all" if idempotent else (int(acks) if acks != "all" else "all"),
        enable_idempotence=idempotent,
        linger_ms=5,
        max_batch_size=262_144,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
        **extra,
    )


# ---------------------------------------------------------------- produce


def produce_confluent(
    bootstrap: str,
    size: int,
    count: int,
    acks: str,
    idempotent: bool,
    timeout: float,
    via: tuple[str, dict[str, Any]] | None = None,
) -> Metrics:
    """`via`: another listener's bootstrap and client settings for the measured producer."""
    topic = unique("produce")
    create_topic(bootstrap, topic)
    client_bootstrap, extra = via or (bootstrap, {})
    producer = Producer(producer_config(client_bootstrap, acks, idempotent, **extra))
    value = payload(size)
    produce_all(producer, topic, value, 1, timeout)  # connect, metadata, producer id
    start = time.perf_counter()
    produce_all(producer, topic, value, count, timeout)
    return throughput(count, size, time.perf_counter() - start)


async def _produce_aio(bootstrap: str, size: int, count: int, acks: str, idempotent: bool) -> Metrics:
    topic = unique("produce")
    create_topic(bootstrap, topic)
    producer = _aio_producer(bootstrap, acks, idempotent)
    try:
        await producer.start()
        value = payload(size)
        await producer.send_and_wait(topic, value)
        start = time.perf_counter()
        futures = [await producer.send(topic, value) for _ in range(count)]
        await asyncio.gather(*futures)
        return throughput(count, size, time.perf_counter() - start)
    finally:
        await producer.stop()


def produce_aiokafka(
    bootstrap: str, size: int, count: int, acks: str, idempotent: bool, timeout: float
) -> Metrics:
    return dict(_run_async(_produce_aio(bootstrap, size, count, acks, idempotent), timeout))


# ---------------------------------------------------------------- consume


def consume_confluent(
    bootstrap: str, size: int, count: int, timeout: float, via: tuple[str, dict[str, Any]] | None = None
) -> Metrics:
    """`via`: another listener's bootstrap and client settings for the measured consumer."""
    topic = unique("consume")
    create_topic(bootstrap, topic)
    prefill(bootstrap, topic, payload(size), count, timeout)
    client_bootstrap, extra = via or (bootstrap, {})
    conf = confluent_base(client_bootstrap)
    conf.update(extra)
    conf.update({
        "group.id": unique("group"), "enable.auto.commit": False, "enable.partition.eof": False,
        # librdkafka stops fetching for fetch.queue.backoff.ms (1 s by default) whenever its
        # queue passes queued.min.messages, which a broker faster than the application's
        # loop always triggers: the row would time that sleep (0, 1 or 2 of them per run, by
        # chance), not the broker. A short recheck keeps the queue bounded all the same.
        "fetch.queue.backoff.ms": 10,
    })
    consumer = Consumer(conf)
    try:
        consumer.list_topics(topic, timeout=10)  # connect before the clock starts
        deadline = time.monotonic() + timeout
        start = time.perf_counter()
        consumer.assign([CkTopicPartition(topic, 0, OFFSET_BEGINNING)])
        got = 0
        while got < count:
            if time.monotonic() > deadline:
                raise WorkloadError(f"consumed {got} of {count} records in {timeout:.0f}s")
            for msg in consumer.consume(min(10_000, count - got), 0.5):
                err = msg.error()
                if err is not None:
                    raise WorkloadError(f"consume: {err.str()}")
                got += 1
        return throughput(count, size, time.perf_counter() - start)
    finally:
        consumer.close()


async def _consume_aio(bootstrap: str, size: int, count: int, timeout: float) -> Metrics:
    topic = unique("consume")
    create_topic(bootstrap, topic)
    prefill(bootstrap, topic, payload(size), count, timeout)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        request_timeout_ms=REQUEST_TIMEOUT_MS,
    )
    try:
        await consumer.start()
        tp = TopicPartition(topic, 0)
        start = time.perf_counter()
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        got = 0
        while got < count:
            batches = await consumer.getmany(tp, timeout_ms=500, max_records=10_000)
            got += sum(len(records) for records in batches.values())
        return throughput(count, size, time.perf_counter() - start)
    finally:
        await consumer.stop()


def consume_aiokafka(bootstrap: str, size: int, count: int, timeout: float) -> Metrics:
    return dict(_run_async(_consume_aio(bootstrap, size, count, timeout), timeout))


# ---------------------------------------------------------------- transactions


def _transactional_confluent(bootstrap: str) -> Producer:
    producer = Producer(
        producer_config(
            bootstrap,
            "all",
            True,
            **{"transactional.id": unique("txn"), "transaction.timeout.ms": 60_000},
        )
    )
    try:
        producer.init_transactions(20)
    except KafkaException as exc:
        raise WorkloadError(f"init_transactions: {exc.args[0].str()}") from None
    return producer


def _commit(producer: Producer, timeout: float) -> None:
    try:
        producer.commit_transaction(timeout)
    except KafkaException as exc:
        raise WorkloadError(f"commit_transaction: {exc.args[0].str()}") from None


def small_txns_confluent(
    bootstrap: str, size: int, per_txn: int, count: int, budget: float, timeout: float
) -> Metrics:
    topic = unique("txn-small")
    create_topic(bootstrap, topic)
    producer = _transactional_confluent(bootstrap)
    value = payload(size)
    done = 0
    start = time.perf_counter()
    while done < count and time.perf_counter() - start < budget:
        producer.begin_transaction()
        for _ in range(per_txn):
            producer.produce(topic, value)
        _commit(producer, timeout)
        done += 1
    seconds = time.perf_counter() - start
    return _txn_rate(done, per_txn, seconds)


def _txn_rate(done: int, per_txn: int, seconds: float) -> Metrics:
    """`txns`, `seconds` and `ended_at` let the bench cut the brokers' CPU of the measured
    part out, per 1,000 transactions (bench/cpu.py)."""
    return {
        "txn_s": done / seconds, "records_s": done * per_txn / seconds,
        "txns": done, "seconds": seconds, "ended_at": time.time(),
    }


def concurrent_txns_confluent(
    bootstrap: str, size: int, per_txn: int, producers: int, count: int, budget: float, timeout: float
) -> Metrics:
    """`producers` transactional producers at once, each on its own partition of one topic,
    each running begin, `per_txn` records, commit until `count` transactions or `budget`
    seconds; librdkafka releases the GIL while it waits, so threads are enough."""
    topic = unique("txn-concurrent")
    create_topic(bootstrap, topic, partitions=producers)
    clients = [_transactional_confluent(bootstrap) for _ in range(producers)]
    value = payload(size)
    done = [0] * producers
    errors: list[BaseException] = []
    start = time.perf_counter()

    def run(i: int) -> None:
        producer = clients[i]
        try:
            while done[i] < count and time.perf_counter() - start < budget:
                producer.begin_transaction()
                for _ in range(per_txn):
                    producer.produce(topic, value, partition=i)
                _commit(producer, timeout)
                done[i] += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), name=f"txn-{i}") for i in range(producers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout + budget)
    seconds = time.perf_counter() - start
    if errors:
        raise errors[0]
    return _txn_rate(sum(done), per_txn, seconds)


def large_txn_confluent(bootstrap: str, size: int, count: int, timeout: float) -> Metrics:
    topic = unique("txn-large")
    create_topic(bootstrap, topic)
    producer = _transactional_confluent(bootstrap)
    value = payload(size)
    start = time.perf_counter()
    producer.begin_transaction()
    produce_all(producer, topic, value, count, timeout)
    _commit(producer, timeout)
    return throughput(count, size, time.perf_counter() - start)


async def _small_txns_aio(bootstrap: str, size: int, per_txn: int, count: int, budget: float) -> Metrics:
    topic = unique("txn-small")
    create_topic(bootstrap, topic)
    producer = _aio_producer(bootstrap, "all", True, transactional_id=unique("txn"))
    try:
        await producer.start()
        value = payload(size)
        done = 0
        start = time.perf_counter()
        while done < count and time.perf_counter() - start < budget:
            async with producer.transaction():
                for _ in range(per_txn):
                    await producer.send(topic, value)
            done += 1
        seconds = time.perf_counter() - start
        return _txn_rate(done, per_txn, seconds)
    finally:
        await producer.stop()


def small_txns_aiokafka(
    bootstrap: str, size: int, per_txn: int, count: int, budget: float, timeout: float
) -> Metrics:
    return dict(_run_async(_small_txns_aio(bootstrap, size, per_txn, count, budget), timeout))


async def _large_txn_aio(bootstrap: str, size: int, count: int) -> Metrics:
    topic = unique("txn-large")
    create_topic(bootstrap, topic)
    producer = _aio_producer(bootstrap, "all", True, transactional_id=unique("txn"))
    try:
        await producer.start()
        value = payload(size)
        start = time.perf_counter()
        async with producer.transaction():
            futures = [await producer.send(topic, value) for _ in range(count)]
            await asyncio.gather(*futures)
        return throughput(count, size, time.perf_counter() - start)
    finally:
        await producer.stop()


def large_txn_aiokafka(bootstrap: str, size: int, count: int, timeout: float) -> Metrics:
    return dict(_run_async(_large_txn_aio(bootstrap, size, count), timeout))


# ---------------------------------------------------------------- end-to-end latency


class LatencyConsumer:
    """A read_committed consumer on a thread of its own that records, for every stamped
    record, the time from its stamp to its arrival. A record starting with b"W" is the
    warm-up: it only signals that the consumer is connected and fetching."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        conf = confluent_base(bootstrap)
        conf.update(
            {
                "group.id": unique("group"),
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
            }
        )
        self.consumer = Consumer(conf)
        self.consumer.assign([CkTopicPartition(topic, 0, OFFSET_BEGINNING)])
        self.latencies: list[int] = []
        self.errors: list[str] = []
        self.warmed_up = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._consume, daemon=True)
        self._thread.start()

    def _consume(self) -> None:
        while not self._stop.is_set():
            msg = self.consumer.poll(0.05)
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                self.errors.append(err.str())
                continue
            now = time.monotonic_ns()
            value = msg.value()
            if value and value[:1] == b"W":
                self.warmed_up.set()
            elif value:
                self.latencies.append(now - stamp_of(value))

    def wait_warm(self, timeout: float) -> None:
        if not self.warmed_up.wait(timeout):
            raise WorkloadError(f"warm-up record not consumed in {timeout:.0f}s: {self.errors[:1]}")

    def wait_for(self, total: int, timeout: float) -> Metrics:
        deadline = time.monotonic() + timeout
        while len(self.latencies) < total and time.monotonic() < deadline:
            time.sleep(0.02)
        if len(self.latencies) < total:
            raise WorkloadError(f"{len(self.latencies)} of {total} records arrived")
        ms = sorted(x / 1e6 for x in self.latencies)
        return {
            "p50_ms": statistics.median(ms),
            "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
            "max_ms": ms[-1],
        }

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.consumer.close()


def warm_up_record(size: int) -> bytes:
    return b"W" + b"\0" * (size - 1)


def _pace(start: float, i: int, rate: int) -> None:
    delay = start + i / rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def e2e_latency_confluent(bootstrap: str, size: int, rate: int, seconds: float, timeout: float) -> Metrics:
    """Idempotent acks=all producer at a fixed rate into a read_committed consumer in the
    same process; each record carries its send time."""
    topic = unique("latency")
    create_topic(bootstrap, topic)
    consumer = LatencyConsumer(bootstrap, topic)
    producer = Producer(producer_config(bootstrap, "all", True, **{"linger.ms": 0}))
    try:
        producer.produce(topic, warm_up_record(size))  # not measured
        producer.flush(timeout)
        consumer.wait_warm(timeout)
        total = int(rate * seconds)
        start = time.monotonic()
        for i in range(total):
            _pace(start, i, rate)
            producer.produce(topic, stamped(size))
            producer.poll(0)
        if producer.flush(timeout):
            raise WorkloadError("records unacknowledged")
        return consumer.wait_for(total, timeout)
    finally:
        consumer.close()


class BackgroundLoad:
    """The load beside a latency measurement: `bench/background_load.py` in a process of its
    own, writing `size`-byte records acks=all (idempotent) as fast as the broker takes them,
    round-robin over the partitions of a topic of its own, until closed."""

    def __init__(self, bootstrap: str, size: int, partitions: int, timeout: float) -> None:
        self.topic = unique("load")
        create_topic(bootstrap, self.topic, partitions)
        self._size = size
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "bench.background_load", bootstrap, self.topic, str(size), str(partitions),
             str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
        )
        ready = _read_line(self._proc, timeout)
        if ready != "ready":
            self._proc.kill()
            raise WorkloadError(f"load producer did not start: {ready!r}")

    def close(self, timeout: float) -> float:
        """Stop, wait for the acknowledgements in flight; the load's MB/s acknowledged."""
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write("stop\n")
            self._proc.stdin.flush()
            line = _read_line(self._proc, timeout + 10)
        finally:
            self._proc.kill()
            self._proc.wait()
        try:
            result = json.loads(line)
        except ValueError:
            raise WorkloadError(f"load producer: {line!r}") from None
        if result["errors"]:
            raise WorkloadError(f"load producer: {result['errors'][0]}")
        return float(result["acked"]) * self._size / max(float(result["seconds"]), 1e-9) / MB


def _read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The child's next stdout line, or "" once `timeout` passed or it ended."""
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout)
    return lines[0].strip() if lines else ""


def e2e_latency_under_load_confluent(
    bootstrap: str, size: int, rate: int, seconds: float, timeout: float, load_size: int, load_partitions: int
) -> Metrics:
    """The end-to-end latency row while another producer writes `load_size`-byte records
    acks=all at full speed to other partitions of the same broker (a topic of its own)."""
    load = BackgroundLoad(bootstrap, load_size, load_partitions, timeout)
    try:
        time.sleep(0.5)  # the load reaches its pace before the measured part
        result = e2e_latency_confluent(bootstrap, size, rate, seconds, timeout)
    finally:
        load_mb_s = load.close(timeout)
    result["load_mb_s"] = load_mb_s
    return result


def e2e_latency_after_fill_confluent(
    bootstrap: str, size: int, rate: int, seconds: float, timeout: float, fill_mb: int, fill_size: int
) -> Metrics:
    """The end-to-end latency row right after `fill_mb` MB were written (1 KiB records,
    acks=1, a topic of its own, until the last acknowledgement): what the write-back of a
    large write leaves for a small record that does not depend on it."""
    topic = unique("fill")
    create_topic(bootstrap, topic, 4)
    producer = Producer(producer_config(bootstrap, "1", False, **{"linger.ms": 5, "batch.size": 1_000_000}))
    count = fill_mb * MB // fill_size
    start = time.perf_counter()
    produce_all(producer, topic, payload(fill_size), count, timeout, 4)
    fill_seconds = time.perf_counter() - start
    result = e2e_latency_confluent(bootstrap, size, rate, seconds, timeout)
    result["fill_mb_s"] = fill_mb / max(fill_seconds, 1e-9)
    return result


def txn_latency_confluent(
    bootstrap: str, size: int, per_txn: int, rate: int, seconds: float, timeout: float
) -> Metrics:
    """A transactional producer commits every `per_txn` records, at most `rate` transactions
    a second; a read_committed consumer in the same process takes each record's time from
    its send to its arrival, so the figure includes the commit: the records are visible
    only once the COMMIT marker moved the last stable offset."""
    topic = unique("txn-latency")
    create_topic(bootstrap, topic)
    consumer = LatencyConsumer(bootstrap, topic)
    producer = _transactional_confluent(bootstrap)
    try:
        producer.begin_transaction()
        producer.produce(topic, warm_up_record(size))  # not measured
        _commit(producer, timeout)
        consumer.wait_warm(timeout)
        total = int(rate * seconds)
        start = time.monotonic()
        for i in range(total):
            _pace(start, i, rate)
            producer.begin_transaction()
            for _ in range(per_txn):
                producer.produce(topic, stamped(size))
            _commit(producer, timeout)
        return consumer.wait_for(total * per_txn, timeout)
    finally:
        consumer.close()


# ---------------------------------------------------------------- many partitions, many connections


def many_partitions_confluent(
    bootstrap: str, partitions: int, size: int, count: int, timeout: float
) -> Metrics:
    """Create a topic with many partitions and produce round-robin over all of them; it
    worked when every record is acknowledged and every partition received some."""
    topic = unique("partitions")
    start = time.perf_counter()
    create_topic(bootstrap, topic, partitions, timeout)
    created = time.perf_counter() - start
    seen: set[int] = set()
    failures: list[str] = []

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None:
            failures.append(err.str())
        else:
            seen.add(msg.partition())

    producer = Producer(producer_config(bootstrap, "1", False, **{"delivery.report.only.error": False}))
    value = payload(size)
    start = time.perf_counter()
    produce_all(producer, topic, value, count, timeout, partitions, on_delivery)
    seconds = time.perf_counter() - start
    if failures:
        raise WorkloadError(f"delivery failed: {failures[0]}")
    result = throughput(count, size, seconds)
    result["create_s"] = created
    result["ok"] = 1.0 if len(seen) == partitions else 0.0
    return result


def many_connections_confluent(
    bootstrap: str, connections: int, partitions: int, size: int, per_connection: int, timeout: float
) -> Metrics:
    """Many producers, each with its own connection, sending at once (acks=1)."""
    topic = unique("connections")
    create_topic(bootstrap, topic, partitions)
    value = payload(size)
    producers = [Producer(producer_config(bootstrap, "1", False)) for _ in range(connections)]
    deadline = time.monotonic() + timeout
    for producer in producers:  # connect each and learn the partition leaders
        produce_all(producer, topic, value, 1, timeout)
    start = time.perf_counter()
    for _ in range(per_connection):
        for i, producer in enumerate(producers):
            _produce_retrying(producer, topic, value, i % partitions, deadline)
    remaining = sum(p.flush(max(0.1, deadline - time.monotonic())) for p in producers)
    seconds = time.perf_counter() - start
    if remaining:
        raise WorkloadError(f"{remaining} records unacknowledged after {timeout:.0f}s")
    return throughput(connections * per_connection, size, seconds)


def _produce_retrying(producer: Producer, topic: str, value: bytes, partition: int, deadline: float) -> None:
    while True:
        try:
            producer.produce(topic, value, partition=partition)
            return
        except BufferError:
            producer.poll(0.005)
            if time.monotonic() > deadline:
                raise WorkloadError("timed out with the queue full") from None


# ---------------------------------------------------------------- TLS listeners


def _listener(protocol: str, secure: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The bootstrap and librdkafka settings of odradek's SSL or SASL_SSL listener."""
    conf: dict[str, Any] = {"security.protocol": protocol, "ssl.ca.location": secure["ca"]}
    if protocol == "SASL_SSL":
        conf.update({"sasl.mechanism": "PLAIN", "sasl.username": secure["username"], "sasl.password": secure["password"]})
        return secure["sasl_ssl"], conf
    return secure["ssl"], conf


def _against_plaintext(plain: Callable[[], Metrics], secured: Callable[[], Metrics]) -> Metrics:
    """Plaintext, secured, secured, plaintext: a machine that slows down or speeds up during
    the run (page cache filling, other work) weighs on both sides alike. Each side's rate is
    that of its two runs together (equal work, so the harmonic mean)."""
    first = plain()["mb_s"]
    secured_rates = (secured()["mb_s"], secured()["mb_s"])
    plain_rate = _together(first, plain()["mb_s"])
    secured_rate = _together(*secured_rates)
    ratio = secured_rate / plain_rate if plain_rate else 0.0
    return {"mb_s": secured_rate, "plaintext_mb_s": plain_rate, "vs_plaintext": ratio}


def _together(a: float, b: float) -> float:
    return 2 / (1 / a + 1 / b) if a > 0 and b > 0 else 0.0


def secure_produce_confluent(
    bootstrap: str, secure: dict[str, str], protocol: str, size: int, count: int, timeout: float
) -> Metrics:
    """The same produce over PLAINTEXT and over the secured listener, on one broker."""
    via = _listener(protocol, secure)
    return _against_plaintext(
        lambda: produce_confluent(bootstrap, size, count, "1", False, timeout),
        lambda: produce_confluent(bootstrap, size, count, "1", False, timeout, via=via),
    )


def secure_consume_confluent(
    bootstrap: str, secure: dict[str, str], protocol: str, size: int, count: int, timeout: float
) -> Metrics:
    via = _listener(protocol, secure)
    return _against_plaintext(
        lambda: consume_confluent(bootstrap, size, count, timeout),
        lambda: consume_confluent(bootstrap, size, count, timeout, via=via),
    )


# ---------------------------------------------------------------- share groups


def _classic_group_rate(bootstrap: str, topic: str, count: int, size: int, timeout: float) -> float:
    """One member of a classic consumer group (subscribe, committing nothing) reads the
    topic from the earliest offset: records/s from its assignment (the join, which waits
    group.initial.rebalance.delay.ms, is not timed) to its last record."""
    conf = confluent_base(bootstrap)
    conf.update({
        "group.id": unique("classic"), "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "enable.partition.eof": False, "fetch.queue.backoff.ms": 10,  # as consume_confluent
    })
    consumer = Consumer(conf)
    start = 0.0

    def assigned(_consumer: Any, _partitions: Any) -> None:
        nonlocal start
        start = time.perf_counter()

    try:
        consumer.subscribe([topic], on_assign=assigned)
        deadline = time.monotonic() + timeout
        got = 0
        while got < count:
            if time.monotonic() > deadline:
                raise WorkloadError(f"classic group: consumed {got} of {count} records in {timeout:.0f}s")
            for msg in consumer.consume(min(10_000, count - got), 0.5):
                err = msg.error()
                if err is not None:
                    raise WorkloadError(f"classic group: {err.str()}")
                got += 1
        return count / max(time.perf_counter() - start, 1e-9)
    finally:
        consumer.close()


def _share_group_rate(bootstrap: str, topic: str, count: int, members: int, timeout: float) -> float:
    """`members` ShareConsumers of a new share group (share.auto.offset.reset=earliest), each
    in a process of its own (`bench/share_member.py`; a share group's members are separate
    applications, and the classic member has its process to itself), acknowledging every
    record explicitly (ACCEPT; the acknowledgements ride on the next ShareFetch, the last
    ones on commit_sync): records/s from the common start signal, once every member's
    consumer exists (so their join, one heartbeat, is timed), until every record was
    delivered and the last acknowledgements answered (each member's commit_sync returned).
    Their close is not timed, as the classic member's is not: it waits for a ShareFetch
    parked on the broker (the client's fetch.wait.max.ms) once there is nothing left to fetch."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    from bench.clients import admin_client

    group = unique("share")
    entry = ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.GROUP, group, incremental_configs=[entry])
    admin_client(bootstrap).incremental_alter_configs([resource])[resource].result(30)
    with tempfile.NamedTemporaryFile(prefix="bench-share-") as counter:
        counter.write(bytes(8 * members))  # one delivery count per member
        counter.flush()
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "bench.share_member", bootstrap, topic, group, str(count), counter.name,
                 str(slot), str(timeout)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
            for slot in range(members)
        ]
        try:
            for proc in procs:
                ready = _read_line(proc, timeout)
                if ready != "ready":
                    raise WorkloadError(f"share member did not start: {ready!r}")
            start = time.perf_counter()
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            lines = [_read_line(proc, timeout + 30) for proc in procs]
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    results = []
    for line in lines:
        try:
            results.append(json.loads(line))
        except ValueError:
            raise WorkloadError(f"share member: {line!r}") from None
    errors = [e for r in results for e in r["errors"]]
    if errors:
        raise WorkloadError(errors[0])
    got = sum(int(r["got"]) for r in results)
    if got != count:
        raise WorkloadError(f"share group: {got} deliveries of {count} records in {timeout:.0f}s")
    return count / max(max(float(r["end"]) for r in results) - start, 1e-9)


# The Java producer's default `batch.size`.
JAVA_DEFAULT_BATCH_BYTES = 16_384


def share_consume_confluent(bootstrap: str, size: int, count: int, members: int, timeout: float) -> Metrics:
    """One partition filled with `count` records (untimed), read by a classic consumer group
    and by a share group of `members` consumers, in the order classic, share, share,
    classic on the same data (a machine that slows down weighs on both); each side's rate is
    that of its two runs together (the harmonic mean). The records are in batches of the
    Java producer's default size (`batch.size` 16 KiB, about 150 records of 100 B): a share
    partition acquires whole batches (Kafka's SharePartition), so librdkafka's default of
    1 MB batches (thousands of records) would hand all of the in-flight window to one member."""
    topic = unique("share-consume")
    create_topic(bootstrap, topic)
    prefill(bootstrap, topic, payload(size), count, timeout, **{"batch.size": JAVA_DEFAULT_BATCH_BYTES})
    first = _classic_group_rate(bootstrap, topic, count, size, timeout)
    share_started = time.perf_counter()
    share = _together(*(_share_group_rate(bootstrap, topic, count, members, timeout) for _ in range(2)))
    # The broker's CPU per MB (bench/cpu.py) over the two share runs, their members' start included.
    share_part = {"mb": 2 * count * size / MB, "seconds": time.perf_counter() - share_started, "ended_at": time.time()}
    classic = _together(first, _classic_group_rate(bootstrap, topic, count, size, timeout))
    return {"records_s": share, "classic_records_s": classic, "vs_classic": share / classic if classic else 0.0,
            **share_part}


WORKLOADS: dict[str, Callable[..., Metrics]] = {
    f.__name__: f
    for f in (
        produce_confluent,
        produce_aiokafka,
        consume_confluent,
        consume_aiokafka,
        small_txns_confluent,
        small_txns_aiokafka,
        concurrent_txns_confluent,
        large_txn_confluent,
        large_txn_aiokafka,
        e2e_latency_confluent,
        e2e_latency_under_load_confluent,
        e2e_latency_after_fill_confluent,
        txn_latency_confluent,
        many_partitions_confluent,
        many_connections_confluent,
        secure_produce_confluent,
        secure_consume_confluent,
        share_consume_confluent,
    )
}
