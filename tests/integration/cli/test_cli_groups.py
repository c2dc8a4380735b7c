"""`odradek groups ...` against the real broker: groups made by aiokafka consumers, offsets
reset by the CLI (dry run changes nothing, --execute commits) and confirmed by OffsetFetch."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from odradek.testing import running_broker
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from tests.integration.cli.cli_helpers import cli
from tests.kafka_wire import WireClient

RECORDS = 10


@pytest.fixture(scope="module")
def group_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Members join at once, so a test can hold a group active without waiting.
    with running_broker(tmp_path_factory.mktemp("cli-groups") / "data", group_initial_rebalance_delay_ms=0,
                        overrides={"group.min.session.timeout.ms": "1000"}) as broker:
        yield broker.bootstrap


def offset_fetch(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    with WireClient(bootstrap) as c:
        resp: Any = c.call(9, 7, OffsetFetchRequest(group_id=group, topics=[
            OffsetFetchRequestTopic(name=topic, partition_indexes=list(range(partitions)))]))
    return {p.partition_index: p.committed_offset for p in resp.topics[0].partitions}


async def _produce(bootstrap: str, topic: str, partitions: int) -> list[int]:
    """RECORDS records to each partition, one millisecond timestamp apart from 1000 on;
    returns nothing but leaves every partition's end at RECORDS."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for p in range(partitions):
            for i in range(RECORDS):
                await producer.send_and_wait(topic, b"v%d" % i, partition=p, timestamp_ms=1_000 + i)
    finally:
        await producer.stop()
    return [RECORDS] * partitions


async def _commit(bootstrap: str, group: str, offsets: dict[TopicPartition, int]) -> None:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign(list(offsets))
        await consumer.commit(offsets)
    finally:
        await consumer.stop()


def _setup(capsys: pytest.CaptureFixture[str], bootstrap: str, partitions: int = 2) -> tuple[str, str]:
    topic, group = f"cli-g-{uuid.uuid4().hex[:8]}", f"grp-{uuid.uuid4().hex[:8]}"
    assert cli(capsys, bootstrap, "topics", "create", topic, "--partitions", str(partitions)).code == 0
    asyncio.run(_produce(bootstrap, topic, partitions))
    asyncio.run(_commit(bootstrap, group, {TopicPartition(topic, 0): 3, TopicPartition(topic, 1): 7}))
    return topic, group


def test_list_and_describe(capsys: pytest.CaptureFixture[str], group_bootstrap: str) -> None:
    # Offsets committed without joining make a group of no protocol type, as in Kafka.
    topic, group = _setup(capsys, group_bootstrap)
    run = cli(capsys, group_bootstrap, "groups", "list")
    assert run.code == 0
    assert {"group": group, "state": "Empty", "protocol_type": ""} in run.json

    run = cli(capsys, group_bootstrap, "groups", "describe", group)
    assert (run.code, run.json) == (0, {
        "group": group, "state": "Empty", "protocol_type": "", "members": [],
        "offsets": [
            {"topic": topic, "partition": 0, "current_offset": 3, "log_end_offset": RECORDS, "lag": RECORDS - 3},
            {"topic": topic, "partition": 1, "current_offset": 7, "log_end_offset": RECORDS, "lag": RECORDS - 7},
        ],
    })


def test_unknown_group(capsys: pytest.CaptureFixture[str], group_bootstrap: str) -> None:
    run = cli(capsys, group_bootstrap, "groups", "describe", "no-such-group")
    assert (run.code, run.out, run.err) == (1, "", "Error: group no-such-group does not exist\n")
    run = cli(capsys, group_bootstrap, "groups", "delete", "no-such-group")
    assert (run.code, run.out, run.err) == (1, "", "Error: group no-such-group does not exist\n")


def test_reset_to_earliest_dry_run_then_execute(capsys: pytest.CaptureFixture[str], group_bootstrap: str) -> None:
    topic, group = _setup(capsys, group_bootstrap)
    plan = [
        {"group": group, "topic": topic, "partition": 0, "current_offset": 3, "new_offset": 0},
        {"group": group, "topic": topic, "partition": 1, "current_offset": 7, "new_offset": 0},
    ]
    run = cli(capsys, group_bootstrap, "groups", "reset-offsets", group, "--topic", topic, "--to-earliest")
    assert (run.code, run.json) == (0, {"group": group, "executed": False, "offsets": plan})
    assert offset_fetch(group_bootstrap, group, topic, 2) == {0: 3, 1: 7}

    run = cli(capsys, group_bootstrap, "groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute")
    assert (run.code, run.json) == (0, {"group": group, "executed": True, "offsets": plan})
    assert offset_fetch(group_bootstrap, group, topic, 2) == {0: 0, 1: 0}


@pytest.mark.parametrize(("target", "expected"), [
    (["--to-latest"], {0: RECORDS, 1: RECORDS}),
    (["--to-offset", "5"], {0: 5, 1: 5}),
    (["--to-offset", "99"], {0: RECORDS, 1: RECORDS}),  # moved into the log's range
    # Records carry timestamps 1000..1009 ms: the first at or after 1004 ms is offset 4.
    (["--to-datetime", "1970-01-01T00:00:01.004"], {0: 4, 1: 4}),
    (["--to-datetime", "2999-01-01T00:00:00"], {0: RECORDS, 1: RECORDS}),
])
def test_reset_targets(capsys: pytest.CaptureFixture[str], group_bootstrap: str, target: list[str],
                       expected: dict[int, int]) -> None:
    topic, group = _setup(capsys, group_bootstrap)
    run = cli(capsys, group_bootstrap, "groups", "reset-offsets", group, "--all-topics", *target, "--execute")
    assert run.code == 0
    assert [(o["partition"], o["new_offset"]) for o in run.json["offsets"]] == sorted(expected.items())
    assert offset_fetch(group_bootstrap, group, topic, 2) == expected


def test_reset_one_partition(capsys: pytest.CaptureFixture[str], group_bootstrap: str) -> None:
    topic, group = _setup(capsys, group_bootstrap)
    run = cli(capsys, group_bootstrap, "groups", "reset-offsets", group, "--topic", f"{topic}:1", "--to-offset", "2",
              "--execute")
    assert run.code == 0
    assert offset_fetch(group_bootstrap, group, topic, 2) == {0: 3, 1: 2}


def test_reset_and_delete_refused_while_members_are_active(
    capsys: pytest.CaptureFixture[str], group_bootstrap: str
) -> None:
    topic, group = _setup(capsys, group_bootstrap)

    async def scenario() -> None:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=group_bootstrap, group_id=group,
                                    enable_auto_commit=False, session_timeout_ms=6000)
        await consumer.start()
        try:
            await consumer.getmany(timeout_ms=3000)
            assert consumer.assignment()
            run = await asyncio.to_thread(
                cli, capsys, group_bootstrap, "groups", "reset-offsets", group, "--all-topics", "--to-earliest",
                "--execute")
            assert (run.code, run.out) == (1, "")
            assert run.err == (f"Error: assignments can only be reset if the group {group} is inactive, "
                               "but the current state is Stable\n")
            run = await asyncio.to_thread(cli, capsys, group_bootstrap, "groups", "delete", group)
            assert (run.code, run.err) == (1, f"Error: group {group} is not empty: it has active members\n")
            run = await asyncio.to_thread(cli, capsys, group_bootstrap, "groups", "describe", group)
            described = run.json
            assert described["state"] == "Stable" and described["protocol_type"] == "consumer"
            [member] = described["members"]
            assert member["assignment"] == [f"{topic}-0", f"{topic}-1"]
        finally:
            await consumer.stop()

    asyncio.run(scenario())
    assert offset_fetch(group_bootstrap, group, topic, 2) == {0: 3, 1: 7}
    run = cli(capsys, group_bootstrap, "groups", "delete", group)
    assert (run.code, run.json) == (0, {"deleted": [group]})
    assert offset_fetch(group_bootstrap, group, topic, 2) == {0: -1, 1: -1}


