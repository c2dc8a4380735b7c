"""One broker's part in a cluster: its membership session, the controller when it holds
the lock, and the leadership it applies to its storage engine.

A dedicated connection holds the node's advisory lock (and the controller's, when taken)
and LISTENs; every heartbeat interval, and at once on a NOTIFY, the broker stamps its
heartbeat, ends expired brokers' sessions, runs the controller if it is the one, reloads the
topic catalog when told it changed, and applies the partition leaders: partitions lost are
released at once, partitions won are reloaded from PostgreSQL before they are served.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

import asyncpg

from storage.errors import KafkaStorageError

from . import controller
from .leadership import Leadership, PartitionKey
from .membership import (
    BrokerEndpoint,
    BrokerInfo,
    LockSpaces,
    NodeIdInUseError,
    begin_shutdown,
    controller_id,
    end_expired,
    heartbeat,
    live_brokers,
    lock_spaces,
    register,
    try_controller,
)
from .notify import CLUSTER_CHANNEL, METADATA_PAYLOAD

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
# The controller looks for dead brokers this often (a killed broker sends no NOTIFY).
CONTROLLER_CHECK_SECONDS = 0.25
# The catalog is read again every so many passes even without a NOTIFY (one sent while
# the membership connection was down is lost).
CATALOG_PASSES = 20
SHUTDOWN_POLL_SECONDS = 0.05


class ClusterStorage(Protocol):
    """What the node needs of the engine (storage/postgres/engine.py's PostgresStorage)."""

    def enable_cluster(self, leadership: Leadership) -> None: ...

    def release(self, keys: set[PartitionKey]) -> None: ...

    async def reload_partition(self, key: PartitionKey, epoch: int) -> list[tuple[int, int]] | None: ...

    async def reload_catalog(self) -> bool: ...


# Told of partitions won (with their epochs) and lost, after the engine applied them: where
# the coordinators' onElection / onResignation hooks belong. A pass tells what it lost
# first, in a call of its own before it reloads anything won (`_apply`).
LeadershipListener = Callable[[dict[PartitionKey, int], dict[PartitionKey, int]], Awaitable[None]]


class ClusterNode:
    def __init__(
        self,
        connect: Callable[[], Awaitable[asyncpg.Connection]],
        storage: ClusterStorage,
        *,
        node_id: int,
        incarnation: str,
        endpoints: Sequence[BrokerEndpoint],
        rack: str | None,
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        supported_features: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        self._connect = connect
        self.storage = storage
        self.node_id = node_id
        self.endpoints = tuple(endpoints)
        self.rack = rack
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # Registered with the membership (None: not recorded, as by an older version).
        self.supported_features = None if supported_features is None else dict(supported_features)
        self.leadership = Leadership(node_id)
        self.brokers: list[BrokerInfo] = []
        self.controller: int | None = None
        self.is_controller = False
        self.listeners: list[LeadershipListener] = []
        # Leaderships won and lost since start, and the observers of each takeover's
        # duration (the partition's reload from PostgreSQL): the broker's metrics.
        self.won_total = 0
        self.lost_total = 0
        self.takeover_observers: list[Callable[[float], None]] = []
        self._conn: asyncpg.Connection | None = None
        self.incarnation = incarnation
        self._spaces: LockSpaces | None = None
        self._wake = asyncio.Event()
        self._catalog_changed = True
        # The cluster's metadata (storage/postgres/cluster_metadata.py) changed: its reader,
        # told at a NOTIFY 'metadata' and at every periodic catalog read.
        self.metadata_refresh: Callable[[], Awaitable[object]] | None = None
        self._metadata_changed = False
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  # one user of the membership connection at a time
        # Told when this broker can no longer be a member (its node id taken by another
        # broker while it was cut off): the broker stops.
        self.on_fatal: Callable[[BaseException], None] = lambda exc: None
        # Partitions released by a lost session (`_lost`), with the epoch they were served
        # at, that the listeners have not been told of yet.
        self._released: dict[PartitionKey, int] = {}
        # Partitions lost (dropped from `serving` by a pass, or by a fenced round) that the
        # listeners have not been told of yet: kept until a pass has, so that one failing
        # after dropping them (PostgreSQL gone while it reloads a partition won) does not
        # leave a coordinator serving the partition from its memory while another leads it.
        self._unheard: dict[PartitionKey, int] = {}
        # A round found partitions fenced: a pass tells the listeners at once.
        self.leadership.on_lost = self._wake.set
        # The membership lease, on `time.monotonic()`: until then no other broker can lead
        # a partition led here (`lease_valid`).
        self._lease_until = 0.0
        self.leadership.lease = self.lease_valid

    # --- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Register (NodeIdInUseError if the id is taken), serve nothing yet, apply the
        leaders once, then keep at it in the background."""
        await self._join()
        self.storage.enable_cluster(self.leadership)
        await self._pass()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cluster-membership")

    async def claim_cluster_id(self, local: str) -> str:
        """The cluster id of the database, set to `local` by the first broker."""
        async with self._lock:
            conn = await self._connection()
            await conn.execute(
                "INSERT INTO cluster_identity (id, cluster_id) VALUES (0, $1) ON CONFLICT DO NOTHING", local
            )
            return str(await conn.fetchval("SELECT cluster_id FROM cluster_identity WHERE id = 0"))

    async def live_brokers_now(self) -> list[BrokerInfo]:
        """The live brokers as PostgreSQL has them at this moment, not as of the last pass
        (`brokers`): what UpdateFeatures checks its levels against. KafkaStorageError when
        PostgreSQL cannot be read."""
        try:
            async with self._lock:
                conn = await self._connection()
                assert self._spaces is not None
                return await live_brokers(conn, self._spaces)
        except (
            OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError,
            asyncpg.exceptions.InternalClientError,  # a session ended while idle, as in `_run`
        ) as exc:
            raise KafkaStorageError(f"cannot read the cluster's brokers: {exc!r}") from exc

    async def shut_down(self, timeout: float) -> None:
        """Kafka's controlled shutdown: leave the live brokers and wait (at most `timeout`
        seconds) until the controller has moved every partition away, serving meanwhile, so
        that clients move to the new leaders on NOT_LEADER_OR_FOLLOWER, not on errors."""
        try:
            async with self._lock:
                conn = await self._connection()
                await begin_shutdown(conn, self.node_id, self.incarnation)
                await conn.execute("SELECT pg_notify($1, 'brokers')", CLUSTER_CHANNEL)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            logger.warning("controlled shutdown not possible: %s", exc)
            return
        self._wake.set()
        deadline = asyncio.get_running_loop().time() + timeout
        while self.leadership.serving and asyncio.get_running_loop().time() < deadline:
            self._wake.set()
            await asyncio.sleep(SHUTDOWN_POLL_SECONDS)
        if self.leadership.serving:
            logger.warning("controlled shutdown: %d partition(s) still led here", len(self.leadership.serving))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), CONNECT_TIMEOUT_SECONDS)

    async def _join(self) -> None:
        conn = await asyncio.wait_for(self._connect(), CONNECT_TIMEOUT_SECONDS)
        try:
            self._spaces = lock_spaces(str(await conn.fetchval("SELECT current_schema()")))
            await register(
                conn, self._spaces, self.node_id, self.incarnation, self.endpoints, self.rack, self.session_timeout_ms,
                self.supported_features,
            )
            await conn.add_listener(CLUSTER_CHANNEL, self._notified)
            await conn.execute("SELECT pg_notify($1, 'brokers')", CLUSTER_CHANNEL)
        except BaseException:
            conn.terminate()
            raise
        self._conn = conn
        self.is_controller = False
        self._catalog_changed = True
        self._metadata_changed = True  # a NOTIFY sent while not listening is lost
        logger.info("joined the cluster as node %d", self.node_id)

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            self._lost()
            await self._join()
        assert self._conn is not None
        return self._conn

    def lease_valid(self) -> bool:
        """Whether no other broker can lead this one's partitions yet, so that what the
        coordinators keep in memory may be answered from. The others end this broker's
        session `broker.session.timeout.ms` after its last heartbeat stamp, which PostgreSQL
        takes after the pass that sent it started, or at once when its membership connection
        closes; a pass renews the lease once the listeners have heard what it lost. A broker
        resumed after a pause thus answers NOT_COORDINATOR from its first request, before its
        next pass has learnt who leads now."""
        return time.monotonic() < self._lease_until

    def _notified(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        if payload == "catalog":
            self._catalog_changed = True
        elif payload == METADATA_PAYLOAD:
            self._metadata_changed = True
        self._wake.set()

    def _lost(self) -> None:
        """The membership session is gone (ended as expired, or PostgreSQL lost): others may
        lead our partitions already, so none is served until leadership is read again. The
        listeners hear of them with the next pass (`_apply`)."""
        self._lease_until = 0.0  # the lock goes with the connection: others may lead at once
        served = dict(self.leadership.serving)
        if served:
            self.leadership.serving.clear()
            self.storage.release(set(served))
            self.lost_total += len(served)
            logger.warning("membership session lost: released %d partition(s)", len(served))
            self._released.update(served)
        self.is_controller = False
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()

    async def _run(self) -> None:
        interval = self.heartbeat_interval_ms / 1000
        loop = asyncio.get_running_loop()
        next_pass = loop.time() + interval
        passes = 0
        while True:
            woken = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), min(interval, CONTROLLER_CHECK_SECONDS))
                woken = True
            self._wake.clear()
            try:
                # Between passes the others only try the controller lock: a killed
                # controller sends no NOTIFY, and waiting for the next heartbeat would
                # leave its partitions without a leader for up to an interval.
                if not (woken or self.is_controller or loop.time() >= next_pass) and not await self._probe():
                    continue
                next_pass = loop.time() + interval
                passes += 1
                if passes % CATALOG_PASSES == 0:
                    self._catalog_changed = True
                    self._metadata_changed = True
                await self._pass()
            except NodeIdInUseError as exc:
                logger.error("%s", exc)
                self._lost()
                self.on_fatal(exc)
                return
            except (
                OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError,
                # A session PostgreSQL ended (the others end an expired broker's) whose FATAL
                # message asyncpg read while idle, before the socket's end: it refuses the
                # next statement so ("cannot switch to state ...; another operation (2)").
                asyncpg.exceptions.InternalClientError,
            ) as exc:
                logger.warning("cluster pass failed: %s", exc)
                self._lost()
            except Exception:  # the next pass tries again
                logger.exception("cluster pass failed")

    async def _probe(self) -> bool:
        """End expired brokers' sessions (a paused controller's too, whose lock then goes)
        and take the controller lock if it is free; True when this broker took it (a full
        pass follows at once and elects)."""
        async with self._lock:
            conn, spaces = self._conn, self._spaces
            if conn is None or conn.is_closed() or spaces is None:
                return False  # the next pass reconnects, at the heartbeat interval as ever
            ended = await end_expired(conn, self.node_id)
            self.is_controller = await try_controller(conn, spaces)
        if ended:
            logger.warning("ended the sessions of expired broker(s) %s", ended)
        if self.is_controller:
            logger.info("node %d is the controller", self.node_id)
        return self.is_controller

    # --- one pass ---------------------------------------------------------------------

    async def _pass(self) -> None:
        async with self._lock:
            conn = await self._connection()
            spaces = self._spaces
            assert spaces is not None
            renewed_until = time.monotonic() + self.session_timeout_ms / 1000
            ended = await heartbeat(conn, self.node_id, self.incarnation)
            if ended:
                logger.warning("ended the sessions of expired broker(s) %s", ended)
            if not self.is_controller:
                self.is_controller = await try_controller(conn, spaces)
                if self.is_controller:
                    logger.info("node %d is the controller", self.node_id)
            if self.is_controller:
                moved = await controller.elect(conn, spaces)
                if moved:
                    logger.info("controller moved %d partition leader(s)", moved)
            self.brokers = await live_brokers(conn, spaces)
            self.controller = await controller_id(conn, spaces)
            rows = await conn.fetch("SELECT topic_id, partition, leader_id, leader_epoch FROM partition_leaders")
        if self._catalog_changed:
            self._catalog_changed = False
            await self.storage.reload_catalog()
        if self._metadata_changed and self.metadata_refresh is not None:
            self._metadata_changed = False
            try:
                await self.metadata_refresh()
            except Exception as exc:
                # Its own connection: the membership stands; the metadata in force stays.
                logger.warning("cluster metadata not read: %s", exc)
                self._metadata_changed = True
        await self._apply(
            {(r["topic_id"], r["partition"]): (r["leader_id"], r["leader_epoch"]) for r in rows}, renewed_until
        )

    async def _apply(
        self, leaders: dict[PartitionKey, tuple[int | None, int]], renewed_until: float = 0.0
    ) -> None:
        leadership = self.leadership
        leadership.leaders = leaders
        lost = {k: e for k, e in leadership.serving.items() if leaders.get(k) != (self.node_id, e)}
        for key in lost:
            del leadership.serving[key]
            leadership.epochs.pop(key, None)
        if lost:
            self.storage.release(set(lost))
        # A fenced round dropped its partitions from `serving` already (Leadership.fence):
        # lost at the epoch served, whatever the table read says (the round saw newer).
        fenced = leadership.take_fenced()
        self.lost_total += len(lost) + len(fenced)
        self._unheard.update(lost)
        self._unheard.update(fenced)
        lost = dict(self._unheard)
        # What a lost session released is lost too unless it is led here again at the same
        # epoch (no other broker led it meanwhile): the listeners hear of it before anything
        # won, so that a coordinator or a share partition held before is loaded again from
        # PostgreSQL, not served from what it kept in memory while another broker led it.
        for key, epoch in self._released.items():
            if leaders.get(key) != (self.node_id, epoch):
                lost.setdefault(key, epoch)
        self._released = {}
        self._unheard = {}
        # Told before anything won is reloaded: those reloads take a while, and the brokers
        # that read the new leaders meanwhile may already ask a coordinator here (a
        # partition leader's KIP-890 verification) what it held before another led it.
        if lost:
            logger.info("leadership: lost %d partition(s)", len(lost))
            for listener in self.listeners:
                await listener({}, lost)
        # Unless the session was lost meanwhile.
        if self._conn is not None and not self._conn.is_closed():
            self._lease_until = max(self._lease_until, renewed_until)
        won: dict[PartitionKey, int] = {}
        for key, (leader, epoch) in sorted(leaders.items()):
            if leader != self.node_id or leadership.serving.get(key) == epoch:
                continue
            started = time.perf_counter()
            epochs = await self.storage.reload_partition(key, epoch)
            took = time.perf_counter() - started
            if epochs is None:
                self._catalog_changed = True  # a topic not known here yet: read it next pass
                continue
            if leadership.leaders.get(key) == (leader, epoch):
                leadership.serving[key] = epoch
                leadership.epochs[key] = epochs
                won[key] = epoch
                for observe in self.takeover_observers:
                    observe(took)
        self.won_total += len(won)
        if won:
            logger.info("leadership: won %d partition(s)", len(won))
            for listener in self.listeners:
                await listener(won, {})
