"""What a group-commit round tells its observers: the syncs it served, the files it synced,
the fsync calls' own time apart from the handoff, and each caller's wait."""

from __future__ import annotations

import asyncio
import threading

from storage.flusher import GroupCommitFlusher, RoundStats


class Gated:
    """A file whose sync blocks until released, so that callers pile up behind a round."""

    def __init__(self) -> None:
        self.calls = 0
        self.release = threading.Event()

    def sync(self) -> None:
        self.calls += 1
        self.release.wait(5)


class Plain:
    def __init__(self) -> None:
        self.calls = 0

    def sync(self) -> None:
        self.calls += 1


async def test_callers_behind_a_running_round_share_the_next_one() -> None:
    flusher = GroupCommitFlusher()
    rounds: list[RoundStats] = []
    waits: list[float] = []
    flusher.round_observers.append(rounds.append)
    flusher.wait_observers.append(waits.append)
    gated, a, b = Gated(), Plain(), Plain()
    flusher.mark_dirty(gated)
    first = asyncio.ensure_future(flusher.sync())
    await asyncio.sleep(0)
    # Written while the first round is in flight: three callers, one next round, two files.
    flusher.mark_dirty(a)
    flusher.mark_dirty(b)
    later = [asyncio.ensure_future(flusher.sync()) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert not first.done() and rounds == []
    gated.release.set()
    await asyncio.gather(first, *later)
    assert [(r.waiters, r.files) for r in rounds] == [(1, 1), (3, 2)]
    assert (gated.calls, a.calls, b.calls) == (1, 1, 1)
    for r in rounds:
        assert 0 <= r.fsync_seconds <= r.seconds
    # The first round held its fsync for the 10 ms the test waited.
    assert rounds[0].fsync_seconds >= 0.005
    assert len(waits) == 4 and min(waits) >= 0.005
    # Nothing written since: durable at once, no round, no wait recorded.
    await flusher.sync()
    assert len(rounds) == 2 and len(waits) == 4
    await flusher.close()


async def test_a_lazy_write_shares_the_round_a_write_in_the_same_turn_asks_for() -> None:
    flusher = GroupCommitFlusher()
    lazy, eager = Plain(), Plain()
    flusher.mark_dirty(lazy)
    round_ = flusher.join_next_round()
    assert round_ is not None
    # Nothing started yet: a durable write in the same turn of the loop joins it.
    flusher.mark_dirty(eager)
    await flusher.sync()
    assert round_.done() and (flusher.rounds, lazy.calls, eager.calls) == (1, 1, 1)
    await asyncio.sleep(0.01)
    assert flusher.rounds == 1
    await flusher.close()


async def test_a_lazy_write_alone_gets_its_round_on_the_next_turn() -> None:
    flusher = GroupCommitFlusher()
    lazy = Plain()
    flusher.mark_dirty(lazy)
    round_ = flusher.join_next_round()
    assert round_ is not None and flusher.rounds == 0
    await asyncio.wait_for(asyncio.shield(round_), 5)
    assert (flusher.rounds, lazy.calls) == (1, 1)
    await flusher.close()


async def test_a_lazy_write_behind_a_running_round_gets_the_next_one() -> None:
    flusher = GroupCommitFlusher()
    gated, lazy = Gated(), Plain()
    flusher.mark_dirty(gated)
    first = asyncio.ensure_future(flusher.sync())
    await asyncio.sleep(0)
    flusher.mark_dirty(lazy)
    round_ = flusher.join_next_round()
    assert round_ is not None
    await asyncio.sleep(0.01)
    assert (flusher.rounds, lazy.calls) == (0, 0)
    gated.release.set()
    await first
    await asyncio.wait_for(asyncio.shield(round_), 5)
    assert (flusher.rounds, gated.calls, lazy.calls) == (2, 1, 1)
    await flusher.close()
