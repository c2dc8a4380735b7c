"""Completing a transaction once it is prepared: its markers, then its CompleteCommit or
CompleteAbort (Kafka's `TransactionMarkerChannelManager` and the completion callbacks of
`TransactionCoordinator`).

One `TransactionCompletion` per transactional id owns the task doing the work, the
requests waiting for it to end, and the phase it is in. Once the markers are durable the
CompleteX record is held back for up to `complete_merge_window_ms`: the producer's next
AddPartitionsToTxn usually arrives within a millisecond or two and then takes the
completion over, writing CompleteX together with its own Ongoing record in one batch;
one that arrives while the markers are still being written waits for them and takes over
then. Anyone else who waits for the id has CompleteX written at once."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING

import structlog

from coordinator.transaction.markers import MarkerOutcome, MarkerWriter, classify_marker_error
from coordinator.transaction.metadata import TransactionMetadata
from coordinator.transaction.state import TransactionState
from coordinator.transaction.state_manager import TransactionStateManager, release
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition

if TYPE_CHECKING:
    from coordinator.transaction.config import TransactionConfig
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")

# How long a completion that finds a transition pending waits before it looks again.
PENDING_RECHECK_MS = 50
# Turns of the event loop a completion lets pass before its markers: the EndTxn whose
# PrepareX started it resumes on the turn the completion first runs (the durable step hands
# it its answer directly) and writes its answer then (broker/connection.py writes a lone
# answer at once), so one turn puts the markers behind that answer.
ANSWER_TURNS = 1


class Phase(Enum):
    MARKERS = "markers"  # writing the markers to the transaction's partitions
    HELD = "held"  # markers durable, CompleteX held back for the next AddPartitionsToTxn
    COMPLETING = "completing"  # writing CompleteX
    TAKEN_OVER = "taken over"  # a request writes CompleteX together with its Ongoing
    DONE = "done"


class TransactionCompletion:
    def __init__(self, owner: Completions, txn: TransactionMetadata, markers_durable: bool) -> None:
        self._owner = owner
        self.txn = txn
        self.phase = Phase.HELD if markers_durable else Phase.MARKERS
        self._markers_durable = markers_durable
        # Requests waiting for this completion to end.
        self._waiters: list[asyncio.Future[None]] = []
        # Set while CompleteX is held back: resolving it ends the hold.
        self._kick: asyncio.Future[None] | None = None
        # AddPartitionsToTxn requests waiting for the markers to be durable, to take over.
        self._held_waiters: list[asyncio.Future[None]] = []
        self.task = asyncio.get_running_loop().create_task(
            self._run(), name=f"txn-completion-{txn.transactional_id}"
        )
        self.task.add_done_callback(self._ended)

    @property
    def active(self) -> bool:
        return self.phase not in (Phase.TAKEN_OVER, Phase.DONE)

    def kick(self) -> None:
        """Write a held-back CompleteX now: someone is waiting for it."""
        if self._kick is not None:
            release(self._kick)

    def take_over(self) -> bool:
        """If CompleteX is held back, hand it to the caller, who writes it with its own
        record; this completion then ends without writing anything."""
        if self.phase is not Phase.HELD:
            return False
        self.phase = Phase.TAKEN_OVER
        self.kick()
        return True

    async def wait(self, timeout_ms: int | None = None) -> None:
        """Until this completion ends, at most `timeout_ms` of the clock's time. A waiter
        has a held-back CompleteX written at once."""
        if self.phase is Phase.DONE:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self.kick()
        timer = None
        if timeout_ms is not None:
            timer = self._owner.clock.call_later(timeout_ms, functools.partial(release, waiter))
        try:
            await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    async def wait_held(self, timeout_ms: int) -> None:
        """Until the markers are durable (CompleteX is then held back for a take-over) or
        this completion ends, at most `timeout_ms` of the clock's time. Unlike `wait`, this
        does not have CompleteX written at once: the caller means to take it over."""
        if self.phase is not Phase.MARKERS:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._held_waiters.append(waiter)
        timer = self._owner.clock.call_later(timeout_ms, functools.partial(release, waiter))
        try:
            await waiter
        finally:
            timer.cancel()
            if waiter in self._held_waiters:
                self._held_waiters.remove(waiter)

    def _release_held_waiters(self) -> None:
        waiters, self._held_waiters = self._held_waiters, []
        for waiter in waiters:
            release(waiter)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self.phase = Phase.DONE
        self._release_held_waiters()
        if not task.cancelled() and (exc := task.exception()) is not None:
            tid = self.txn.transactional_id
            log.error("transaction completion failed", transactional_id=tid, error=repr(exc))
        self._owner.ended(self)
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            release(waiter)

    def _current(self) -> bool:
        return self.active and self._owner.manager.is_current(self.txn)

    async def _run(self) -> None:
        # The markers wait for EndTxn's answer to go out: nobody waits for them, and the
        # producer's next transaction waits for that answer.
        for _ in range(ANSWER_TURNS):
            await asyncio.sleep(0)
        if not self._markers_durable and not await self._write_markers():
            return
        if not self._current():
            return
        self.phase = Phase.HELD
        # Before the hold starts: a take-over that was waiting for the markers may now merge.
        self._release_held_waiters()
        await self._hold()
        await self._write_complete()

    async def _write_markers(self) -> bool:
        """Markers on every partition of the transaction, retrying the retriable failures.
        False when the completion should stop (resigned, or the markers are obsolete)."""
        owner, txn = self._owner, self.txn
        tid = txn.transactional_id
        committed = txn.state is TransactionState.PREPARE_COMMIT
        pid, epoch = txn.producer_id, txn.producer_epoch
        remaining = sorted(txn.partitions)
        while remaining:
            if not self._current():
                return False
            try:
                results = await owner.marker_writer.write_markers(
                    pid,
                    epoch,
                    owner.coordinator_epoch(tid),
                    committed,
                    list(remaining),
                    transaction_version=txn.client_transaction_version,
                )
            except Exception:
                log.exception("writing transaction markers failed", transactional_id=tid)
                results = {}
            retry: list[TopicPartition] = []
            for tp in remaining:
                error = results.get(tp, ErrorCode.UNKNOWN_SERVER_ERROR)
                outcome = classify_marker_error(error)
                if outcome is MarkerOutcome.OBSOLETE:
                    # As Kafka: a newer producer epoch or coordinator owns this transaction now.
                    log.warning(
                        "transaction markers obsolete", transactional_id=tid, partition=tp, error=error
                    )
                    return False
                if outcome is MarkerOutcome.RETRY:
                    retry.append(tp)
            remaining = retry
            if remaining:
                await owner.clock.sleep(owner.config.retry_backoff_ms)
        return True

    async def _hold(self) -> None:
        window = self._owner.config.complete_merge_window_ms
        if window <= 0 or self._markers_durable or self._waiters:
            return
        kick = self._kick = asyncio.get_running_loop().create_future()
        timer = self._owner.clock.call_later(window, functools.partial(release, kick))
        try:
            await kick
        finally:
            timer.cancel()
            self._kick = None

    async def _write_complete(self) -> None:
        owner, txn = self._owner, self.txn
        while self._current() and txn.state.is_prepare:
            if txn.pending:
                await owner.manager.wait_change(
                    txn.transactional_id, max(owner.config.retry_backoff_ms, PENDING_RECHECK_MS)
                )
                continue
            self.phase = Phase.COMPLETING
            err = await owner.manager.write(txn, txn.prepare_complete(owner.clock.now_ms()))
            if err in (ErrorCode.NONE, ErrorCode.NOT_COORDINATOR):
                return
            # Not written: the next AddPartitionsToTxn may still take it over meanwhile.
            self.phase = Phase.HELD
            await owner.clock.sleep(owner.config.retry_backoff_ms)


class Completions:
    """The completions in flight, one per transactional id at most."""

    def __init__(
        self,
        manager: TransactionStateManager,
        marker_writer: MarkerWriter,
        clock: Clock,
        config: TransactionConfig,
        coordinator_epoch: Callable[[str], int],
    ) -> None:
        self.manager = manager
        self.marker_writer = marker_writer
        self.clock = clock
        self.config = config
        self.coordinator_epoch = coordinator_epoch
        self._by_id: dict[str, TransactionCompletion] = {}

    def start(self, txn: TransactionMetadata, *, markers_durable: bool = False) -> None:
        """Complete a prepared transaction, unless a completion for its id is in flight."""
        if txn.transactional_id not in self._by_id:
            self._by_id[txn.transactional_id] = TransactionCompletion(self, txn, markers_durable)

    def get(self, transactional_id: str) -> TransactionCompletion | None:
        return self._by_id.get(transactional_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def is_held(self, txn: TransactionMetadata) -> bool:
        """Whether `txn`'s markers are durable and its CompleteX is waiting to be written."""
        completion = self._by_id.get(txn.transactional_id)
        return completion is not None and completion.txn is txn and completion.phase is Phase.HELD

    def take_over(self, transactional_id: str) -> bool:
        """Take the held-back CompleteX of this id over (see TransactionCompletion.take_over)."""
        completion = self._by_id.get(transactional_id)
        if completion is None or not completion.take_over():
            return False
        del self._by_id[transactional_id]
        return True

    def ended(self, completion: TransactionCompletion) -> None:
        tid = completion.txn.transactional_id
        if self._by_id.get(tid) is completion:
            del self._by_id[tid]
        # Requests waiting on a pending transition may be waiting for this end too.
        self.manager.notify(tid)

    async def wait_all(self) -> None:
        """Until no completion is in flight, writing held-back CompleteX records at once."""
        while self._by_id:
            completions = list(self._by_id.values())
            await asyncio.gather(*(c.wait() for c in completions), return_exceptions=True)

    def cancel_partition(self, partition: int, partition_for: Callable[[str], int]) -> list[asyncio.Task[None]]:
        """Cancel the completions of the partition's ids (it was resigned); returns their
        tasks, which end soon."""
        tids = [tid for tid in self._by_id if partition_for(tid) == partition]
        tasks = []
        for tid in tids:
            completion = self._by_id.pop(tid)
            completion.task.cancel()
            tasks.append(completion.task)
        return tasks

    async def cancel_all(self) -> None:
        completions = list(self._by_id.values())
        self._by_id.clear()
        for completion in completions:
            completion.task.cancel()
        for completion in completions:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await completion.task
