"""Requests from this broker to the others of its cluster (Kafka's NetworkClient behind its
inter-broker send threads): the transaction coordinator's WriteTxnMarkers to partition
leaders, a partition leader's AddPartitionsToTxn verification to a transaction coordinator.

Each peer is reached on its endpoint of the inter-broker listener
(broker/inter_broker_security.py), over TLS and logged in with SASL when that listener
asks for them. Connections are kept per peer and reused, one
request in flight on each (a caller that finds none idle opens another); one whose SASL
session (KIP-368) nears its end is closed rather than reused. Any failure to
reach a peer, a refused login or a broken answer is raised as `PeerUnavailable`; callers
treat it as Kafka does a disconnect (NETWORK_EXCEPTION: look the leader up again and retry)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
import time
from collections.abc import Callable
from typing import Any

from broker.logging import get_logger
from protocol.codec import Reader, Writer
from protocol.errors import ErrorCode
from protocol.frames import frame
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.sasl_client import SaslAuthenticationError, SaslMechanism

log = get_logger("odradek.inter_broker")

_SIZE = struct.Struct(">i")
# Idle connections kept per peer; more may be open while requests are in flight.
MAX_IDLE_PER_PEER = 4
SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36
# A connection is not reused past this share of the SASL session the peer granted, so that
# no request meets the peer's end of the session (Kafka's client re-authenticates then).
REAUTH_FRACTION = 0.85


class PeerUnavailable(ConnectionError):
    """The peer could not be reached, or its connection broke or timed out."""


Address = tuple[str, int]


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.correlation_id = 0
        # When the peer ends the SASL session (monotonic seconds), if it does.
        self.expires_at: float | None = None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class InterBrokerClient:
    """`addresses(node_id)` is where a live peer listens (None: unknown or gone)."""

    def __init__(
        self,
        addresses: Callable[[int], Address | None],
        *,
        client_id: str,
        timeout_s: float = 30.0,
        ssl_context: ssl.SSLContext | None = None,
        sasl: Callable[[], SaslMechanism] | None = None,
    ) -> None:
        self.addresses = addresses
        self.client_id = client_id
        self.timeout_s = timeout_s
        self.ssl_context = ssl_context
        self.sasl = sasl
        self._idle: dict[tuple[int, Address], list[_Conn]] = {}
        self._closed = False

    async def call(self, node_id: int, api_key: int, version: int, body: Message) -> Any:
        """The peer's answer to one request (the response body)."""
        address = self.addresses(node_id)
        if address is None:
            raise PeerUnavailable(f"broker {node_id} is not a live member of the cluster")
        key = (node_id, address)
        try:
            conn = self._take_idle(key)
            if conn is None:
                conn = await asyncio.wait_for(self._connect(address), self.timeout_s)
            answer = await asyncio.wait_for(self._exchange(conn, api_key, version, body), self.timeout_s)
        except SaslAuthenticationError as exc:
            log.warning("login to a broker refused", node_id=node_id, error=str(exc))
            raise PeerUnavailable(f"broker {node_id} at {address[0]}:{address[1]}: {exc}") from exc
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise PeerUnavailable(f"broker {node_id} at {address[0]}:{address[1]}: {exc!r}") from exc
        pool = self._idle.setdefault(key, [])
        if self._closed or len(pool) >= MAX_IDLE_PER_PEER:
            conn.close()
        else:
            pool.append(conn)
        return answer

    def _take_idle(self, key: tuple[int, Address]) -> _Conn | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.expires_at is None or now < conn.expires_at:
                return conn
            conn.close()
        return None

    async def _connect(self, address: Address) -> _Conn:
        host, port = address
        if self.ssl_context is not None:
            reader, writer = await asyncio.open_connection(host, port, ssl=self.ssl_context, server_hostname=host)
        else:
            reader, writer = await asyncio.open_connection(host, port)
        conn = _Conn(reader, writer)
        if self.sasl is not None:
            try:
                await self._authenticate(conn, self.sasl(), f"{host}:{port}")
            except BaseException:
                conn.close()
                raise
        return conn

    async def _authenticate(self, conn: _Conn, mechanism: SaslMechanism, where: str) -> None:
        """SaslHandshake, then SaslAuthenticate until the mechanism is done (KIP-152)."""
        hello = await self._exchange(conn, SASL_HANDSHAKE_KEY, 1, SaslHandshakeRequest(mechanism=mechanism.name))
        if hello.error_code != ErrorCode.NONE:
            raise SaslAuthenticationError(
                f"{where} refused SASL mechanism {mechanism.name} (error {hello.error_code}; "
                f"it offers {', '.join(hello.mechanisms) or 'none'})"
            )
        steps = mechanism.exchange()
        token = next(steps)
        while True:
            answer = await self._exchange(conn, SASL_AUTHENTICATE_KEY, 2, SaslAuthenticateRequest(auth_bytes=token))
            if answer.error_code != ErrorCode.NONE:
                raise SaslAuthenticationError(
                    f"{where} refused the {mechanism.name} login (error {answer.error_code}): {answer.error_message}"
                )
            try:
                token = steps.send(bytes(answer.auth_bytes))
            except StopIteration:
                if answer.session_lifetime_ms > 0:
                    conn.expires_at = time.monotonic() + answer.session_lifetime_ms / 1000 * REAUTH_FRACTION
                return

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
