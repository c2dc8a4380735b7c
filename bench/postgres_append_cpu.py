"""The PostgreSQL engine's CPU per MB on the acks=all produce path, in process: 1 MB batches
of 1 KiB records (the row `produce-1024-acksall-confluent` sends) appended one at a time
through `PostgresStorage` and waited for as a Produce with acks=all waits (`Log.sync`),
against a private PostgreSQL server with the bench's settings (bench/brokers.py);
`--file-engine` runs the same rounds on the file engine, for comparison.

What it reports does not depend much on the machine's load: this process's CPU per MB (the
broker's share: validation, offsets, the segment, the round's COPY stream) and the server's
(postmaster and backends), beside the wall time per round. `--profile FILE` writes a
cProfile of the measured rounds.

    PYTHONPATH=$PWD python -m bench.postgres_append_cpu --rounds 300 --repeat 3
"""

from __future__ import annotations

import argparse
import cProfile
import os
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import uvloop

from bench.brokers import POSTGRES_SETTINGS
from bench.cpu import TreeCpu
from odradek.postgres_server import PostgresServer
from protocol import record_batch as rb
from protocol.record_batch import BatchHeader
from storage.clock import ManualClock
from storage.file_storage import FileStorage
from storage.log_manager import LogManager
from storage.postgres.copy_stream import copy_chunks
from storage.postgres.engine import PostgresStorage
from storage.postgres.group_commit import Columns

RECORD_BYTES = 1024
RECORDS_PER_BATCH = 1000  # librdkafka's batches in the row: about 1 MB
PRODUCER_ID = 1000
WARMUP_ROUNDS = 20
# WAL recycled before the rounds (a server in steady state, as the bench's).
RECYCLED_WAL_MB = 512
BASE_SEQUENCE_AT = 53  # in a v2 batch's header


def make_batch(records: int, value_bytes: int) -> bytes:
    value = os.urandom(value_bytes)
    ts = 1_700_000_000_000
    return rb.build_batch(
        [rb.Record(None, value, [], ts + i) for i in range(records)],
        producer_id=PRODUCER_ID, producer_epoch=0, base_sequence=0,
    )


def with_sequence(batch: bytes, base_sequence: int) -> bytes:
    """`batch` with its base sequence set and its CRC made again."""
    buf = bytearray(batch)
    buf[BASE_SEQUENCE_AT:BASE_SEQUENCE_AT + 4] = base_sequence.to_bytes(4, "big", signed=True)
    buf[rb.CRC_OFFSET:rb.CRC_OFFSET + 4] = rb.batch_crc(buf, 0, len(buf)).to_bytes(4, "big")
    return bytes(buf)


def frame_of(batch: bytes) -> memoryview:
    """A request's frame as the broker reads it (protocol/frames.py): a new buffer, filled
    by the socket's reads."""
    frame = bytearray(len(batch))
    frame[:] = batch
    return memoryview(frame)


async def measure(
    url: str | None, directory: Path, postmaster: int, rounds: int, repeat: int, profile: str | None
) -> None:
    """`url` None: the file engine in `directory`, the same rounds (each ends in an fsync)."""
    storage: LogManager
    if url is None:
        storage = await FileStorage.open(str(directory), clock=ManualClock(), producer_id_expiration_ms=86_400_000)
    else:
        storage = await PostgresStorage.open(url, clock=ManualClock(), producer_id_expiration_ms=86_400_000)
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        batch = make_batch(RECORDS_PER_BATCH, RECORD_BYTES)
        megabytes = len(batch) / 1e6
        sequence = 0

        async def round_() -> None:
            nonlocal sequence
            log.append_nowait(frame_of(with_sequence(batch, sequence)))
            sequence += RECORDS_PER_BATCH
            await log.sync()

        for _ in range(WARMUP_ROUNDS):
            await round_()
        server = TreeCpu(postmaster)
        for run in range(repeat):
            frames = [with_sequence(batch, sequence + i * RECORDS_PER_BATCH) for i in range(rounds)]
            profiler = cProfile.Profile(time.process_time) if profile is not None else None
            pg0, usage0, wall0 = server() or 0.0, resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            walls = []
            if profiler is not None:
                profiler.enable()
            for sent in frames:
                started = time.perf_counter()
                log.append_nowait(frame_of(sent))
                await log.sync()
                walls.append(time.perf_counter() - started)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(f"{profile}.{run}")
            usage = resource.getrusage(resource.RUSAGE_SELF)
            user, system = usage.ru_utime - usage0.ru_utime, usage.ru_stime - usage0.ru_stime
            cpu, wall, pg = user + system, time.perf_counter() - wall0, (server() or 0.0) - pg0
            faults = usage.ru_minflt - usage0.ru_minflt
            sequence += rounds * RECORDS_PER_BATCH
            del frames
            mb = rounds * megabytes
            print(
                f"run {run + 1}: {rounds} rounds of {megabytes:.2f} MB: broker {1000 * cpu / mb:.2f} ms/MB "
                f"(user {1000 * user / mb:.2f}, system {1000 * system / mb:.2f}, {faults / mb:.0f} page faults/MB), "
                f"PostgreSQL {1000 * pg / mb:.2f} ms/MB, {mb / wall:.1f} MB/s, round p50 "
                f"{1000 * statistics.median(walls):.2f} ms, load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    finally:
        await storage.close()


async def measure_encoding(rounds: int, repeat: int) -> None:
    """A round's rows and COPY stream alone (storage/postgres/copy_stream.py), no server:
    the part of the broker's CPU per MB that is this engine's encoding."""
    batch = bytearray(make_batch(RECORDS_PER_BATCH, RECORD_BYTES))
    header = BatchHeader.parse(batch)
    key = (uuid.uuid4(), 0)
    megabytes = len(batch) / 1e6
    for run in range(repeat):
        started = time.process_time()
        for _ in range(rounds):
            rows = Columns()
            rows.add(key, 0, header, memoryview(batch))
            async for _chunk in copy_chunks(rows.rows):
                pass
        cpu = time.process_time() - started
        print(f"run {run + 1}: {rounds} rounds of {megabytes:.2f} MB encoded: {1000 * cpu / (rounds * megabytes):.3f} "
              "ms/MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="1 MB rounds per run (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--profile", help="write each run's cProfile to PROFILE.<run>")
    parser.add_argument("--file-engine", action="store_true",
                        help="the file engine instead, for comparison (the server idles)")
    parser.add_argument("--unix-socket", action="store_true",
                        help="connect through the server's Unix socket rather than TCP on loopback")
    parser.add_argument("--encoding-only", action="store_true",
                        help="time only a round's rows and COPY stream, without a server")
    args = parser.parse_args()
    if args.encoding_only:
        uvloop.run(measure_encoding(args.rounds * 10, args.repeat))
        return
    with tempfile.TemporaryDirectory(prefix="odradek-append-cpu-") as directory:
        server = PostgresServer(Path(directory) / "postgres", settings=dict(POSTGRES_SETTINGS))
        server.init()
        server.start()
        try:
            server.recycle_wal(RECYCLED_WAL_MB)
            postmaster = int((server.data_dir / "postmaster.pid").read_text().split()[0])
            url = server.url
            if args.unix_socket:
                url = f"postgresql://{server.user}@/{server.database}?host={server.directory}&port={server.port}"
            data = Path(directory) / "data"
            data.mkdir()
            uvloop.run(measure(None if args.file_engine else url, data, postmaster, args.rounds, args.repeat, args.profile))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
