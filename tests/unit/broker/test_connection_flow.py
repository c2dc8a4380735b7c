"""Flow control of one connection (broker/connection.py) against a fake transport, as
uvicorn tests its protocols: reading pauses at the in-flight cap, while the transport's
buffer is full and while the broker-wide `queued.max.requests` is reached, resumes when all
clear, and responses leave in request order."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from broker.config import Config
from broker.connection import KafkaConnection
from broker.connection_limits import ConnectionLimits
from broker.context import RequestContext
from broker.metrics import BrokerMetrics
from broker.quotas import ClientQuotas
from broker.quotas.store import QuotaStore
from broker.request_queue import RequestQueue
from broker.router import Router
from protocol.message import Message
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from storage.clock import ManualClock
from tests.kafka_wire import encode_request

API_VERSIONS = 18


class FakeTransport:
    """Records what the connection does to its transport."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.written = bytearray()
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000) if name == "peername" else default

    def pause_reading(self) -> None:
        self.calls.append("pause_reading")

    def resume_reading(self) -> None:
        self.calls.append("resume_reading")

    def write(self, data: bytes) -> None:
        self.written += data

    def writelines(self, chunks: list[Any]) -> None:
        for chunk in chunks:
            self.written += chunk

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def correlation_ids(self) -> list[int]:
        """The correlation ids of the response frames written so far, in order."""
        ids, pos = [], 0
        while pos < len(self.written):
            (size,) = struct.unpack_from(">i", self.written, pos)
            ids.append(struct.unpack_from(">i", self.written, pos + 4)[0])
            pos += 4 + size
        return ids


@dataclass
class FakeServices:
    """What a connection reads from the broker's services."""

    config: Config
    router: Router
    request_queue: RequestQueue
    connections: set[KafkaConnection] = field(default_factory=set)
    metrics: BrokerMetrics = field(default_factory=BrokerMetrics)
    connection_limits: ConnectionLimits = field(default_factory=lambda: ConnectionLimits(Config(), ManualClock()))
    # No quota configured unless a test sets one (kept in memory: the path is never written).
    quotas: ClientQuotas = field(
        default_factory=lambda: ClientQuotas(QuotaStore(Path("/nonexistent")), ManualClock(), 11, 1)
    )


class HeldHandler:
    """An ApiVersions handler whose answers the test releases, one correlation id at a time."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[None]] = {}
        self.started: list[int] = []

    async def __call__(self, ctx: RequestContext, request: Any) -> Message:
        self.started.append(ctx.correlation_id)
        future = self.waiting.setdefault(ctx.correlation_id, asyncio.get_running_loop().create_future())
        await future
        return ApiVersionsResponse()

    def release(self, cid: int) -> None:
        future = self.waiting.setdefault(cid, asyncio.get_running_loop().create_future())
        future.set_result(None)


@dataclass
class Conn:
    connection: KafkaConnection
    transport: FakeTransport
    handler: HeldHandler

    def send(self, *cids: int) -> None:
        """Delivers the requests `cids` in one read, as one TCP segment would."""
        data = b"".join(encode_request(API_VERSIONS, 0, ApiVersionsRequest(), cid) for cid in cids)
        self.connection.data_received(data)


async def settle() -> None:
    """Lets handler tasks and the scheduled flush run."""
    for _ in range(5):
        await asyncio.sleep(0)


def fake_services(max_in_flight: int, queued_max_requests: int = 500) -> FakeServices:
    router = Router()
    router.add(API_VERSIONS, HeldHandler())
    config = Config({"connection.max.in.flight.requests": max_in_flight})
    return FakeServices(config, router, RequestQueue(queued_max_requests))


def make_conn(max_in_flight: int, services: FakeServices | None = None) -> Conn:
    services = services or fake_services(max_in_flight)
    handler = services.router.routes[API_VERSIONS].handle
    assert isinstance(handler, HeldHandler)
    connection = KafkaConnection(services, "PLAINTEXT")  # type: ignore[arg-type]
    transport = FakeTransport()
    connection.connection_made(transport)  # type: ignore[arg-type]
    return Conn(connection, transport, handler)


@pytest.fixture
def conn() -> Iterator[Conn]:
    c = make_conn(max_in_flight=2)
    yield c
    c.connection.connection_lost(None)


async def test_reading_pauses_at_the_cap_and_resumes_when_a_response_leaves(conn: Conn) -> None:
    conn.send(1)
    await settle()
    assert conn.transport.calls == []
    conn.send(2)
    await settle()
    assert conn.transport.calls == ["pause_reading"]
    assert conn.handler.started == [1, 2]

    conn.handler.release(1)
    await settle()
    assert conn.transport.correlation_ids() == [1]
    assert conn.transport.calls == ["pause_reading", "resume_reading"]


async def test_a_later_response_waits_for_an_earlier_one(conn: Conn) -> None:
    conn.send(1, 2)
    await settle()
    conn.handler.release(2)
    await settle()
    # Finished, but behind request 1: nothing written, and both still count as in flight.
    assert conn.transport.correlation_ids() == []
    assert conn.transport.calls == ["pause_reading"]

    conn.handler.release(1)
    await settle()
    assert conn.transport.correlation_ids() == [1, 2]
    assert conn.transport.calls == ["pause_reading", "resume_reading"]


async def test_requests_read_beyond_the_cap_wait_their_turn(conn: Conn) -> None:
    # Five requests in one read: two are handled, three wait without being started.
    conn.send(1, 2, 3, 4, 5)
    await settle()
    assert conn.handler.started == [1, 2]
    assert conn.transport.calls == ["pause_reading"]

    conn.handler.release(1)
    await settle()
    # Request 1's slot goes to request 3; still at the cap, so reading stays paused.
    assert conn.handler.started == [1, 2, 3]
    assert conn.transport.correlation_ids() == [1]
    assert conn.transport.calls == ["pause_reading"]

    for cid in (5, 4, 3, 2):
        conn.handler.release(cid)
    await settle()
    assert conn.handler.started == [1, 2, 3, 4, 5]
    assert conn.transport.correlation_ids() == [1, 2, 3, 4, 5]
    assert conn.transport.calls == ["pause_reading", "resume_reading"]


async def test_a_full_transport_pauses_reading_until_it_drains(conn: Conn) -> None:
    conn.connection.pause_writing()
    assert conn.transport.calls == ["pause_reading"]
    conn.connection.resume_writing()
    assert conn.transport.calls == ["pause_reading", "resume_reading"]


async def test_reading_resumes_only_when_both_the_cap_and_the_transport_allow(conn: Conn) -> None:
    conn.send(1, 2)
    await settle()
    conn.connection.pause_writing()
    assert conn.transport.calls == ["pause_reading"]

    conn.handler.release(1)
    await settle()
    # Below the cap again, but the peer is not reading: stay paused.
    assert conn.transport.correlation_ids() == [1]
    assert conn.transport.calls == ["pause_reading"]

    conn.send(3)
    await settle()
    conn.connection.resume_writing()
    # The transport drained, but requests 2 and 3 fill the cap.
    assert conn.transport.calls == ["pause_reading"]

    conn.handler.release(2)
    conn.handler.release(3)
    await settle()
    assert conn.transport.correlation_ids() == [1, 2, 3]
    assert conn.transport.calls == ["pause_reading", "resume_reading"]


async def test_a_cap_of_one_handles_one_request_at_a_time() -> None:
    c = make_conn(max_in_flight=1)
    try:
        c.send(1, 2, 3)
        await settle()
        assert c.handler.started == [1]
        for cid, started in ((1, [1, 2]), (2, [1, 2, 3])):
            c.handler.release(cid)
            await settle()
            assert c.handler.started == started
        c.handler.release(3)
        await settle()
        assert c.transport.correlation_ids() == [1, 2, 3]
        assert c.transport.calls == ["pause_reading", "resume_reading"]
    finally:
        c.connection.connection_lost(None)


async def test_a_full_request_queue_pauses_every_connection_until_a_request_is_handled() -> None:
    services = fake_services(max_in_flight=10, queued_max_requests=3)
    a, b = make_conn(10, services), make_conn(10, services)
    try:
        a.send(1, 2)
        await settle()
        assert services.request_queue.size == 2
        assert a.transport.calls == b.transport.calls == []
        # The third request read anywhere fills the queue: no connection reads on.
        b.send(3)
        await settle()
        assert services.request_queue.size == 3
        assert a.transport.calls == b.transport.calls == ["pause_reading"]

        a.handler.release(1)
        await settle()
        assert services.request_queue.size == 2
        assert a.transport.correlation_ids() == [1]
        assert a.transport.calls == b.transport.calls == ["pause_reading", "resume_reading"]

        a.handler.release(2)
        a.handler.release(3)
        await settle()
        assert services.request_queue.size == 0
        assert (a.transport.correlation_ids(), b.transport.correlation_ids()) == ([1, 2], [3])
    finally:
        a.connection.connection_lost(None)
        b.connection.connection_lost(None)


async def test_requests_count_until_handled_even_when_waiting_behind_the_in_flight_cap() -> None:
    services = fake_services(max_in_flight=1, queued_max_requests=3)
    a, b = make_conn(1, services), make_conn(1, services)
    try:
        # One handled, two waiting in the connection's backlog: all three are queued.
        a.send(1, 2, 3)
        await settle()
        assert a.handler.started == [1]
        assert services.request_queue.size == 3
        assert b.transport.calls == ["pause_reading"]

        # A closed connection's requests, started or not, leave the queue with it.
        a.connection.connection_lost(None)
        await settle()
        assert services.request_queue.size == 0
        assert b.transport.calls == ["pause_reading", "resume_reading"]
    finally:
        b.connection.connection_lost(None)


async def test_a_refused_request_leaves_the_queue_at_once() -> None:
    services = fake_services(max_in_flight=10, queued_max_requests=3)
    c = make_conn(10, services)
    c.connection.data_received(struct.pack(">ih", 2, 18))  # shorter than a request header
    assert c.transport.closed
    assert services.request_queue.size == 0
    c.connection.connection_lost(None)
