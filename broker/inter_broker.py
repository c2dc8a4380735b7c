"""Requests from this broker to the others of its cluster (Kafka's NetworkClient behind its
inter-broker send threads): the transaction coordinator's WriteTxnMarkers to partition
leaders, a partition leader's AddPartitionsToTxn verification to a transaction coordinator.

Each peer is reached on its endpoint of the inter-broker listener, the first PLAINTEXT
listener of this broker (broker/server.py), in plaintext: a secured listener (TLS, SASL)
is not spoken here yet. Connections are kept per peer and reused, one
request in flight on each (a caller that finds none idle opens another). Any failure to
reach a peer or a broken answer is raised as `PeerUnavailable`; callers treat it as Kafka
does a disconnect (NETWORK_EXCEPTION: look the leader up again and retry)."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable
from typing import Any

from protocol.codec import Reader, Writer
from protocol.frames import frame
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader

_SIZE = struct.Struct(">i")
# Idle connections kept per peer; more may be open while requests are in flight.
MAX_IDLE_PER_PEER = 4


class PeerUnavailable(ConnectionError):
    """The peer could not be reached, or its connection broke or timed out."""


Address = tuple[str, int]


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.correlation_id = 0

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class InterBrokerClient:
    """`addresses(node_id)` is where a live peer listens (None: unknown or gone)."""

    def __init__(
        self, addresses: Callable[[int], Address | None], *, client_id: str, timeout_s: float = 30.0
    ) -> None:
        self.addresses = addresses
        self.client_id = client_id
        self.timeout_s = timeout_s
        self._idle: dict[tuple[int, Address], list[_Conn]] = {}
        self._closed = False

    async def call(self, node_id: int, api_key: int, version: int, body: Message) -> Any:
        """The peer's answer to one request (the response body)."""
        address = self.addresses(node_id)
        if address is None:
            raise PeerUnavailable(f"broker {node_id} is not a live member of the cluster")
        key = (node_id, address)
        idle = self._idle.get(key)
        try:
            conn = idle.pop() if idle else await self._connect(address)
            answer = await asyncio.wait_for(self._exchange(conn, api_key, version, body), self.timeout_s)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise PeerUnavailable(f"broker {node_id} at {address[0]}:{address[1]}: {exc!r}") from exc
        pool = self._idle.setdefault(key, [])
        if self._closed or len(pool) >= MAX_IDLE_PER_PEER:
            conn.close()
        else:
            pool.append(conn)
        return answer

    async def _connect(self, address: Address) -> _Conn:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(*address), self.timeout_s)
        return _Conn(reader, writer)

    async def _exchange(self, conn: _Conn, api_key: int, version: int, body: Message) -> Any:
        api = API_SPECS[api_key]
        conn.correlation_id += 1
        w = Writer()
        RequestHeader(api_key, version, conn.correlation_id, self.client_id).write(
            w, api.request_header_version(version)
        )
        body.write(w, version)
        try:
            conn.writer.write(frame(w.getvalue()))
            await conn.writer.drain()
            (size,) = _SIZE.unpack(await conn.reader.readexactly(_SIZE.size))
            r = Reader(await conn.reader.readexactly(size))
            header = ResponseHeader.read(r, api.response_header_version(version))
            if header.correlation_id != conn.correlation_id:
                raise ValueError(f"answer to request {header.correlation_id}, not {conn.correlation_id}")
            return api.response.read(r, version)
        except BaseException:
            # A half-read answer leaves the stream unusable.
            conn.close()
            raise

    def idle_connections(self, node_id: int) -> int:
        """Connections to the peer kept for its next requests."""
        return sum(len(pool) for (node, _), pool in self._idle.items() if node == node_id)

    def close(self) -> None:
        self._closed = True
        for pool in self._idle.values():
            for conn in pool:
                conn.close()
        self._idle.clear()
