"""What the group API handlers share."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from broker.features import GROUP_VERSION
from broker.topics import TopicResolver
from protocol.codec import ZERO_UUID

if TYPE_CHECKING:
    from broker.context import RequestContext
    from coordinator.group.coordinator import GroupCoordinator


def group_coordinator(ctx: RequestContext) -> GroupCoordinator:
    return ctx.groups


def consumer_groups_enabled(ctx: RequestContext) -> bool:
    """Kafka's KafkaApis.isConsumerGroupProtocolEnabled: `group.version` finalized at 1 or more."""
    return ctx.features.level(GROUP_VERSION) >= 1


def client_host(ctx: RequestContext) -> str:
    """As Kafka prints an InetAddress: "/127.0.0.1"."""
    host = ctx.connection.peer.rsplit(":", 1)[0]
    return "/" + host.strip("[]")


def unknown_partition(ctx: RequestContext, topic: str, partition: int) -> bool:
    """True when this partition is not one of the broker's."""
    info = TopicResolver(ctx).find(topic)
    return info is None or not 0 <= partition < info.num_partitions


def topic_name_of(ctx: RequestContext, name: str, topic_id: uuid.UUID, *, by_id: bool) -> str | None:
    """The topic a request names: by name, or from v10 of the offset APIs by id (None
    when no topic has that id)."""
    if not by_id:
        return name
    info = TopicResolver(ctx).find_by_id(topic_id)
    return None if info is None else info.name


def topic_id_of(ctx: RequestContext, name: str) -> uuid.UUID:
    info = TopicResolver(ctx).find(name)
    return ZERO_UUID if info is None else info.topic_id
