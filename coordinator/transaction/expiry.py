"""The transaction coordinator's periodic jobs on the injected clock: aborting transactions
past their timeout and expiring idle transactional ids (Kafka's
`abortTimedOutTransactions` and `removeExpiredTransactionalIds`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import structlog

from coordinator.group.records import OFFSETS_TOPIC
from coordinator.transaction.metadata import TransactionMetadata, TxnTransit
from coordinator.transaction.state import TransactionState
from coordinator.transaction.state_manager import TransactionStateManager
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from coordinator.transaction.config import TransactionConfig
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")


class TransactionExpiry:
    def __init__(
        self,
        manager: TransactionStateManager,
        clock: Clock,
        config: TransactionConfig,
        abort: Callable[[TransactionMetadata], Awaitable[int]],
    ) -> None:
        self.manager = manager
        self.clock = clock
        self.config = config
        # Aborts an open transaction at a bumped epoch (the coordinator's fence).
        self._abort = abort
        self._next_abort_check = 0
        self._next_expire_check = 0
        self._scheduled = False

    def schedule(self) -> None:
        """Both jobs first run one interval from now (after a load)."""
        now = self.clock.now_ms()
        self._next_abort_check = now + self.config.abort_timed_out_interval_ms
        self._next_expire_check = now + self.config.remove_expired_interval_ms
        self._scheduled = True

    def schedule_once(self) -> None:
        """`schedule` after the first partition loaded, not after every later one: the jobs
        cover every loaded partition, and a stream of elections must not postpone them."""
        if not self._scheduled:
            self.schedule()

    async def tick(self) -> None:
        """Run the jobs that are due (the broker calls this every second of its clock);
        they cover the partitions loaded (their ids are the only ones held)."""
        if self.manager.stopped or not self._scheduled:
            return
        now = self.clock.now_ms()
        if now >= self._next_abort_check:
            self._next_abort_check = now + self.config.abort_timed_out_interval_ms
            await self.abort_timed_out_transactions()
        if now >= self._next_expire_check:
            self._next_expire_check = now + self.config.remove_expired_interval_ms
            await self.expire_transactional_ids()

    async def abort_timed_out_transactions(self) -> list[str]:
        """Abort every Ongoing transaction older than its timeout, bumping the epoch so the
        producer that left it open is fenced. Returns the ids aborted."""
        now = self.clock.now_ms()
        expired = [t for t in self.manager if _timed_out(t, now)]
        aborted: list[str] = []
        for txn in expired:
            # Checked again: an earlier abort in this loop awaited.
            if not self.manager.is_current(txn) or not _timed_out(txn, now):
                continue
            log.info("aborting timed-out transaction", transactional_id=txn.transactional_id)
            if await self._abort(txn) == ErrorCode.NONE:
                aborted.append(txn.transactional_id)
        return aborted

    async def abort_left_open(self) -> list[str]:
        """After an unclean shutdown: abort every Ongoing transaction that wrote to a
        partition other than the offsets topic (two-phase ones aside), fencing its producer.
        Its Produce requests were answered before their data was durable
        (TransactionCoordinator.defers_data_durability), so some of it may be gone;
        TxnOffsetCommit is answered once durable, so a transaction of offsets only stays
        open. Returns the ids aborted."""
        left_open = [t for t in self.manager if _may_have_lost_data(t)]
        for txn in left_open:
            log.info("aborting transaction left open by an unclean shutdown", transactional_id=txn.transactional_id)
        results = await asyncio.gather(*(self._abort(txn) for txn in left_open), return_exceptions=True)
        aborted: list[str] = []
        for txn, result in zip(left_open, results, strict=True):
            if result == ErrorCode.NONE:
                aborted.append(txn.transactional_id)
            else:
                log.error("aborting a transaction left open failed", transactional_id=txn.transactional_id,
                          error=repr(result))
        return aborted

    async def expire_transactional_ids(self) -> list[str]:
        """Tombstone ids idle for transactional.id.expiration.ms in Empty/CompleteX."""
        now = self.clock.now_ms()
        cutoff = now - self.config.transactional_id_expiration_ms
        by_partition: dict[int, list[tuple[TransactionMetadata, TxnTransit]]] = {}
        for txn in self.manager:
            if txn.state.is_expiration_allowed and not txn.pending and txn.last_update_timestamp <= cutoff:
                transit = txn.prepare_dead(now)
                by_partition.setdefault(self.manager.partition_for(txn.transactional_id), []).append(
                    (txn, transit)
                )
        expired: list[str] = []
        for partition, entries in by_partition.items():
            expired += await self.manager.write_tombstones(partition, entries)
        return expired


def _may_have_lost_data(txn: TransactionMetadata) -> bool:
    return (
        txn.state is TransactionState.ONGOING
        and not txn.is_two_phase_commit
        and any(topic != OFFSETS_TOPIC for topic, _ in txn.partitions)
    )


def _timed_out(txn: TransactionMetadata, now: int) -> bool:
    return (
        txn.state is TransactionState.ONGOING
        and not txn.pending
        # KIP-939: only the external coordinator decides a two-phase-commit transaction.
        and not txn.is_two_phase_commit
        and txn.start_timestamp + txn.timeout_ms < now
    )
