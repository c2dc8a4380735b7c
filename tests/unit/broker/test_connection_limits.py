"""Connection limits and idle expiry (broker/connection_limits.py) on connections with fake
transports and a ManualClock."""

from __future__ import annotations

import pytest

from broker.config import ConfigError
from broker.connection_limits import parse_overrides
from storage.clock import ManualClock
from tests.unit.broker.connection_fakes import (
    settle,
)
from tests.unit.broker.connection_limits_fakes import connect, services


def test_per_ip_limit_closes_the_connection_past_it_and_frees_a_place_on_close() -> None:
    svc = services(ManualClock(), **{"max.connections.per.ip": 2})
    first, second, third = (connect(svc) for _ in range(3))
    assert (first.transport.closed, second.transport.closed, third.transport.closed) == (False, False, True)
    assert svc.connections == {first.connection, second.connection}
    # Another address is not affected.
    assert not connect(svc, ip="10.0.0.2").transport.closed
    # The refused one's close releases nothing; a counted one's close frees its place.
    third.connection.connection_lost(None)
    first.connection.connection_lost(None)
    assert not connect(svc).transport.closed
    assert connect(svc).transport.closed


def test_overrides_raise_or_lower_the_limit_of_one_address() -> None:
    svc = services(
        ManualClock(),
        **{"max.connections.per.ip": 1, "max.connections.per.ip.overrides": "10.0.0.1:3,localhost:0"},
    )
    assert [connect(svc).transport.closed for _ in range(4)] == [False, False, False, True]
    assert connect(svc, ip="127.0.0.1").transport.closed
    assert [connect(svc, ip="10.0.0.9").transport.closed for _ in range(2)] == [False, True]


def test_parse_overrides() -> None:
    assert parse_overrides(" a.example:5 , ::1:2,[fe80::1]:3", resolve=lambda h: "192.0.2.7") == {
        "192.0.2.7": 5,
        "::1": 2,
        "fe80::1": 3,
    }
    with pytest.raises(ConfigError):
        parse_overrides("10.0.0.1")
    with pytest.raises(ConfigError):
        parse_overrides("10.0.0.1:x")


def test_broker_wide_and_per_listener_limits() -> None:
    svc = services(
        ManualClock(),
        **{
            "listeners": "PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT",
            "max.connections": 3,
            "listener.name.other.max.connections": 1,
        },
    )
    assert [connect(svc, ip=f"10.0.0.{i}", listener="OTHER").transport.closed for i in (1, 2)] == [False, True]
    assert [connect(svc, ip=f"10.0.1.{i}").transport.closed for i in (1, 2, 3)] == [False, False, True]
    assert svc.connection_limits.total == 3


async def test_an_idle_connection_is_closed_after_connections_max_idle_ms() -> None:
    clock = ManualClock()
    svc = services(clock, **{"connections.max.idle.ms": 1000})
    svc.connection_limits.start_idle_expiry(svc.connections)
    idle, active = connect(svc), connect(svc)
    clock.advance(600)
    active.send(1)
    active.handler.release(1)
    await settle()
    assert active.transport.correlation_ids() == [1]
    clock.advance(399)
    assert not idle.transport.closed
    clock.advance(1)
    assert idle.transport.closed and not active.transport.closed
    # The active one's idle time counts from its last request and response.
    clock.advance(599)
    assert not active.transport.closed
    clock.advance(1)
    assert active.transport.closed
    svc.connection_limits.stop()


async def test_a_request_in_flight_keeps_the_connection_open() -> None:
    clock = ManualClock()
    svc = services(clock, **{"connections.max.idle.ms": 1000})
    svc.connection_limits.start_idle_expiry(svc.connections)
    parked = connect(svc)
    parked.send(7)  # as a long-poll fetch parked in its handler
    await settle()
    clock.advance(5000)
    assert not parked.transport.closed
    parked.handler.release(7)
    await settle()
    assert parked.transport.correlation_ids() == [7]
    clock.advance(999)
    assert not parked.transport.closed
    clock.advance(1)
    assert parked.transport.closed
    svc.connection_limits.stop()


def test_negative_idle_ms_turns_expiry_off() -> None:
    clock = ManualClock()
    svc = services(clock, **{"connections.max.idle.ms": -1})
    svc.connection_limits.start_idle_expiry(svc.connections)
    conn = connect(svc)
    clock.advance(10**9)
    assert not conn.transport.closed
    assert clock.next_deadline_ms() is None


def test_dynamic_values_replace_the_static_limits_for_new_connections() -> None:
    svc = services(ManualClock(), **{"max.connections.per.ip": 1})
    limits = svc.connection_limits
    first = connect(svc)
    dynamic = {"max.connections.per.ip": "3", "max.connections.per.ip.overrides": "10.0.0.2:0"}
    limits.reconfigure(dynamic.get)
    assert [connect(svc).transport.closed for _ in range(3)] == [False, False, True]
    assert connect(svc, ip="10.0.0.2").transport.closed
    # An unreadable value changes nothing; removing the dynamic values restores the static ones.
    limits.reconfigure({"max.connections.per.ip.overrides": "nonsense"}.get)
    assert limits.max_per_ip == 3
    limits.reconfigure({}.get)
    assert (limits.max_per_ip, limits.per_ip_overrides) == (1, {})
    assert not first.transport.closed
