"""Batch markers: which batch a sink partition last committed, stored as a transactional offset.

A marker is the offset commit (group `<prefix>-markers`, topic-partition `<markerTopic>-<spark
partition>`, offset = batch id, metadata = rows and content hash) sent with the data in one
transaction (KIP-98 sendOffsetsToTransaction), so data and marker become visible together."""

from __future__ import annotations

import hashlib
import json
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from pipeline.sink_options import SinkOptions

TIMEOUT_S = 30.0
INITIAL_MARKER_PARTITIONS = 16


_LENGTH = struct.Struct(">I")
_PARTITION = struct.Struct(">i")


def _framed(part: bytes | None) -> bytes:
    return b"\xff" if part is None else _LENGTH.pack(len(part)) + part


@dataclass(frozen=True)
class Marker:
    batch_id: int
    rows: int
    digest: str

    def metadata(self) -> str:
        return json.dumps(
            {"batch": self.batch_id, "rows": self.rows, "hash": self.digest}, separators=(",", ":")
        )


def marker_group(prefix: str) -> str:
    return f"{prefix}-markers"


class RowDigest:
    """Order-independent digest of a multiset of rows: a shuffle may hand a replayed task the same
    rows in another order, which is still the same output. A row's hash is BLAKE2b-128 of its
    topic, key and value (each length-prefixed, or 0xff for null), partition and headers."""

    MASK = (1 << 128) - 1

    def __init__(self) -> None:
        self.rows = 0
        self._sum = 0

    def add(
        self,
        topic: str,
        partition: int,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes]],
    ) -> None:
        row = _framed(topic.encode()) + _framed(key) + _framed(value) + _PARTITION.pack(partition)
        for hk, hv in headers:
            row += hk.encode() + b"\x00" + (hv or b"")
        self._sum = (self._sum + int.from_bytes(hashlib.blake2b(row, digest_size=16).digest(), "big")) & self.MASK
        self.rows += 1

    def add_rows(self, topic: str, keys: Sequence[bytes | None], values: Sequence[bytes | None]) -> None:
        """`add(topic, -1, key, value, [])` for every (key, value), in one tight loop: the hot
        path of a task writing one topic without partition or header columns."""
        head, tail = _framed(topic.encode()), _PARTITION.pack(-1)
        blake2b, from_bytes, length = hashlib.blake2b, int.from_bytes, _LENGTH.pack
        total = self._sum
        for key, value in zip(keys, values, strict=True):
            row = (
                head
                + (b"\xff" if key is None else length(len(key)) + key)
                + (b"\xff" if value is None else length(len(value)) + value)
                + tail
            )
            total += from_bytes(blake2b(row, digest_size=16).digest(), "big")
        self._sum = total & self.MASK
        self.rows += len(keys)

    def hexdigest(self) -> str:
        return f"{self._sum:032x}"


def read_marker(options: SinkOptions, prefix: str, spark_partition: int, stable: bool = True) -> Marker | None:
    """The committed marker of a sink partition (with `stable=False`, without waiting for a
    pending transactional commit)."""
    found = read_committed_offset(options, marker_group(prefix), spark_partition, stable)
    if found is None:
        return None
    offset, meta = found
    return Marker(offset, int(meta.get("rows", -1)), str(meta.get("hash", "")))


def read_committed_offset(
    options: SinkOptions, group: str, spark_partition: int, stable: bool = True
) -> tuple[int, dict[str, Any]] | None:
    """The offset and metadata `group` committed for a Spark partition's marker topic-partition;
    with `stable`, pending transactional commits are waited for (read_committed makes
    librdkafka send OffsetFetch with RequireStable, KIP-447)."""
    for attempt in range(METADATA_READS):
        consumer = Consumer(
            {
                **options.client_config(),
                "group.id": group,
                "isolation.level": "read_committed" if stable else "read_uncommitted",
                "enable.auto.commit": False,
            }
        )
        try:
            [tp] = consumer.committed([TopicPartition(options.marker_topic, spark_partition)], timeout=TIMEOUT_S)
        finally:
            consumer.close()
        if tp.error is not None:
            raise KafkaException(tp.error)
        if tp.offset == OFFSET_INVALID or tp.offset < 0:
            return None
        try:
            return int(tp.offset), marker_metadata(tp.metadata)
        except UnicodeDecodeError:
            # Seen under load: the client library hands over the metadata with stray bytes
            # after it, as if read up to a NUL byte that was never written; a fresh read
            # comes from fresh memory.
            if attempt == METADATA_READS - 1:
                raise
    raise AssertionError("unreachable")


METADATA_READS = 5


def marker_metadata(text: str | None) -> dict[str, Any]:
    """The marker's JSON object; whatever follows it (the stray bytes above, when they
    happen to decode) is no part of it."""
    if not text:
        return {}
    value, _end = json.JSONDecoder().raw_decode(text)
    if not isinstance(value, dict):
        raise ValueError(f"marker metadata is not a JSON object: {text!r}")
    return value


_known_partitions: dict[tuple[str, str], int] = {}


def ensure_marker_partition(options: SinkOptions, spark_partition: int) -> None:
    """Offset commits need an existing topic-partition (Kafka answers UNKNOWN_TOPIC_OR_PARTITION
    otherwise), so the marker topic is created, or grown, to cover this Spark partition."""
    key = (options.bootstrap_servers, options.marker_topic)
    if _known_partitions.get(key, 0) > spark_partition:
        return
    admin = AdminClient(dict(options.client_config()))
    count = _partition_count(admin, options.marker_topic)
    if count == 0:
        wanted = max(INITIAL_MARKER_PARTITIONS, spark_partition + 1)
        future = admin.create_topics(
            [NewTopic(options.marker_topic, num_partitions=wanted, replication_factor=1)]
        )
        _ignore(future[options.marker_topic], KafkaError.TOPIC_ALREADY_EXISTS)
        count = _visible_partition_count(admin, options.marker_topic)
    if count <= spark_partition:
        future = admin.create_partitions([NewPartitions(options.marker_topic, spark_partition + 1)])
        _ignore(
            future[options.marker_topic], KafkaError.INVALID_PARTITIONS
        )  # grown meanwhile by another task
        count = _partition_count(admin, options.marker_topic)
    if count <= spark_partition:
        raise RuntimeError(
            f"marker topic {options.marker_topic} has {count} partitions, needs {spark_partition + 1}"
        )
    _known_partitions[key] = count


def _partition_count(admin: AdminClient, topic: str) -> int:
    meta = admin.list_topics(topic, timeout=TIMEOUT_S).topics.get(topic)
    if meta is None or meta.error is not None:
        return 0
    return len(meta.partitions)


def _visible_partition_count(admin: AdminClient, topic: str) -> int:
    """The partitions of a topic just created here or by a concurrent task: a broker answers
    TOPIC_ALREADY_EXISTS to the second creator before Metadata shows the topic, and growing
    it before then fails with UNKNOWN_TOPIC_OR_PARTITION."""
    deadline = time.monotonic() + TIMEOUT_S
    count = _partition_count(admin, topic)
    while count == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
        count = _partition_count(admin, topic)
    return count


def _ignore(future: object, code: int) -> None:
    try:
        future.result(TIMEOUT_S)  # type: ignore[attr-defined]
    except KafkaException as exc:
        if exc.args[0].code() != code:
            raise
