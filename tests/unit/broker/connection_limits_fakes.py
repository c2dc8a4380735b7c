"""Connections with a peer address and the services of the connection-limit tests."""

from __future__ import annotations

from typing import Any

from broker.config import Config
from broker.connection import KafkaConnection
from broker.connection_limits import ConnectionLimits
from broker.request_queue import RequestQueue
from broker.router import Router
from storage.clock import ManualClock
from tests.unit.broker.connection_fakes import (
    API_VERSIONS,
    Conn,
    FakeServices,
    FakeTransport,
    HeldHandler,
)


class PeerTransport(FakeTransport):
    def __init__(self, ip: str) -> None:
        super().__init__()
        self.ip = ip

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.ip, 40000) if name == "peername" else default


def services(clock: ManualClock, **settings: Any) -> FakeServices:
    router = Router()
    router.add(API_VERSIONS, HeldHandler())
    config = Config(settings)
    return FakeServices(config, router, RequestQueue(500), connection_limits=ConnectionLimits(config, clock))


def connect(svc: FakeServices, ip: str = "10.0.0.1", listener: str = "PLAINTEXT") -> Conn:
    handler = svc.router.routes[API_VERSIONS].handle
    assert isinstance(handler, HeldHandler)
    connection = KafkaConnection(svc, listener)  # type: ignore[arg-type]
    transport = PeerTransport(ip)
    connection.connection_made(transport)  # type: ignore[arg-type]
    return Conn(connection, transport, handler)
