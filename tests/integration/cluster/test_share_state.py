"""Share partitions on the cluster (KIP-932): a share partition lives on its data partition's
leader and keeps its state with the share coordinator, the leader of the
`__share_group_state` partition its key hashes to (broker/share_persister.py). Here those
are two different brokers: every record is received and acknowledged through the other
broker, and after the share coordinator is killed (SIGKILL) the state partition's new leader
reads the state back: acknowledged records are not delivered again, the others are. The
share group admin APIs on the group coordinator reach each share partition's share
coordinator."""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import AcknowledgeType, Message, Producer, ShareConsumer
from confluent_kafka.admin import AdminClient

from faults.campaign import set_group_config_everywhere
from odradek.testing import OdradekCluster
from protocol.errors import ErrorCode as E
from protocol.messages.alter_share_group_offsets_request import (
    AlterShareGroupOffsetsRequest,
    AlterShareGroupOffsetsRequestPartition,
    AlterShareGroupOffsetsRequestTopic,
)
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_share_group_offsets_request import (
    DeleteShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsRequestTopic,
)
from protocol.messages.delete_share_group_state_request import DeleteShareGroupStateRequest, DeleteStateData
from protocol.messages.delete_share_group_state_request import PartitionData as DeletePartition
from protocol.messages.describe_share_group_offsets_request import (
    DescribeShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsRequestGroup,
)
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.read_share_group_state_request import (
    PartitionData,
    ReadShareGroupStateRequest,
    ReadStateData,
)
from protocol.messages.read_share_group_state_summary_request import PartitionData as SummaryPartition
from protocol.messages.read_share_group_state_summary_request import (
    ReadShareGroupStateSummaryRequest,
    ReadStateSummaryData,
)
from tests.integration.cluster.test_failover import create_topic, wait_for_leaders
from tests.integration.share.share_clients import consumer, poll_records, produce
from tests.kafka_wire import WireClient
from tests.polling import wait_until

RECORDS = 20
ADMIN_PARTITIONS, ADMIN_RECORDS = 4, 3


def _topic_id(bootstrap: str, topic: str) -> uuid.UUID:
    with WireClient(bootstrap) as c:
        found: Any = c.call(3, 12, MetadataRequest(topics=[MetadataRequestTopic(name=topic)]))
    return uuid.UUID(str(found.topics[0].topic_id))


def _share_coordinator(bootstrap: str, key: str) -> int | None:
    """The leader of the key's `__share_group_state` partition (FindCoordinator key type 2)."""
    try:
        with WireClient(bootstrap) as c:
            found: Any = c.call(10, 6, FindCoordinatorRequest(key_type=2, coordinator_keys=[key]))
    except OSError:
        return None
    [entry] = found.coordinators
    return int(entry.node_id) if entry.error_code == E.NONE else None


def _wait_share_coordinator(bootstrap: str, key: str, among: set[int]) -> int:
    found: list[int] = []
    wait_until(lambda: (n := _share_coordinator(bootstrap, key)) in among and not found.append(n),
               timeout=30, what=f"a share coordinator for {key} among {among}")
    return found[-1]


def _read_state(bootstrap: str, group: str, topic_id: uuid.UUID) -> Any:
    with WireClient(bootstrap) as c:
        answer: Any = c.call(84, 0, ReadShareGroupStateRequest(group_id=group, topics=[
            ReadStateData(topic_id=topic_id, partitions=[PartitionData(partition=0)])]))
    return answer.results[0].partitions[0]


def _poll_explicit(c: ShareConsumer, accept: Any, want: int, seconds: float) -> list[Message]:
    """Polls until `want` distinct offsets arrived (for up to `seconds`), acknowledging each
    record ACCEPT when `accept(offset)`, else leaving it in flight; returns every record
    received."""
    got: list[Message] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        batch = poll_records(c, 0.5)
        for m in batch:
            if accept(m.offset()):
                c.acknowledge(m, AcknowledgeType.ACCEPT)
        got += batch
        if batch:
            assert all(v is None for v in c.commit_sync().values())
        if len({m.offset() for m in got}) >= want:
            break
    return got


def test_share_state_lives_with_the_state_partition_leader_and_survives_its_sigkill(
    cluster: OdradekCluster,
) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = f"share-state-{uuid.uuid4().hex[:8]}"
    create_topic(admin, topic, 1)
    [data_leader] = wait_for_leaders(admin, topic, 1, set(cluster.brokers)).values()
    first = cluster.broker(data_leader).bootstrap
    topic_id = _topic_id(first, topic)
    # A group whose share partition's state is kept by another broker than the data's leader.
    for _ in range(30):
        group = f"sg-{uuid.uuid4().hex[:8]}"
        state_leader = _wait_share_coordinator(first, f"{group}:{topic_id}:0", set(cluster.brokers))
        if state_leader != data_leader:
            break
    assert state_leader != data_leader
    # On every broker: each keeps dynamic configs of its own, and the data's leader reads it.
    set_group_config_everywhere(cluster.bootstrap, group, "share.auto.offset.reset", "earliest")

    produce(cluster.bootstrap, topic, (f"r{i}" for i in range(RECORDS)), batch=5)
    old = consumer(cluster.bootstrap, group, topic, explicit=True)
    try:
        got = _poll_explicit(old, lambda offset: offset % 2 == 0, RECORDS, 60)
        assert sorted({m.offset() for m in got}) == list(range(RECORDS))
        state = _read_state(cluster.broker(state_leader).bootstrap, group, topic_id)
        # The even offsets acknowledged, the odd ones in flight (acquisitions are not written).
        # Offset 0 acknowledged moved the start offset past it.
        assert (state.error_code, state.start_offset) == (E.NONE, 1)
        assert {(b.first_offset, b.last_offset, b.delivery_state) for b in state.state_batches
                if b.delivery_state == 2} == {(o, o, 2) for o in range(2, RECORDS, 2)}

        cluster.broker(state_leader).kill()
        survivors = set(cluster.brokers) - {state_leader}
        new_state_leader = _wait_share_coordinator(first, f"{group}:{topic_id}:0", survivors)
        # The odd records go back (a release written through the new share coordinator).
        for m in got:
            if m.offset() % 2 == 1:
                old.acknowledge(m, AcknowledgeType.RELEASE)
        wait_until(lambda: all(v is None for v in old.commit_sync().values()), timeout=30,
                   what="the releases written")
    finally:
        old.close()

    new = consumer(cluster.bootstrap, group, topic, explicit=True)
    try:
        again = _poll_explicit(new, lambda offset: True, RECORDS // 2, 60)
    finally:
        new.close()
    assert sorted(m.offset() for m in again) == list(range(1, RECORDS, 2))
    # The new share coordinator's state: everything acknowledged.
    state = _read_state(cluster.broker(new_state_leader).bootstrap, group, topic_id)
    assert (state.error_code, state.start_offset, list(state.state_batches)) == (E.NONE, RECORDS, [])
    # DeleteShareGroupState: gone; another broker is not the share coordinator.
    with WireClient(cluster.broker(new_state_leader).bootstrap) as c:
        deleted: Any = c.call(86, 0, DeleteShareGroupStateRequest(group_id=group, topics=[
            DeleteStateData(topic_id=topic_id, partitions=[DeletePartition(partition=0)])]))
    assert deleted.results[0].partitions[0].error_code == E.NONE
    state = _read_state(cluster.broker(new_state_leader).bootstrap, group, topic_id)
    assert (state.error_code, state.start_offset, list(state.state_batches)) == (E.NONE, -1, [])
    other = next(n for n in survivors if n != new_state_leader)
    assert _read_state(cluster.broker(other).bootstrap, group, topic_id).error_code == E.NOT_COORDINATOR
    _offsets_admin_reaches_every_share_coordinator(cluster, survivors)


def _group_coordinator(bootstrap: str, group: str) -> int | None:
    try:
        with WireClient(bootstrap) as c:
            found: Any = c.call(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=[group]))
    except OSError:
        return None
    [entry] = found.coordinators
    return int(entry.node_id) if entry.error_code == E.NONE else None


def _described(bootstrap: str, group: str) -> Any:
    """DescribeShareGroupOffsets v1 of every topic of the group (the admin's listShareGroupOffsets)."""
    with WireClient(bootstrap) as c:
        answer: Any = c.call(90, 1, DescribeShareGroupOffsetsRequest(groups=[
            DescribeShareGroupOffsetsRequestGroup(group_id=group, topics=None)]))
    [g] = answer.groups
    return g


def _summary(bootstrap: str, group: str, topic_id: uuid.UUID, partition: int) -> Any:
    with WireClient(bootstrap) as c:
        answer: Any = c.call(87, 1, ReadShareGroupStateSummaryRequest(group_id=group, topics=[ReadStateSummaryData(
            topic_id=topic_id, partitions=[SummaryPartition(partition=partition, leader_epoch=0)])]))
    [[part]] = [t.partitions for t in answer.results]
    return part


def _start_offsets(group: Any) -> dict[int, tuple[int, int, int]]:
    return {p.partition_index: (p.error_code, p.start_offset, p.lag) for t in group.topics for p in t.partitions}


def _poll_all(c: ShareConsumer, want: int) -> list[Message]:
    """Polls until `want` distinct (partition, offset) arrived, each accepted and committed."""
    got: list[Message] = []
    deadline = time.monotonic() + 60
    while len({(m.partition(), m.offset()) for m in got}) < want and time.monotonic() < deadline:
        batch = poll_records(c, 0.5)
        for m in batch:
            c.acknowledge(m, AcknowledgeType.ACCEPT)
        if batch:
            assert all(v is None for v in c.commit_sync().values())
        got += batch
    return got


def _offsets_admin_reaches_every_share_coordinator(cluster: OdradekCluster, live: set[int]) -> None:
    """DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets on the group
    coordinator of a share group whose share partitions keep their state with several brokers:
    each reaches every share partition's share coordinator (ReadShareGroupStateSummary,
    InitializeShareGroupState, DeleteShareGroupState), and a member joining after the alter
    starts at the altered offsets, wherever its share partitions' leaders are. DeleteGroups
    deletes the group's state on every share coordinator too."""
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in sorted(live))
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = f"share-admin-{uuid.uuid4().hex[:8]}"
    create_topic(admin, topic, ADMIN_PARTITIONS)
    wait_for_leaders(admin, topic, ADMIN_PARTITIONS, live)
    some = cluster.broker(min(live)).bootstrap
    topic_id = _topic_id(some, topic)
    for _ in range(30):
        group = f"sg-{uuid.uuid4().hex[:8]}"
        share_coordinators = {p: _wait_share_coordinator(some, f"{group}:{topic_id}:{p}", live)
                              for p in range(ADMIN_PARTITIONS)}
        if len(set(share_coordinators.values())) > 1:
            break
    assert len(set(share_coordinators.values())) > 1
    set_group_config_everywhere(bootstrap, group, "share.auto.offset.reset", "earliest")
    producer = Producer({"bootstrap.servers": bootstrap})
    for p in range(ADMIN_PARTITIONS):
        for i in range(ADMIN_RECORDS):
            producer.produce(topic, value=f"p{p}-{i}".encode(), partition=p)
    assert producer.flush(15) == 0
    everything = {(p, o) for p in range(ADMIN_PARTITIONS) for o in range(ADMIN_RECORDS)}

    first = consumer(bootstrap, group, topic, explicit=True)
    try:
        got = _poll_all(first, len(everything))
    finally:
        first.close()
    assert {(m.partition(), m.offset()) for m in got} == everything

    found: list[int] = []
    wait_until(lambda: (n := _group_coordinator(some, group)) in live and not found.append(n), timeout=30,
               what=f"the group coordinator of {group}")
    coordinator = cluster.broker(found[-1]).bootstrap
    # Every share partition, its state wherever it is: all acknowledged (implicitly, at close).
    done = dict.fromkeys(range(ADMIN_PARTITIONS), (E.NONE, ADMIN_RECORDS, 0))
    wait_until(lambda: _start_offsets(_described(coordinator, group)) == done, timeout=30,
               what="every share partition described at its log end")
    # The share coordinator itself answers the summary; another broker NOT_COORDINATOR.
    for p, node in share_coordinators.items():
        summary = _summary(cluster.broker(node).bootstrap, group, topic_id, p)
        assert (summary.error_code, summary.start_offset) == (E.NONE, ADMIN_RECORDS)
        elsewhere = next(n for n in live if n != node)
        assert _summary(cluster.broker(elsewhere).bootstrap, group, topic_id, p).error_code == E.NOT_COORDINATOR

    # The group is empty: every share partition back to offset 1.
    with WireClient(coordinator) as c:
        altered: Any = c.call(91, 0, AlterShareGroupOffsetsRequest(group_id=group, topics=[
            AlterShareGroupOffsetsRequestTopic(topic_name=topic, partitions=[
                AlterShareGroupOffsetsRequestPartition(partition_index=p, start_offset=1)
                for p in range(ADMIN_PARTITIONS)])]))
    assert altered.error_code == E.NONE
    assert [(p.partition_index, p.error_code) for t in altered.responses for p in t.partitions] == [
        (p, E.NONE) for p in range(ADMIN_PARTITIONS)]
    assert _start_offsets(_described(coordinator, group)) == dict.fromkeys(
        range(ADMIN_PARTITIONS), (E.NONE, 1, ADMIN_RECORDS - 1))
    second = consumer(bootstrap, group, topic, explicit=True)
    try:
        again = _poll_all(second, len(everything) - ADMIN_PARTITIONS)
    finally:
        second.close()
    assert sorted((m.partition(), m.offset()) for m in again) == sorted((p, o) for p, o in everything if o >= 1)

    wait_until(lambda: _start_offsets(_described(coordinator, group)) == done, timeout=30,
               what="every share partition acknowledged again")
    with WireClient(coordinator) as c:
        deleted: Any = c.call(92, 0, DeleteShareGroupOffsetsRequest(group_id=group, topics=[
            DeleteShareGroupOffsetsRequestTopic(topic_name=topic)]))
    assert (deleted.error_code, [t.error_code for t in deleted.responses]) == (E.NONE, [E.NONE])
    assert _described(coordinator, group).topics == []

    # Read from the earliest offset again, then DeleteGroups: the state goes on every share
    # coordinator.
    third = consumer(bootstrap, group, topic, explicit=True)
    try:
        assert {(m.partition(), m.offset()) for m in _poll_all(third, len(everything))} == everything
    finally:
        third.close()
    wait_until(lambda: _start_offsets(_described(coordinator, group)) == done, timeout=30,
               what="every share partition acknowledged a third time")
    with WireClient(coordinator) as c:
        gone: Any = c.call(42, 2, DeleteGroupsRequest(groups_names=[group]))
    assert [(r.group_id, r.error_code) for r in gone.results] == [(group, E.NONE)]
    for p, node in share_coordinators.items():
        assert _summary(cluster.broker(node).bootstrap, group, topic_id, p).start_offset == -1



def _seen_by(bootstrap: str, topic: str) -> tuple[set[int], int | None]:
    """(the live brokers, the leader of the topic's partition 0) as one broker answers Metadata."""
    try:
        with WireClient(bootstrap, timeout=5) as c:
            found: Any = c.call(3, 12, MetadataRequest(topics=[MetadataRequestTopic(name=topic)]))
    except OSError:
        return set(), None
    parts = found.topics[0].partitions if found.topics else []
    return {b.node_id for b in found.brokers}, parts[0].leader_id if parts else None


def test_a_share_partition_led_elsewhere_meanwhile_is_read_again_when_leadership_comes_back(
    cluster: OdradekCluster,
) -> None:
    """The data partition's leader paused past the session timeout loses its membership
    (storage/postgres/cluster/node.py `_lost`, as every broker does when PostgreSQL crashes)
    and its partitions move; when it leads again its share partitions are read back from the
    share coordinator (Kafka's SharePartitionManager drops them on a leader change), not
    served from what it held before: nothing accepted meanwhile through the other leader,
    answered OK, is delivered again. An acknowledgement sent to the former leader of records
    acquired from it before is answered with an error."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = f"share-back-{uuid.uuid4().hex[:8]}"
    create_topic(admin, topic, 1)
    [first] = wait_for_leaders(admin, topic, 1, set(cluster.brokers)).values()
    group = f"sg-{uuid.uuid4().hex[:8]}"
    set_group_config_everywhere(cluster.bootstrap, group, "share.auto.offset.reset", "earliest")
    produce(cluster.bootstrap, topic, (f"a{i}" for i in range(RECORDS)), batch=5)
    zombie = cluster.broker(first)
    others = set(cluster.brokers) - {first}
    witness = cluster.broker(min(others)).bootstrap
    survivors = ",".join(cluster.broker(n).bootstrap for n in others)

    def moved() -> bool:
        brokers, leader = _seen_by(witness, topic)
        return brokers == others and leader in others

    old = consumer(cluster.bootstrap, group, topic, explicit=True)
    try:
        # From the first leader: the even offsets accepted (answered OK), the odd ones held.
        got = _poll_explicit(old, lambda offset: offset % 2 == 0, RECORDS, 60)
        assert sorted({m.offset() for m in got}) == list(range(RECORDS))
        zombie.pause()
        wait_until(moved, timeout=30, what=f"{topic} led by one of {others}")
        # The new leader reads the state (fencing the former one's writes): it delivers the
        # odd offsets again and what is produced since, all accepted.
        produce(survivors, topic, (f"b{i}" for i in range(RECORDS)), batch=5)
        new = consumer(survivors, group, topic, explicit=True)
        try:
            again = _poll_explicit(new, lambda offset: True, RECORDS // 2 + RECORDS, 60)
        finally:
            new.close()
        assert sorted({m.offset() for m in again}) == [*range(1, RECORDS, 2), *range(RECORDS, 2 * RECORDS)]
        zombie.resume()
        # The odd offsets acknowledged to the former leader: refused.
        for m in got:
            if m.offset() % 2 == 1:
                old.acknowledge(m, AcknowledgeType.ACCEPT)
        errors = old.commit_sync()
        assert errors and all(e is not None for e in errors.values()), errors
        # The former leader back in the cluster, then alone in it: the partition is its again.
        wait_until(lambda: _seen_by(witness, topic)[0] == set(cluster.brokers), timeout=30,
                   what=f"broker {first} back in the cluster")
    finally:
        old.close()
    for n in others:
        cluster.broker(n).kill()
    wait_until(lambda: _seen_by(zombie.bootstrap, topic) == ({first}, first), timeout=30,
               what=f"{topic} led by {first} alone")
    produce(zombie.bootstrap, topic, ["last"])
    last_consumer = consumer(zombie.bootstrap, group, topic, explicit=True)
    try:
        # Only the record produced last: every record before it was accepted, answered OK.
        last = _poll_explicit(last_consumer, lambda offset: True, 1, 60)
    finally:
        last_consumer.close()
    assert [(m.offset(), m.value()) for m in last] == [(2 * RECORDS, b"last")]
