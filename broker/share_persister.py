"""The share partitions' persister in a cluster (Kafka's DefaultStatePersister): a share
partition lives on its data partition's leader, its state with the share coordinator, the
leader of the `__share_group_state` partition its key hashes to
(coordinator/share/state_store.py). When that leader is this broker the store is called
directly; otherwise ReadShareGroupState, WriteShareGroupState or DeleteShareGroupState goes
to it over the inter-broker client (broker/handlers/share_group_state.py serves them). The
share group admin APIs (broker/handlers/share_group_offsets.py, on the group coordinator)
reach it the same way with ReadShareGroupStateSummary, InitializeShareGroupState and
DeleteShareGroupState, as Kafka's GroupCoordinatorService calls its persister.

An answer NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, no leader yet, or a leader that
cannot be reached is retried after a backoff, the leader looked up again each time (as
Kafka's persister finds the coordinator again), until `timeout_s`: a state partition whose
leader died moves to another broker within the session timeout, which loads it and serves
on. Past the deadline the call fails COORDINATOR_NOT_AVAILABLE. A write retried after an
answer lost on the way writes the same state twice: harmless, the state is the whole window."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import structlog

from broker.inter_broker import InterBrokerClient, PeerUnavailable
from broker.share_state_wire import from_wire, to_wire
from coordinator.log import CoordinatorLogError
from coordinator.share.partition import PersistedBatch
from coordinator.share.persister import initialized
from coordinator.share.records import SHARE_GROUP_STATE_TOPIC, SharePartitionKey
from coordinator.share.state_store import (
    NO_LEADER_EPOCH,
    NO_STATE_EPOCH,
    ShareState,
    ShareStateStore,
    ShareSummary,
    summary,
)
from protocol.errors import ErrorCode
from protocol.messages import delete_share_group_state_request as delete_rq
from protocol.messages import initialize_share_group_state_request as init_rq
from protocol.messages import list_offsets_request as offsets_rq
from protocol.messages import read_share_group_state_request as read_rq
from protocol.messages import read_share_group_state_summary_request as summary_rq
from protocol.messages import write_share_group_state_request as write_rq
from storage.errors import StorageError

log = structlog.get_logger("odradek.share")

INITIALIZE_KEY, INITIALIZE_VERSION = 83, 0
READ_KEY, READ_VERSION = 84, 0
WRITE_KEY, WRITE_VERSION = 85, 0
DELETE_KEY, DELETE_VERSION = 86, 0
SUMMARY_KEY, SUMMARY_VERSION = 87, 1
LIST_OFFSETS_KEY, LIST_OFFSETS_VERSION = 2, 7
LATEST_TIMESTAMP = -1
RETRY_BACKOFF_S = 0.1
MAX_BACKOFF_S = 1.0
# What sends the request to the state partition's leader elsewhere.
_RETRIABLE = frozenset({
    ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT,
})

LeaderOf = Callable[[tuple[uuid.UUID, int]], tuple[int | None, int]]
TopicId = Callable[[str], uuid.UUID]
_T = TypeVar("_T")


class _Retry(Exception):
    def __init__(self, error: ErrorCode, why: str) -> None:
        super().__init__(why)
        self.error = error


class ClusterSharePersister:
    def __init__(
        self,
        node_id: int,
        store: ShareStateStore,
        client: InterBrokerClient,
        leader_of: LeaderOf,
        topic_id: TopicId,
        timeout_s: float,
    ) -> None:
        self.node_id = node_id
        self.store = store
        self.client = client
        self.leader_of = leader_of
        self.topic_id = topic_id
        self.timeout_s = timeout_s
        # The data partition's leader epoch each share partition was read at: its writes
        # carry it, and the share coordinator fences them once a newer leader has read.
        self._epochs: dict[SharePartitionKey, int] = {}
        # The state epoch each share partition was read at: its writes carry it, and the
        # share coordinator fences them once the share partition was initialized again
        # (AlterShareGroupOffsets: FENCED_STATE_EPOCH, then it is read again).
        self._state_epochs: dict[SharePartitionKey, int] = {}

    async def read(self, key: SharePartitionKey) -> ShareState | None:
        _, epoch = self.leader_of((key.topic_id, key.partition))
        self._epochs[key] = epoch

        async def remote(leader: int) -> ShareState | None:
            request = read_rq.ReadShareGroupStateRequest(group_id=key.group_id, topics=[read_rq.ReadStateData(
                topic_id=key.topic_id, partitions=[read_rq.PartitionData(partition=key.partition, leader_epoch=epoch)])])
            answer = await self._call(leader, READ_KEY, READ_VERSION, request)
            part = _only(answer)
            _check(part.error_code, part.error_message)
            self._state_epochs[key] = max(part.state_epoch, 0)
            if part.start_offset < 0:
                return None
            return ShareState(part.start_offset, from_wire(part.state_batches), 0, part.state_epoch, 0, 0)

        async def local() -> ShareState | None:
            state = await self.store.read_for_leader(key, epoch)
            self._state_epochs[key] = 0 if state is None else state.state_epoch
            return initialized(state)

        return await self._run(key, local, remote)

    async def write(self, key: SharePartitionKey, start_offset: int, batches: Sequence[PersistedBatch]) -> None:
        epoch = self._epochs.get(key, NO_LEADER_EPOCH)
        state_epoch = self._state_epochs.get(key, NO_STATE_EPOCH)

        async def remote(leader: int) -> None:
            request = write_rq.WriteShareGroupStateRequest(group_id=key.group_id, topics=[write_rq.WriteStateData(
                topic_id=key.topic_id, partitions=[write_rq.PartitionData(
                    partition=key.partition, state_epoch=state_epoch, leader_epoch=epoch, start_offset=start_offset,
                    state_batches=to_wire(batches, write_rq.StateBatch))])])
            part = _only(await self._call(leader, WRITE_KEY, WRITE_VERSION, request))
            _check(part.error_code, part.error_message)

        await self._run(key, lambda: self.store.write(key, start_offset, batches, epoch, state_epoch), remote)

    async def delete(self, key: SharePartitionKey) -> None:
        async def remote(leader: int) -> None:
            request = delete_rq.DeleteShareGroupStateRequest(group_id=key.group_id, topics=[delete_rq.DeleteStateData(
                topic_id=key.topic_id, partitions=[delete_rq.PartitionData(partition=key.partition)])])
            part = _only(await self._call(leader, DELETE_KEY, DELETE_VERSION, request))
            _check(part.error_code, part.error_message)

        await self._run(key, lambda: self.store.delete(key), remote)

    async def read_summary(self, key: SharePartitionKey) -> ShareSummary | None:
        async def remote(leader: int) -> ShareSummary | None:
            request = summary_rq.ReadShareGroupStateSummaryRequest(
                group_id=key.group_id, topics=[summary_rq.ReadStateSummaryData(
                    topic_id=key.topic_id, partitions=[summary_rq.PartitionData(
                        partition=key.partition, leader_epoch=NO_LEADER_EPOCH)])])
            part = _only(await self._call(leader, SUMMARY_KEY, SUMMARY_VERSION, request))
            _check(part.error_code, part.error_message)
            if part.start_offset < 0 and part.state_epoch <= 0:
                return None  # no state (Kafka's UNINITIALIZED_START_OFFSET, DEFAULT_STATE_EPOCH)
            return ShareSummary(part.state_epoch, part.leader_epoch, part.start_offset, part.delivery_complete_count)

        async def local() -> ShareSummary | None:
            state = self.store.read(key)
            return None if state is None else summary(state)

        return await self._run(key, local, remote)

    async def initialize(self, key: SharePartitionKey, state_epoch: int, start_offset: int) -> None:
        async def remote(leader: int) -> None:
            request = init_rq.InitializeShareGroupStateRequest(
                group_id=key.group_id, topics=[init_rq.InitializeStateData(
                    topic_id=key.topic_id, partitions=[init_rq.PartitionData(
                        partition=key.partition, state_epoch=state_epoch, start_offset=start_offset)])])
            part = _only(await self._call(leader, INITIALIZE_KEY, INITIALIZE_VERSION, request))
            _check(part.error_code, part.error_message)

        await self._run(key, lambda: self.store.initialize(key, state_epoch, start_offset), remote)

    async def latest_offset(self, topic: str, topic_id: uuid.UUID, partition: int) -> int | None:
        """The high watermark of a data partition led by another broker (ListOffsets to its
        leader, as Kafka's group coordinator asks its PartitionMetadataClient for the lag of
        DescribeShareGroupOffsets v1); None when it cannot be had."""
        leader, _ = self.leader_of((topic_id, partition))
        if leader is None or leader < 0:
            return None
        request = offsets_rq.ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
            offsets_rq.ListOffsetsTopic(name=topic, partitions=[
                offsets_rq.ListOffsetsPartition(partition_index=partition, timestamp=LATEST_TIMESTAMP)])])
        try:
            answer = await self.client.call(leader, LIST_OFFSETS_KEY, LIST_OFFSETS_VERSION, request)
        except PeerUnavailable:
            return None
        for t in answer.topics:
            for part in t.partitions:
                if part.error_code == ErrorCode.NONE and part.offset >= 0:
                    return int(part.offset)
        return None

    # --- finding the share coordinator, and retrying -----------------------------------------

    async def _run(
        self,
        key: SharePartitionKey,
        local: Callable[[], Awaitable[_T]],
        remote: Callable[[int], Awaitable[_T]],
    ) -> _T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        backoff = RETRY_BACKOFF_S
        while True:
            try:
                leader = await self._leader(key)
                if leader == self.node_id:
                    try:
                        return await local()
                    except CoordinatorLogError as exc:
                        error = _coordinator_error(exc.error)
                        if error not in _RETRIABLE:
                            raise
                        raise _Retry(error, str(exc)) from exc
                return await remote(leader)
            except _Retry as exc:
                if loop.time() + backoff > deadline:
                    log.warning("share state not reached", key=str(key), error=exc.error.name, why=str(exc))
                    raise CoordinatorLogError(ErrorCode.COORDINATOR_NOT_AVAILABLE, str(exc)) from exc
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)

    async def _leader(self, key: SharePartitionKey) -> int:
        """The leader of the key's state partition, the topic created on first use (as
        Kafka's FindCoordinator creates it)."""
        if (error := await self.store.ensure_log()) is not ErrorCode.NONE:
            raise _Retry(error, "__share_group_state could not be created")
        try:
            topic_id = self.topic_id(SHARE_GROUP_STATE_TOPIC)
        except StorageError as exc:
            raise _Retry(ErrorCode.COORDINATOR_NOT_AVAILABLE, str(exc)) from exc
        leader, _ = self.leader_of((topic_id, self.store.partition_for(key)))
        if leader is None or leader < 0:
            raise _Retry(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the state partition has no leader")
        return leader

    async def _call(self, leader: int, api_key: int, version: int, request: Any) -> Any:
        try:
            return await self.client.call(leader, api_key, version, request)
        except PeerUnavailable as exc:
            raise _Retry(ErrorCode.NETWORK_EXCEPTION, str(exc)) from exc


def _coordinator_error(error: ErrorCode) -> ErrorCode:
    # A fenced append: the partition's leadership moved on.
    if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    return error


def _check(code: int, message: str | None) -> None:
    if code == ErrorCode.NONE:
        return
    error = ErrorCode(code)
    if error in _RETRIABLE:
        raise _Retry(error, message or error.name)
    raise CoordinatorLogError(error, message or error.name)


def _only(answer: Any) -> Any:
    """The one partition result of a one-partition answer (a missing one is retried)."""
    for topic in answer.results:
        for part in topic.partitions:
            return part
    raise _Retry(ErrorCode.NETWORK_EXCEPTION, "the answer named no partition")
