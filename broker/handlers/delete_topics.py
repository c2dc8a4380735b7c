"""DeleteTopics by name (all versions) or topic id (v6), with the duplicate and unknown-topic
handling of Kafka's controller."""

from __future__ import annotations

import uuid

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.topic_names import is_internal
from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from protocol.messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from protocol.messages.delete_topics_response import DeletableTopicResult, DeleteTopicsResponse
from storage.errors import StorageError, UnknownTopicOrPartitionError

API_KEY = 20

UNKNOWN_TOPIC_MESSAGE = "This server does not host this topic-partition."
UNKNOWN_TOPIC_ID_MESSAGE = "This server does not host this topic ID."


def _requested(ctx: RequestContext, request: DeleteTopicsRequest) -> list[DeleteTopicState]:
    if ctx.api_version >= 6:
        return list(request.topics)
    return [DeleteTopicState(name=name) for name in request.topic_names]


AUTHORIZATION_FAILED = "Authorization failed."


async def handle(ctx: RequestContext, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
    requested = _requested(ctx, request)
    if not ctx.config.get("delete.topic.enable"):
        # Kafka fails the whole request; before v3 there was no dedicated code.
        code = ErrorCode.INVALID_REQUEST if ctx.api_version < 3 else ErrorCode.TOPIC_DELETION_DISABLED
        return DeleteTopicsResponse(
            responses=[
                DeletableTopicResult(name=t.name, topic_id=t.topic_id, error_code=code) for t in requested
            ]
        )

    results: list[DeletableTopicResult] = []

    def answer(name: str | None, topic_id: uuid.UUID, code: int, message: str | None) -> None:
        results.append(
            DeletableTopicResult(name=name, topic_id=topic_id, error_code=code, error_message=message)
        )

    names: dict[str, None] = {}  # insertion-ordered sets
    duplicate_names: dict[str, None] = {}
    ids: dict[uuid.UUID, None] = {}
    duplicate_ids: dict[uuid.UUID, None] = {}
    for topic in requested:
        if topic.name is None:
            if topic.topic_id == ZERO_UUID:
                answer(
                    None, ZERO_UUID, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."
                )
            elif topic.topic_id in ids or topic.topic_id in duplicate_ids:
                ids.pop(topic.topic_id, None)
                duplicate_ids[topic.topic_id] = None
            else:
                ids[topic.topic_id] = None
        elif topic.topic_id != ZERO_UUID:
            answer(
                topic.name,
                topic.topic_id,
                ErrorCode.INVALID_REQUEST,
                "You may not specify both topic name and topic id.",
            )
        elif topic.name in names or topic.name in duplicate_names:
            names.pop(topic.name, None)
            duplicate_names[topic.name] = None
        else:
            names[topic.name] = None
    for name in duplicate_names:
        answer(name, ZERO_UUID, ErrorCode.INVALID_REQUEST, "Duplicate topic name.")
    for topic_id in duplicate_ids:
        answer(None, topic_id, ErrorCode.INVALID_REQUEST, "Duplicate topic id.")

    catalog = ctx.topics
    to_delete: dict[uuid.UUID, str] = {}
    for topic_id in ids:
        try:
            to_delete[topic_id] = catalog.describe_topic(topic_id).name
        except UnknownTopicOrPartitionError:
            answer(None, topic_id, ErrorCode.UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_ID_MESSAGE)
    for name in names:
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name):
            answer(name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED, AUTHORIZATION_FAILED)
            continue
        try:
            topic_id = catalog.describe_topic(name).topic_id
        except UnknownTopicOrPartitionError:
            answer(name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_MESSAGE)
            continue
        if topic_id in duplicate_ids or topic_id in to_delete:
            duplicate_ids[topic_id] = None
            to_delete.pop(topic_id, None)
            answer(
                name,
                topic_id,
                ErrorCode.INVALID_REQUEST,
                "The provided topic name maps to an ID that was already supplied.",
            )
        else:
            to_delete[topic_id] = name

    for topic_id, name in to_delete.items():
        if not allowed(ctx, AclOperation.DELETE, ResourceType.TOPIC, name):
            # A topic the principal may not even describe keeps its name to itself.
            shown = name if allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name) else None
            answer(shown, topic_id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, AUTHORIZATION_FAILED)
            continue
        if is_internal(name):
            # Kafka would delete it, but the group and transaction coordinators keep these
            # logs open for the life of the broker, so they are refused here.
            answer(name, topic_id, ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot delete internal topic {name}")
            continue
        try:
            await catalog.delete_topic(topic_id)
        except UnknownTopicOrPartitionError:
            answer(name, topic_id, ErrorCode.UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_ID_MESSAGE)
        except StorageError as exc:
            answer(name, topic_id, exc.error_code, str(exc))
        else:
            answer(name, topic_id, ErrorCode.NONE, None)
    return DeleteTopicsResponse(responses=results)
