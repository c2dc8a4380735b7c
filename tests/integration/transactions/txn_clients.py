"""One synchronous face over each client's transactional producer and a bounded reader.

aiokafka runs on a private event loop per object; confluent-kafka and kafka-python are
used as they come. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

CLIENTS = ["aiokafka", "confluent", "kafka-python"]

TP = tuple[str, int]
Records = dict[TP, list[tuple[int, bytes]]]

TIMEOUT = 20.0


class TxnProducer:
    """init/begin/send/flush/send_offsets/commit/abort/close over one client."""

    def __init__(self, client: str, bootstrap: str, transactional_id: str, timeout_ms: int = 60000) -> None:
        self.client = client
        self._loop: asyncio.AbstractEventLoop | None = None
        self._group_consumers: dict[str, Any] = {}
        self.bootstrap = bootstrap
        if client == "aiokafka":
            from aiokafka import AIOKafkaProducer

            self._loop = asyncio.new_event_loop()

            async def make() -> Any:
                return AIOKafkaProducer(
                    bootstrap_servers=bootstrap, transactional_id=transactional_id,
                    transaction_timeout_ms=timeout_ms, request_timeout_ms=10000,
                )

            self.p = self._run(make())
        elif client == "confluent":
            from confluent_kafka import Producer

            self.p = Producer({
                "bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                "transaction.timeout.ms": timeout_ms, "message.timeout.ms": min(timeout_ms, 15000),
            })
        else:
            from kafka import KafkaProducer

            self.p = KafkaProducer(
                bootstrap_servers=bootstrap, transactional_id=transactional_id,
                transaction_timeout_ms=timeout_ms, request_timeout_ms=10000, max_block_ms=15000,
            )
        self._pending: list[Any] = []

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return self._loop.run_until_complete(asyncio.wait_for(coro, TIMEOUT))

    def init(self) -> None:
        if self.client == "aiokafka":
            self._run(self.p.start())
        elif self.client == "confluent":
            self.p.init_transactions(TIMEOUT)
        else:
            self.p.init_transactions()

    def begin(self) -> None:
        if self.client == "aiokafka":
            self._run(self.p.begin_transaction())
        else:
            self.p.begin_transaction()

    def send(self, topic: str, partition: int, value: bytes) -> None:
        if self.client == "aiokafka":
            self._pending.append(self._run(self.p.send(topic, value, partition=partition)))
        elif self.client == "confluent":
            self.p.produce(topic, value, partition=partition)
            self.p.poll(0)
        else:
            self._pending.append(self.p.send(topic, value, partition=partition))

    def flush(self) -> None:
        """Every record sent so far is in its partition's log."""
        if self.client == "aiokafka":
            pending, self._pending = self._pending, []
            for fut in pending:
                self._run(fut)
        elif self.client == "confluent":
            assert self.p.flush(TIMEOUT) == 0
        else:
            pending, self._pending = self._pending, []
            for fut in pending:
                fut.get(timeout=TIMEOUT)

    def send_offsets(self, offsets: dict[TP, int], group_id: str, group_metadata: Any = None) -> None:
        if self.client == "aiokafka":
            from aiokafka import TopicPartition

            self._run(self.p.send_offsets_to_transaction(
                {TopicPartition(t, p): o for (t, p), o in offsets.items()}, group_metadata or group_id
            ))
        elif self.client == "confluent":
            from confluent_kafka import TopicPartition as CTP

            if group_metadata is None:
                group_metadata = self._confluent_group(group_id).consumer_group_metadata()
            self.p.send_offsets_to_transaction(
                [CTP(t, p, o) for (t, p), o in offsets.items()], group_metadata, TIMEOUT
            )
        else:
            from kafka import OffsetAndMetadata
            from kafka import TopicPartition as KTP

            self.p.send_offsets_to_transaction(
                {KTP(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in offsets.items()},
                group_metadata or group_id,
            )

    def _confluent_group(self, group_id: str) -> Any:
        from confluent_kafka import Consumer

        if group_id not in self._group_consumers:
            self._group_consumers[group_id] = Consumer(
                {"bootstrap.servers": self.bootstrap, "group.id": group_id, "enable.auto.commit": False}
            )
        return self._group_consumers[group_id]

    def commit(self) -> None:
        if self.client == "aiokafka":
            self._run(self.p.commit_transaction())
        elif self.client == "confluent":
            self.p.commit_transaction(TIMEOUT)
        else:
            self.p.commit_transaction()

    def abort(self) -> None:
        if self.client == "aiokafka":
            self._run(self.p.abort_transaction())
        elif self.client == "confluent":
            self.p.abort_transaction(TIMEOUT)
        else:
            self.p.abort_transaction()

    def close(self) -> None:
        for consumer in self._group_consumers.values():
            consumer.close()
        try:
            if self.client == "aiokafka":
                self._run(self.p.stop())
            elif self.client == "confluent":
                self.p.flush(0)
            else:
                self.p.close(timeout=2)
        except Exception:
            pass  # a fenced producer may refuse to close cleanly
        finally:
            if self._loop is not None:
                self._loop.close()


def is_fenced(client: str, exc: BaseException) -> bool:
    """ProducerFenced / InvalidProducerEpoch, as each client reports it."""
    if client == "aiokafka":
        from aiokafka.errors import InvalidProducerEpoch, ProducerFenced

        return isinstance(exc, ProducerFenced | InvalidProducerEpoch)
    if client == "confluent":
        from confluent_kafka import KafkaError, KafkaException

        if not isinstance(exc, KafkaException):
            return False
        code = exc.args[0].code()
        return code in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)
    from kafka.errors import InvalidProducerEpochError, ProducerFencedError

    return isinstance(exc, ProducerFencedError | InvalidProducerEpochError)


def read(
    client: str,
    bootstrap: str,
    tps: list[TP],
    *,
    committed: bool,
    until: dict[TP, int] | None = None,
    idle: float = 1.5,
    timeout: float = TIMEOUT,
) -> Records:
    """Every record of `tps` from the start, as a `read_committed` (committed=True) or
    `read_uncommitted` consumer of `client` sees it. Stops once every position reaches
    `until`, or else after `idle` seconds without a record; never after `timeout`."""
    out: Records = {tp: [] for tp in tps}
    deadline = time.monotonic() + timeout
    isolation = "read_committed" if committed else "read_uncommitted"

    def done(positions: dict[TP, int], last_record: float) -> bool:
        if until is not None:
            return all(positions.get(tp, -1) >= end for tp, end in until.items())
        return time.monotonic() - last_record >= idle

    last = time.monotonic()
    if client == "aiokafka":
        from aiokafka import AIOKafkaConsumer, TopicPartition

        async def run() -> None:
            nonlocal last
            c = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation,
                                 enable_auto_commit=False, auto_offset_reset="earliest")
            await c.start()
            try:
                atps = [TopicPartition(t, p) for t, p in tps]
                c.assign(atps)
                await c.seek_to_beginning(*atps)
                while time.monotonic() < deadline:
                    batch = await c.getmany(timeout_ms=200)
                    for tp, msgs in batch.items():
                        for m in msgs:
                            out[(tp.topic, tp.partition)].append((m.offset, m.value))
                        last = time.monotonic() if msgs else last
                    positions = {(tp.topic, tp.partition): await c.position(tp) for tp in atps}
                    if done(positions, last):
                        return
            finally:
                await c.stop()

        asyncio.run(run())
    elif client == "confluent":
        from confluent_kafka import OFFSET_BEGINNING, Consumer
        from confluent_kafka import TopicPartition as CTP

        c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}",
                      "isolation.level": isolation, "enable.auto.commit": False,
                      "auto.offset.reset": "earliest"})
        try:
            c.assign([CTP(t, p, OFFSET_BEGINNING) for t, p in tps])
            while time.monotonic() < deadline:
                msgs = c.consume(500, 0.2)
                for m in msgs:
                    assert m.error() is None, m.error()
                    out[(str(m.topic()), int(m.partition() or 0))].append((int(m.offset() or 0), bytes(m.value() or b"")))
                last = time.monotonic() if msgs else last
                positions = {(p.topic, p.partition): p.offset for p in c.position([CTP(t, q) for t, q in tps])}
                if done(positions, last):
                    break
        finally:
            c.close()
    else:
        from kafka import KafkaConsumer
        from kafka import TopicPartition as KTP

        kc = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation,
                           enable_auto_commit=False, auto_offset_reset="earliest")
        try:
            ktps = [KTP(t, p) for t, p in tps]
            kc.assign(ktps)
            kc.seek_to_beginning(*ktps)
            while time.monotonic() < deadline:
                batch = kc.poll(timeout_ms=200)
                for tp, msgs in batch.items():
                    for m in msgs:
                        out[(tp.topic, tp.partition)].append((m.offset, m.value))
                    last = time.monotonic() if msgs else last
                positions = {(tp.topic, tp.partition): kc.position(tp) for tp in ktps}
                if done(positions, last):
                    break
        finally:
            kc.close()
    return out


def values(records: Records) -> list[bytes]:
    return [v for recs in records.values() for _, v in recs]


def create_topics(bootstrap: str, topics: dict[str, int]) -> None:
    from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
    from tests.kafka_wire import WireClient

    with WireClient(bootstrap) as c:
        resp: Any = c.call(19, 5, CreateTopicsRequest(
            topics=[CreatableTopic(name=t, num_partitions=n, replication_factor=1) for t, n in topics.items()],
            timeout_ms=10000,
        ))
    assert all(t.error_code == 0 for t in resp.topics), resp


def end_offsets(bootstrap: str, tps: list[TP], *, committed: bool) -> dict[TP, int]:
    """ListOffsets LATEST: the high watermark, or with committed=True the last stable offset."""
    from protocol.messages.list_offsets_request import (
        ListOffsetsPartition,
        ListOffsetsRequest,
        ListOffsetsTopic,
    )
    from tests.kafka_wire import WireClient

    by_topic: dict[str, list[int]] = {}
    for t, p in tps:
        by_topic.setdefault(t, []).append(p)
    with WireClient(bootstrap) as c:
        resp: Any = c.call(2, 5, ListOffsetsRequest(
            replica_id=-1, isolation_level=1 if committed else 0,
            topics=[ListOffsetsTopic(name=t, partitions=[ListOffsetsPartition(partition_index=p, timestamp=-1)
                                                        for p in ps]) for t, ps in by_topic.items()],
        ))
    out = {}
    for topic in resp.topics:
        for part in topic.partitions:
            assert part.error_code == 0, part
            out[(topic.name, part.partition_index)] = part.offset
    return out
