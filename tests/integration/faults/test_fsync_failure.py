"""A failed fsync halts the broker with a log line, as Kafka halts when its log dirs have
failed, and a power loss after it takes no acknowledged record. (Found by the campaign's
io-error+power-loss fault: the broker served on after fsync failed, exposing records the
power loss then took back, and acknowledged a retried batch whose only fsync had failed.)"""

from __future__ import annotations

import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from faults.campaign import START_SECONDS
from faults.disks import Disk
from odradek.testing import OdradekBroker, free_port
from tests.integration.faults.campaign_marks import CAMPAIGN_MARKS

pytestmark = CAMPAIGN_MARKS


def _produce(bootstrap: str, values: list[str]) -> list[tuple[str, int | None, str | None]]:
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "message.timeout.ms": 4000,
        }
    )
    results: list[tuple[str, int | None, str | None]] = []
    for value in values:
        producer.produce(
            "t",
            value=value.encode(),
            partition=0,
            on_delivery=lambda err, msg, v=value: results.append(
                (v, None if err else msg.offset(), str(err) if err else None)
            ),
        )
    producer.flush(15)
    return results


def _read_all(bootstrap: str) -> list[tuple[int, str]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "check", "enable.auto.commit": False})
    consumer.assign([TopicPartition("t", 0, 0)])
    _, high = consumer.get_watermark_offsets(TopicPartition("t", 0), timeout=10)
    seen: list[tuple[int, str]] = []
    deadline = time.monotonic() + 20
    while (not seen or seen[-1][0] < high - 1) and time.monotonic() < deadline:
        for m in consumer.consume(100, 0.5):
            if m.error() is None:
                seen.append((m.offset(), m.value().decode()))
    consumer.close()
    return seen


def test_failed_fsync_halts_and_power_loss_keeps_every_acknowledged_record(tmp_path: Path) -> None:
    disk = Disk(tmp_path, 32)
    port = free_port()
    broker = OdradekBroker(disk.mount, {}, port, log_path=tmp_path / "broker.log")
    disk.setup()
    try:
        broker.start(START_SECONDS)
        bootstrap = f"127.0.0.1:{port}"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for future in admin.create_topics([NewTopic("t", 1, 1)]).values():
            future.result(20)
        acked = _produce(bootstrap, [f"v{i}" for i in range(20)])
        assert [(v, o) for v, o, _ in acked] == [(f"v{i}", i) for i in range(20)]

        disk.fail_io(True)
        failed = _produce(bootstrap, ["lost"])
        assert failed[0][1] is None  # never acknowledged
        assert broker.proc is not None
        assert broker.proc.wait(15) == 1
        assert "log directory failed, halting the broker" in broker.log_tail()
        assert "fsync failed" in broker.log_tail()

        disk.fail_io(False)
        broker.proc = None
        disk.power_loss()
        broker.start(START_SECONDS)
        assert _read_all(bootstrap) == [(i, f"v{i}") for i in range(20)]
    finally:
        broker.kill()
        disk.teardown()
