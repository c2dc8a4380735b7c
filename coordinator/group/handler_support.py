"""What the group API handlers share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from broker.context import RequestContext
    from coordinator.group.coordinator import GroupCoordinator

PRODUCE_API_KEY = 0


def group_coordinator(ctx: RequestContext) -> GroupCoordinator | None:
    return getattr(ctx.services, "group_coordinator", None)


def client_host(ctx: RequestContext) -> str:
    """As Kafka prints an InetAddress: "/127.0.0.1"."""
    host = ctx.connection.peer.rsplit(":", 1)[0]
    return "/" + host.strip("[]")


def unknown_partition(ctx: RequestContext, topic: str, partition: int) -> bool:
    """True when the broker serves topics and this partition is not one of them."""
    storage = ctx.services.storage
    if storage is None or ctx.services.router.route(PRODUCE_API_KEY) is None:
        return False
    try:
        info = storage.describe_topic(topic)
    except Exception:
        return True
    return not 0 <= partition < int(info.num_partitions)
