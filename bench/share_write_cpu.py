"""CPU of a share acknowledgement's state write, measured in-process: a `ShareCoordinator`
over `FileStorage` acquires 592 records (4 producer batches of 148, what a share-group-2 bench
run's ShareFetch acquires) and acknowledges them as one ACCEPT range, `--rounds` times, on
plain asyncio. Each acknowledgement is answered after its `__share_group_state` append is
durable (written and fsynced), as in the broker.

Reported per acknowledgement: the event loop's CPU (`time.thread_time` of the loop's
thread, so neither the fsync thread's work nor the machine's other load counts) and its
wall time; the acquisition's the same way. `--profile` prints the event loop's cProfile of
the acknowledgements instead (the fsync thread is not profiled).

    PYTHONPATH=. python -m bench.share_write_cpu [--rounds 2000] [--profile] [--dir PATH]

`--dir` puts the log where given (e.g. on tmpfs, where an fsync costs next to nothing);
a temporary directory otherwise."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import tempfile
import time
import uuid

from coordinator.log import StorageCoordinatorLog
from coordinator.share.config import SharePartitionConfig
from coordinator.share.coordinator import ShareCoordinator
from coordinator.share.partition import Acknowledgement, AcquireMode
from coordinator.share.record_state import AcknowledgeType
from coordinator.share.records import SHARE_GROUP_STATE_TOPIC, TOPIC_CONFIGS, SharePartitionKey
from storage.clock import SystemClock
from storage.file_storage import FileStorage

BATCHES = 4
BATCH_RECORDS = 148
MAX_RECORDS = 500
MEMBER = "member-1"


async def measure(log_dir: str, rounds: int, profile: cProfile.Profile | None) -> dict[str, list[float]]:
    clock = SystemClock()
    storage = await FileStorage.open(log_dir, clock=clock, producer_id_expiration_ms=86_400_000)
    coordinator = ShareCoordinator(StorageCoordinatorLog(storage, SHARE_GROUP_STATE_TOPIC, 50, clock, TOPIC_CONFIGS),
                                   clock)
    await coordinator.load()
    key = SharePartitionKey("bench-share", uuid.uuid4(), 0)
    coordinator.partition(key, lambda: 0, SharePartitionConfig())
    out: dict[str, list[float]] = {"ack_cpu": [], "ack_wall": [], "acquire_cpu": [], "acquire_wall": []}
    accept = (AcknowledgeType.ACCEPT,)
    base = 0
    try:
        for i in range(rounds):
            fetched = [(base + b * BATCH_RECORDS, base + (b + 1) * BATCH_RECORDS - 1) for b in range(BATCHES)]
            end = base + BATCHES * BATCH_RECORDS
            c0, w0 = time.thread_time(), time.perf_counter()
            acquired = await coordinator.acquire(
                key, MEMBER, fetched, MAX_RECORDS, AcquireMode.BATCH_OPTIMIZED, read_until=end, read_from=base
            )
            c1, w1 = time.thread_time(), time.perf_counter()
            if sum(a.last_offset - a.first_offset + 1 for a in acquired) != end - base:
                raise RuntimeError(f"round {i}: acquired {acquired}, expected {base}-{end - 1}")
            if profile is not None:
                profile.enable()
            error = await coordinator.acknowledge(key, MEMBER, [Acknowledgement(base, end - 1, accept)])
            if profile is not None:
                profile.disable()
            c2, w2 = time.thread_time(), time.perf_counter()
            if error.value != 0:
                raise RuntimeError(f"round {i}: acknowledgement answered {error.name}")
            out["acquire_cpu"].append(c1 - c0)
            out["acquire_wall"].append(w1 - w0)
            out["ack_cpu"].append(c2 - c1)
            out["ack_wall"].append(w2 - w1)
            base = end
        state = coordinator.store.states[key]
        if state.start_offset != base:
            raise RuntimeError(f"durable start offset {state.start_offset}, expected {base}")
    finally:
        await coordinator.stop()
        await storage.close()
    return out


def _us(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1e6 if q < 100 else max(values) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="cProfile the acknowledgements")
    parser.add_argument("--dir", help="where the log goes (a temporary directory by default)")
    args = parser.parse_args()
    # Timed by the thread's CPU clock: a wait for the GIL or the disk does not count.
    profile = cProfile.Profile(time.thread_time) if args.profile else None
    with tempfile.TemporaryDirectory(dir=args.dir) as log_dir:
        out = asyncio.run(measure(log_dir, args.rounds, profile))
    # The first rounds create the topic and warm up: left out.
    skip = min(100, args.rounds // 10)
    print(f"{args.rounds - skip} rounds of {BATCHES * BATCH_RECORDS} records (the first {skip} left out)")
    for name, label in (("ack", "acknowledgement (state write)"), ("acquire", "acquisition")):
        cpu, wall = out[f"{name}_cpu"][skip:], out[f"{name}_wall"][skip:]
        print(f"{label:30} event-loop CPU p10 {_us(cpu, 10):4.0f} p50 {_us(cpu, 50):4.0f} us"
              f" | wall p50 {_us(wall, 50):5.0f} p90 {_us(wall, 90):5.0f} us")
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
