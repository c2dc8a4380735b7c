"""A failed fsync round leaves its files dirty and tells the failure listeners: no later
sync() may report those writes durable without an fsync that succeeded. (Found by the fault
campaign: a retried idempotent batch is a duplicate, writes nothing, and its sync() used to
return at once, acknowledging records whose only fsync had failed.)"""

from __future__ import annotations

import pytest

from storage.errors import KafkaStorageError
from storage.flusher import GroupCommitFlusher


class FailingOnce:
    def __init__(self) -> None:
        self.calls = 0

    def sync(self) -> None:
        self.calls += 1
        if self.calls == 1:
            raise OSError(5, "Input/output error")


async def test_a_failed_round_is_retried_by_the_next_sync() -> None:
    flusher = GroupCommitFlusher()
    failures: list[KafkaStorageError] = []
    flusher.failure_listeners.append(failures.append)
    target = FailingOnce()
    flusher.mark_dirty(target)
    with pytest.raises(KafkaStorageError, match="fsync failed"):
        await flusher.sync()
    assert len(failures) == 1
    # Nothing new was written, yet the next caller must wait for a round that succeeds.
    await flusher.sync()
    assert target.calls == 2
    assert flusher.rounds == 2
    await flusher.sync()  # now durable: no further round
    assert target.calls == 2
    await flusher.close()


async def test_a_discarded_file_is_not_synced_again() -> None:
    flusher = GroupCommitFlusher()
    target = FailingOnce()
    flusher.mark_dirty(target)
    with pytest.raises(KafkaStorageError):
        await flusher.sync()
    flusher.discard(target)  # deleted meanwhile (a segment removed by retention)
    await flusher.sync()
    assert target.calls == 1
    await flusher.close()
