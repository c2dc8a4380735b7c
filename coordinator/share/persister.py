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
from coordinator.share.state_store import ShareState, ShareStateStore, ShareSummary, summary


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

    async def read_summary(self, key: SharePartitionKey) -> ShareSummary | None:
        """The share partition's state for the admin APIs (ReadShareGroupStateSummary):
        nothing recorded, no leader epoch fenced; None when it has none."""
        ...

    async def initialize(self, key: SharePartitionKey, state_epoch: int, start_offset: int) -> None:
        """The share partition starts over at `start_offset` under `state_epoch`
        (InitializeShareGroupState: AlterShareGroupOffsets)."""
        ...


class LocalPersister:
    def __init__(self, store: ShareStateStore) -> None:
        self.store = store

    async def read(self, key: SharePartitionKey) -> ShareState | None:
        return initialized(self.store.read(key))

    def write(self, key: SharePartitionKey, start_offset: int, batches: Sequence[PersistedBatch]) -> Coroutine[Any, Any, None]:
        # The store's coroutine itself: one frame less on every acknowledgement's way.
        return self.store.write(key, start_offset, batches)

    async def delete(self, key: SharePartitionKey) -> None:
        await self.store.delete(key)

    async def read_summary(self, key: SharePartitionKey) -> ShareSummary | None:
        state = self.store.read(key)
        return None if state is None else summary(state)

    async def initialize(self, key: SharePartitionKey, state_epoch: int, start_offset: int) -> None:
        await self.store.initialize(key, state_epoch, start_offset)


def initialized(state: ShareState | None) -> ShareState | None:
    """What a share partition's leader starts from: a state initialized without a start
    offset (-1) is none, the leader's share.auto.offset.reset picks it."""
    return None if state is None or state.start_offset < 0 else state
