"""The cluster's shared metadata documents (migration 0005): the ACLs, the SCRAM
credentials, the dynamic configs and the finalized features, one JSON document per name,
that every broker over the database applies (Kafka keeps them in its metadata log).

A change is one SQL transaction: the document is read FOR UPDATE, changed, written with its
version bumped and announced by NOTIFY 'metadata' (storage/postgres/cluster/notify.py), so
two brokers changing it at once apply one change after the other, each to the other's
result. The writer applies the new document on commit; the other brokers on the NOTIFY, or
at the cluster's periodic check (storage/postgres/cluster/node.py) when one was missed.

Plain JSON here: what the documents mean is the broker's (broker/metadata_stores.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg

from ..errors import KafkaStorageError
from .cluster.notify import CLUSTER_CHANNEL, METADATA_PAYLOAD
from .group_commit import Connector

T = TypeVar("T")
# Told of a document's new content (None: never written), in version order.
Watcher = Callable[[Any], None]
# Given the document as committed (None: never written), returns the new one and an answer;
# returning the very document given writes nothing.
Change = Callable[[Any], tuple[Any, T]]


class _Refused(Exception):
    """What `change` raised, carried out of the rolled back transaction."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class MetadataDocuments:
    def __init__(self, connect: Callable[[], Awaitable[asyncpg.Connection]]) -> None:
        self._connector = Connector(connect)
        # One user of the connection at a time: watchers see versions only ever growing.
        self._lock = asyncio.Lock()
        self._versions: dict[str, int] = {}
        self._watchers: dict[str, list[Watcher]] = {}

    def watch(self, name: str, watcher: Watcher) -> None:
        self._watchers.setdefault(name, []).append(watcher)

    async def refresh(self) -> list[str]:
        """Read the documents changed since last read and tell their watchers; the names.
        KafkaStorageError when PostgreSQL fails (the documents in force stay)."""
        async with self._lock:
            try:
                conn = await self._connector.get()
                rows = await conn.fetch("SELECT name, version FROM cluster_metadata")
                newer = [r["name"] for r in rows if r["version"] > self._versions.get(r["name"], 0)]
                if not newer:
                    return []
                docs = await conn.fetch(
                    "SELECT name, doc, version FROM cluster_metadata WHERE name = ANY($1::text[])", newer
                )
            except Exception as exc:  # asyncpg's, of any kind: the connection is suspect
                self._connector.drop()
                raise KafkaStorageError(f"cannot read the cluster's metadata: {exc!r}") from exc
            for r in docs:
                self._apply(r["name"], json.loads(r["doc"]), int(r["version"]))
            return sorted(r["name"] for r in docs)

    async def update(self, name: str, change: Change[T]) -> T:
        """Apply `change` to the document in one transaction; once committed, the watchers
        are told of the new document. An error (what `change` raises, or KafkaStorageError
        when PostgreSQL fails) leaves the document as it was."""
        async with self._lock:
            try:
                conn = await self._connector.get()
                async with conn.transaction():
                    row = await conn.fetchrow(
                        "SELECT doc, version FROM cluster_metadata WHERE name = $1 FOR UPDATE", name
                    )
                    if row is None:
                        # The first writer of the name; a concurrent one waits on the key.
                        await conn.execute("SELECT pg_advisory_xact_lock(hashtext('cluster_metadata:' || $1))", name)
                        row = await conn.fetchrow(
                            "SELECT doc, version FROM cluster_metadata WHERE name = $1 FOR UPDATE", name
                        )
                    current = None if row is None else json.loads(row["doc"])
                    version = 0 if row is None else int(row["version"])
                    try:
                        new, answer = change(current)
                    except Exception as exc:
                        raise _Refused(exc) from exc
                    changed = new is not current
                    if changed:
                        version += 1
                        await conn.execute(
                            "INSERT INTO cluster_metadata (name, doc, version) VALUES ($1, $2::jsonb, $3) "
                            "ON CONFLICT (name) DO UPDATE SET doc = excluded.doc, version = excluded.version",
                            name, json.dumps(new), version,
                        )
                        await conn.execute("SELECT pg_notify($1, $2)", CLUSTER_CHANNEL, METADATA_PAYLOAD)
            except _Refused as refused:
                raise refused.error from None
            except Exception as exc:  # asyncpg's, of any kind: the connection is suspect
                self._connector.drop()
                raise KafkaStorageError(f"cannot store the cluster's {name}: {exc!r}") from exc
            if changed:
                self._apply(name, new, version)
            return answer

    def _apply(self, name: str, doc: Any, version: int) -> None:
        if version <= self._versions.get(name, 0):
            return
        self._versions[name] = version
        for watcher in self._watchers.get(name, []):
            watcher(doc)

    async def close(self) -> None:
        await self._connector.close()
