"""The metrics endpoint on its own: paths, readiness switching, and requests it refuses."""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry, Counter

from broker.metrics.endpoint import MetricsEndpoint
from broker.metrics.requests import error_codes
from protocol.messages.metadata_response import (
    MetadataResponse,
    MetadataResponsePartition,
    MetadataResponseTopic,
)


async def http(port: int, request: bytes, *, then_eof: bool = False) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    if then_eof:
        writer.write_eof()
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return data


async def test_paths_and_readiness() -> None:
    registry = CollectorRegistry()
    Counter("probe_things", "Things.", registry=registry).inc(7)
    ready = False
    endpoint = MetricsEndpoint(registry, lambda: ready)
    port = await endpoint.start("127.0.0.1", 0)
    try:
        get = b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
        assert (await http(port, get % b"/readyz")).startswith(b"HTTP/1.1 503 ")
        ready = True
        assert (await http(port, get % b"/readyz")).startswith(b"HTTP/1.1 200 ")
        assert (await http(port, get % b"/healthz")).endswith(b"\r\n\r\nok\n")
        metrics = await http(port, get % b"/metrics?x=1")
        assert metrics.startswith(b"HTTP/1.1 200 ")
        assert b"\nprobe_things_total 7.0\n" in metrics
        assert (await http(port, get % b"/elsewhere")).startswith(b"HTTP/1.1 404 ")
        assert (await http(port, b"POST /metrics HTTP/1.1\r\n\r\n")).startswith(b"HTTP/1.1 405 ")
        # A client that sends half a request and goes away gets nothing, and breaks nothing.
        assert await http(port, b"GET /metr", then_eof=True) == b""
        assert (await http(port, get % b"/healthz")).startswith(b"HTTP/1.1 200 ")
    finally:
        await endpoint.stop()


def test_error_codes_are_found_at_every_depth() -> None:
    response = MetadataResponse(
        topics=[
            MetadataResponseTopic(error_code=0, name="a", partitions=[
                MetadataResponsePartition(error_code=0, partition_index=0),
                MetadataResponsePartition(error_code=9, partition_index=1),
            ]),
            MetadataResponseTopic(error_code=3, name="b"),
        ]
    )
    assert sorted(error_codes(response)) == [3, 9]
