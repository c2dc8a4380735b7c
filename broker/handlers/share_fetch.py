"""ShareFetch (KIP-932): the share session, the acknowledgements it carries, and the
acquisition of records for the member, in memory as Kafka acquires them
(`coordinator/share/partitions.py`).

A ShareFetch that acquires nothing waits up to MaxWaitMs for records: new records past a
share partition's window (the data plane's long poll, as a Fetch parks) or records made
available again by a release, an acknowledgement or a lock timeout (the share
coordinator's change event)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field

from broker.context import RequestContext
from broker.dataplane import FetchTarget
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.share_support import (
    InvalidAcknowledgementError,
    ReadAhead,
    ShareGroupSettings,
    acknowledgements,
    deliverable,
    group_settings,
    initial_start_offset,
    leader_of,
    leadership_error,
    learn_record_size,
    read_bytes,
    records_for,
    share_groups_enabled,
    share_key,
    window_end,
)
from broker.topics import TopicResolver
from coordinator.log import CoordinatorLogError
from coordinator.share.coordinator import SHARE_STATE
from coordinator.share.partition import Acknowledgement, AcquiredRecords, AcquireMode
from coordinator.share.record_state import AcknowledgeType
from coordinator.share.records import SharePartitionKey
from coordinator.share.sessions import FINAL_EPOCH, INITIAL_EPOCH, ShareSessionError
from protocol.codec import RecordsData
from protocol.errors import ErrorCode
from protocol.messages.share_fetch_request import ShareFetchRequest
from protocol.messages.share_fetch_response import AcquiredRecords as WireAcquired
from protocol.messages.share_fetch_response import (
    LeaderIdAndEpoch,
    PartitionData,
    ShareFetchableTopicResponse,
    ShareFetchResponse,
)
from storage.engine import TopicInfo
from storage.errors import StorageError

API_KEY = 78
# ShareFetch v1 has no MaxRecords limit of its own: Kafka's default for it.
DEFAULT_MAX_RECORDS = 500
# The rest of each share partition's last log read (weakly keyed by the share partition).
_READ_AHEAD = ReadAhead()


@dataclass
class _Partition:
    topic_id: uuid.UUID
    index: int
    info: TopicInfo | None = None
    error: ErrorCode = ErrorCode.NONE
    ack_error: ErrorCode = ErrorCode.NONE
    acquired: list[AcquiredRecords] = field(default_factory=list)
    records: RecordsData = b""
    # Listed in this request (answered even when empty).
    requested: bool = False
    # This request's acknowledgements of the partition while they are being written.
    acknowledging: asyncio.Future[None] | None = None


async def handle(ctx: RequestContext, request: ShareFetchRequest) -> ShareFetchResponse:
    if not share_groups_enabled(ctx):
        return ShareFetchResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    group_id = request.group_id or ""
    member_id = request.member_id or ""
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, group_id):
        return ShareFetchResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    share = ctx.share
    epoch = request.share_session_epoch
    has_acks = any(p.acknowledgement_batches for t in request.topics for p in t.partitions)
    if not member_id:
        return ShareFetchResponse(error_code=ErrorCode.INVALID_REQUEST, error_message="MemberId can't be empty.")
    if epoch == INITIAL_EPOCH and has_acks:
        return ShareFetchResponse(error_code=ErrorCode.INVALID_REQUEST,
                                  error_message="Acknowledge data present in the initial share fetch request.")
    if epoch == FINAL_EPOCH and any(not p.acknowledgement_batches for t in request.topics for p in t.partitions):
        return ShareFetchResponse(error_code=ErrorCode.INVALID_REQUEST,
                                  error_message="Fetch data present in the final share fetch request.")
    try:
        if epoch == INITIAL_EPOCH:
            session = share.sessions.open(group_id, member_id)
        else:
            session = share.sessions.use(group_id, member_id, epoch)
    except ShareSessionError as exc:
        return ShareFetchResponse(error_code=exc.error, error_message=str(exc))

    resolver = TopicResolver(ctx)
    parts: dict[tuple[uuid.UUID, int], _Partition] = {}
    for t in request.topics:
        for p in t.partitions:
            parts[(t.topic_id, p.partition_index)] = _Partition(t.topic_id, p.partition_index, requested=True)
    for f in request.forgotten_topics_data:
        for index in f.partitions:
            session.partitions.pop((f.topic_id, index), None)
    if epoch != FINAL_EPOCH:
        for key in parts:
            session.partitions[key] = None
        for key in session.partitions:
            parts.setdefault(key, _Partition(key[0], key[1]))
    for part in parts.values():
        part.info = resolver.find_by_id(part.topic_id)
        if part.info is None:
            part.error = ErrorCode.UNKNOWN_TOPIC_ID
        elif not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, part.info.name):
            part.error = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif not 0 <= part.index < part.info.num_partitions:
            part.error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        elif (refused := leadership_error(ctx, part.topic_id, part.index)) is not None:
            part.error = refused

    acks_to_apply: list[tuple[_Partition, SharePartitionKey, list[Acknowledgement]]] = []
    for t in request.topics:
        for p in t.partitions:
            if not p.acknowledgement_batches:
                continue
            part = parts[(t.topic_id, p.partition_index)]
            if part.error is not ErrorCode.NONE:
                part.ack_error = part.error
                continue
            try:
                acks = acknowledgements(
                    [(b.first_offset, b.last_offset, b.acknowledge_types) for b in p.acknowledgement_batches],
                    renew_allowed=ctx.api_version >= 2,
                )
            except InvalidAcknowledgementError:
                part.ack_error = ErrorCode.INVALID_REQUEST
                continue
            acks_to_apply.append((part, share_key(group_id, t.topic_id, p.partition_index), acks))

    async def acknowledge(part: _Partition, key: SharePartitionKey, acks: list[Acknowledgement]) -> None:
        part.ack_error = await share.acknowledge(key, member_id, acks)

    fetching = epoch != FINAL_EPOCH and not request.is_renew_ack
    settings = group_settings(ctx, group_id)
    if fetching and not any(_releases(acks) for _, _, acks in acks_to_apply):
        # Kafka's KafkaApis handles a ShareFetch's acknowledgements and its fetch side by
        # side: the acquisition does not wait for the acknowledgements' state write (their
        # records stay in flight until it is durable, coordinator/share/partitions.py), and
        # the answer waits for both.
        pending = []
        for a in acks_to_apply:
            a[0].acknowledging = asyncio.ensure_future(acknowledge(*a))
            pending.append(a[0].acknowledging)
        try:
            await _acquire(ctx, request, group_id, member_id, settings,
                           [p for p in parts.values() if p.error is ErrorCode.NONE])
        finally:
            if pending:
                await asyncio.gather(*pending)
    else:
        # Acknowledgements first: what they release may be acquired again below.
        for a in acks_to_apply:
            await acknowledge(*a)
        if epoch == FINAL_EPOCH:
            share.sessions.close(group_id, member_id)
            await share.release_member(group_id, member_id)
        elif fetching:
            await _acquire(ctx, request, group_id, member_id, settings,
                           [p for p in parts.values() if p.error is ErrorCode.NONE])

    topics: dict[uuid.UUID, ShareFetchableTopicResponse] = {}
    for part in parts.values():
        if not (part.requested or part.acquired or part.error is not ErrorCode.NONE):
            continue
        topic = topics.setdefault(part.topic_id, ShareFetchableTopicResponse(topic_id=part.topic_id))
        topic.partitions.append(PartitionData(
            partition_index=part.index,
            error_code=part.error,
            acknowledge_error_code=part.ack_error,
            current_leader=LeaderIdAndEpoch(*leader_of(ctx, part.topic_id, part.index, part.error)),
            records=part.records,
            acquired_records=[WireAcquired(a.first_offset, a.last_offset, a.delivery_count) for a in part.acquired],
        ))
    return ShareFetchResponse(
        acquisition_lock_timeout_ms=settings.partition.record_lock_duration_ms,
        responses=list(topics.values()),
    )


def _releases(acks: list[Acknowledgement]) -> bool:
    """Whether the acknowledgements make records available again (RELEASE)."""
    return any(t is AcknowledgeType.RELEASE for a in acks for t in a.types)


async def _acquire(
    ctx: RequestContext,
    request: ShareFetchRequest,
    group_id: str,
    member_id: str,
    settings: ShareGroupSettings,
    parts: list[_Partition],
) -> None:
    if not parts:
        return
    share = ctx.share
    max_records = request.max_records if request.max_records > 0 else DEFAULT_MAX_RECORDS
    mode = AcquireMode.RECORD_LIMIT if ctx.api_version >= 2 and request.share_acquire_mode == 1 \
        else AcquireMode.BATCH_OPTIMIZED
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(request.max_wait_ms, 0) / 1000
    opened = []
    for part in parts:
        info = part.info
        assert info is not None
        key = share_key(group_id, part.topic_id, part.index)

        async def start(info: TopicInfo = info, index: int = part.index) -> int:
            return await initial_start_offset(ctx, info.name, index, settings.auto_offset_reset)

        try:
            await share.open_partition(key, start, settings.partition)
        except CoordinatorLogError as exc:
            # The share coordinator could not be asked for the state: the client retries.
            part.error = exc.client_error(SHARE_STATE)
            continue
        opened.append(part)
    parts = opened
    if not parts:
        return
    while True:
        changed = share.change_event()
        budget = max_records
        for part in parts:
            if budget <= 0:
                break
            got = await _acquire_one(ctx, part, group_id, member_id, budget, mode, settings.isolation_level,
                                     request.max_bytes)
            budget -= sum(a.last_offset - a.first_offset + 1 for a in got)
        remaining = deadline - loop.time()
        if any(p.acquired for p in parts) or remaining <= 0:
            return
        await _wait(ctx, group_id, parts, changed, remaining, settings.isolation_level)


async def _acquire_one(
    ctx: RequestContext,
    part: _Partition,
    group_id: str,
    member_id: str,
    budget: int,
    mode: AcquireMode,
    isolation_level: int,
    max_bytes: int,
) -> list[AcquiredRecords]:
    assert part.info is not None
    share = ctx.share
    key = share_key(group_id, part.topic_id, part.index)
    sp = share.partitions.partitions.get(key)
    if (
        sp is not None
        and part.acknowledging is not None
        and sp.config.max_in_flight_records - sp.in_flight_count < budget
    ):
        # The window has no room for the budget, part of it this request's own acknowledged
        # records until their write is durable: wait for it, as a fetch that acknowledges
        # first would have (else the acquisition would be cut short at the window's end).
        await asyncio.wait([part.acknowledging])
        sp = share.partitions.partitions.get(key)
    if sp is None or not sp.can_acquire():
        return []
    async with share.partitions.fetch_lock(key):
        # Another fetch may have taken what there was (or the share partition may be gone)
        # while this one waited for the lock.
        sp = share.partitions.partitions.get(key)
        if sp is None or not sp.can_acquire():
            return []
        offset = sp.next_fetch_offset
        log_start = _log_start_offset(ctx, part)
        read = None if log_start is None else _READ_AHEAD.take(sp, isolation_level, budget, log_start)
        if read is None:
            size = read_bytes(sp, budget, max_bytes)
            [answer] = await ctx.data_plane.fetch(
                [FetchTarget(part.info, part.index, offset, size)],
                by_id=True, isolation_level=isolation_level, max_bytes=size, min_bytes=0, max_wait_ms=0,
            )
            if answer.error == ErrorCode.OFFSET_OUT_OF_RANGE and answer.log_start_offset > offset:
                sp.update_log_start_offset(answer.log_start_offset)
                return []
            if answer.error != ErrorCode.NONE:
                part.error = ErrorCode(answer.error)
                return []
            if answer.log_start_offset > sp.start_offset:
                sp.update_log_start_offset(answer.log_start_offset)
            read = deliverable(answer.records, isolation_level, answer.aborted_transactions)
            learn_record_size(sp, read)
        if read.read_until is None:
            return []
        # Records released while the read was under way lie below `offset`: not skipped.
        got = await share.acquire(key, member_id, read.ranges, budget, mode, read.read_until, offset)
        if got:
            _READ_AHEAD.keep(sp, isolation_level, read)
            part.acquired.extend(got)
            chunk = records_for(read, got)
            # One acquisition per partition and request is the rule: no copy then.
            part.records = chunk if not part.records else bytes(part.records) + bytes(chunk)
        return got


def _log_start_offset(ctx: RequestContext, part: _Partition) -> int | None:
    """The partition's log start offset now (None when it cannot be told: a fresh read
    reports why)."""
    assert part.info is not None
    try:
        return ctx.topics.log(part.info.name, part.index).log_start_offset
    except StorageError:
        return None


async def _wait(
    ctx: RequestContext,
    group_id: str,
    parts: list[_Partition],
    changed: asyncio.Event,
    timeout_s: float,
    isolation_level: int,
) -> None:
    """Until records may be acquirable: appended past a window, or made available again."""
    share = ctx.share
    targets = []
    for part in parts:
        sp = share.partitions.partitions.get(share_key(group_id, part.topic_id, part.index))
        if sp is not None and sp.can_acquire():
            assert part.info is not None
            targets.append(FetchTarget(part.info, part.index, window_end(sp), 1))
    waiters: list[asyncio.Task[object]] = [asyncio.ensure_future(changed.wait())]
    if targets:
        waiters.append(asyncio.ensure_future(ctx.data_plane.fetch(
            targets, by_id=True, isolation_level=isolation_level, max_bytes=1, min_bytes=1,
            max_wait_ms=int(timeout_s * 1000),
        )))
    try:
        await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
        for w in waiters:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await w
