"""The share partitions a broker serves (Kafka's SharePartitionManager, its state part): one
`SharePartition` per (group, topic id, partition), built from the durable state of
`coordinator/share/state_store.py` on first use, and changed only with its new state written
durably before the change is answered. A change whose write fails is rolled back
(`SharePartition.rollback`) and leaves no trace."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from coordinator.share.config import SharePartitionConfig
from coordinator.share.partition import PersistedBatch, SharePartition
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareStateStore
from storage.clock import Clock

_T = TypeVar("_T")


class SharePartitions:
    def __init__(self, store: ShareStateStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.partitions: dict[SharePartitionKey, SharePartition] = {}
        self._locks: dict[SharePartitionKey, asyncio.Lock] = {}
        # What was last written for each share partition: an unchanged state is not written again.
        self._written: dict[SharePartitionKey, tuple[int, list[PersistedBatch]]] = {}
        # Called with the key when records of a share partition became available by lock timeout.
        self.on_available: Callable[[SharePartitionKey], None] = lambda key: None

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
        sp.on_change = lambda: self.on_available(key)
        self.partitions[key] = sp
        return sp

    def lock(self, key: SharePartitionKey) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def change(self, key: SharePartitionKey, operation: Callable[[SharePartition], _T]) -> _T:
        """Run `operation` on the share partition and return its result once the new state is
        durable; a failed write (CoordinatorLogError) rolls the partition back and raises."""
        sp = self.partitions[key]
        async with self.lock(key):
            cp = sp.checkpoint()
            result = operation(sp)
            state = sp.snapshot()
            if self._written.get(key) == state:
                return result
            try:
                await self.store.write(key, state[0], state[1])
            except BaseException:
                sp.rollback(cp)
                raise
            self._written[key] = state
            return result

    async def reset(self, key: SharePartitionKey, start_offset: int) -> None:
        """AlterShareGroupOffsets: the share partition starts over at `start_offset`."""
        async with self.lock(key):
            await self.store.write(key, start_offset, [])
            self._written[key] = (start_offset, [])
            self.partitions.pop(key, None)

    async def delete(self, key: SharePartitionKey) -> None:
        """DeleteShareGroupOffsets / group deletion: the share partition's state is gone."""
        async with self.lock(key):
            await self.store.delete(key)
            self._written.pop(key, None)
            self.partitions.pop(key, None)
