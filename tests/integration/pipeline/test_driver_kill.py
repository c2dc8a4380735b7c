"""The sink stays exactly-once when the driver is SIGKILLed mid-stream and restarted."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.pipeline.kafka_data import (
    create_topic,
    produce_txn,
    read_committed,
    transactional_producer,
)
from tests.integration.pipeline.stream_jobs import committed_batches, kill_job, start_job, wait_for


# Three Spark jobs one after the other, each its own JVM and Python workers: on a loaded
# machine each took ~100 s from start to its first committed batch, so pytest's default 300 s
# (pyproject.toml) cut the third short. The bound is the sum of the jobs' own ones below
# (180 + 180 + 240 s) and the set-up.
@pytest.mark.timeout(660)
def test_driver_sigkill_inside_commit_and_at_a_random_moment(
    broker: BrokerProcess, name: str, tmp_path: Path
) -> None:
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(broker.bootstrap, source, 2)
    create_topic(broker.bootstrap, sink, 2)
    producer = transactional_producer(broker.bootstrap, f"{name}-gen")
    expected: list[bytes] = []
    for t in range(8):
        rows = [(i % 2, None, f"{t}-{i}".encode()) for i in range(24)]
        commit = t % 4 != 3
        produce_txn(producer, source, rows, commit)
        if commit:
            expected += [b"out-" + v for _, _, v in rows]
    checkpoint, log = tmp_path / "checkpoint", tmp_path / "job.log"
    args = [broker.bootstrap, source, sink, str(checkpoint)]

    # Run 1: killed inside the driver's commit of batch 2, after every task committed.
    in_commit = tmp_path / "in-commit-2"
    job = start_job([*args, f"pauseInCommit:2:{in_commit}"], log)
    try:
        wait_for(in_commit.exists, job, 180, log)
    finally:
        kill_job(job)
    assert (checkpoint / "offsets" / "2").exists()
    assert committed_batches(checkpoint)[-1] == 1

    # Run 2: killed at a random moment once it is past the replayed batch.
    seed = random.randrange(1 << 30)
    job = start_job(args, log)
    try:
        wait_for(lambda: committed_batches(checkpoint)[-1] >= 3, job, 180, log)
        time.sleep(random.Random(seed).uniform(0.0, 2.0))
    finally:
        kill_job(job)

    # Run 3: to the end.
    job = start_job(args, log)
    try:
        assert job.wait(240) == 0, log.read_text()[-3000:]
    finally:
        kill_job(job)

    out = Counter(v for *_, v in read_committed(broker.bootstrap, sink, 2))
    assert {v: n for v, n in out.items() if n > 1} == {}, f"duplicates (seed {seed})"
    assert sorted(out) == sorted(expected), f"seed {seed}"
