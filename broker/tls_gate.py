"""A TLS listener's connections, counted in before their handshake.

Kafka's Acceptor counts a connection toward `max.connections`, the listener's limit and
`max.connections.per.ip` when it accepts it, before its Processor runs the TLS handshake:
peers that open connections and never finish a handshake still take up their slots. The
event loop's TLS (`create_server(ssl=...)`) makes the application's protocol only once the
handshake is done, and `loop.start_tls` cannot take over a server connection on uvloop
(bytes the peer sent first still reach the first protocol). So a TLS listener's protocol is
this gate: it counts the connection in or refuses it, then hands every event of the socket
to the loop's own SSL protocol, which runs the handshake and then the `KafkaConnection`.

It also logs a failed handshake with the peer's address, as Kafka's `SslTransportLayer` logs
"SSL handshake failed": the loop's SSL protocol drops them silently (an `ssl.SSLError` is an
OSError, reported only in debug mode), so plaintext sent to a TLS port, or a client without
the certificate mutual TLS requires, would otherwise go unseen.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import ssl
from typing import TYPE_CHECKING, Any

from broker.connection import KafkaConnection, refuse_connection
from broker.connection_limits import Admission
from broker.logging import get_logger

if TYPE_CHECKING:
    from broker.services import Services

log = get_logger("odradek.tls")

# The event loop's default: a peer that opens a TLS connection and stalls is dropped then.
TLS_HANDSHAKE_TIMEOUT_S = 60.0


def _ssl_protocol_class(loop: asyncio.AbstractEventLoop) -> Any:
    """The loop's own SSL protocol: uvloop's is compiled, asyncio's is pure Python."""
    try:
        import uvloop
        from uvloop.loop import SSLProtocol  # type: ignore[attr-defined]
    except ImportError:
        return asyncio.sslproto.SSLProtocol
    return SSLProtocol if isinstance(loop, uvloop.Loop) else asyncio.sslproto.SSLProtocol


class CountedTlsConnection(asyncio.BufferedProtocol):
    def __init__(self, services: Services, listener: str, context: ssl.SSLContext) -> None:
        self.services = services
        self.listener = listener
        self.context = context
        self.admission: Admission | None = None
        # The loop's SSL protocol, once the connection is counted in.
        self.tls: Any = None
        self.peer = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        ip = str(peer[0]) if isinstance(peer, tuple) else self.peer
        admission = self.services.connection_limits.enter(self.listener, ip)
        if isinstance(admission, str):
            refuse_connection(self.services, transport, self.listener, self.peer, admission)
            return
        self.admission = admission
        loop = asyncio.get_running_loop()
        handshake = loop.create_future()
        handshake.add_done_callback(self._handshake_done)
        self.tls = _ssl_protocol_class(loop)(
            loop,
            KafkaConnection(self.services, self.listener, admission),
            self.context,
            handshake,
            server_side=True,
            ssl_handshake_timeout=TLS_HANDSHAKE_TIMEOUT_S,
        )
        self.tls.connection_made(transport)

    def _handshake_done(self, handshake: asyncio.Future[None]) -> None:
        if handshake.cancelled() or (exc := handshake.exception()) is None:
            return
        self.services.metrics.failed.labels("tls handshake").inc()
        log.warning(
            "tls handshake failed",
            peer=self.peer,
            listener=self.listener,
            reason=getattr(exc, "reason", None) or type(exc).__name__,
            error=str(exc),
        )

    # -- every other event goes to the SSL protocol ------------------------------------------
    def get_buffer(self, sizehint: int) -> memoryview:
        if self.tls is None:  # refused: the transport is closing, whatever it still reads
            return memoryview(bytearray(max(sizehint, 1)))
        buffer: memoryview = self.tls.get_buffer(sizehint)
        return buffer

    def buffer_updated(self, nbytes: int) -> None:
        if self.tls is not None:
            self.tls.buffer_updated(nbytes)

    def eof_received(self) -> bool | None:
        if self.tls is None:
            return None
        keep_open: bool | None = self.tls.eof_received()
        return keep_open

    def pause_writing(self) -> None:
        if self.tls is not None:
            self.tls.pause_writing()

    def resume_writing(self) -> None:
        if self.tls is not None:
            self.tls.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.tls is not None:
            self.tls.connection_lost(exc)
            self.tls = None
        # The connection's own close gives it back too if it was made; whichever is first.
        if self.admission is not None:
            self.admission.release()
            self.admission = None
