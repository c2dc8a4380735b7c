"""The broker process: binds the listeners, serves until told to stop, then stops cleanly."""

from __future__ import annotations

import asyncio
import signal

from broker.config import Config, load_or_create_cluster_id
from broker.connection import KafkaConnection
from broker.handlers import build_router
from broker.logging import get_logger
from broker.services import Services
from storage.clock import Clock, SystemClock

log = get_logger("odradek.server")

SHUTDOWN_GRACE_SECONDS = 10.0


class Server:
    def __init__(self, config: Config, clock: Clock | None = None) -> None:
        self.config = config
        self.clock = clock or SystemClock()
        self.services: Services | None = None
        self.servers: list[asyncio.Server] = []
        self.stopping = asyncio.Event()

    async def start(self) -> None:
        config = self.config
        config.data_dir.mkdir(parents=True, exist_ok=True)
        cluster_id = load_or_create_cluster_id(config)
        self.services = Services(config=config, clock=self.clock, cluster_id=cluster_id, router=build_router())
        loop = asyncio.get_running_loop()
        for listener in config.listeners:
            services = self.services
            server = await loop.create_server(
                lambda name=listener.name: KafkaConnection(services, name),  # type: ignore[misc]
                host=listener.host,
                port=listener.port,
                reuse_address=True,
            )
            self.servers.append(server)
            bound = [s.getsockname() for s in server.sockets]
            log.info("listening", listener=listener.name, addresses=[f"{a[0]}:{a[1]}" for a in bound])
        log.info("broker started", node_id=config.node_id, cluster_id=cluster_id, data_dir=str(config.data_dir))

    async def stop(self) -> None:
        log.info("broker stopping")
        for server in self.servers:
            server.close()
        if self.services is not None:
            connections = list(self.services.connections)
            await asyncio.gather(*(c.drain(SHUTDOWN_GRACE_SECONDS) for c in connections), return_exceptions=True)
        for server in self.servers:
            await server.wait_closed()
        log.info("broker stopped")

    async def serve_forever(self) -> None:
        await self.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        await self.stopping.wait()
        await self.stop()
