"""Consumer groups driven by aiokafka against the real broker process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from tests.broker_process import BrokerProcess
from tests.integration.groups.aiokafka_members import FAST, Member, make_topic, produce, wait_for
from tests.names import unique


def disjoint_cover(members: list[Member], topic: str, partitions: int) -> bool:
    sets = [m.assignment() for m in members]
    union = set().union(*sets)
    return sum(len(s) for s in sets) == len(union) == partitions and all(tp.topic == topic for tp in union)


async def test_three_members_split_partitions_and_rebalance_on_join_and_leave(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    await make_topic(bs, topic, 6, 60)
    members = [Member(bs, topic, group) for _ in range(3)]
    try:
        await members[0].start()
        await wait_for(lambda: len(members[0].assignment()) == 6)
        for m in members[1:]:
            await m.start()
        await wait_for(lambda: disjoint_cover(members, topic, 6) and all(m.assignment() for m in members))
        await wait_for(lambda: sum(len(m.seen) for m in members) >= 60)
        await asyncio.sleep(0.5)  # on purpose: room for a duplicate delivery to show up
        everything = sorted(v for m in members for v in m.seen)
        assert everything == list(range(60))  # each record consumed by exactly one member
        # a member leaves: the other two take over all partitions
        await members[2].stop()
        await wait_for(lambda: disjoint_cover(members[:2], topic, 6))
        await produce(bs, topic, 6, range(60, 72))
        await wait_for(lambda: sum(len(m.seen) for m in members[:2]) >= 60 - len(members[2].seen) + 12)
    finally:
        for m in members[:2]:
            await m.stop()


async def test_two_groups_each_see_everything(group_broker: BrokerProcess) -> None:
    bs, topic = group_broker.bootstrap, unique("t")
    await make_topic(bs, topic, 3, 30)
    a, b = Member(bs, topic, unique("ga")), Member(bs, topic, unique("gb"))
    try:
        await a.start()
        await b.start()
        await wait_for(lambda: len(a.seen) >= 30 and len(b.seen) >= 30)
        assert sorted(a.seen) == sorted(b.seen) == list(range(30))
    finally:
        await a.stop()
        await b.stop()


KILLED_MEMBER = textwrap.dedent("""
    import asyncio, sys
    from aiokafka import AIOKafkaConsumer
    async def main(bs, topic, group):
        c = AIOKafkaConsumer(topic, bootstrap_servers=bs, group_id=group, session_timeout_ms=3000,
                             heartbeat_interval_ms=300, metadata_max_age_ms=1000)
        await c.start()
        while not c.assignment():
            await c.getmany(timeout_ms=100)
        print("assigned", flush=True)
        while True:
            await c.getmany(timeout_ms=100)
    asyncio.run(main(*sys.argv[1:]))
""")


async def test_killed_member_expires_and_partitions_move(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    await make_topic(bs, topic, 4, 0)
    survivor = Member(bs, topic, group)
    await survivor.start()
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MEMBER, bs, topic, group], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
        assert line.strip() == b"assigned"
        await wait_for(lambda: 0 < len(survivor.assignment()) < 4)
        proc.kill()  # no LeaveGroup: only the session timeout removes it
        proc.wait()
        await wait_for(lambda: len(survivor.assignment()) == 4, timeout=25)
    finally:
        if proc.poll() is None:
            proc.kill()
        await survivor.stop()


async def consume_committed(bs: str, topic: str, group: str, count: int) -> list[int]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bs, group_id=group, enable_auto_commit=False, **FAST)
    await consumer.start()
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 20
        while len(seen) < count and time.monotonic() < deadline:
            for tp, msgs in (await consumer.getmany(timeout_ms=200, max_records=count - len(seen))).items():
                seen.extend(int(m.value) for m in msgs)
                await consumer.commit({tp: msgs[-1].offset + 1})
    finally:
        await consumer.stop()
    return seen


@pytest.mark.parametrize("how", ["restart", "sigkill"])
async def test_committed_offsets_survive_restart(fresh_group_broker: BrokerProcess, how: str) -> None:
    bs, topic, group = fresh_group_broker.bootstrap, unique("t"), unique("g")
    await make_topic(bs, topic, 1, 20)
    first = await consume_committed(bs, topic, group, 8)
    assert first == list(range(8))
    if how == "restart":
        fresh_group_broker.restart()
    else:
        fresh_group_broker.kill()
        fresh_group_broker.start()
    rest = await consume_committed(bs, topic, group, 12)
    assert rest == list(range(8, 20))  # resumed at the committed offset


async def test_admin_lists_describes_and_deletes(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    await make_topic(bs, topic, 2, 10)
    member = Member(bs, topic, group, client_id="describer")
    await member.start()
    admin = AIOKafkaAdminClient(bootstrap_servers=bs)
    await admin.start()
    try:
        await wait_for(lambda: len(member.assignment()) == 2)
        await member.consumer.commit({TopicPartition(topic, 0): 3})
        assert (group, "consumer") in await admin.list_consumer_groups()
        described = (await admin.describe_consumer_groups([group]))[0].groups[0]
        assert described[2] == "Stable" and described[4] == "roundrobin"
        assert len(described[5]) == 1 and described[5][0][1] == "describer"
        offsets = await admin.list_consumer_group_offsets(group)
        assert offsets[TopicPartition(topic, 0)].offset == 3
        await member.stop()
    finally:
        if member.task is not None and not member.task.done():
            await member.stop()
        await admin.close()
