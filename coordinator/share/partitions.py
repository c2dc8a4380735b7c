"""The share partitions a broker serves (Kafka's SharePartitionManager, its state part): one
`SharePartition` per (group, topic id, partition), built on first use from the durable state
its persister reads (`coordinator/share/persister.py`: this broker's
`coordinator/share/state_store.py`, or in a cluster the share coordinator wherever it is).

As Kafka's `SharePartition` does, an acquisition changes the partition in memory only (a
crash delivers again what was acquired and not acknowledged, at the delivery count last
written); an acknowledgement or a release is answered once the new state is durable, and one
whose write fails is rolled back (`SharePartition.abort_change`) and leaves no trace. The
acknowledgements that queue behind a write are applied and written together by the next
one (one write per acknowledgement round rather than one per request). A lock timeout
writes the state too, and keeps its change if that write fails (Kafka's
`releaseAcquisitionLockOnTimeout`)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import structlog

from coordinator.log import CoordinatorLogError
from coordinator.share.config import SharePartitionConfig
from coordinator.share.partition import PersistedBatch, ShareAcknowledgeError, SharePartition
from coordinator.share.persister import LocalPersister, SharePersister
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareStateStore
from protocol.errors import ErrorCode
from storage.clock import Clock

_T = TypeVar("_T")

log = structlog.get_logger("odradek.share")

_Pending = tuple[Callable[[SharePartition], Any], "asyncio.Future[Any]"]
# A write refused so: the share partition held here is stale (a newer leader of its data
# partition read it, or it was initialized again: AlterShareGroupOffsets).
_FENCED = (ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.FENCED_STATE_EPOCH)


def _drop_coroutine(coro: Coroutine[Any, Any, None]) -> None:
    coro.close()


class SharePartitions:
    def __init__(self, store: ShareStateStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        # Where the state is read and written: a cluster's broker sets its own.
        self.persister: SharePersister = LocalPersister(store)
        self.partitions: dict[SharePartitionKey, SharePartition] = {}
        # Held only while in use (whoever holds or waits for one keeps it): the admin APIs
        # take those of share partitions that never come to this broker (DeleteGroups names
        # every partition of every topic in a cluster), which would else be kept for ever.
        self._locks: weakref.WeakValueDictionary[SharePartitionKey, asyncio.Lock] = weakref.WeakValueDictionary()
        self._fetch_locks: weakref.WeakValueDictionary[SharePartitionKey, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        # What was last written for each share partition: an unchanged state is not written again.
        self._written: dict[SharePartitionKey, tuple[int, list[PersistedBatch]]] = {}
        # Changes waiting for the next write of their share partition.
        self._pending: dict[SharePartitionKey, list[_Pending]] = {}
        # Called with the key when records of a share partition became available by lock timeout.
        self.on_available: Callable[[SharePartitionKey], None] = lambda key: None
        # Runs a background task (the write after a lock timeout); set by the coordinator.
        self.spawn: Callable[[Coroutine[Any, Any, None]], None] = _drop_coroutine

    def get(
        self,
        key: SharePartitionKey,
        initial_start_offset: Callable[[], int],
        config: SharePartitionConfig | None = None,
    ) -> SharePartition:
        """The share partition, built from its durable state, or starting at
        `initial_start_offset()` (share.auto.offset.reset) when it has none."""
        sp = self.partitions.get(key)
        if sp is not None:
            if config is not None and config != sp.config:
                sp.config = config
            return sp
        state = self.store.states.get(key)
        if state is None:
            sp = SharePartition(self.clock, initial_start_offset(), config)
        else:
            sp = SharePartition.restored(self.clock, state.start_offset, state.batches, config)
            self._written[key] = (state.start_offset, list(state.batches))
        sp.on_change = lambda: self._timed_out(key)
        self.partitions[key] = sp
        return sp

    async def open(
        self,
        key: SharePartitionKey,
        initial_start_offset: Callable[[], Awaitable[int]],
        config: SharePartitionConfig | None = None,
    ) -> SharePartition:
        """`get`, the durable state read through the persister (CoordinatorLogError when it
        cannot be), `initial_start_offset` awaited only for a share partition with none."""
        sp = self.partitions.get(key)
        if sp is None:
            async with self.lock(key):
                if key not in self.partitions:
                    state = await self.persister.read(key)
                    if state is None:
                        sp = SharePartition(self.clock, await initial_start_offset(), config)
                    else:
                        sp = SharePartition.restored(self.clock, state.start_offset, state.batches, config)
                        self._written[key] = (state.start_offset, list(state.batches))
                    sp.on_change = lambda: self._timed_out(key)
                    self.partitions[key] = sp
        return self.get(key, lambda: 0, config)

    def forget(self, key: SharePartitionKey) -> None:
        """This broker no longer leads the data partition: the share partition is read again
        from its durable state if it comes back (what it holds in memory only, acquisitions,
        is lost, as on a crash)."""
        self.partitions.pop(key, None)
        self._written.pop(key, None)

    def lock(self, key: SharePartitionKey) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:  # not setdefault: that would build a Lock on every call
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def fetch_lock(self, key: SharePartitionKey) -> asyncio.Lock:
        """Held by the one ShareFetch that reads the log for the share partition and acquires
        out of it (Kafka's `SharePartition.maybeAcquireFetchLock`): the fetches woken together
        by an acknowledgement take turns, in the order they came, and each looks again
        whether anything is left to acquire before it reads, instead of all reading the same
        records of which only the first gets any."""
        lock = self._fetch_locks.get(key)
        if lock is None:
            lock = self._fetch_locks[key] = asyncio.Lock()
        return lock

    async def in_memory(
        self,
        key: SharePartitionKey,
        operation: Callable[[SharePartition], _T],
        missing: Callable[[], _T] | None = None,
    ) -> _T:
        """Run `operation` (an acquisition) on the share partition, writing nothing. It does
        not wait for a write under way: that write's records are not acquired until it is
        durable, and its rollback touches only them (`SharePartition.begin_change`).
        `missing()` when the share partition was dropped meanwhile (`forget`: KeyError
        without it)."""
        sp = self.partitions.get(key)
        if sp is None:
            if missing is None:
                raise KeyError(key)
            return missing()
        return operation(sp)

    async def change(self, key: SharePartitionKey, operation: Callable[[SharePartition], _T]) -> _T:
        """Run `operation` on the share partition and return its result once the new state is
        durable. The operations queued while a write is under way are applied and written
        together; a failed write (CoordinatorLogError) rolls back all of them, and each
        raises. An operation that raises changes nothing and its error is its own."""
        fut: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(key, []).append((operation, fut))
        async with self.lock(key):
            # Whoever holds the lock first writes every change queued so far, this one's too.
            batch = self._pending.pop(key, [])
            if batch:
                await self._write_batch(key, batch)
        return await fut

    async def _write_batch(self, key: SharePartitionKey, batch: list[_Pending]) -> None:
        sp = self.partitions.get(key)
        if sp is None:  # reset or deleted while the change waited
            for _, fut in batch:
                fut.set_exception(ShareAcknowledgeError(ErrorCode.INVALID_RECORD_STATE, "share partition was reset"))
            return
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        sp.begin_change()
        try:
            for operation, fut in batch:
                try:
                    outcomes.append((fut, operation(sp), None))
                except Exception as exc:
                    outcomes.append((fut, None, exc))
        finally:
            sp.changes_applied()
        state = sp.snapshot()
        if self._written.get(key) != state:
            try:
                await self.persister.write(key, state[0], state[1])
            except BaseException as exc:
                sp.abort_change()
                if isinstance(exc, CoordinatorLogError) and exc.error in _FENCED:
                    # A newer leader of the data partition read the state since this one
                    # did, or it was initialized again (Kafka's SharePartition is fenced and
                    # dropped): what it holds is stale; it is read again on next use.
                    self.forget(key)
                # A cancelled writer fails the changes it carried, and is cancelled itself.
                failure = exc if isinstance(exc, Exception) else CoordinatorLogError(
                    ErrorCode.UNKNOWN_SERVER_ERROR, "share state write cancelled")
                for fut, _, error in outcomes:
                    fut.set_exception(error or failure)
                if not isinstance(exc, Exception):
                    raise
                return
            self._written[key] = state
        sp.commit_change()
        for fut, result, error in outcomes:
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(result)

    def _timed_out(self, key: SharePartitionKey) -> None:
        """Records came back by lock timeout: wake fetches, and write the new delivery
        counts (and what reached the delivery limit and was archived)."""
        self.on_available(key)
        self.spawn(self._write_after_timeout(key))

    async def _write_after_timeout(self, key: SharePartitionKey) -> None:
        try:
            await self.change(key, lambda sp: None)
        except (CoordinatorLogError, ShareAcknowledgeError) as exc:
            # The change stays in memory; the next write carries it.
            log.warning("share state write after a lock timeout failed", key=str(key), error=str(exc))

    async def reset(self, key: SharePartitionKey, start_offset: int) -> None:
        """AlterShareGroupOffsets: the share partition starts over at `start_offset`."""
        async with self.lock(key):
            await self.persister.write(key, start_offset, [])
            self._written[key] = (start_offset, [])
            self.partitions.pop(key, None)

    async def delete(self, key: SharePartitionKey) -> None:
        """DeleteShareGroupOffsets / group deletion: the share partition's state is gone."""
        async with self.lock(key):
            await self.persister.delete(key)
            self._written.pop(key, None)
            self.partitions.pop(key, None)
