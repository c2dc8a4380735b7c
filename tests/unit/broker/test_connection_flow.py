"""Flow control of one connection (broker/connection.py) against a fake transport, as
uvicorn tests its protocols: reading pauses at the in-flight cap, while the transport's
buffer is full and while the broker-wide `queued.max.requests` is reached, resumes when all
clear, and responses leave in request order."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

import broker.connection as connection_module
from tests.unit.broker.connection_fakes import Conn, fake_services, make_conn, settle


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


async def test_frames_past_the_turns_byte_budget_wait_for_the_next_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    # A budget of one byte: one request per turn of the loop, reading paused meanwhile.
    monkeypatch.setattr(connection_module, "DISPATCH_BYTES_PER_TURN", 1)
    c = make_conn(max_in_flight=10)
    try:
        c.send(1, 2, 3)
        assert len(c.connection.pending) == 1
        assert len(c.connection.backlog) == 2
        assert c.transport.calls == ["pause_reading"]
        await settle()
        assert c.handler.started == [1, 2, 3]
        assert c.transport.calls == ["pause_reading", "resume_reading"]
        for cid in (1, 2, 3):
            c.handler.release(cid)
        await settle()
        assert c.transport.correlation_ids() == [1, 2, 3]
    finally:
        c.connection.connection_lost(None)
