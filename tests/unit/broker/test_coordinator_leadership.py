"""The door a cluster drives the coordinators through (broker/coordinator_leadership.py),
over real coordinators on a real storage engine."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from broker.config import Config
from broker.coordinator_leadership import CoordinatorLeadership
from coordinator.group.api import CommitOffsets
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.group.service import start_group_coordinator
from coordinator.share.config import SharePartitionConfig
from coordinator.share.records import SharePartitionKey
from coordinator.share.service import start_share_coordinator
from coordinator.transaction.service import start_transaction_coordinator
from protocol.errors import ErrorCode as E
from storage.clock import ManualClock
from storage.memory import MemoryStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS


async def test_elections_and_resignations_reach_the_coordinator_of_the_topic(tmp_path: object) -> None:
    config = Config({"offsets.topic.num.partitions": 3, "transaction.state.log.num.partitions": 3,
                     "log.dirs": str(tmp_path)})
    clock = ManualClock()
    storage = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    groups = await start_group_coordinator(config, clock, storage, owns_all_partitions=False)
    txns = await start_transaction_coordinator(config, clock, storage, owns_all_partitions=False)
    leadership = CoordinatorLeadership(groups, txns)
    try:
        gp, tp = groups.partition_for("g"), txns.partition_for("tx")
        commit = CommitOffsets("g", "", None, -1, {("t", 0): OffsetAndMetadata(1, commit_timestamp=0)})
        assert (await groups.commit_offsets(commit))[("t", 0)] == E.NOT_COORDINATOR
        assert (await txns.init_producer_id("tx", 60_000)).error_code == E.NOT_COORDINATOR
        # Other topics' leadership changes are not the coordinators' business.
        await leadership.on_election("orders", gp, 1)
        await leadership.on_resignation("orders", tp, 1)
        assert groups.rt.ownership.partitions() == [] and txns.state.ownership.partitions() == []
        await leadership.on_election("__consumer_offsets", gp, 1)
        await leadership.on_election("__transaction_state", tp, 2)
        assert (await groups.commit_offsets(commit))[("t", 0)] == E.NONE
        assert (await txns.init_producer_id("tx", 60_000)).error_code == E.NONE
        assert txns.state.epoch_of("tx") == 2
        await leadership.on_resignation("__consumer_offsets", gp, 2)
        await leadership.on_resignation("__transaction_state", tp, 3)
        assert (await groups.commit_offsets(commit))[("t", 0)] == E.NOT_COORDINATOR
        assert (await txns.init_producer_id("tx", 60_000)).error_code == E.NOT_COORDINATOR
        # A stale one is ignored, and still awaitable.
        await leadership.on_election("__transaction_state", tp, 3)
        assert (await txns.init_producer_id("tx", 60_000)).error_code == E.NOT_COORDINATOR
    finally:
        await txns.shutdown()
        await groups.stop()



async def test_share_state_partitions_follow_leadership(tmp_path: object) -> None:
    """`__share_group_state` partitions reach the share coordinator's state store; a data
    partition lost drops the share partitions of it (read back from the state if it returns)."""
    config = Config({"offsets.topic.num.partitions": 3, "transaction.state.log.num.partitions": 3,
                     "share.coordinator.state.topic.num.partitions": 3, "log.dirs": str(tmp_path)})
    clock = ManualClock()
    storage = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await storage.create_topic("orders", 1)
    orders = storage.describe_topic("orders").topic_id
    groups = await start_group_coordinator(config, clock, storage, owns_all_partitions=False)
    txns = await start_transaction_coordinator(config, clock, storage, owns_all_partitions=False)
    share = await start_share_coordinator(config, clock, storage, owns_all=False)
    leadership = CoordinatorLeadership(groups, txns, share)
    key = SharePartitionKey("sg", orders, 0)
    p = share.store.partition_for(key)
    try:
        assert share.store.error(key) == E.NOT_COORDINATOR
        await leadership.on_election("__share_group_state", p, 1)
        assert share.store.error(key) is None
        sp = await share.open_partition(key, _at(4), SharePartitionConfig())
        assert sp.start_offset == 4
        await share.partitions.reset(key, 7)
        await share.open_partition(key, _at(0), SharePartitionConfig())
        await leadership.on_resignation("orders", 0, 2)
        assert key not in share.partitions.partitions
        assert (await share.open_partition(key, _at(0), SharePartitionConfig())).start_offset == 7
        await leadership.on_resignation("__share_group_state", p, 2)
        assert share.store.error(key) == E.NOT_COORDINATOR and key not in share.store.states
    finally:
        await share.stop()
        await txns.shutdown()
        await groups.stop()


def _at(offset: int) -> Callable[[], Awaitable[int]]:
    async def start() -> int:
        return offset

    return start
