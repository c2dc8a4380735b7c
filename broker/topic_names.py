"""Topic-name rules shared by the admin handlers.

The legality rules live in the storage catalog (it refuses illegal names too); this adds
what Kafka's controller checks on top: '.'/'_' collisions and names no client may create.
"""

from __future__ import annotations

from collections.abc import Iterable

from storage.catalog import INTERNAL_TOPICS, validate_topic_name
from storage.errors import InvalidTopicError

# KRaft's own log; Kafka refuses to create it as a regular topic.
CLUSTER_METADATA_TOPIC = "__cluster_metadata"


def topic_name_error(name: str) -> str | None:
    """Why `name` is not a legal topic name (INVALID_TOPIC_EXCEPTION), or None."""
    try:
        validate_topic_name(name)
    except InvalidTopicError as exc:
        return str(exc)
    return None


def is_internal(name: str) -> bool:
    return name in INTERNAL_TOPICS


def unify_collision_chars(name: str) -> str:
    """Metric names replace '.' with '_', so Kafka refuses topics that differ only there."""
    return name.replace(".", "_")


def has_collision_chars(name: str) -> bool:
    return "." in name or "_" in name


def collision_index(existing: Iterable[str]) -> dict[str, str]:
    """Unified name -> an existing topic of that unified name."""
    index: dict[str, str] = {}
    for name in existing:
        if has_collision_chars(name):
            index.setdefault(unify_collision_chars(name), name)
    return index


def collision_error(name: str, index: dict[str, str]) -> str | None:
    if not has_collision_chars(name):
        return None
    other = index.get(unify_collision_chars(name))
    if other is None:
        return None
    return f"Topic '{name}' collides with existing topic: {other}"
