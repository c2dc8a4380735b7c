"""Group commit: one fsync round serves every durable append waiting at that moment.

Writers mark the files they touched dirty and `await sync()`, or, when nobody waits for
the write, `request_round()` and watch the round it returns (storage.log: the high
watermark moves when the round covering a write ends). When no round is running a round
starts at once and fsyncs every dirty file on the flusher's own thread; callers that
arrive while a round is in flight wait for the next round, which starts as soon as the
current one ends and covers all of them.

A write that must become durable but that nobody waits for yet (a transaction's data,
made durable at the latest by the round its EndTxn waits for) joins the next round and
starts it only on the next turn of the event loop (`join_next_round`), once the writer's
answer has gone out: the fsync then runs while the client reads the answer and sends its
next request, and a write someone waits for in the same turn shares the round.

The file engine runs one such sequence per partition (`PartitionedFlusher.lane`): a
partition's rounds stay in order, different partitions' run side by side on a few shared
threads, so a small durable write waits for its own partition's files only, never for
the fsync of megabytes another partition wrote (with one sequence for all, it waited
for the running round and then for a round covering every file dirtied meanwhile).

The threads are fed by a queue and report back with one `call_soon_threadsafe`: an
`asyncio.to_thread` per round (context copy, executor bookkeeping, a chained future and
a task) cost about as much event-loop time as a small durable append itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .eager_future import EagerFuture
from .errors import KafkaStorageError


class Syncable(Protocol):
    def sync(self) -> None: ...


# Told by the thread that a round ended: its error, and the seconds its fsync calls took.
RoundDone = Callable[[BaseException | None, float], None]


@dataclass(frozen=True, slots=True)
class RoundStats:
    """One finished round, as its observers see it. `seconds` runs from the round's start
    on the event loop to its end there, so `seconds - fsync_seconds` is the cost of handing
    the round to the thread and the result back."""

    seconds: float
    fsync_seconds: float
    waiters: int  # sync() calls served
    files: int  # files and directories synced
    # From the first write the round covers asking for it to the round's start: the time
    # it was queued behind the lane's running round (0 when none was running).
    queued_seconds: float = 0.0


RoundObserver = Callable[[RoundStats], None]
# Told of each sync() call that waited for a round: seconds from the call to durability.
WaitObserver = Callable[[float], None]


# The most fsync threads one storage runs at once: rounds of different partitions run
# side by side (a small round is not queued behind a long one), each on a thread of its
# own while they block in the kernel.
MAX_SYNC_THREADS = 8


class _SyncPool:
    """Daemon threads that run the rounds handed to them: each round on one thread, rounds
    handed over together on as many threads as there are (up to `max_threads`, started as
    rounds need them). A flusher has at most one round in flight, so its rounds stay in
    order; different flushers' rounds (storage.flusher.PartitionedFlusher's lanes) overlap.
    Between rounds, idle threads serve the stores that asked for room ahead of their data
    (storage.files.FileStore.extend_ahead), one slice at a time, off every request's path."""

    def __init__(self, max_threads: int = 1) -> None:
        self._max = max_threads
        self._queue: queue.SimpleQueue[tuple[list[Syncable], RoundDone] | Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._outstanding = 0  # rounds handed over and not finished
        self._extending: dict[int, Callable[[], bool]] = {}
        self._extending_now: set[int] = set()  # taken by a thread for one slice

    def submit(self, targets: list[Syncable], done: RoundDone) -> None:
        with self._lock:
            self._outstanding += 1
            # A thread writing a slice of zeros is busy too: a round handed over then gets a
            # thread of its own rather than waiting for the slice's write and fdatasync.
            busy = self._outstanding + len(self._extending_now)
            if busy > len(self._threads) and len(self._threads) < self._max:
                thread = threading.Thread(target=self._work, name="odradek-fsync", daemon=True)
                self._threads.append(thread)
                thread.start()
        self._queue.put((targets, done))

    def settle(self, done: Callable[[], None]) -> None:
        """`done` is called once every extension due so far is finished."""
        with self._lock:
            if not self._threads:
                thread = threading.Thread(target=self._work, name="odradek-fsync", daemon=True)
                self._threads.append(thread)
                thread.start()
        self._queue.put(done)

    def stop(self) -> None:
        for _ in self._threads:
            self._queue.put(None)

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                if self._extend_one():
                    continue
                item = self._queue.get()
            if item is None:
                return
            if callable(item):
                self._settle(item)
                continue
            self._run(*item)

    def _run(self, targets: list[Syncable], done: RoundDone) -> None:
        error: BaseException | None = None
        started = time.perf_counter()
        try:
            _sync_all(targets)
        except BaseException as exc:  # reported to the waiters, never lost
            error = exc
        elapsed = time.perf_counter() - started
        with self._lock:
            self._outstanding -= 1
            for target in targets:
                # getattr, not isinstance of a runtime protocol: a few microseconds less
                # holding the GIL as the event loop wakes for the round's end
                extend = getattr(target, "extend_ahead", None)
                if extend is not None and id(target) not in self._extending_now:
                    self._extending[id(target)] = extend
        with contextlib.suppress(RuntimeError):  # the event loop is gone
            done(error, elapsed)

    def _extend_one(self) -> bool:
        """One slice of one store's `extend_ahead`, which says whether more are due; a
        store is extended by one thread at a time. False: nothing to extend."""
        with self._lock:
            if not self._extending:
                return False
            key, extend_ahead = self._extending.popitem()
            self._extending_now.add(key)
        try:
            more = extend_ahead()
        except OSError:  # only speed is lost: appends grow the file as they go
            more = False
        with self._lock:
            self._extending_now.discard(key)
            if more:
                self._extending.setdefault(key, extend_ahead)
        return True

    def _settle(self, done: Callable[[], None]) -> None:
        while True:
            if self._extend_one():
                continue
            with self._lock:
                if not self._extending_now and not self._extending:
                    break
            time.sleep(0.001)  # another thread is finishing a slice
        with contextlib.suppress(RuntimeError):
            done()


class GroupCommitFlusher:
    """One sequence of group-commit rounds, at most one in flight. Alone it serves a whole
    storage (the memory and PostgreSQL engines); as a lane of a `PartitionedFlusher` it
    serves one partition's files, its rounds on threads shared with the other lanes."""

    def __init__(self, pool: _SyncPool | None = None, totals: GroupCommitFlusher | None = None) -> None:
        self._dirty: dict[int, Syncable] = {}
        self._running: asyncio.Future[None] | None = None
        self._next: asyncio.Future[None] | None = None
        # Whether the next round starts as soon as the running one ends (someone asked
        # for it), or waits for the loop turn its lazy writers scheduled (`join_next_round`).
        self._next_wanted = False
        self._lazy_start: asyncio.Handle | None = None
        self._thread: _SyncPool | None = pool
        self._owns_pool = pool is None
        # A lane counts its rounds into the flusher it belongs to as well.
        self._totals = totals
        self.rounds = 0  # fsync rounds completed (observability and tests)
        self.files_synced = 0
        self.round_observers: list[RoundObserver] = []
        self.wait_observers: list[WaitObserver] = []
        self._next_callers = 0
        self._running_callers = 0
        # When the next round's future was made (its first writer asked), and the running
        # round's queued time (RoundStats.queued_seconds).
        self._next_since = 0.0
        self._running_queued = 0.0
        # Called when a round ends well (after_round), keyed by the round's future.
        self._after: dict[asyncio.Future[None], list[Callable[[], None]]] = {}
        # The sync() callers of each round, resumed when it ends.
        self._resumers: dict[asyncio.Future[None], list[EagerFuture[None]]] = {}
        # Told of every failed round (the broker halts, as Kafka does on a log dir failure).
        self.failure_listeners: list[Callable[[KafkaStorageError], None]] = []

    def mark_dirty(self, target: Syncable) -> None:
        self._dirty[id(target)] = target

    def discard(self, target: Syncable) -> None:
        self._dirty.pop(id(target), None)

    async def sync(self) -> None:
        """Return once everything written before this call is durable."""
        resumed = self._resumer()
        if resumed is None:
            return
        if not self.wait_observers:
            await resumed
            return
        called = time.perf_counter()
        await resumed
        waited = time.perf_counter() - called
        for observe in self.wait_observers:
            observe(waited)

    def _resumer(self) -> EagerFuture[None] | None:
        """A future of the caller's own, resolved by the end of the round that makes
        everything written so far durable (None: already durable): cancelling the caller
        leaves the round alone, as a shield would, and the caller resumes in the turn of
        the loop that ends the round (EagerFuture.resume_now)."""
        round_ = self._waiter()
        if round_ is None:
            return None
        resumed: EagerFuture[None] = EagerFuture(round_.get_loop())
        self._resumers.setdefault(round_, []).append(resumed)
        return resumed

    def _waiter(self) -> asyncio.Future[None] | None:
        """The round that makes everything written so far durable (None: already durable),
        counting its caller among the round's waiters."""
        if not self._dirty:
            # Everything written so far is either durable or in the running round (which
            # a write nobody waited for may have started).
            if self._running is not None:
                self._running_callers += 1
            return self._running
        self._next_callers += 1
        return self.request_round()

    def request_round(self) -> asyncio.Future[None] | None:
        """The round that makes everything written so far durable, started at once when
        none is running (None: already durable). For writes nobody waits on (acks=0/1):
        they become visible when it ends (`after_round`), so they must not wait for a
        later sync()."""
        if not self._dirty:
            return self._running
        waiter = self._next
        if waiter is None:
            waiter = self._next = asyncio.get_running_loop().create_future()
            self._next_since = time.perf_counter()
        self._next_wanted = True
        if self._running is None:
            self._start_round()
        return waiter

    def join_next_round(self) -> asyncio.Future[None] | None:
        """The round that will make everything written so far durable, started on the next
        turn of the event loop if nobody asks for it sooner (`sync`, `request_round`,
        `hasten`). For writes whose durability nobody waits for yet (None: already
        durable)."""
        if not self._dirty:
            return self._running
        loop = asyncio.get_running_loop()
        waiter = self._next
        if waiter is None:
            waiter = self._next = loop.create_future()
            self._next_since = time.perf_counter()
        if not self._next_wanted and self._lazy_start is None:
            self._lazy_start = loop.call_soon(self._lazy_round_due)
        return waiter

    def hasten(self, round_: asyncio.Future[None]) -> None:
        """Start `round_` as soon as it can, if it is the next round (joined lazily)."""
        if round_ is self._next:
            self._next_wanted = True
            if self._running is None:
                self._start_round()

    def _lazy_round_due(self) -> None:
        self._lazy_start = None
        if self._next is not None:
            self.hasten(self._next)

    def after_round(self, round_: asyncio.Future[None], callback: Callable[[], None]) -> None:
        """Call `callback` when `round_` (from `request_round`) has made its writes durable,
        before any of its waiters resumes; not at all when it fails."""
        self._after.setdefault(round_, []).append(callback)

    def _start_round(self) -> None:
        future, self._next = self._next, None
        assert future is not None
        self._next_wanted = False
        if self._lazy_start is not None:
            self._lazy_start.cancel()
            self._lazy_start = None
        self._running_callers, self._next_callers = self._next_callers, 0
        started = time.perf_counter()
        self._running_queued = started - self._next_since
        targets = list(self._dirty.values())
        self._dirty.clear()
        self._running = future
        call_soon_threadsafe = future.get_loop().call_soon_threadsafe

        def done(error: BaseException | None, fsync_seconds: float) -> None:
            call_soon_threadsafe(self._finish_round, future, targets, error, started, fsync_seconds)

        self._submit(targets, done)

    def _submit(self, targets: list[Syncable], done: RoundDone) -> None:
        """Make `targets` durable, then call `done` (from any thread). Called on the event
        loop as the round starts: an engine whose rounds are not fsync calls (the
        PostgreSQL engine's transactions, storage.postgres.group_commit) overrides it."""
        if self._thread is None:
            self._thread = _SyncPool()
        self._thread.submit(targets, done)

    def _finish_round(
        self,
        future: asyncio.Future[None],
        targets: list[Syncable],
        error: BaseException | None,
        started: float,
        fsync_seconds: float,
    ) -> None:
        self.rounds += 1
        self.files_synced += len(targets)
        if self._totals is not None:
            self._totals.rounds += 1
            self._totals.files_synced += len(targets)
        if self.round_observers:
            stats = RoundStats(time.perf_counter() - started, fsync_seconds, self._running_callers, len(targets),
                               self._running_queued)
            for observe in self.round_observers:
                observe(stats)
        self._running = None
        failure: KafkaStorageError | None = None
        if not future.done():
            if error is None:
                future.set_result(None)
            else:
                reason = f"fsync failed: {error}" if isinstance(error, OSError) else f"fsync interrupted: {error!r}"
                failure = KafkaStorageError(reason)
                # The writes of a failed round are not durable: dirty again, so that no later
                # sync() (a retried idempotent batch writes nothing) reports them durable
                # without an fsync that succeeded.
                for target in targets:
                    self._dirty.setdefault(id(target), target)
                for listener in self.failure_listeners:
                    listener(failure)
                future.set_exception(failure)
                future.exception()  # waiters may all be gone; don't warn about it
        if self._next is not None and self._next_wanted:
            self._start_round()
        # Run here, not as the future's done callbacks (scheduled for a later turn of the
        # loop): once a round ended, a sync() that finds nothing dirty returns at once, and
        # what it made durable must already be visible.
        callbacks = self._after.pop(future, None)
        raised: BaseException | None = None
        try:
            if callbacks is not None and error is None:
                for callback in callbacks:
                    callback()
        except BaseException as exc:  # re-raised once the waiters resumed, outside this handler
            raised = exc
        # Last: a waiter resumed now may write and ask for rounds, and finds this flusher
        # as after any round's end (the next round started, everything it made visible).
        # Even past a callback that raised: unresumed, its request would never be answered.
        self._resume_waiters(future, error, failure)
        if raised is not None:
            raise raised

    def _resume_waiters(
        self, future: asyncio.Future[None], error: BaseException | None, failure: KafkaStorageError | None
    ) -> None:
        for resumed in self._resumers.pop(future, ()):
            if resumed.done():  # its caller was cancelled
                continue
            if error is None:
                resumed.resume_now(None)
            else:
                resumed.set_exception(failure or KafkaStorageError(f"fsync failed: {error}"))

    async def settle(self) -> None:
        """Return once the preallocation the rounds so far asked for is done (tests)."""
        if self._thread is None:
            return
        settled = asyncio.get_running_loop().create_future()
        call_soon_threadsafe = settled.get_loop().call_soon_threadsafe

        def done() -> None:
            call_soon_threadsafe(settled.set_result, None)

        self._thread.settle(done)
        await settled

    async def close(self) -> None:
        while self._running is not None or self._next is not None:
            running = self._running or self._next
            assert running is not None
            self.hasten(running)
            with contextlib.suppress(KafkaStorageError):
                await asyncio.shield(running)
        if self._thread is not None and self._owns_pool:
            self._thread.stop()
            self._thread = None


class PartitionedFlusher(GroupCommitFlusher):
    """The file engine's flusher: a lane of rounds per partition (`lane`), the lanes' rounds
    on shared threads, side by side. A partition's durable write waits for its own files
    only (`lane(...).sync()`), never behind the fsync of megabytes another partition wrote;
    `sync()` still makes everything written so far, in every lane, durable (the
    coordinators' writes that must follow earlier data, transaction markers). Targets
    marked on the flusher itself (not on a lane) form a lane of their own."""

    def __init__(self, max_threads: int = MAX_SYNC_THREADS) -> None:
        self._pool = _SyncPool(max_threads)
        super().__init__(self._pool)
        self._owns_pool = True
        self._lanes: dict[str, GroupCommitFlusher] = {}

    def lane(self, key: str) -> GroupCommitFlusher:
        """The lane of `key` (a partition's directory), made on first use; it shares this
        flusher's threads, observers and failure listeners and counts its rounds here."""
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = GroupCommitFlusher(self._pool, totals=self)
            lane.round_observers = self.round_observers
            lane.wait_observers = self.wait_observers
            lane.failure_listeners = self.failure_listeners
        return lane

    def drop_lane(self, key: str) -> None:
        """Forget a deleted partition's lane once it has nothing to sync (its rounds in
        flight finish on their own)."""
        lane = self._lanes.get(key)
        if lane is not None and not lane._dirty and lane._running is None and lane._next is None:
            del self._lanes[key]

    async def sync(self) -> None:
        """Return once everything written before this call, in every lane, is durable."""
        resumers = [r for r in (lane._resumer() for lane in (self, *self._lanes.values())) if r is not None]
        if not resumers:
            return
        called = time.perf_counter()
        if len(resumers) == 1:
            await resumers[0]
        else:
            await asyncio.gather(*resumers)
        if self.wait_observers:
            waited = time.perf_counter() - called
            for observe in self.wait_observers:
                observe(waited)

    async def close(self) -> None:
        for lane in list(self._lanes.values()):
            await lane.close()
        await super().close()


def _sync_all(targets: list[Syncable]) -> None:
    for target in targets:
        target.sync()
