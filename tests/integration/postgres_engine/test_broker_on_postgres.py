"""A broker process whose log is in PostgreSQL (`storage.engine`): real clients produce and
consume, a transaction commits and one aborts, a group commits offsets, a feature level is
finalized, and all of it is still there after a restart; a PostgreSQL that cannot be reached, or a
finalized feature level this version does not support, stops the start with one line and
exit code 1."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from odradek.postgres_server import PostgresServer, running_postgres
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.update_features_request import FeatureUpdateKey, UpdateFeaturesRequest
from tests.broker_process import ROOT, BrokerProcess, free_port
from tests.kafka_wire import WireClient
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

    # Kept in the database (broker/shared_features.py), not the data directory.
    with WireClient(bootstrap) as c:
        upgraded: Any = c.call(57, 2, UpdateFeaturesRequest(feature_updates=[
            FeatureUpdateKey(feature="transaction.version", max_version_level=2, upgrade_type=1)]))
    assert upgraded.error_code == ErrorCode.NONE
    features = finalized(bootstrap)
    assert (features[0]["transaction.version"], features[1]) == (2, 1)

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
        assert finalized(bootstrap) == features
        pg_broker.restart()


def finalized(bootstrap: str) -> tuple[dict[str, int], int]:
    with WireClient(bootstrap) as c:
        resp: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    return {f.name: f.max_version_level for f in resp.finalized_features}, resp.finalized_features_epoch


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


def test_a_broker_not_supporting_a_finalized_level_refuses_to_start(tmp_path: Path, postgres_url: str) -> None:
    """As Kafka's controller refuses its registration (broker/features.py `unsupported_finalized`):
    a cluster whose transaction.version was finalized above this version's range, by a later one."""
    import asyncpg

    from broker.features import SUPPORTED
    from broker.shared_features import SharedFeatures
    from storage.postgres.cluster_metadata import MetadataDocuments
    from storage.postgres.schema import migrate

    above = SUPPORTED["transaction.version"][1] + 1

    async def finalize_above() -> None:
        sql = await asyncpg.connect(postgres_url)
        try:
            await migrate(sql)
        finally:
            await sql.close()
        docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
        try:
            levels = {"metadata.version": 25, "transaction.version": above, "group.version": 1}
            assert await SharedFeatures(docs).seed(tmp_path / "later", levels) == "settings"
        finally:
            await docs.close()

    asyncio.run(finalize_above())
    result = subprocess.run(
        [sys.executable, "-m", "broker", "--listeners", f"PLAINTEXT://127.0.0.1:{free_port()}",
         "--log-dirs", str(tmp_path / "data"), "--storage-engine", postgres_url],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    # After the engine's own log line, before any listener's.
    assert result.stderr.strip().splitlines()[-1] == (
        f"odradek: Unable to register because the broker does not support finalized version {above} of "
        f"transaction.version. The broker wants a version between 0 and {above - 1}, inclusive."
    )


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server this test may stop and start again."""
    # In a folder of its own, not under pytest's: a pytest starting meanwhile closes its
    # base folder to other users, the server's own included.
    with running_postgres() as server:
        yield server


async def test_postgres_lost_while_producing_loses_nothing_acknowledged(
    tmp_path: Path, own_server: PostgresServer
) -> None:
    broker = BrokerProcess(tmp_path / "data", {"storage.engine": own_server.url, "num.partitions": "1"})
    broker.start()
    try:
        topic = unique("lost")
        await create_topic(broker.bootstrap, topic)
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", enable_idempotence=True,
                                    request_timeout_ms=30_000, retry_backoff_ms=100)
        await producer.start()
        try:
            before = [await producer.send_and_wait(topic, b"before-%d" % i, partition=0) for i in range(3)]
            await asyncio.to_thread(own_server.stop, "immediate")
            # Sent while PostgreSQL is down: the broker answers KAFKA_STORAGE_ERROR
            # (retriable) and the producer retries until PostgreSQL is back.
            during = [await producer.send(topic, b"during-%d" % i, partition=0) for i in range(3)]
            while "PostgreSQL round failed" not in broker.log():
                assert not any(f.done() for f in during)
                await asyncio.sleep(0.05)  # polls the broker's log for the failed round
            await asyncio.to_thread(own_server.restart)
            landed = [await f for f in during]
            after = await producer.send_and_wait(topic, b"after", partition=0)
        finally:
            await producer.stop()
        offsets = [m.offset for m in [*before, *landed, after]]
        assert offsets == list(range(7))
        expected = [b"before-0", b"before-1", b"before-2", b"during-0", b"during-1", b"during-2", b"after"]
        assert await read_values(broker.bootstrap, topic, 7) == expected
        broker.kill()
        broker.start()
        assert await read_values(broker.bootstrap, topic, 7) == expected
    finally:
        if broker.alive:
            broker.kill()


async def test_engine_from_the_environment_with_a_password_file(tmp_path: Path, postgres_server: PostgresServer,
                                                                  new_postgres_url: Callable[[], str]) -> None:
    url = new_postgres_url()
    role_url = url.replace(f"{postgres_server.user}@", "pw_user@")
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        # The test server trusts loopback, so no password is checked here: what is, is that
        # the engine comes from the environment, the role from its URL, and that the
        # file's password is read without ever being logged.
        await conn.execute("CREATE ROLE pw_user LOGIN SUPERUSER PASSWORD 'from-the-file'")
    finally:
        await conn.close()
    secret = tmp_path / "pg-password"
    secret.write_text("from-the-file\n")
    broker = BrokerProcess(tmp_path / "data", {"storage.engine.password.file": str(secret)})
    env_before = os.environ.get("ODRADEK_STORAGE_ENGINE")
    os.environ["ODRADEK_STORAGE_ENGINE"] = role_url
    try:
        broker.start()
    finally:
        if env_before is None:
            del os.environ["ODRADEK_STORAGE_ENGINE"]
        else:
            os.environ["ODRADEK_STORAGE_ENGINE"] = env_before
    try:
        topic = unique("env")
        await create_topic(broker.bootstrap, topic)
        conn = await asyncpg.connect(url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM topics WHERE name = $1", topic) == 1
            users = await conn.fetch("SELECT usename FROM pg_stat_activity WHERE datname = current_database()")
            assert "pw_user" in {r["usename"] for r in users}
        finally:
            await conn.close()
        assert "from-the-file" not in broker.log()
        assert "storage on PostgreSQL" in broker.log()
    finally:
        broker.stop()
