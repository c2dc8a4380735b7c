"""`odradek produce|consume|records delete-before|health`, the version, the bootstrap
variable and the one-line error for an unreachable broker, against the real broker."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from odradek import __version__
from odradek.__main__ import main
from odradek.cli.partitioner import partition_for_key
from odradek.testing import free_port
from protocol.messages.api_versions_request import ApiVersionsRequest
from tests.integration.cli.cli_helpers import cli, cli_process
from tests.kafka_wire import WireClient


def _topic(capsys: pytest.CaptureFixture[str], bootstrap: str, partitions: int = 1) -> str:
    topic = f"cli-r-{uuid.uuid4().hex[:8]}"
    assert cli(capsys, bootstrap, "topics", "create", topic, "--partitions", str(partitions)).code == 0
    return topic


def test_produce_and_consume_keys_and_headers(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _topic(capsys, bootstrap, 2)
    run = cli(capsys, bootstrap, "produce", topic, "--partition", "1", "--key", "k1", "--value", "a", "--value", "b",
              "--header", "trace=x1", "--header", "kind=test")
    assert (run.code, run.json) == (0, {"topic": topic, "partition": 1, "base_offset": 0, "count": 2})

    async def read_back() -> list[tuple[int, bytes | None, bytes | None, list[tuple[str, bytes]]]]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
        await consumer.start()
        try:
            batches = await consumer.getmany(timeout_ms=5000)
        finally:
            await consumer.stop()
        return [(m.partition, m.key, m.value, list(m.headers)) for ms in batches.values() for m in ms]

    headers = [("trace", b"x1"), ("kind", b"test")]
    assert asyncio.run(read_back()) == [(1, b"k1", b"a", headers), (1, b"k1", b"b", headers)]

    run = cli(capsys, bootstrap, "consume", topic, "--partition", "1", "--from-beginning", "--max-messages", "5",
              "--timeout-ms", "500")
    assert run.code == 0
    assert [{k: r[k] for k in ("partition", "offset", "key", "value", "headers")} for r in run.json] == [
        {"partition": 1, "offset": 0, "key": "k1", "value": "a", "headers": {"trace": "x1", "kind": "test"}},
        {"partition": 1, "offset": 1, "key": "k1", "value": "b", "headers": {"trace": "x1", "kind": "test"}},
    ]
    run = cli(capsys, bootstrap, "consume", topic, "--partition", "1", "--offset", "1", "--max-messages", "1")
    assert [(r["offset"], r["value"]) for r in run.json] == [(1, "b")]
    # Without --from-beginning it starts at the end, as Kafka's console consumer does.
    run = cli(capsys, bootstrap, "consume", topic, "--partition", "1", "--timeout-ms", "300")
    assert (run.code, run.json) == (0, [])


def test_keyed_records_go_to_the_key_partition_and_consume_reads_every_partition(
    capsys: pytest.CaptureFixture[str], bootstrap: str
) -> None:
    topic = _topic(capsys, bootstrap, 3)
    placed = {}
    for key in ("alpha", "beta", "gamma", "delta"):
        run = cli(capsys, bootstrap, "produce", topic, "--key", key, "--value", f"v-{key}")
        assert run.code == 0
        placed[key] = run.json["partition"]
        assert placed[key] == partition_for_key(key.encode(), 3)
    run = cli(capsys, bootstrap, "produce", topic, "--value", "unkeyed")
    assert run.json["partition"] == 0
    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--timeout-ms", "500")
    assert run.code == 0
    assert sorted((r["partition"], r["key"], r["value"]) for r in run.json) == sorted(
        [(p, k, f"v-{k}") for k, p in placed.items()] + [(0, None, "unkeyed")])


def test_consume_read_committed_skips_aborted(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _topic(capsys, bootstrap)

    async def transactions() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"cli-{uuid.uuid4().hex[:8]}")
        await producer.start()
        try:
            async with producer.transaction():
                await producer.send_and_wait(topic, b"committed-1", partition=0)
            await producer.begin_transaction()
            await producer.send_and_wait(topic, b"aborted", partition=0)
            await producer.abort_transaction()
            async with producer.transaction():
                await producer.send_and_wait(topic, b"committed-2", partition=0)
        finally:
            await producer.stop()

    asyncio.run(transactions())
    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--isolation", "read_committed",
              "--timeout-ms", "500")
    assert [(r["offset"], r["value"]) for r in run.json] == [(0, "committed-1"), (4, "committed-2")]
    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--timeout-ms", "500")
    assert [(r["offset"], r["value"]) for r in run.json] == [(0, "committed-1"), (2, "aborted"), (4, "committed-2")]


def test_delete_records_before(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _topic(capsys, bootstrap)
    assert cli(capsys, bootstrap, "produce", topic, "--value", "a", "--value", "b", "--value", "c").code == 0
    run = cli(capsys, bootstrap, "records", "delete-before", "--topic", topic, "--offset", "2")
    assert (run.code, run.json) == (0, [{"topic": topic, "partition": 0, "low_watermark": 2}])
    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--timeout-ms", "300")
    assert [(r["offset"], r["value"]) for r in run.json] == [(2, "c")]
    run = cli(capsys, bootstrap, "records", "delete-before", "--topic", topic, "--partition", "3", "--offset", "1")
    assert (run.code, run.err) == (1, f"Error: topic {topic} has no partition 3\n")


def test_unknown_topic_for_data_commands(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    for args in (["produce", "no-such-topic", "--value", "x"], ["consume", "no-such-topic"],
                 ["records", "delete-before", "--topic", "no-such-topic", "--offset", "1"],
                 ["producers", "describe", "--topic", "no-such-topic"]):
        run = cli(capsys, bootstrap, *args)
        assert (run.code, run.out, run.err) == (1, "", "Error: topic no-such-topic does not exist\n")


def test_human_table(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _topic(capsys, bootstrap, 2)
    capsys.readouterr()
    assert main(["--bootstrap-server", bootstrap, "topics", "describe", topic]) == 0
    header = "TOPIC" + " " * (len(topic) - 3) + "PARTITION  LEADER  REPLICAS  ISR  CONFIGS"
    assert capsys.readouterr().out.splitlines() == [
        header,
        f"{topic}  0          1       1         1    -",
        f"{topic}  1          1       1         1    -",
    ]


def test_health(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    run = cli(capsys, bootstrap, "health")
    assert run.code == 0
    data = run.json
    assert data.pop("latency_ms") >= 0
    host, port = bootstrap.rsplit(":", 1)
    assert data.pop("cluster_id")
    with WireClient(bootstrap) as c:
        served = len(c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1")).api_keys)
    assert data == {"ok": True, "controller_id": 1, "brokers": [{"node_id": 1, "host": host, "port": int(port)}],
                    "apis": served}


def test_the_command_with_the_bootstrap_variable(bootstrap: str) -> None:
    env = {**os.environ, "ODRADEK_BOOTSTRAP_SERVER": bootstrap}
    run = cli_process("health", env=env)
    assert run.code == 0 and run.out.startswith("OK: 1 broker(s), cluster ")
    run = cli_process("--version")
    assert (run.code, run.out) == (0, f"odradek {__version__}\n")


def test_unreachable_broker() -> None:
    address = f"127.0.0.1:{free_port()}"
    run = cli_process("--bootstrap-server", address, "topics", "list")
    assert (run.code, run.out, run.err) == (1, "", f"Error: cannot connect to {address}: Connection refused\n")
    run = cli_process("--bootstrap-server", "nonsense", "health")
    assert (run.code, run.err) == (1, "Error: bad bootstrap server 'nonsense': expected host:port\n")


def test_usage_errors_exit_1() -> None:
    run = cli_process("topics", "create")
    assert (run.code, run.out, run.err) == (
        1, "", "odradek topics create: error: the following arguments are required: topic\n")
    run = cli_process("groups", "reset-offsets", "g", "--to-earliest", "--to-latest")
    assert run.code == 1 and run.err.count("\n") == 1 and "not allowed with argument" in run.err
