"""`odradek get-offsets`: partition offsets for a time, as Kafka's kafka-get-offsets.sh
(its GetOffsetShell) prints them: `topic:partition:offset`, a line per partition, for the
topics matching a regular expression and the partitions listed."""

from __future__ import annotations

import re

from odradek.cli.client import CliError, Cluster
from odradek.cli.offsets import list_offsets
from odradek.cli.output import Output

# --time's names (Kafka's OffsetSpec): latest, earliest, max-timestamp (KIP-734),
# earliest-local (KIP-405), latest-tiered (KIP-1005).
TIMES = {"latest": -1, "earliest": -2, "max-timestamp": -3, "earliest-local": -4, "latest-tiered": -5}
# The ListOffsets version each special time needs.
VERSION_FOR = {-3: 7, -4: 8, -5: 9}


def parse_time(text: str) -> int:
    if text in TIMES:
        return TIMES[text]
    try:
        value = int(text)
    except ValueError:
        raise CliError(f"Malformed time argument {text}. Please use -1 or latest / -2 or earliest / -3 or "
                       "max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format "
                       "timestamp") from None
    if value < -5:
        raise CliError(f"Malformed time argument {text}.")
    return value


PartitionSpec = list[tuple[int, int]]  # [low, high) ranges
NO_LIMIT = 2**31


def parse_partitions(text: str) -> PartitionSpec | None:
    """Kafka's partition patterns, comma-separated: `N`, `N-M` (M excluded), `N-`, `-M`;
    "" for every partition."""
    if not text:
        return None
    out: PartitionSpec = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d*)(-?)(\d*)\s*", item)
        if m is None or not (m.group(1) or m.group(3)) or (not m.group(2) and not m.group(1)):
            raise CliError(f"Invalid partition pattern {item.strip()!r}: expected N, N-M, N- or -M")
        low = int(m.group(1) or 0)
        high = (int(m.group(3)) if m.group(3) else NO_LIMIT) if m.group(2) else low + 1
        out.append((low, high))
    return out


def _takes(spec: PartitionSpec | None, partition: int) -> bool:
    return spec is None or any(low <= partition < high for low, high in spec)


def _filters(topic: str | None, partitions: str | None,
             topic_partitions: str | None) -> list[tuple[str, PartitionSpec | None]]:
    """(topic regex, partition patterns or None for all) pairs."""
    if topic_partitions is not None:
        if topic is not None or partitions is not None:
            raise CliError("--topic-partitions cannot be used with --topic or --partitions")
        out = []
        for item in topic_partitions.split(","):
            name, sep, parts = item.partition(":")
            out.append((name or ".*", parse_partitions(parts) if sep and parts else None))
        return out
    return [(topic or ".*", parse_partitions(partitions or ""))]


def get_offsets(cluster: Cluster, topic: str | None, partitions: str | None, topic_partitions: str | None,
                time: str, exclude_internal: bool) -> Output:
    timestamp = parse_time(time)
    filters = [(re.compile(t), ps) for t, ps in _filters(topic, partitions, topic_partitions)]
    meta = cluster.metadata(None)
    chosen: list[tuple[str, int]] = []
    for t in meta.topics:
        if exclude_internal and t.is_internal:
            continue
        for pattern, ps in filters:
            if pattern.fullmatch(t.name):
                chosen += [(t.name, p.partition_index) for p in t.partitions if _takes(ps, p.partition_index)]
    chosen = sorted(set(chosen))
    if not chosen:
        raise CliError("Could not match any topic-partitions with the specified filters")
    offsets = list_offsets(cluster, chosen, timestamp, version=VERSION_FOR.get(timestamp, 7))
    # A partition without an offset for that time (none that late) is left out, as by Kafka's tool.
    data = [{"topic": t, "partition": p, "offset": offsets[(t, p)]} for t, p in chosen if offsets[(t, p)] >= 0]
    lines = [f"{d['topic']}:{d['partition']}:{d['offset']}" for d in data]
    return Output(data, lines=lines)
