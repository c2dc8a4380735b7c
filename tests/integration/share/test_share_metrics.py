"""The share group gauges of the Prometheus endpoint, scraped while a ShareConsumer consumes."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import AcknowledgeType
from prometheus_client.parser import text_string_to_metric_families

from tests.broker_process import BrokerProcess, free_port, own_broker
from tests.integration.share.share_clients import consumer, create_topic, poll_until, produce, share_group


@pytest.fixture
def metered(tmp_path: Path) -> Iterator[tuple[BrokerProcess, int]]:
    port = free_port()
    for proc in own_broker(tmp_path / "data", {"metrics.port": str(port)}):
        yield proc, port


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_share_group_gauges(metered: tuple[BrokerProcess, int]) -> None:
    broker, port = metered
    bs = broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["a", "b", "c"])
    group = share_group(bs)
    c = consumer(bs, group, topic, explicit=True)
    try:
        got = poll_until(c, 3)
        assert [m.offset() for m in got] == [0, 1, 2]
        c.acknowledge(got[0], AcknowledgeType.ACCEPT)
        c.acknowledge(got[1], AcknowledgeType.RELEASE)
        c.acknowledge(got[2], AcknowledgeType.REJECT)
        assert all(v is None for v in c.commit_sync().values())
        labels = (("group", group), ("partition", "0"), ("topic", topic))
        samples = scrape(port)
        assert samples[("odradek_share_group_members", (("group", group),))] == 1
        assert samples[("odradek_share_acquired_records", labels)] == 3
        assert samples[("odradek_share_acknowledged_records", labels)] == 1
        assert samples[("odradek_share_archived_records", labels)] == 1
        # Offset 1 was released: the window runs from it to the end, offset 2 done inside it.
        assert samples[("odradek_share_in_flight_records", labels)] == 2
        [again] = poll_until(c, 1)
        assert (again.offset(), again.delivery_count()) == (1, 2)
        c.acknowledge(again)
        c.commit_sync()
        samples = scrape(port)
        assert samples[("odradek_share_redelivered_records", labels)] == 1
        assert samples[("odradek_share_in_flight_records", labels)] == 0
    finally:
        c.close()
