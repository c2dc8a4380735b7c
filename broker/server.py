"""The broker process: binds the listeners, serves until told to stop, then stops cleanly."""

from __future__ import annotations

import asyncio
import functools
import signal
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from broker.cluster_setup import start_cluster
from broker.config import Config, load_or_create_cluster_id
from broker.connection import KafkaConnection
from broker.coordinator_leadership import following
from broker.dynamic_config import DynamicConfigs, effective_topic_defaults
from broker.fetch_sessions import FetchSessionCache
from broker.handlers import build_router
from broker.inter_broker import InterBrokerClient
from broker.inter_broker_security import InterBrokerSecurity, inter_broker_security
from broker.log_dir_failure import halt_on_failure
from broker.logging import get_logger
from broker.metadata_stores import MetadataStores, open_metadata_stores
from broker.metrics.collector import BrokerCollector, coordinators_ready
from broker.metrics.endpoint import MetricsEndpoint
from broker.metrics.loop_lag import watch_loop_lag
from broker.security.authorization import build_authorizer
from broker.security.listeners import tls_contexts
from broker.security.sasl.servers import SaslServers
from broker.services import Services
from broker.share_persister import ClusterSharePersister
from broker.storage_setup import is_postgres_url, open_storage, producer_id_manager
from broker.tls_gate import CountedTlsConnection
from broker.txn_marker_channel import ClusterMarkerWriter, inter_broker_addresses
from coordinator.group.service import start_group_coordinator
from coordinator.share.service import start_share_coordinator
from coordinator.transaction.markers import EngineMarkerWriter, MarkerListener, MarkerWriter
from coordinator.transaction.service import run_ticks, start_transaction_coordinator
from storage.clock import Clock, SystemClock
from storage.errors import UnknownTopicOrPartitionError
from storage.file_storage import FileStorage
from storage.log_manager import LogManager

if TYPE_CHECKING:
    from storage.postgres.cluster.node import ClusterNode

log = get_logger("odradek.server")

SHUTDOWN_GRACE_SECONDS = 10.0
HOUSEKEEPING_TICK_SECONDS = 1.0
CHECKPOINT_INTERVAL_MS = 60_000

# Broker properties that set the defaults of topic configs (Kafka's synonyms).
TOPIC_DEFAULT_SYNONYMS = {
    "log.segment.bytes": "segment.bytes",
    "log.roll.ms": "segment.ms",
    "log.preallocate": "preallocate",
    "log.retention.ms": "retention.ms",
    "log.retention.bytes": "retention.bytes",
    "message.max.bytes": "max.message.bytes",
}


def topic_defaults(config: Config) -> dict[str, str]:
    return {topic_name: _config_text(config.get(broker_name)) for broker_name, topic_name in TOPIC_DEFAULT_SYNONYMS.items()}


def _config_text(value: object) -> str:
    """A setting as a topic config's text (Kafka writes booleans in lower case)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class Server:
    def __init__(self, config: Config, clock: Clock | None = None) -> None:
        self.config = config
        self.clock = clock or SystemClock()
        self.services: Services | None = None
        self.servers: list[asyncio.Server] = []
        self.stopping = asyncio.Event()
        self.background: list[asyncio.Task[None]] = []
        self.metrics_endpoint: MetricsEndpoint | None = None
        self.metrics_port: int | None = None
        self.cluster_node: ClusterNode | None = None
        self.metadata: MetadataStores | None = None
        # Cluster mode: requests to the other brokers (transaction markers, KIP-890 verification).
        self.inter_broker: InterBrokerClient | None = None

    async def start(self) -> None:
        config = self.config
        contexts = tls_contexts(config)
        # Checked before anything starts, as the listeners' own settings are.
        peers = inter_broker_security(config) if config.get("cluster.enable") else None
        config.data_dir.mkdir(parents=True, exist_ok=True)
        cluster_id = load_or_create_cluster_id(config)
        # The file engine's dynamic configs give the topic defaults its logs open with; on
        # PostgreSQL they are the cluster's, read once the engine is open (below).
        postgres = is_postgres_url(config.get_str("storage.engine").strip())
        file_dynamic = None if postgres else DynamicConfigs.load(config.data_dir)
        storage = await open_storage(
            config,
            self.clock,
            broker_defaults=effective_topic_defaults(topic_defaults(config), file_dynamic),
            producer_id_expiration_ms=config.get_ms("producer.id.expiration.ms"),
            internal_segment_bytes={
                "__consumer_offsets": config.get_int("offsets.topic.segment.bytes"),
                "__transaction_state": config.get_int("transaction.state.log.segment.bytes"),
            },
        )
        # Before any listener: a request never meets a broker without its ACLs.
        metadata = await open_metadata_stores(config, storage, file_dynamic)
        self.metadata = metadata
        dynamic = metadata.dynamic
        if postgres:
            storage.set_broker_defaults(effective_topic_defaults(topic_defaults(config), dynamic))
        sasl_servers = SaslServers(config, metadata.scram, self.clock)
        cluster_node = None
        if config.get("cluster.enable"):
            cluster_node = await start_cluster(config, storage)
            self.cluster_node = cluster_node
            cluster_node.on_fatal = lambda exc: self.stopping.set()
            metadata.follow(cluster_node)
            # One id for the whole cluster: the first broker's.
            cluster_id = await cluster_node.claim_cluster_id(cluster_id)
        if isinstance(storage, FileStorage):
            # A failed fsync halts the broker, as Kafka on a log dir failure; a PostgreSQL
            # round that fails is retried (storage/postgres/group_commit.py).
            storage.flusher.failure_listeners.append(halt_on_failure(config.data_dir))
        # The group coordinator first: the transaction coordinator's marker writes tell it
        # of every marker reaching `__consumer_offsets` (pending transactional offsets).
        # One broker leads every partition, so both coordinators own (and load) all of
        # theirs now; a cluster passes False and drives them through
        # `Services.coordinator_leadership` as leaderships move.
        owns_all = self.leads_every_partition()
        groups = await start_group_coordinator(config, self.clock, storage, owns_all)
        marker_writer: MarkerWriter | None = None
        if cluster_node is not None:
            assert peers is not None
            marker_writer = self._cluster_marker_writer(cluster_node, storage, peers, [groups.on_txn_marker])
        transactions = await start_transaction_coordinator(
            config, self.clock, storage, marker_writer, marker_listeners=[groups.on_txn_marker],
            producer_ids=producer_id_manager(config, storage), owns_all_partitions=owns_all,
        )
        share = await start_share_coordinator(config, self.clock, storage, owns_all)
        # A group id is of one type: consumer and classic members may not join a share group.
        groups.rt.share_group = lambda group_id: group_id in share.membership.groups
        # Share groups are kept in `__consumer_offsets` too: they follow its partitions.
        share.group_status = lambda group_id: groups.rt.validate(group_id, allow_empty=False)
        groups.partitions.share_load = share.load_groups
        groups.partitions.share_unload = share.unload_groups
        if cluster_node is not None:
            # Past its membership lease another broker may lead what the coordinators hold.
            for ownership in (groups.rt.ownership, transactions.state.ownership, share.store.ownership):
                ownership.lease = cluster_node.lease_valid
        self.services = Services(
            config=config,
            clock=self.clock,
            cluster_id=cluster_id,
            router=build_router(),
            storage=storage,
            transactions=transactions,
            group_coordinator=groups,
            share_coordinator=share,
            dynamic_configs=dynamic,
            fetch_sessions=FetchSessionCache.from_config(config, self.clock),
            sasl_servers=sasl_servers,
            authorizer=build_authorizer(config, metadata.acls),
            features=metadata.features,
            cluster_node=cluster_node,
            inter_broker=self.inter_broker,
        )
        if cluster_node is not None:
            assert self.inter_broker is not None
            # Share partitions keep their state with the state partition's leader, wherever it is.
            share.partitions.persister = ClusterSharePersister(
                config.node_id, share.store, self.inter_broker, cluster_node.leadership.leader_of,
                lambda name: storage.describe_topic(name).topic_id,
                timeout_s=2 * config.get_int("broker.session.timeout.ms") / 1000 + 5,
            )
            follow = following(self.services.coordinator_leadership, lambda topic_id: _topic_name(storage, topic_id))
            cluster_node.listeners.append(follow)
            # The partitions won by the node's first pass, before the coordinators existed.
            await follow(dict(cluster_node.leadership.serving), {})
        # Dynamic topic defaults (log.retention.ms, message.max.bytes, ...) apply at once.
        dynamic.listeners.append(
            lambda: storage.set_broker_defaults(effective_topic_defaults(topic_defaults(config), dynamic))
        )
        await self._start_metrics(self.services, storage)
        limits = self.services.connection_limits
        limits.reconfigure(dynamic.value)
        dynamic.listeners.append(lambda: limits.reconfigure(dynamic.value))
        limits.start_idle_expiry(self.services.connections)
        self.background.append(asyncio.create_task(self._housekeeping(), name="housekeeping"))
        self.background.append(asyncio.create_task(run_ticks(transactions), name="transaction-coordinator"))
        loop = asyncio.get_running_loop()
        services = self.services
        for listener in config.listeners:
            context = contexts[listener.name]
            # A TLS listener's connections are counted in before their handshake.
            factory: Callable[[], asyncio.BaseProtocol] = (
                functools.partial(KafkaConnection, services, listener.name)
                if context is None
                else functools.partial(CountedTlsConnection, services, listener.name, context)
            )
            # Bound now, accepting once every listener is bound (as Kafka's SocketServer
            # enables its acceptors together): a client that reached one finds them all.
            server = await loop.create_server(
                factory, host=listener.host, port=listener.port, reuse_address=True, start_serving=False
            )
            self.servers.append(server)
        await asyncio.gather(*(server.start_serving() for server in self.servers))
        for listener, server in zip(config.listeners, self.servers, strict=True):
            bound = [s.getsockname() for s in server.sockets]
            log.info(
                "listening",
                listener=listener.name,
                security_protocol=config.security_protocols[listener.name],
                addresses=[f"{a[0]}:{a[1]}" for a in bound])
        log.info("broker started", node_id=config.node_id, cluster_id=cluster_id, data_dir=str(config.data_dir))

    def leads_every_partition(self) -> bool:
        """Whether this broker leads every partition from the start (no cluster)."""
        return not self.config.get("cluster.enable")

    async def _start_metrics(self, services: Services, storage: LogManager) -> None:
        metrics = services.metrics
        metrics.registry.register(BrokerCollector(services, self.config.data_dir))
        storage.flusher.round_observers.append(metrics.fsync_round)
        storage.flusher.failure_listeners.append(metrics.storage_write_failed)
        storage.flusher.wait_observers.append(metrics.fsync_waited)
        self.background.append(asyncio.create_task(watch_loop_lag(metrics.event_loop_lag.observe), name="loop-lag"))
        if self.cluster_node is not None:
            self.cluster_node.takeover_observers.append(metrics.partition_taken_over)
        port = self.config.get_int("metrics.port")
        if port < 0:
            return
        self.metrics_endpoint = MetricsEndpoint(metrics.registry, lambda: coordinators_ready(services))
        self.metrics_port = await self.metrics_endpoint.start(self.config.get_str("metrics.host"), port)

    def _cluster_marker_writer(
        self, node: ClusterNode, storage: LogManager, security: InterBrokerSecurity, listeners: list[MarkerListener]
    ) -> MarkerWriter:
        """Markers to each partition's leader (broker/txn_marker_channel.py)."""
        config = self.config
        log.info("inter-broker listener", listener=security.listener, security_protocol=security.protocol,
                 sasl_mechanism=security.mechanism)
        # A peer silent for a session timeout has lost its partitions: ask their new leader.
        self.inter_broker = InterBrokerClient(
            inter_broker_addresses(node, security.listener),
            client_id=f"odradek-broker-{config.node_id}",
            timeout_s=config.get_int("broker.session.timeout.ms") / 1000,
            ssl_context=security.ssl_context,
            sasl=security.sasl,
        )
        return ClusterMarkerWriter(
            config.node_id,
            EngineMarkerWriter(storage, self.clock, listeners),
            self.inter_broker,
            node.leadership.leader_of,
            node.leadership.check,
            lambda name: storage.describe_topic(name).topic_id,
        )

    async def stop(self) -> None:
        log.info("broker stopping")
        if self.cluster_node is not None:
            # Its partitions move to the other brokers first, while it still answers.
            await self.cluster_node.shut_down(SHUTDOWN_GRACE_SECONDS)
        for server in self.servers:
            server.close()
        if self.services is not None:
            self.services.connection_limits.stop()
            connections = list(self.services.connections)
            await asyncio.gather(*(c.drain(SHUTDOWN_GRACE_SECONDS) for c in connections), return_exceptions=True)
        for server in self.servers:
            await server.wait_closed()
        for task in self.background:
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.services is not None:
            await self.services.transactions.shutdown()
            await self.services.group_coordinator.stop()
            await self.services.share_coordinator.stop()
            await self.services.storage.close()
        if self.inter_broker is not None:
            self.inter_broker.close()
        if self.cluster_node is not None:
            # After the last round: the partitions move once everything written is in PostgreSQL.
            await self.cluster_node.stop()
        if self.metadata is not None:
            await self.metadata.close()
        if self.metrics_endpoint is not None:
            await self.metrics_endpoint.stop()
        log.info("broker stopped")

    async def _housekeeping(self) -> None:
        """Retention, log cleaning and recovery-point checkpoints, on their own schedules."""
        assert self.services is not None
        storage = self.services.storage
        retention_every = int(self.config.get("log.retention.check.interval.ms"))
        checkpoint_every = CHECKPOINT_INTERVAL_MS
        cleaner_every = int(self.config.get("log.cleaner.backoff.ms"))
        next_retention = self.clock.monotonic_ms() + retention_every
        next_clean = self.clock.monotonic_ms() + cleaner_every
        next_checkpoint = self.clock.monotonic_ms() + checkpoint_every
        while True:
            await asyncio.sleep(HOUSEKEEPING_TICK_SECONDS)
            now = self.clock.monotonic_ms()
            try:
                if now >= next_retention:
                    next_retention = now + retention_every
                    deleted = await storage.enforce_retention()
                    if deleted:
                        log.info("retention deleted segments", segments=deleted)
                if now >= next_clean:
                    await storage.compact()
                    # A dynamic log.cleaner.backoff.ms takes over from the next round.
                    backoff = self.services.dynamic_configs.value("log.cleaner.backoff.ms")
                    next_clean = self.clock.monotonic_ms() + (int(backoff) if backoff else cleaner_every)
                if now >= next_checkpoint:
                    next_checkpoint = now + checkpoint_every
                    await storage.checkpoint()
            except Exception:
                log.exception("housekeeping failed")

    async def serve_forever(self) -> None:
        await self.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        await self.stopping.wait()
        await self.stop()


def _topic_name(storage: LogManager, topic_id: uuid.UUID) -> str | None:
    try:
        return storage.describe_topic(topic_id).name
    except UnknownTopicOrPartitionError:
        return None
