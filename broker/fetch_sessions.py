"""Incremental fetch sessions (KIP-227), as Kafka's `FetchSession`, `FetchSessionCacheShard`
and the fetch contexts of `FetchManager.newContext`.

A full fetch (epoch 0) opens a session holding its partitions and answers every one; an
incremental fetch (the session's id and next epoch) names only the partitions that
changed or are to be forgotten, and is answered only for the partitions with something
new: records, a moved high watermark or log start offset, or an error. Epoch -1 closes a
session (and asks for none).

The cache is Kafka's: `max.incremental.fetch.session.cache.slots` split evenly over eight
shards, new sessions dealt to the shards in turn, each shard's session ids in a range of
their own. When a shard is full, a new session takes the slot of one unused for two
minutes, or else of the smallest session that had been open that long when last used,
if the new one is larger.
"""

from __future__ import annotations

import dataclasses
import random
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.fetch_response import FetchableTopicResponse, FetchResponse, PartitionData

if TYPE_CHECKING:
    from broker.config import Config
    from storage.clock import Clock

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0
FINAL_EPOCH = -1
INT32_MAX = 2**31 - 1
TOPIC_IDS_MIN_VERSION = 13
NUM_SHARDS = 8
SESSION_ID_RANGE = INT32_MAX // NUM_SHARDS
# Kafka's KafkaBroker.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS: a constant, not a setting.
EVICTION_MS = 120_000

# A session's partitions are keyed by topic id from Fetch v13, by name before.
PartitionKey = tuple[uuid.UUID | str, int]


def next_epoch(epoch: int) -> int:
    """The epoch after `epoch`: it wraps to 1, since 0 asks for a new session."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == INT32_MAX else epoch + 1


@dataclass(slots=True)
class CachedPartition:
    """What the session remembers of one partition: the client's last fetch position and
    what it was last told (Kafka's `CachedPartition`)."""

    topic: str
    topic_id: uuid.UUID
    request: FetchPartition
    high_watermark: int = -1
    log_start_offset: int = -1

    def must_respond(self, out: PartitionData, update: bool) -> bool:
        """Whether an incremental response carries the partition, remembering what it tells."""
        respond = bool(out.records)
        if self.high_watermark != out.high_watermark:
            respond = True
            if update:
                self.high_watermark = out.high_watermark
        if self.log_start_offset != out.log_start_offset:
            respond = True
            if update:
                self.log_start_offset = out.log_start_offset
        if out.preferred_read_replica != -1:
            respond = True
        if out.error_code != ErrorCode.NONE:
            # Forget the high watermark sent, so the partition is sent again once the
            # error is gone.
            if update:
                self.high_watermark = -1
            respond = True
        return respond or out.diverging_epoch.epoch != -1


@dataclass(eq=False)
class FetchSession:
    id: int
    uses_topic_ids: bool
    creation_ms: int
    last_used_ms: int
    epoch: int
    partitions: dict[PartitionKey, CachedPartition] = field(default_factory=dict)
    # A follower's session may take an unprivileged one's slot; this broker has none.
    privileged: bool = False
    # Set when the session was last touched (as Kafka's evictable maps are): whether a new
    # session may take its slot without it being stale.
    evictable: bool = False
    cached_size: int = 0

    def update(self, topics: list[FetchTopic], forgotten: list[tuple[uuid.UUID | str, list[int]]]) -> None:
        """Kafka's `FetchSession.update`: new partitions join at the end, known ones take
        the request's position; forgotten ones leave."""
        for t in topics:
            for p in t.partitions:
                key: PartitionKey = (t.topic_id if self.uses_topic_ids else t.topic, p.partition)
                cached = self.partitions.get(key)
                if cached is None:
                    self.partitions[key] = CachedPartition(t.topic, t.topic_id, p)
                else:
                    cached.request = p
                    cached.topic = t.topic
        for topic, indexes in forgotten:
            for index in indexes:
                self.partitions.pop((topic, index), None)

    def as_topics(self) -> list[FetchTopic]:
        """The session's partitions as a fetch request's topics, in the session's order:
        consecutive partitions of a topic together, as Kafka's `FetchRequest` builds them."""
        topics: list[FetchTopic] = []
        for cached in self.partitions.values():
            last = topics[-1] if topics else None
            if last is None or last.topic_id != cached.topic_id or last.topic != cached.topic:
                last = FetchTopic(topic=cached.topic, topic_id=cached.topic_id, partitions=[])
                topics.append(last)
            last.partitions.append(cached.request)
        return topics


class FetchSessionCacheShard:
    def __init__(self, max_entries: int, eviction_ms: int, shard_num: int) -> None:
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self.shard_num = shard_num
        self.sessions: dict[int, FetchSession] = {}

    def _new_id(self) -> int:
        low = max(1, self.shard_num * SESSION_ID_RANGE)
        while True:
            session_id = random.randrange(low, (self.shard_num + 1) * SESSION_ID_RANGE)
            if session_id not in self.sessions:
                return session_id

    def touch(self, session: FetchSession, now: int) -> None:
        session.last_used_ms = now
        session.evictable = now - session.creation_ms > self.eviction_ms
        session.cached_size = len(session.partitions)

    def create(self, now: int, uses_topic_ids: bool, partitions: dict[PartitionKey, CachedPartition]) -> int:
        """Kafka's `maybeCreateSession`: the new session's id, or 0 when there is no room
        (or nothing to hold)."""
        if not partitions:
            return INVALID_SESSION_ID
        if len(self.sessions) >= self.max_entries and not self._try_evict(len(partitions), now):
            return INVALID_SESSION_ID
        session = FetchSession(
            self._new_id(), uses_topic_ids, now, now, next_epoch(INITIAL_EPOCH), partitions=partitions
        )
        self.sessions[session.id] = session
        self.touch(session, now)
        return session.id

    def _try_evict(self, size: int, now: int) -> bool:
        """Kafka's `tryEvict` for an unprivileged session of `size` partitions."""
        if not self.sessions:
            return False
        lru = min(self.sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now - lru.last_used_ms > self.eviction_ms:
            del self.sessions[lru.id]
            return True
        candidates = [s for s in self.sessions.values() if s.evictable]
        if not candidates:
            return False
        # Ordered as Kafka's EvictableKey (privileged, size, id); the new session's key has
        # id 0, so it must be strictly larger to win the slot.
        smallest = min(candidates, key=lambda s: (s.privileged, s.cached_size, s.id))
        if (False, size, 0) < (smallest.privileged, smallest.cached_size, smallest.id):
            return False
        del self.sessions[smallest.id]
        return True

    def get(self, session_id: int) -> FetchSession | None:
        return self.sessions.get(session_id)

    def remove(self, session_id: int) -> None:
        self.sessions.pop(session_id, None)


class FetchSessionCache:
    """The shards, and the clock sessions are timed by."""

    def __init__(self, slots: int, clock: Clock, eviction_ms: int = EVICTION_MS) -> None:
        self.clock = clock
        self.shards = [FetchSessionCacheShard(slots // NUM_SHARDS, eviction_ms, n) for n in range(NUM_SHARDS)]
        self._turn = 0

    @classmethod
    def from_config(cls, config: Config, clock: Clock) -> FetchSessionCache:
        return cls(config.get_int("max.incremental.fetch.session.cache.slots"), clock)

    def shard_of(self, session_id: int) -> FetchSessionCacheShard | None:
        """The shard whose id range holds `session_id` (none past the last range, where
        Kafka's lookup would fail)."""
        index = session_id // SESSION_ID_RANGE
        return self.shards[index] if 0 <= index < NUM_SHARDS else None

    def next_shard(self) -> FetchSessionCacheShard:
        shard = self.shards[self._turn % NUM_SHARDS]
        self._turn += 1
        return shard

    def get(self, session_id: int) -> FetchSession | None:
        shard = self.shard_of(session_id)
        return shard.get(session_id) if shard is not None else None

    def remove(self, session_id: int) -> None:
        shard = self.shard_of(session_id)
        if shard is not None:
            shard.remove(session_id)


@dataclass
class FetchContext:
    """How one fetch request is served: which partitions to read, and how to turn what
    was read into the response."""

    request: FetchRequest
    error: ErrorCode = ErrorCode.NONE
    # Set for a full fetch that may open a session, and for an incremental one.
    cache: FetchSessionCache | None = None
    shard: FetchSessionCacheShard | None = None
    session: FetchSession | None = None
    uses_topic_ids: bool = False

    def respond(self, response: FetchResponse) -> FetchResponse:
        if self.cache is None or self.shard is None:
            return response
        if self.session is None:
            return self._open_session(response, self.shard, self.cache.clock.monotonic_ms())
        return self._incremental(response, self.session)

    def _open_session(self, response: FetchResponse, shard: FetchSessionCacheShard, now: int) -> FetchResponse:
        partitions: dict[PartitionKey, CachedPartition] = {}
        for t, out_topic in zip(self.request.topics, response.responses, strict=True):
            for p, out in zip(t.partitions, out_topic.partitions, strict=True):
                key: PartitionKey = (t.topic_id if self.uses_topic_ids else t.topic, p.partition)
                partitions[key] = CachedPartition(t.topic, t.topic_id, p, out.high_watermark, out.log_start_offset)
        response.session_id = shard.create(now, self.uses_topic_ids, partitions)
        return response

    def _incremental(self, response: FetchResponse, session: FetchSession) -> FetchResponse:
        if session.epoch != next_epoch(self.request.session_epoch):
            # Another request of the session came in while this one was parked.
            return FetchResponse(error_code=ErrorCode.INVALID_FETCH_SESSION_EPOCH, session_id=session.id)
        kept: list[FetchableTopicResponse] = []
        for t, out_topic in zip(self.request.topics, response.responses, strict=True):
            parts: list[PartitionData] = []
            for p, out in zip(t.partitions, out_topic.partitions, strict=True):
                key: PartitionKey = (t.topic_id if self.uses_topic_ids else t.topic, p.partition)
                cached = session.partitions.get(key)
                if cached is None or not cached.must_respond(out, True):
                    continue
                parts.append(out)
                if out.records:
                    # To the back of the session, so that the others get their turn
                    # with the response size limit.
                    session.partitions[key] = session.partitions.pop(key)
            if parts:
                out_topic.partitions = parts
                kept.append(out_topic)
        response.responses = kept
        response.session_id = session.id
        return response


def throttled_response(context: FetchContext | None, throttle_ms: int) -> FetchResponse:
    """The empty answer to a fetch over its quota (Kafka's FetchContext.getThrottledResponse):
    no partitions, no new session, an incremental session kept as it was."""
    session = context.session if context is not None else None
    if context is not None and session is not None:
        if session.epoch != next_epoch(context.request.session_epoch):
            return FetchResponse(
                error_code=ErrorCode.INVALID_FETCH_SESSION_EPOCH, session_id=session.id, throttle_time_ms=throttle_ms
            )
        return FetchResponse(session_id=session.id, throttle_time_ms=throttle_ms)
    return FetchResponse(session_id=0, throttle_time_ms=throttle_ms)


def new_context(cache: FetchSessionCache, request: FetchRequest, version: int) -> FetchContext:
    """Kafka's `FetchManager.newContext`: what a fetch request's session id and epoch ask."""
    uses_topic_ids = version >= TOPIC_IDS_MIN_VERSION
    epoch = request.session_epoch
    if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
        # A full fetch closes the session it names.
        if request.session_id != INVALID_SESSION_ID:
            cache.remove(request.session_id)
        if epoch == FINAL_EPOCH:
            return FetchContext(request)
        return FetchContext(request, cache=cache, shard=cache.next_shard(), uses_topic_ids=uses_topic_ids)
    shard = cache.shard_of(request.session_id)
    session = shard.get(request.session_id) if shard is not None else None
    if shard is None or session is None:
        return FetchContext(request, ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
    if session.epoch != epoch:
        return FetchContext(request, ErrorCode.INVALID_FETCH_SESSION_EPOCH)
    if session.uses_topic_ids != uses_topic_ids:
        return FetchContext(request, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR)
    forgotten = [
        (t.topic_id if uses_topic_ids else t.topic, t.partitions) for t in request.forgotten_topics_data or []
    ]
    session.update(request.topics, forgotten)
    if not session.partitions:
        shard.remove(session.id)
        return FetchContext(request)
    shard.touch(session, cache.clock.monotonic_ms())
    session.epoch = next_epoch(session.epoch)
    # Read every partition of the session, from the positions it holds.
    effective = dataclasses.replace(request, topics=session.as_topics(), forgotten_topics_data=[])
    return FetchContext(effective, cache=cache, shard=shard, session=session, uses_topic_ids=uses_topic_ids)
