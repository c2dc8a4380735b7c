"""Stock clients complete the ApiVersions/Metadata handshake with the real broker process."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient
from prometheus_client.parser import text_string_to_metric_families

from broker.handlers import build_router
from broker.router import Route
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.fetch_response import FetchResponse
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import MetadataResponse
from tests.broker_process import BrokerProcess, free_port
from tests.kafka_wire import WireClient, call_async, create_topic, encode_request
from tests.polling import wait_until


async def test_aiokafka_lists_the_empty_topic_set(fresh_broker: BrokerProcess) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=fresh_broker.bootstrap)
    await admin.start()
    try:
        assert await admin.list_topics() == []
        cluster = await admin.describe_cluster()
        assert [b["node_id"] for b in cluster["brokers"]] == [1]
        assert cluster["controller_id"] == 1
    finally:
        await admin.close()


def test_kafka_python_lists_the_empty_topic_set(fresh_broker: BrokerProcess) -> None:
    admin = KafkaAdminClient(bootstrap_servers=fresh_broker.bootstrap)
    try:
        assert admin.list_topics() == []
    finally:
        admin.close()


def test_confluent_kafka_lists_the_empty_topic_set(fresh_broker: BrokerProcess) -> None:
    admin = AdminClient({"bootstrap.servers": fresh_broker.bootstrap})
    metadata = admin.list_topics(timeout=10)
    assert metadata.topics == {}
    assert list(metadata.brokers) == [1]
    assert metadata.brokers[1].host == "127.0.0.1"
    assert metadata.brokers[1].port == fresh_broker.port


def served_routes() -> dict[int, Route]:
    """What the router serves, read from the code, not from the broker under test."""
    return dict(sorted(build_router().routes.items()))


def test_api_versions_lists_every_served_api_at_every_version(broker: BrokerProcess) -> None:
    expected = {key: (route.advertised_min_version, route.max_version) for key, route in served_routes().items()}
    assert expected[18] == (0, 4)
    assert expected[3] == (0, 13)
    with WireClient(broker.bootstrap) as client:
        for version in range(0, 5):
            body = ApiVersionsRequest(client_software_name="odradek-tests", client_software_version="1.0")
            response = client.call(18, version, body)
            assert isinstance(response, ApiVersionsResponse)
            assert response.error_code == 0
            served = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
            assert served == expected
            assert [k.api_key for k in response.api_keys] == sorted(expected)


def minimal_request(api_key: int) -> Message:
    """The smallest valid request of an API: its defaults, except where a default would get
    no answer (Produce with acks=0) or an invalid value (KIP-511 software name)."""
    request = API_SPECS[api_key].request()
    if api_key == 0:
        request.acks = -1  # type: ignore[attr-defined]
        request.timeout_ms = 1000  # type: ignore[attr-defined]
    if api_key == 18:
        request.client_software_name = "odradek-tests"  # type: ignore[attr-defined]
        request.client_software_version = "1.0"  # type: ignore[attr-defined]
    if api_key == 22:
        request.transactional_id = None  # type: ignore[attr-defined]
    return request


@pytest.mark.parametrize(
    ("api_key", "version"),
    sorted({(k, v) for k, r in served_routes().items() for v in (r.min_version, r.max_version)}),
)
def test_every_served_api_answers_a_minimal_request(broker: BrokerProcess, api_key: int, version: int) -> None:
    with WireClient(broker.bootstrap) as client:
        cid = client.send(api_key, version, minimal_request(api_key))
        got, response = client.recv(api_key, version)
        assert got == cid
        assert type(response) is API_SPECS[api_key].response
        # Still open: the next request on the connection is answered too.
        assert isinstance(client.call(18, 0, ApiVersionsRequest()), ApiVersionsResponse)


def test_api_versions_v3_rejects_an_invalid_software_name(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        body = ApiVersionsRequest(client_software_name="bad name!", client_software_version="1.0")
        response = client.call(18, 3, body)
        assert isinstance(response, ApiVersionsResponse)
        assert response.error_code == 42  # INVALID_REQUEST


def test_metadata_v0_to_latest_describe_this_broker(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        for version in range(0, 14):
            request = MetadataRequest(topics=[] if version == 0 else None)
            response = client.call(3, version, request)
            assert isinstance(response, MetadataResponse)
            assert [(b.node_id, b.host, b.port) for b in response.brokers] == [(1, "127.0.0.1", broker.port)]
            if version >= 2:
                assert response.cluster_id
            if version >= 1:
                assert response.controller_id == 1


def test_cluster_id_survives_a_restart(fresh_broker: BrokerProcess) -> None:
    def cluster_id() -> str | None:
        with WireClient(fresh_broker.bootstrap) as client:
            response = client.call(3, 12, MetadataRequest(topics=None))
            assert isinstance(response, MetadataResponse)
            return response.cluster_id

    before = cluster_id()
    fresh_broker.restart()
    assert cluster_id() == before


async def test_pipelined_requests_are_answered_in_order(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        sent = []
        for i in range(200):
            api, version, body = (
                (18, 2, ApiVersionsRequest()) if i % 2 else (3, 9, MetadataRequest(topics=None))
            )
            sent.append((client.send(api, version, body), api, version))
        for cid, api, version in sent:
            got, response = client.recv(api, version)
            assert got == cid
            assert api == response.API_KEY


IN_FLIGHT_CAP = 2
PARKED_FETCH_MS = 300


def long_poll(topic: str, max_wait_ms: int = PARKED_FETCH_MS) -> FetchRequest:
    """A Fetch that waits its full max wait: nothing will be appended to `topic`."""
    return FetchRequest(
        max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=1_000_000,
        topics=[FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0,
                                                                    partition_max_bytes=100_000)])],
    )


def test_pipelining_past_the_in_flight_cap(tmp_path: Path) -> None:
    proc = BrokerProcess(tmp_path / "data", {"connection.max.in.flight.requests": str(IN_FLIGHT_CAP)})
    proc.start()
    try:
        with WireClient(proc.bootstrap) as client:
            create_topic(client, "parked")
            # Many more requests than the cap, in one write: all answered, in order.
            sent = []
            for i in range(100):
                api, version, body = (18, 2, ApiVersionsRequest()) if i % 2 else (3, 9, MetadataRequest(topics=None))
                sent.append((client.send(api, version, body), api, version))
            for cid, api, version in sent:
                got, response = client.recv(api, version)
                assert (got, response.API_KEY) == (cid, api)

            # Six fetches that each wait their max wait, pipelined: two at a time means three
            # rounds, where a connection without the cap would answer all six after one.
            started = time.monotonic()
            cids = [client.send(1, 11, long_poll("parked")) for _ in range(6)]
            for cid in cids:
                got, response = client.recv(1, 11)
                assert got == cid
                assert isinstance(response, FetchResponse)
                assert response.responses[0].partitions[0].error_code == 0
            elapsed = time.monotonic() - started
            assert elapsed >= 3 * PARKED_FETCH_MS / 1000 * 0.95, f"six parked fetches took {elapsed:.3f}s"
    finally:
        assert proc.stop() == 0


QUEUE_BOUND = 2
# Long enough for the test to see the queue full on a loaded machine.
QUEUED_FETCH_MS = 2000


def request_queue_size(metrics_port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as response:
        text = response.read().decode()
    [size] = [s.value for family in text_string_to_metric_families(text) for s in family.samples
              if s.name == "odradek_request_queue_size"]
    return size


def test_a_full_request_queue_holds_every_connection(tmp_path: Path) -> None:
    """queued.max.requests as in Kafka: with that many requests read and not yet handled
    anywhere, no connection is read until one of them is answered."""
    metrics_port = free_port()
    proc = BrokerProcess(tmp_path / "data", {"queued.max.requests": str(QUEUE_BOUND), "metrics.port": str(metrics_port)})
    proc.start()
    try:
        with WireClient(proc.bootstrap) as parked, WireClient(proc.bootstrap) as other:
            create_topic(parked, "parked")
            response = other.call(18, 2, ApiVersionsRequest())
            assert isinstance(response, ApiVersionsResponse) and response.error_code == 0
            fetches = [encode_request(1, 11, long_poll("parked", QUEUED_FETCH_MS), cid) for cid in range(100, 100 + QUEUE_BOUND)]
            started = time.monotonic()
            parked.send_raw(b"".join(fetches))
            # The parked fetches fill the queue (the broker's own gauge says so) before the
            # other request is written.
            wait_until(lambda: request_queue_size(metrics_port) == QUEUE_BOUND, timeout=30, what="a full queue")
            cid = other.send(18, 2, ApiVersionsRequest())
            got, response = other.recv(18, 2)
            waited = time.monotonic() - started
            assert got == cid and isinstance(response, ApiVersionsResponse) and response.error_code == 0
            # Unread until a parked fetch was answered after its max wait.
            assert waited >= QUEUED_FETCH_MS / 1000 * 0.95, f"answered after {waited:.3f}s"
            for expected in range(100, 100 + QUEUE_BOUND):
                got, fetched = parked.recv(1, 11)
                assert got == expected and isinstance(fetched, FetchResponse)
                assert fetched.responses[0].partitions[0].error_code == 0
    finally:
        assert proc.stop() == 0


def test_sigterm_stops_the_broker_cleanly(fresh_broker: BrokerProcess) -> None:
    assert fresh_broker.stop() == 0
    assert "broker stopped" in fresh_broker.log()


async def test_many_connections_at_once(broker: BrokerProcess) -> None:
    async def one() -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", broker.port)
        try:
            response = await call_async(reader, writer, 18, 0, ApiVersionsRequest(), 7)
        finally:
            writer.close()
        assert isinstance(response, ApiVersionsResponse)
        return response.error_code

    assert await asyncio.gather(*(one() for _ in range(100))) == [0] * 100
