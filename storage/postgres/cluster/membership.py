"""Membership and liveness of a cluster's brokers, in PostgreSQL.

A broker is alive while a session of its own holds the advisory lock of its node id
(`pg_try_advisory_lock(LockSpaces.nodes, node_id)`): a killed broker's lock is gone as soon as
PostgreSQL sees its connection close. A silent one (paused, partitioned) still holds it, so
each broker also stamps `brokers.heartbeat` with the database's clock every heartbeat
interval, and every broker ends the sessions of any broker whose heartbeat is older than
its `broker.session.timeout.ms`: its locks go, its rounds in flight abort, and the
controller moves its partitions. The database's clock judges, so the brokers' clocks
never need to agree.
"""

from __future__ import annotations

import json
import uuid
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import asyncpg

from storage.errors import KafkaStorageError

APPLICATION_PREFIX = "odradek-"


@dataclass(frozen=True, slots=True)
class LockSpaces:
    """The first int4 key of the advisory locks: one lock per node id in `nodes`, the
    controller's at (`controller`, 0). Advisory locks are per database, so the keys are
    derived from the schema: clusters in two schemas of a database never meet."""

    nodes: int
    controller: int


def lock_spaces(schema: str) -> LockSpaces:
    return LockSpaces(
        zlib.crc32(f"{schema}/odradek-nodes".encode()) & 0x7FFFFFFF,
        zlib.crc32(f"{schema}/odradek-controller".encode()) & 0x7FFFFFFF,
    )


class NodeIdInUseError(KafkaStorageError):
    """Another live broker holds this node id."""


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    listener: str
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class BrokerInfo:
    node_id: int
    endpoints: tuple[BrokerEndpoint, ...]
    rack: str | None
    # The feature levels it supports, name -> (min, max); None: registered by a version
    # before they were recorded (migrations/0006_broker_features.sql).
    supported_features: Mapping[str, tuple[int, int]] | None = None


def new_incarnation() -> str:
    """A broker process's own token (several clusters may share a server)."""
    return uuid.uuid4().hex[:12]


def application_name(node_id: int, incarnation: str) -> str:
    """The name every PostgreSQL session of the broker process carries (pg_stat_activity),
    so that the others can end them all when it goes silent."""
    return f"{APPLICATION_PREFIX}{node_id}-{incarnation}"


def incarnation_of(name: str | None) -> str:
    """The token of `application_name`'s result."""
    if not name or not name.startswith(APPLICATION_PREFIX) or "-" not in name[len(APPLICATION_PREFIX):]:
        raise ValueError(f"not a cluster broker's application name: {name!r}")
    return name[len(APPLICATION_PREFIX):].split("-", 1)[1]


def node_of_application(name: str | None) -> int | None:
    if not name or not name.startswith(APPLICATION_PREFIX):
        return None
    try:
        return int(name[len(APPLICATION_PREFIX):].split("-", 1)[0])
    except ValueError:
        return None


_REGISTER = """
INSERT INTO brokers (node_id, listeners, rack, incarnation, registered_at, heartbeat, session_timeout_ms,
    supported_features)
VALUES ($1, $2::jsonb, $3, $4, clock_timestamp(), clock_timestamp(), $5, $6::jsonb)
ON CONFLICT (node_id) DO UPDATE SET listeners = excluded.listeners, rack = excluded.rack,
    incarnation = excluded.incarnation, registered_at = excluded.registered_at,
    heartbeat = excluded.heartbeat, session_timeout_ms = excluded.session_timeout_ms, shutting_down = false,
    supported_features = excluded.supported_features
"""

# Sessions of brokers silent past their session timeout (never our own).
_END_EXPIRED = """
SELECT pg_terminate_backend(a.pid), b.node_id FROM pg_stat_activity a JOIN brokers b
    ON a.application_name = $2 || b.node_id::text || '-' || b.incarnation
WHERE b.node_id <> $1
    AND extract(epoch FROM clock_timestamp() - b.heartbeat) * 1000 > b.session_timeout_ms
"""

_LIVE = """
SELECT b.node_id, b.listeners, b.rack, b.supported_features FROM brokers b
JOIN pg_locks l ON l.locktype = 'advisory' AND l.classid = $1::oid AND l.objid = b.node_id::oid
    AND l.objsubid = 2 AND l.granted
WHERE extract(epoch FROM clock_timestamp() - b.heartbeat) * 1000 <= b.session_timeout_ms
    AND NOT b.shutting_down
ORDER BY b.node_id
"""

_CONTROLLER = """
SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objid = 0 AND l.objsubid = 2 AND l.granted
"""


async def register(
    conn: asyncpg.Connection,
    spaces: LockSpaces,
    node_id: int,
    incarnation: str,
    endpoints: Sequence[BrokerEndpoint],
    rack: str | None,
    session_timeout_ms: int,
    supported_features: Mapping[str, tuple[int, int]] | None,
) -> None:
    """Take the node id's lock on this session and register with the feature levels it
    supports, name -> (min, max) (None: not recorded); NodeIdInUseError if taken."""
    if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", spaces.nodes, node_id):
        raise NodeIdInUseError(
            f"node.id {node_id} is in use by another live broker of this cluster: "
            "give each broker its own node.id"
        )
    listeners = json.dumps([[e.listener, e.host, e.port] for e in endpoints])
    supported = None
    if supported_features is not None:
        supported = json.dumps({name: [lo, hi] for name, (lo, hi) in sorted(supported_features.items())})
    await conn.execute(_REGISTER, node_id, listeners, rack, incarnation, session_timeout_ms, supported)


async def heartbeat(conn: asyncpg.Connection, node_id: int, incarnation: str) -> list[int]:
    """Stamp our heartbeat, then end the sessions of expired brokers; returns their ids."""
    updated = await conn.execute(
        "UPDATE brokers SET heartbeat = clock_timestamp() WHERE node_id = $1 AND incarnation = $2",
        node_id, incarnation,
    )
    if updated != "UPDATE 1":
        raise NodeIdInUseError(f"node.id {node_id} was registered again by another broker")
    return await end_expired(conn, node_id)


async def end_expired(conn: asyncpg.Connection, node_id: int) -> list[int]:
    """End the sessions of the other brokers whose heartbeat is older than their session
    timeout; returns their ids."""
    rows = await conn.fetch(_END_EXPIRED, node_id, APPLICATION_PREFIX)
    return sorted({r["node_id"] for r in rows if r["pg_terminate_backend"]})


async def begin_shutdown(conn: asyncpg.Connection, node_id: int, incarnation: str) -> None:
    """No longer live for the controller, which moves this broker's partitions away."""
    await conn.execute(
        "UPDATE brokers SET shutting_down = true WHERE node_id = $1 AND incarnation = $2", node_id, incarnation
    )


async def live_brokers(conn: asyncpg.Connection, spaces: LockSpaces) -> list[BrokerInfo]:
    out = []
    for r in await conn.fetch(_LIVE, spaces.nodes):
        endpoints = tuple(BrokerEndpoint(str(n), str(h), int(p)) for n, h, p in json.loads(r["listeners"]))
        supported = None
        if r["supported_features"] is not None:
            supported = {str(k): (int(v[0]), int(v[1])) for k, v in json.loads(r["supported_features"]).items()}
        out.append(BrokerInfo(r["node_id"], endpoints, r["rack"], supported))
    return out


async def try_controller(conn: asyncpg.Connection, spaces: LockSpaces) -> bool:
    """Take the controller lock on this session if free (held until the session ends)."""
    return bool(await conn.fetchval("SELECT pg_try_advisory_lock($1, 0)", spaces.controller))


async def controller_id(conn: asyncpg.Connection, spaces: LockSpaces) -> int | None:
    return node_of_application(await conn.fetchval(_CONTROLLER, spaces.controller))
