"""Randomised operations against both engines, checked against a trivial model."""

from __future__ import annotations

import random

import pytest

from protocol import record_batch as rb
from storage.engine import PartitionLog, StorageEngine
from storage.file_storage import FileStorage
from storage.memory import MemoryStorage
from tests.unit.storage.storage_helpers import Harness, make_batch


def _typing_contract(file_engine: FileStorage, memory_engine: MemoryStorage) -> None:
    # Checked by mypy (pyproject.toml lists this module): both engines and their logs
    # satisfy the engine protocols, so an engine drifting from them fails `mypy`.
    engines: list[StorageEngine] = [file_engine, memory_engine]
    logs: list[PartitionLog] = [file_engine.log("t", 0), memory_engine.log("t", 0)]
    del engines, logs


@pytest.mark.parametrize("seed", range(4))
async def test_random_operations_match_model(harness: Harness, seed: int) -> None:
    rnd = random.Random(seed)
    harness.segment_bytes = rnd.choice([600, 2000, 50_000])
    s = await harness.reopen()
    await s.create_topic("t", 1, {"index.interval.bytes": str(rnd.choice([0, 100, 4096]))})
    batches: dict[int, tuple[int, int]] = {}  # base offset -> (last offset, size)
    next_offset = 0
    log_start = 0
    for _step in range(120):
        op = rnd.random()
        log = s.log("t", 0)
        if op < 0.7:
            n = rnd.randint(1, 6)
            value_size = 100_000 if rnd.random() < 0.03 else rnd.randint(1, 300)
            raw = make_batch(n, value_size=value_size,
                             compression=rnd.choice(list(rb.Compression)))
            r = await log.append(raw, durable=rnd.random() < 0.2)
            assert r.base_offset == next_offset and r.last_offset == next_offset + n - 1
            batches[next_offset] = (r.last_offset, len(raw))
            next_offset += n
        elif op < 0.77:
            s = await harness.reopen()
        elif op < 0.8 and isinstance(s, FileStorage):
            await s.abort()  # unclean: the next open runs recovery
            s = await harness.open()
        elif op < 0.85 and next_offset:
            # Records are visible (below the high watermark) once durable: sync() makes them so.
            await s.sync()
            assert log.high_watermark == next_offset
            target = rnd.randint(log_start, next_offset)
            log_start = await log.delete_records_before(target)
            assert log_start == max(target, log_start)
        else:
            harness.clock.advance(1)
        log = s.log("t", 0)
        assert log.log_end_offset == next_offset
        assert log.log_start_offset == log_start
        assert log_start <= log.high_watermark <= next_offset
    # Every offset still in the log reads back from the batch that holds it.
    await s.sync()
    log = s.log("t", 0)
    assert log.high_watermark == next_offset
    for offset in range(log_start, next_offset):
        out = (await log.read(offset, rnd.randint(1, 5000))).records
        h = rb.BatchHeader.parse(out)
        assert h.base_offset <= offset <= h.last_offset
        assert batches[h.base_offset] == (h.last_offset, h.size)
        rb.decode_batch(out)
