"""Finding the topic a request names, creating it when Kafka would auto-create it."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from storage.catalog import INTERNAL_TOPICS, validate_topic_name
from storage.engine import TopicInfo
from storage.errors import StorageError, TopicAlreadyExistsError, UnknownTopicOrPartitionError

if TYPE_CHECKING:
    from broker.context import RequestContext

# Kafka lets only its own admin tooling write to internal topics directly.
ADMIN_CLIENT_ID = "__admin_client"
TOPIC_IDS_MIN_PRODUCE_VERSION = 13


class TopicResolver:
    """Resolves topic names or ids for one request, remembering what it found."""

    def __init__(self, ctx: RequestContext) -> None:
        self.ctx = ctx
        self._by_name: dict[str, tuple[TopicInfo | None, ErrorCode | None]] = {}

    def find(self, name: str) -> TopicInfo | None:
        try:
            return self.ctx.topics.describe_topic(name)
        except UnknownTopicOrPartitionError:
            return None

    def find_by_id(self, topic_id: uuid.UUID) -> TopicInfo | None:
        if topic_id == ZERO_UUID:
            return None
        try:
            return self.ctx.topics.describe_topic(topic_id)
        except UnknownTopicOrPartitionError:
            return None

    async def find_or_create(self, name: str, allow_create: bool) -> tuple[TopicInfo | None, ErrorCode | None]:
        """The topic, auto-created when allowed; or the error code Kafka gives."""
        known = self._by_name.get(name)
        if known is not None:
            return known
        result = await self._find_or_create(name, allow_create)
        self._by_name[name] = result
        return result

    async def _find_or_create(self, name: str, allow_create: bool) -> tuple[TopicInfo | None, ErrorCode | None]:
        try:
            validate_topic_name(name)
        except StorageError:
            return None, ErrorCode.INVALID_TOPIC_EXCEPTION
        info = self.find(name)
        if info is not None:
            return info, None
        config = self.ctx.config
        if not (allow_create and config.get("auto.create.topics.enable")) or name in INTERNAL_TOPICS:
            return None, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        try:
            info = await self.ctx.topics.create_topic(name, int(config.get("num.partitions")))
        except TopicAlreadyExistsError:
            info = self.find(name)
        except StorageError as exc:
            return None, ErrorCode(exc.error_code)
        return (info, None) if info is not None else (None, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)

    async def for_produce(
        self, name: str, topic_id: uuid.UUID, version: int, client_id: str | None
    ) -> tuple[TopicInfo | None, ErrorCode | None]:
        # Kafka refuses appends to its internal topics however they are named, by id too
        # (ReplicaManager.appendToLocalLog), except from the admin client id.
        if version >= TOPIC_IDS_MIN_PRODUCE_VERSION:
            info = self.find_by_id(topic_id)
            if info is None:
                return None, ErrorCode.UNKNOWN_TOPIC_ID
            if info.name in INTERNAL_TOPICS and client_id != ADMIN_CLIENT_ID:
                return None, ErrorCode.INVALID_TOPIC_EXCEPTION
            return info, None
        if name in INTERNAL_TOPICS and client_id != ADMIN_CLIENT_ID:
            return None, ErrorCode.INVALID_TOPIC_EXCEPTION
        return await self.find_or_create(name, allow_create=True)
