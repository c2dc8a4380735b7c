"""The metrics and health endpoint: a minimal HTTP/1.1 server on the broker's event loop.

It runs on the loop (not prometheus_client's thread server) so the collector reads storage
and coordinator state between two steps of the broker, never while one is half done; a
scrape is short CPU work, and every read and write here is bounded by a timeout.

- `GET /metrics`: Prometheus text format.
- `GET /healthz`: 200 while the process serves (liveness).
- `GET /readyz`: 200 once both coordinators have loaded their state, else 503 (readiness).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from broker.logging import get_logger

log = get_logger("odradek.metrics")

REQUEST_TIMEOUT_SECONDS = 10.0
MAX_REQUEST_HEAD_BYTES = 8192


class MetricsEndpoint:
    def __init__(self, registry: CollectorRegistry, ready: Callable[[], bool]) -> None:
        self.registry = registry
        self.ready = ready
        self.server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Binds and returns the port (the one chosen when `port` is 0)."""
        self.server = await asyncio.start_server(self._serve, host=host, port=port, reuse_address=True)
        bound = int(self.server.sockets[0].getsockname()[1])
        log.info("metrics endpoint listening", address=f"{host}:{bound}")
        return bound

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT_SECONDS)
            status, content_type, body = self._answer(head)
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n".encode()
                + body
            )
            await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_SECONDS)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass  # a client that went away or never sent a request: nothing to answer
        except Exception:
            log.exception("metrics request failed")
        finally:
            writer.close()

    def _answer(self, head: bytes) -> tuple[str, str, bytes]:
        if len(head) > MAX_REQUEST_HEAD_BYTES:
            return "431 Request Header Fields Too Large", "text/plain", b"too large\n"
        parts = head.split(b"\r\n", 1)[0].split()
        if len(parts) != 3 or parts[0] not in (b"GET", b"HEAD"):
            return "405 Method Not Allowed", "text/plain", b"GET only\n"
        path = parts[1].split(b"?", 1)[0]
        if path == b"/metrics":
            return "200 OK", CONTENT_TYPE_LATEST, generate_latest(self.registry)
        if path == b"/healthz":
            return "200 OK", "text/plain", b"ok\n"
        if path == b"/readyz":
            if self.ready():
                return "200 OK", "text/plain", b"ready\n"
            return "503 Service Unavailable", "text/plain", b"coordinators loading\n"
        return "404 Not Found", "text/plain", b"not found\n"
