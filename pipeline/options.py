"""The source options of Spark's Kafka connector, parsed and checked on the driver.

Spark hands options over lower-cased, so every lookup uses the lower-cased name; errors name
the option as a user writes it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

# Spark's Kafka source spells "earliest"/"latest" as -2/-1 inside per-partition JSON.
EARLIEST = -2
LATEST = -1

# Consumer settings the connector owns: letting a user change them would break the guarantees.
RESERVED_CONSUMER_KEYS = {
    "group.id": "the source assigns partitions itself and keeps offsets in Spark's checkpoint",
    "enable.auto.commit": "offsets live in Spark's checkpoint",
    "auto.offset.reset": "use startingOffsets",
    "isolation.level": "the source always reads committed data (read_committed)",
    "key.deserializer": "keys are returned as binary",
    "value.deserializer": "values are returned as binary",
}


class OptionError(ValueError):
    """A wrong option, found at planning before any task runs."""


TopicPartition = tuple[str, int]
# "earliest", "latest", or a per-partition map whose values may be EARLIEST/LATEST.
OffsetSpec = str | dict[TopicPartition, int]


@dataclass(frozen=True)
class Subscription:
    kind: Literal["subscribe", "subscribePattern", "assign"]
    topics: tuple[str, ...] = ()
    pattern: str = ""
    partitions: tuple[TopicPartition, ...] = ()

    def matches(self, topic: str) -> bool:
        if self.kind == "subscribe":
            return topic in self.topics
        if self.kind == "subscribePattern":
            return re.fullmatch(self.pattern, topic) is not None
        return any(t == topic for t, _ in self.partitions)


@dataclass(frozen=True)
class SourceOptions:
    bootstrap_servers: str
    subscription: Subscription
    starting: OffsetSpec
    ending: OffsetSpec
    include_headers: bool = False
    fail_on_data_loss: bool = True
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    poll_timeout_ms: int = 120_000
    kafka: dict[str, str] = field(default_factory=dict)

    def consumer_config(self) -> dict[str, str]:
        return {**self.kafka, "bootstrap.servers": self.bootstrap_servers}


def kafka_params(options: Mapping[str, str]) -> dict[str, str]:
    """`kafka.*` options with the prefix removed: passed to confluent-kafka unchanged."""
    return {key[len("kafka.") :]: str(value) for key, value in options.items() if key.startswith("kafka.")}


def bootstrap_servers(options: Mapping[str, str]) -> str:
    servers = str(options.get("kafka.bootstrap.servers", "")).strip()
    if not servers:
        raise OptionError("option 'kafka.bootstrap.servers' must be set (e.g. 127.0.0.1:9092)")
    return servers


def parse_bool(options: Mapping[str, str], name: str, default: bool) -> bool:
    raw = options.get(name.lower())
    if raw is None:
        return default
    value = str(raw).strip().lower()
    if value not in ("true", "false"):
        raise OptionError(f"option '{name}' must be true or false, got {raw!r}")
    return value == "true"


def parse_positive_int(options: Mapping[str, str], name: str) -> int | None:
    raw = options.get(name.lower())
    if raw is None:
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise OptionError(f"option '{name}' must be a positive integer, got {raw!r}") from None
    if value <= 0:
        raise OptionError(f"option '{name}' must be a positive integer, got {raw!r}")
    return value


def parse_subscription(options: Mapping[str, str]) -> Subscription:
    given = [name for name in ("subscribe", "subscribePattern", "assign") if name.lower() in options]
    if len(given) != 1:
        raise OptionError(
            "exactly one of the options 'subscribe', 'subscribePattern', 'assign' must be set, "
            f"got {given or 'none'}"
        )
    name = given[0]
    raw = str(options[name.lower()]).strip()
    if name == "subscribe":
        topics = tuple(t.strip() for t in raw.split(",") if t.strip())
        if not topics:
            raise OptionError("option 'subscribe' must list at least one topic")
        return Subscription("subscribe", topics=topics)
    if name == "subscribePattern":
        try:
            re.compile(raw)
        except re.error as exc:
            raise OptionError(f"option 'subscribePattern' is not a valid pattern: {exc}") from None
        return Subscription("subscribePattern", pattern=raw)
    parsed = _load_json("assign", raw)
    partitions: list[TopicPartition] = []
    if not isinstance(parsed, dict) or not parsed:
        raise OptionError(f"option 'assign' must be JSON like {{\"topicA\":[0,1]}}, got {raw!r}")
    for topic, parts in parsed.items():
        if not isinstance(parts, list) or not all(isinstance(p, int) and p >= 0 for p in parts):
            raise OptionError(f"option 'assign': partitions of {topic!r} must be a list of integers")
        partitions.extend((topic, p) for p in parts)
    return Subscription("assign", partitions=tuple(partitions))


def parse_offsets(options: Mapping[str, str], name: str, default: str, forbidden: str | None) -> OffsetSpec:
    """`earliest`, `latest`, or JSON such as {"topicA":{"0":23,"1":-2}} (-2 earliest, -1 latest)."""
    raw = options.get(name.lower())
    if raw is None:
        return default
    text = str(raw).strip()
    if text.lower() in ("earliest", "latest"):
        if text.lower() == forbidden:
            raise OptionError(f"option '{name}' cannot be {forbidden} here")
        return text.lower()
    parsed = _load_json(name, text)
    if not isinstance(parsed, dict):
        raise OptionError(f'option \'{name}\' must be earliest, latest or JSON like {{"t":{{"0":23}}}}')
    spec: dict[TopicPartition, int] = {}
    for topic, parts in parsed.items():
        if not isinstance(parts, dict):
            raise OptionError(f"option '{name}': the value for topic {topic!r} must be an object")
        for part, offset in parts.items():
            try:
                partition = int(part)
            except ValueError:
                raise OptionError(
                    f"option '{name}': {part!r} of topic {topic!r} is not a partition"
                ) from None
            if not isinstance(offset, int) or offset < EARLIEST:
                raise OptionError(f"option '{name}': offset {offset!r} of {topic}-{partition} is invalid")
            if (forbidden, offset) in (("earliest", EARLIEST), ("latest", LATEST)):
                raise OptionError(f"option '{name}': {forbidden} is not allowed for {topic}-{partition}")
            spec[(topic, partition)] = offset
    return spec


def _load_json(name: str, text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise OptionError(f"option '{name}' is not valid JSON ({exc.msg}): {text!r}") from None


def check_consumer_params(params: Mapping[str, str]) -> None:
    for key, why in RESERVED_CONSUMER_KEYS.items():
        if key in params:
            raise OptionError(f"option 'kafka.{key}' is not supported: {why}")


def parse_source_options(options: Mapping[str, str], streaming: bool) -> SourceOptions:
    servers = bootstrap_servers(options)
    subscription = parse_subscription(options)
    params = kafka_params(options)
    check_consumer_params(params)
    params.pop("bootstrap.servers", None)
    if streaming:
        if "endingoffsets" in options:
            raise OptionError("option 'endingOffsets' is for batch queries only")
        starting = parse_offsets(options, "startingOffsets", "latest", forbidden=None)
        ending: OffsetSpec = "latest"
    else:
        starting = parse_offsets(options, "startingOffsets", "earliest", forbidden="latest")
        ending = parse_offsets(options, "endingOffsets", "latest", forbidden="earliest")
    poll_timeout = parse_positive_int(options, "kafkaConsumer.pollTimeoutMs")
    return SourceOptions(
        bootstrap_servers=servers,
        subscription=subscription,
        starting=starting,
        ending=ending,
        include_headers=parse_bool(options, "includeHeaders", False),
        fail_on_data_loss=parse_bool(options, "failOnDataLoss", True),
        max_offsets_per_trigger=parse_positive_int(options, "maxOffsetsPerTrigger"),
        min_partitions=parse_positive_int(options, "minPartitions"),
        max_records_per_partition=parse_positive_int(options, "maxRecordsPerPartition"),
        poll_timeout_ms=poll_timeout or 120_000,
        kafka=params,
    )
