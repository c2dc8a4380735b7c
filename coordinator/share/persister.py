"""Where a share partition keeps its durable state (Kafka's Persister): the share partition
lives on its data partition's leader, its state with the share coordinator, the leader of the
`__share_group_state` partition its key hashes to. `LocalPersister` is the store of this
broker (a single broker leads every partition); a cluster's broker uses one that asks the
state partition's leader wherever it is (broker/share_persister.py). Every method raises
CoordinatorLogError when the state could not be read or written."""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any, Protocol

from coordinator.share.partition import PersistedBatch
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareState, ShareStateStore


class SharePersister(Protocol):
    async def read(self, key: SharePartitionKey) -> ShareState | None:
        """The share partition's state (ReadShareGroupState); None when it has none."""
        ...

    async def write(self, key: SharePartitionKey, start_offset: int, batches: Sequence[PersistedBatch]) -> None:
        """Make (start offset, batches) the share partition's state (WriteShareGroupState)."""
        ...

    async def delete(self, key: SharePartitionKey) -> None:
        """The share partition's state is gone (DeleteShareGroupState)."""
        ...


class LocalPersister:
    def __init__(self, store: ShareStateStore) -> None:
        self.store = store

    async def read(self, key: SharePartitionKey) -> ShareState | None:
        return self.store.read(key)

    def write(self, key: SharePartitionKey, start_offset: int, batches: Sequence[PersistedBatch]) -> Coroutine[Any, Any, None]:
        # The store's coroutine itself: one frame less on every acknowledgement's way.
        return self.store.write(key, start_offset, batches)

    async def delete(self, key: SharePartitionKey) -> None:
        await self.store.delete(key)
