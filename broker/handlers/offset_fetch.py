"""OffsetFetch v0-v10: one group (v0-v7) or several (v8+); no topics means all (v2+); v10
names topics by id."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator, topic_id_of, topic_name_of
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_names
from coordinator.group.api import FetchedOffset
from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from protocol.messages.offset_fetch_request import OffsetFetchRequest
from protocol.messages.offset_fetch_response import (
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponsePartitions,
    OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
)

API_KEY = 9
TOPIC_IDS_MIN_VERSION = 10

Wanted = list[tuple[str, list[int]]] | None


def _fetch(ctx: RequestContext, group_id: str, wanted: Wanted, require_stable: bool,
           member_id: str | None = None, member_epoch: int = -1,
           ) -> tuple[ErrorCode, dict[str, dict[int, FetchedOffset]]]:
    coordinator = group_coordinator(ctx)
    # Kafka's KafkaApis.handleOffsetFetchRequest: DESCRIBE on the group, then on each topic;
    # named topics the principal may not describe answer TOPIC_AUTHORIZATION_FAILED, and
    # "all topics" leaves them out.
    requested = wanted
    denied: list[tuple[str, list[int]]] = []
    if wanted is not None and ctx.authorizer is not None:
        describable = allowed_names(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, {t for t, _ in wanted})
        denied = [(t, ps) for t, ps in wanted if t not in describable]
        wanted = [(t, ps) for t, ps in wanted if t in describable]
    partitions = None if wanted is None else [(t, p) for t, ps in wanted for p in ps]
    found: dict[tuple[str, int], FetchedOffset]
    if allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        error, found = coordinator.fetch_offsets(group_id, partitions, require_stable, member_id, member_epoch)
    else:
        error, found, wanted = ErrorCode.GROUP_AUTHORIZATION_FAILED, {}, requested
    by_topic: dict[str, dict[int, FetchedOffset]] = {}
    if error is not ErrorCode.NONE:
        # Groups with an error list no partitions, except v0/v1 which carry errors per partition.
        if ctx.api_version < 2 and wanted is not None:
            for topic, ps in wanted:
                by_topic[topic] = {p: FetchedOffset(-1, -1, "", error) for p in ps}
        return error, by_topic
    for (topic, partition), fetched in found.items():
        if wanted is None and not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic):
            continue
        by_topic.setdefault(topic, {})[partition] = fetched
    for topic, ps in denied:
        by_topic[topic] = {p: FetchedOffset(-1, -1, "", ErrorCode.TOPIC_AUTHORIZATION_FAILED) for p in ps}
    return error, by_topic


async def handle(ctx: RequestContext, request: OffsetFetchRequest) -> OffsetFetchResponse:
    v = ctx.api_version
    require_stable = request.require_stable if v >= 7 else False
    if v >= 8:
        by_id = v >= TOPIC_IDS_MIN_VERSION
        groups = []
        for g in request.groups:
            wanted: Wanted = None
            unknown_ids: list[OffsetFetchResponseTopics] = []
            if g.topics is not None:
                wanted = []
                for t in g.topics:
                    name = topic_name_of(ctx, t.name, t.topic_id, by_id=by_id)
                    if name is None:
                        unknown_ids.append(OffsetFetchResponseTopics(topic_id=t.topic_id, partitions=[
                            OffsetFetchResponsePartitions(partition_index=p, committed_offset=-1,
                                                          error_code=ErrorCode.UNKNOWN_TOPIC_ID)
                            for p in t.partition_indexes
                        ]))
                    else:
                        wanted.append((name, list(t.partition_indexes)))
            member_id, member_epoch = (g.member_id, g.member_epoch) if v >= 9 else (None, -1)
            error, by_topic = _fetch(ctx, g.group_id, wanted, require_stable, member_id, member_epoch)
            groups.append(OffsetFetchResponseGroup(
                group_id=g.group_id,
                error_code=error,
                topics=[
                    OffsetFetchResponseTopics(
                        name=topic,
                        topic_id=topic_id_of(ctx, topic) if by_id else ZERO_UUID,
                        partitions=[
                            OffsetFetchResponsePartitions(partition_index=p, committed_offset=f.offset,
                                                          committed_leader_epoch=f.leader_epoch, metadata=f.metadata,
                                                          error_code=f.error)
                            for p, f in parts.items()
                        ],
                    )
                    for topic, parts in by_topic.items()
                ] + unknown_ids,
            ))
        return OffsetFetchResponse(groups=groups)
    single: Wanted = None if request.topics is None else [(t.name, list(t.partition_indexes)) for t in request.topics]
    error, by_topic = _fetch(ctx, request.group_id, single, require_stable)
    return OffsetFetchResponse(
        error_code=error,
        topics=[
            OffsetFetchResponseTopic(name=topic, partitions=[
                OffsetFetchResponsePartition(partition_index=p, committed_offset=f.offset,
                                             committed_leader_epoch=f.leader_epoch, metadata=f.metadata,
                                             error_code=f.error)
                for p, f in parts.items()
            ])
            for topic, parts in by_topic.items()
        ],
    )
