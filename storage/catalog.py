"""The topic catalog: names, ids, partition counts and config overrides.

For the disk engine it is one small JSON file replaced atomically on every change; it
is the source of truth for which partition logs exist.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field

from .errors import InvalidTopicError, KafkaStorageError
from .files import write_atomically

MAX_TOPIC_NAME_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
CATALOG_FILE = "topics.json"


def validate_topic_name(name: str) -> None:
    """Kafka 4.0's Topic.validate, with its messages."""
    if not name:
        reason = "the empty string is not allowed"
    elif name in (".", ".."):
        reason = f"'{name}' is not allowed"
    elif len(name) > MAX_TOPIC_NAME_LENGTH:
        reason = f"the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
    elif not _LEGAL.match(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    else:
        return
    raise InvalidTopicError(f"Topic name is invalid: {reason}")


@dataclass(slots=True)
class TopicRecord:
    name: str
    topic_id: uuid.UUID
    num_partitions: int
    configs: dict[str, str] = field(default_factory=dict)


def load_catalog(directory: str) -> dict[str, TopicRecord]:
    path = os.path.join(directory, CATALOG_FILE)
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise KafkaStorageError(f"cannot read topic catalog {path}: {exc}") from exc
    topics = {}
    for t in doc.get("topics", []):
        record = TopicRecord(t["name"], uuid.UUID(t["id"]), int(t["partitions"]), dict(t.get("configs", {})))
        topics[record.name] = record
    return topics


def save_catalog(directory: str, topics: dict[str, TopicRecord]) -> None:
    doc = {
        "version": 1,
        "topics": [
            {"name": t.name, "id": str(t.topic_id), "partitions": t.num_partitions, "configs": t.configs}
            for t in sorted(topics.values(), key=lambda t: t.name)
        ],
    }
    write_atomically(os.path.join(directory, CATALOG_FILE), json.dumps(doc, indent=1).encode())
