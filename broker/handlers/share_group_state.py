"""ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState, InitializeShareGroupState
and ReadShareGroupStateSummary (KIP-932): the share coordinator's side of the persister.
The last two serve the group coordinator's share group admin APIs
(broker/handlers/share_group_offsets.py). A share partition lives on its data partition's leader,
which keeps its durable state with the leader of the `__share_group_state` partition its key
hashes to (broker/share_persister.py). Brokers only: CLUSTER_ACTION on the cluster, as
Kafka's KafkaApis checks. The data partition's leader epoch fences a former leader
(`ShareStateStore.read_for_leader`: FENCED_LEADER_EPOCH). A key whose state partition this broker does not lead answers
NOT_COORDINATOR, one being loaded COORDINATOR_LOAD_IN_PROGRESS
(coordinator/share/state_store.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from broker.share_state_wire import UNINITIALIZED_START_OFFSET, from_wire, to_wire
from broker.share_support import share_key
from broker.topics import TopicResolver
from coordinator.log import CoordinatorLogError
from coordinator.share.coordinator import SHARE_STATE
from coordinator.share.state_store import summary
from protocol.errors import ErrorCode
from protocol.messages import delete_share_group_state_response as delete_rs
from protocol.messages import initialize_share_group_state_response as init_rs
from protocol.messages import read_share_group_state_response as read_rs
from protocol.messages import read_share_group_state_summary_response as summary_rs
from protocol.messages import write_share_group_state_response as write_rs
from protocol.messages.delete_share_group_state_request import DeleteShareGroupStateRequest
from protocol.messages.initialize_share_group_state_request import InitializeShareGroupStateRequest
from protocol.messages.read_share_group_state_request import ReadShareGroupStateRequest
from protocol.messages.read_share_group_state_summary_request import ReadShareGroupStateSummaryRequest
from protocol.messages.write_share_group_state_request import WriteShareGroupStateRequest

INITIALIZE_API_KEY = 83
READ_API_KEY = 84
WRITE_API_KEY = 85
DELETE_API_KEY = 86
SUMMARY_API_KEY = 87


async def _each_partition(
    ctx: RequestContext,
    topics: Sequence[Any],
    topic_result: Callable[[Any], Any],
    partition_result: Callable[[int], Any],
    serve: Callable[[Any, Any, Any], Awaitable[None]],
) -> list[Any]:
    """The three APIs' common shape: a result per topic and partition, CLUSTER_AUTHORIZATION_FAILED
    for each when the caller is no broker, `serve(topic, partition, result)` otherwise."""
    may = cluster_allowed(ctx, AclOperation.CLUSTER_ACTION)
    results = []
    for t in topics:
        out = topic_result(t.topic_id)
        results.append(out)
        for p in t.partitions:
            part = partition_result(p.partition)
            out.partitions.append(part)
            if not may:
                part.error_code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
            else:
                await serve(t, p, part)
    return results


async def read(ctx: RequestContext, request: ReadShareGroupStateRequest) -> read_rs.ReadShareGroupStateResponse:
    store = ctx.share.store

    async def serve(t: Any, p: Any, part: read_rs.PartitionResult) -> None:
        try:
            state = await store.read_for_leader(share_key(request.group_id, t.topic_id, p.partition), p.leader_epoch)
        except CoordinatorLogError as exc:
            part.error_code, part.error_message = exc.error, str(exc)
            return
        if state is not None:
            part.state_epoch = state.state_epoch
            part.start_offset = state.start_offset
            part.state_batches = to_wire(state.batches, read_rs.StateBatch)

    results = await _each_partition(
        ctx, request.topics, lambda topic_id: read_rs.ReadStateResult(topic_id=topic_id),
        lambda n: read_rs.PartitionResult(partition=n, start_offset=UNINITIALIZED_START_OFFSET), serve,
    )
    return read_rs.ReadShareGroupStateResponse(results=results)


async def write(ctx: RequestContext, request: WriteShareGroupStateRequest) -> write_rs.WriteShareGroupStateResponse:
    store = ctx.share.store

    async def serve(t: Any, p: Any, part: write_rs.PartitionResult) -> None:
        key = share_key(request.group_id, t.topic_id, p.partition)
        try:
            batches = from_wire(p.state_batches)
            start = p.start_offset
            if start < 0:  # not being written: the state's own
                old = store.read(key)
                start = old.start_offset if old is not None else 0
            await store.write(key, start, batches, p.leader_epoch, p.state_epoch)
        except ValueError as exc:
            part.error_code, part.error_message = ErrorCode.INVALID_REQUEST, str(exc)
        except CoordinatorLogError as exc:
            part.error_code, part.error_message = exc.client_error(SHARE_STATE), str(exc)

    results = await _each_partition(
        ctx, request.topics, lambda topic_id: write_rs.WriteStateResult(topic_id=topic_id),
        lambda n: write_rs.PartitionResult(partition=n), serve,
    )
    return write_rs.WriteShareGroupStateResponse(results=results)


async def delete(
    ctx: RequestContext, request: DeleteShareGroupStateRequest
) -> delete_rs.DeleteShareGroupStateResponse:
    store = ctx.share.store

    async def serve(t: Any, p: Any, part: delete_rs.PartitionResult) -> None:
        try:
            await store.delete(share_key(request.group_id, t.topic_id, p.partition))
        except CoordinatorLogError as exc:
            part.error_code, part.error_message = exc.client_error(SHARE_STATE), str(exc)

    results = await _each_partition(
        ctx, request.topics, lambda topic_id: delete_rs.DeleteStateResult(topic_id=topic_id),
        lambda n: delete_rs.PartitionResult(partition=n), serve,
    )
    return delete_rs.DeleteShareGroupStateResponse(results=results)


def _unknown_partition(ctx: RequestContext, topic_id: Any, partition: int) -> tuple[ErrorCode, str] | None:
    """Kafka's share coordinator checks (maybeGetInitializeStateError and the like): a negative
    partition is INVALID_REQUEST, one the metadata does not hold UNKNOWN_TOPIC_OR_PARTITION."""
    if partition < 0:
        return ErrorCode.INVALID_REQUEST, "The partition id is negative."
    info = TopicResolver(ctx).find_by_id(topic_id)
    if info is None or partition >= info.num_partitions:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic partition is unknown."
    return None


async def initialize(
    ctx: RequestContext, request: InitializeShareGroupStateRequest
) -> init_rs.InitializeShareGroupStateResponse:
    store = ctx.share.store

    async def serve(t: Any, p: Any, part: init_rs.PartitionResult) -> None:
        key = share_key(request.group_id, t.topic_id, p.partition)
        try:
            # Held here first (NOT_COORDINATOR before anything else, as Kafka's runtime).
            store.read(key)
            if (bad := _unknown_partition(ctx, t.topic_id, p.partition)) is not None:
                part.error_code, part.error_message = bad
                return
            await store.initialize(key, p.state_epoch, p.start_offset)
        except CoordinatorLogError as exc:
            part.error_code, part.error_message = exc.client_error(SHARE_STATE), str(exc)

    results = await _each_partition(
        ctx, request.topics, lambda topic_id: init_rs.InitializeStateResult(topic_id=topic_id),
        lambda n: init_rs.PartitionResult(partition=n), serve,
    )
    return init_rs.InitializeShareGroupStateResponse(results=results)


async def read_summary(
    ctx: RequestContext, request: ReadShareGroupStateSummaryRequest
) -> summary_rs.ReadShareGroupStateSummaryResponse:
    """No state: start offset -1, state epoch 0 (Kafka's PartitionFactory defaults), no error."""
    store = ctx.share.store

    async def serve(t: Any, p: Any, part: summary_rs.PartitionResult) -> None:
        key = share_key(request.group_id, t.topic_id, p.partition)
        try:
            state = store.read(key)
        except CoordinatorLogError as exc:
            part.error_code, part.error_message = exc.error, str(exc)
            return
        if (bad := _unknown_partition(ctx, t.topic_id, p.partition)) is not None:
            part.error_code, part.error_message = bad
            return
        if state is not None:
            s = summary(state)
            part.state_epoch, part.leader_epoch = s.state_epoch, s.leader_epoch
            part.start_offset, part.delivery_complete_count = s.start_offset, s.delivery_complete_count

    results = await _each_partition(
        ctx, request.topics, lambda topic_id: summary_rs.ReadStateSummaryResult(topic_id=topic_id),
        lambda n: summary_rs.PartitionResult(partition=n, start_offset=UNINITIALIZED_START_OFFSET, leader_epoch=0),
        serve,
    )
    return summary_rs.ReadShareGroupStateSummaryResponse(results=results)
