"""Fetch: the version gates, ACLs, sessions, quotas and response of a Fetch; the reads and
their long poll are the data plane's (broker/dataplane/replica_manager.py).

Incremental fetch sessions (KIP-227) are `broker/fetch_sessions.py`'s: a request of a
session reads the session's partitions and its response is trimmed to what changed.

A consumer under a `consumer_byte_rate` quota fetches at most what the quota allows over its
windows, and a response over the quota is replaced by an empty one carrying the throttle time
(KafkaApis.handleFetchRequest); a new session is then not created.
"""

from __future__ import annotations

from broker import fetch_sessions
from broker.context import RequestContext
from broker.dataplane import FetchPartitionData, FetchTarget
from broker.quotas.throttling import fetch_max_bytes, fetch_throttle_ms
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.topics import TopicResolver
from protocol.errors import ErrorCode
from protocol.messages.fetch_request import FetchRequest
from protocol.messages.fetch_response import (
    AbortedTransaction,
    FetchableTopicResponse,
    FetchResponse,
    PartitionData,
)

API_KEY = 1
MIN_VERSION = 4  # v0-3 would need down-conversion to message format v0/v1
TOPIC_IDS_MIN_VERSION = 13
SESSIONLESS = 0
FINAL_EPOCH = -1


async def handle(ctx: RequestContext, request: FetchRequest) -> FetchResponse:
    context = None
    if request.session_id != SESSIONLESS or request.session_epoch != FINAL_EPOCH:
        context = fetch_sessions.new_context(ctx.fetch_sessions, request, ctx.api_version)
        if context.error != ErrorCode.NONE:
            return FetchResponse(error_code=context.error, session_id=SESSIONLESS)
        request = context.request
    resolver = TopicResolver(ctx)
    use_ids = ctx.api_version >= TOPIC_IDS_MIN_VERSION
    targets: list[FetchTarget] = []
    for t in request.topics:
        info = resolver.find_by_id(t.topic_id) if use_ids else resolver.find(t.topic)
        # READ on each topic, checked before whether a named topic exists (KafkaApis.handleFetchRequest).
        name = info.name if info is not None else t.topic
        denied = bool(name) and not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, name)
        for p in t.partitions:
            error: ErrorCode | None = None
            if denied:
                error = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif info is None or not 0 <= p.partition < info.num_partitions:
                # As Kafka's KafkaApis: an unknown id is UNKNOWN_TOPIC_ID, a known topic
                # without the partition UNKNOWN_TOPIC_OR_PARTITION.
                error = ErrorCode.UNKNOWN_TOPIC_ID if use_ids and info is None else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            targets.append(
                FetchTarget(info, p.partition, p.fetch_offset, p.partition_max_bytes, error, p.current_leader_epoch)
            )
    max_bytes = request.max_bytes
    quota_bytes = fetch_max_bytes(ctx)
    if quota_bytes is not None:
        max_bytes = min(max_bytes, quota_bytes)
    answers = await ctx.data_plane.fetch(
        targets,
        by_id=use_ids,
        isolation_level=request.isolation_level,
        max_bytes=max_bytes,
        min_bytes=request.min_bytes,
        max_wait_ms=request.max_wait_ms,
        # Large records as file ranges: the connection sends them with sendfile where it
        # can (plaintext) and reads them otherwise (broker/connection.py).
        file_records=True,
    )
    response = _response(request, answers)
    throttle_ms = fetch_throttle_ms(ctx, response)
    if throttle_ms > 0:
        ctx.bandwidth_throttle_ms = throttle_ms
        return fetch_sessions.throttled_response(context, throttle_ms)
    return response if context is None else context.respond(response)


def _response(request: FetchRequest, answers: list[FetchPartitionData]) -> FetchResponse:
    """The answers, one per requested partition in request order, in the response's shape."""
    remaining = iter(answers)
    responses: list[FetchableTopicResponse] = []
    for topic in request.topics:
        partitions: list[PartitionData] = []
        responses.append(FetchableTopicResponse(topic=topic.topic, topic_id=topic.topic_id, partitions=partitions))
        for p in topic.partitions:
            a = next(remaining)
            aborted = a.aborted_transactions
            partitions.append(
                PartitionData(
                    partition_index=p.partition,
                    error_code=a.error,
                    high_watermark=a.high_watermark,
                    last_stable_offset=a.last_stable_offset,
                    log_start_offset=a.log_start_offset,
                    aborted_transactions=None if aborted is None
                    else [AbortedTransaction(t.producer_id, t.first_offset) for t in aborted],
                    records=a.records,
                )
            )
    return FetchResponse(responses=responses, session_id=SESSIONLESS)
