"""Share-partition state on the wire: the StateBatches of ReadShareGroupState and
WriteShareGroupState (KIP-932's persister requests) to and from `PersistedBatch`, shared
by their handlers (broker/handlers/share_group_state.py) and the persister that sends them
(broker/share_persister.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from coordinator.share.partition import PersistedBatch
from coordinator.share.record_state import RecordState

# Kafka's PartitionFactory.UNINITIALIZED_START_OFFSET: a share partition with no state.
UNINITIALIZED_START_OFFSET = -1

B = TypeVar("B")


class WireBatch(Protocol):
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


def from_wire(batches: Iterable[WireBatch]) -> tuple[PersistedBatch, ...]:
    """Raises ValueError for a delivery state `__share_group_state` does not store."""
    return tuple(
        PersistedBatch(b.first_offset, b.last_offset, RecordState.from_id(b.delivery_state), b.delivery_count)
        for b in batches
    )


def to_wire(batches: Sequence[PersistedBatch], make: Callable[..., B]) -> list[B]:
    """`make` is the message's StateBatch class."""
    return [
        make(first_offset=b.first_offset, last_offset=b.last_offset,
             delivery_state=b.state.id, delivery_count=b.delivery_count)
        for b in batches
    ]
