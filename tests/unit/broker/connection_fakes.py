"""An in-process Connection with fake services and transport, for the connection tests."""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
