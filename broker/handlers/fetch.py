"""Fetch: whole raw batches straight from the log, with the long poll Kafka clients expect.

A request is answered as soon as it has `min_bytes`, an error, or its `max_wait_ms` ran
out; until then it parks on the storage engine's append signal for its partitions and
re-reads when one of their logs changes (an append moved the high watermark, a marker the
last stable offset, ...), as Kafka's DelayedFetch does. Incremental fetch sessions
(KIP-227) are `broker/fetch_sessions.py`'s: a request of a session reads the session's
partitions and its response is trimmed to what changed.

A consumer under a `consumer_byte_rate` quota fetches at most what the quota allows over its
windows, and a response over the quota is replaced by an empty one carrying the throttle time
(KafkaApis.handleFetchRequest); a new session is then not created.
"""

from __future__ import annotations

import asyncio

from broker import fetch_sessions
from broker.context import RequestContext
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
from protocol.record_batch import iter_batches
from storage.engine import READ_COMMITTED, VISIBILITY_WAIT_SECONDS, TopicInfo
from storage.errors import OffsetOutOfRangeError, StorageError, UnknownTopicOrPartitionError

API_KEY = 1
MIN_VERSION = 4  # v0-3 would need down-conversion to message format v0/v1
TOPIC_IDS_MIN_VERSION = 13
SESSIONLESS = 0
FINAL_EPOCH = -1


async def handle(ctx: RequestContext, request: FetchRequest) -> FetchResponse:
    services = ctx.services
    context = None
    if request.session_id != SESSIONLESS or request.session_epoch != FINAL_EPOCH:
        context = fetch_sessions.new_context(services.fetch_sessions, request, ctx.api_version)
        if context.error != ErrorCode.NONE:
            return FetchResponse(error_code=context.error, session_id=SESSIONLESS)
        request = context.request
    resolver = TopicResolver(services)
    use_ids = ctx.api_version >= TOPIC_IDS_MIN_VERSION
    topics: list[TopicInfo | None] = [
        resolver.find_by_id(t.topic_id) if use_ids else resolver.find(t.topic) for t in request.topics
    ]
    # READ on each topic, checked before whether a named topic exists (KafkaApis.handleFetchRequest).
    denied = [
        bool(name) and not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, name)
        for name in ((info.name if info is not None else t.topic) for t, info in zip(request.topics, topics, strict=True))
    ]
    max_bytes = request.max_bytes
    quota_bytes = fetch_max_bytes(ctx)
    if quota_bytes is not None:
        max_bytes = min(max_bytes, quota_bytes)
    deadline = services.clock.monotonic_ms() + max(0, request.max_wait_ms)
    appended = services.storage.appended
    await _written_made_visible(ctx, request, topics, denied, use_ids)
    while True:
        seen = appended.changes
        response, total_bytes, has_error = await _read(ctx, request, topics, denied, use_ids, max_bytes)
        remaining_ms = deadline - services.clock.monotonic_ms()
        if total_bytes >= request.min_bytes or has_error or remaining_ms <= 0:
            throttle_ms = fetch_throttle_ms(ctx, response)
            if throttle_ms > 0:
                ctx.bandwidth_throttle_ms = throttle_ms
                return fetch_sessions.throttled_response(context, throttle_ms)
            return response if context is None else context.respond(response)
        await appended.wait(_partitions(request, topics), remaining_ms / 1000, since=seen)


async def _written_made_visible(
    ctx: RequestContext, request: FetchRequest, topics: list[TopicInfo | None], denied: list[bool], use_ids: bool
) -> None:
    """Records are read once durable (the high watermark is the end of the fsynced prefix),
    and acks=1 is answered before that. So that a consumer reads everything acknowledged
    before its fetch arrived, as from Kafka with one replica, the fetch first waits for the
    fsync rounds already covering what its partitions hold (one round, well under a
    millisecond; bounded). A parked fetch is woken by later rounds as they end."""
    storage = ctx.services.storage
    rounds = set()
    for topic, info, topic_denied in zip(request.topics, topics, denied, strict=True):
        if info is None or topic_denied:
            continue
        for p in topic.partitions:
            if not 0 <= p.partition < info.num_partitions:
                continue
            try:
                log = storage.log_by_id(info.topic_id, p.partition) if use_ids else storage.log(info.name, p.partition)
            except StorageError:
                continue
            round_ = log.visibility_round()
            if round_ is not None and p.fetch_offset < log.log_end_offset:
                rounds.add(round_)
    if rounds:
        await asyncio.wait(rounds, timeout=VISIBILITY_WAIT_SECONDS)


def _partitions(request: FetchRequest, topics: list[TopicInfo | None]) -> list[tuple[str, int]]:
    """The partitions a parked fetch waits on (unknown ones answered an error already)."""
    return [
        (info.name, p.partition)
        for topic, info in zip(request.topics, topics, strict=True)
        if info is not None
        for p in topic.partitions
    ]


async def _read(
    ctx: RequestContext,
    request: FetchRequest,
    topics: list[TopicInfo | None],
    denied: list[bool],
    use_ids: bool,
    max_bytes: int,
) -> tuple[FetchResponse, int, bool]:
    storage = ctx.services.storage
    read_committed = request.isolation_level == READ_COMMITTED
    budget = max_bytes
    total = 0
    has_error = False
    responses: list[FetchableTopicResponse] = []
    for topic, info, topic_denied in zip(request.topics, topics, denied, strict=True):
        partitions: list[PartitionData] = []
        responses.append(FetchableTopicResponse(topic=topic.topic, topic_id=topic.topic_id, partitions=partitions))
        for p in topic.partitions:
            out = PartitionData(partition_index=p.partition, aborted_transactions=None, records=b"")
            partitions.append(out)
            if topic_denied:
                _fail(out, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                has_error = True
                continue
            # As Kafka's KafkaApis: an unknown id is UNKNOWN_TOPIC_ID, a known topic without
            # the partition UNKNOWN_TOPIC_OR_PARTITION.
            if info is None or not 0 <= p.partition < info.num_partitions:
                _fail(out, ErrorCode.UNKNOWN_TOPIC_ID if use_ids and info is None
                      else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                has_error = True
                continue
            try:
                # Looked up on every pass: the topic resolved when the request arrived may
                # have been deleted (and its name reused) while the fetch was parked; by id
                # that is UNKNOWN_TOPIC_ID (UnknownTopicIdError).
                log = storage.log_by_id(info.topic_id, p.partition) if use_ids else storage.log(info.name, p.partition)
            except UnknownTopicOrPartitionError as exc:
                _fail(out, exc.error_code)
                has_error = True
                continue
            upper = log.last_stable_offset if read_committed else log.high_watermark
            try:
                result = await log.read(
                    p.fetch_offset,
                    max(0, min(p.partition_max_bytes, budget)),
                    # KIP-74: the first partition with data returns a whole batch even when it
                    # exceeds the limits, so that a consumer can always make progress.
                    min_one_batch=total == 0,
                    upper_bound=upper,
                )
            except OffsetOutOfRangeError:
                out.error_code = ErrorCode.OFFSET_OUT_OF_RANGE
                out.high_watermark = log.high_watermark
                out.last_stable_offset = log.last_stable_offset
                out.log_start_offset = log.log_start_offset
                has_error = True
                continue
            except StorageError as exc:
                _fail(out, exc.error_code)
                has_error = True
                continue
            out.high_watermark = result.high_watermark
            out.last_stable_offset = result.last_stable_offset
            out.log_start_offset = result.log_start_offset
            out.records = result.records
            size = len(result.records)
            total += size
            budget -= size
            if read_committed:
                end = p.fetch_offset + 1 if not size else _end_offset_hint(result.records, p.fetch_offset)
                out.aborted_transactions = [
                    AbortedTransaction(a.producer_id, a.first_offset)
                    for a in log.aborted_transactions(p.fetch_offset, max(end, p.fetch_offset + 1))
                ]
    return FetchResponse(responses=responses, session_id=SESSIONLESS), total, has_error


def _fail(out: PartitionData, code: int) -> None:
    """A partition answered with an error carries no offsets (Kafka's -1s)."""
    out.error_code = code
    out.high_watermark = out.last_stable_offset = out.log_start_offset = -1


def _end_offset_hint(records: bytes | memoryview, fetch_offset: int) -> int:
    """The offset after the last batch returned: the end of the range aborted transactions
    are reported for."""
    last = fetch_offset
    for _, header in iter_batches(records):
        last = header.last_offset + 1
    return last
