"""A broker process whose log is in PostgreSQL (`storage.engine`): real clients produce and
consume, a transaction commits and one aborts, a group commits offsets, and all of it is
still there after a restart; a PostgreSQL that cannot be reached stops the start with one
line and exit code 1."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from odradek.postgres_server import PostgresServer
from tests.broker_process import ROOT, BrokerProcess, free_port
from tests.names import unique


@pytest.fixture
def pg_broker(tmp_path: Path, postgres_url: str) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data", {"storage.engine": postgres_url, "num.partitions": "1"})
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()


async def create_topic(bootstrap: str, name: str, partitions: int = 1) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        await admin.close()


async def read_values(bootstrap: str, topic: str, expected: int, **kwargs: object) -> list[bytes | None]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **kwargs)  # type: ignore[arg-type]
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        got: list[bytes | None] = []
        while len(got) < expected:
            batch = await consumer.getmany(timeout_ms=5000)
            if not batch:
                break
            for records in batch.values():
                got.extend(r.value for r in records)
        return got
    finally:
        await consumer.stop()


async def test_produce_consume_transactions_and_offsets_survive_a_restart(pg_broker: BrokerProcess) -> None:
    bootstrap = pg_broker.bootstrap
    topic = unique("pg")
    await create_topic(bootstrap, topic)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    try:
        offsets = [(await producer.send_and_wait(topic, b"plain-%d" % i, partition=0)).offset for i in range(5)]
    finally:
        await producer.stop()
    assert offsets == [0, 1, 2, 3, 4]

    txn = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=unique("tid"))
    await txn.start()
    try:
        async with txn.transaction():
            await txn.send_and_wait(topic, b"committed", partition=0)
        await txn.begin_transaction()
        await txn.send_and_wait(topic, b"aborted", partition=0)
        await txn.abort_transaction()
    finally:
        await txn.stop()

    group = unique("group")
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                                auto_offset_reset="earliest")
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        while consumer.assignment() != {tp}:
            await consumer.getmany(timeout_ms=200)
        await consumer.commit({tp: 3})
    finally:
        await consumer.stop()

    expected = [b"plain-%d" % i for i in range(5)] + [b"committed"]
    for _ in range(2):
        assert await read_values(bootstrap, topic, 6, isolation_level="read_committed") == expected
        uncommitted = await read_values(bootstrap, topic, 7, isolation_level="read_uncommitted")
        assert uncommitted == [*expected, b"aborted"]
        check = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group)
        await check.start()
        try:
            assert await check.committed(TopicPartition(topic, 0)) == 3
        finally:
            await check.stop()
        pg_broker.restart()


def test_unreachable_postgres_is_one_line_and_exit_code_1(tmp_path: Path) -> None:
    dead = free_port()
    url = f"postgresql://odradek:secret-pw@127.0.0.1:{dead}/odradek"
    result = subprocess.run(
        [sys.executable, "-m", "broker", "--listeners", f"PLAINTEXT://127.0.0.1:{free_port()}",
         "--log-dirs", str(tmp_path / "data"), "--storage-engine", url],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"odradek: cannot reach PostgreSQL at 127.0.0.1:{dead}/odradek: ")
    assert "secret-pw" not in result.stderr + result.stdout


def test_a_newer_schema_is_refused_naming_both_versions(tmp_path: Path, postgres_server: PostgresServer,
                                                        postgres_url: str) -> None:
    import asyncio

    import asyncpg

    from storage.postgres.schema import latest_version

    async def bump() -> None:
        conn = await asyncpg.connect(postgres_url)
        try:
            await conn.execute("CREATE TABLE schema_version (version integer NOT NULL)")
            await conn.execute("INSERT INTO schema_version VALUES ($1)", latest_version() + 7)
        finally:
            await conn.close()

    asyncio.run(bump())
    result = subprocess.run(
        [sys.executable, "-m", "broker", "--listeners", f"PLAINTEXT://127.0.0.1:{free_port()}",
         "--log-dirs", str(tmp_path / "data"), "--storage-engine", postgres_url],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"odradek: the database's schema is at version {latest_version() + 7}, newer than this broker's "
        f"{latest_version()}: run a broker of the version that migrated it"
    )
