"""Reads a history (`faults/history.py`) and reports Jepsen's Kafka anomaly families,
each with examples; the definitions follow Jepsen's `jepsen.tests.kafka` checker.

- duplicate: one value at two offsets of its key.
- inconsistent-offsets: two values at one offset of a key.
- lost-write: an acknowledged value missing, although some value at a higher offset of
  its key was read.
- G1a (aborted read): a value read whose send or transaction definitely failed.
- precommitted-read: a value read before its transaction was asked to commit.
- poll-skip: one consumer session read offsets a then b of a key, skipping a value known
  to sit between them.
- nonmonotonic-poll: one consumer session read offset b after a with b <= a.
- nonmonotonic-send: one producer's later send to a key got a lower offset than its
  earlier one.
- unseen: acknowledged, never read by anyone (the workload ends with a drain of every key,
  so this is a loss at the end of the log).

The share-group workload (a producer filling its own topic, share consumers acknowledging
explicitly, a share drain at the end) has two families of its own:

- share-redelivered: a record delivered (a share poll invoked) after an accept or reject of
  it was answered.
- share-lost: an acknowledged send never delivered to a share consumer, or delivered but
  never accepted or rejected (not even indefinitely) while below the delivery limit, after
  which Kafka archives it.

Poll-skip and nonmonotonic-poll only apply to consumers that fix their own position
(assign); a group member can be handed a partition at its committed offset.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .history import Op, pairs

FAMILIES = (
    "duplicate",
    "inconsistent-offsets",
    "lost-write",
    "G1a",
    "precommitted-read",
    "poll-skip",
    "nonmonotonic-poll",
    "nonmonotonic-send",
    "unseen",
    "share-redelivered",
    "share-lost",
)
MAX_EXAMPLES = 5
# Kafka's group.share.delivery.count.limit: a record delivered that often is archived.
SHARE_DELIVERY_LIMIT = 5


@dataclass
class Report:
    anomalies: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in FAMILIES})
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAMILIES, 0))
    ops: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    acknowledged: int = 0
    read_values: int = 0
    worst_lag: float = 0.0

    def add(self, family: str, example: Any) -> None:
        self.counts[family] += 1
        if len(self.anomalies[family]) < MAX_EXAMPLES:
            self.anomalies[family].append(example)

    @property
    def valid(self) -> bool:
        return not any(self.counts.values())

    def table(self) -> str:
        lines = [f"{'anomaly':<22} {'count':>7}  example"]
        for name in FAMILIES:
            example = self.anomalies[name][0] if self.anomalies[name] else ""
            lines.append(f"{name:<22} {self.counts[name]:>7}  {example}")
        return "\n".join(lines)


def check(history: list[Op]) -> Report:
    report = Report()
    # key -> offset -> values; key -> value -> offsets (from acknowledged sends and reads)
    at_offset: dict[str, dict[int, set[Any]]] = defaultdict(lambda: defaultdict(set))
    offsets_of: dict[str, dict[Any, set[int]]] = defaultdict(lambda: defaultdict(set))
    acked: dict[tuple[str, Any], tuple[int | None, float]] = {}  # (key, value) -> offset, ack time
    failed: dict[tuple[str, Any], str] = {}  # (key, value) -> process of the failed write
    commit_at: dict[tuple[str, Any], float] = {}
    first_read: dict[tuple[str, Any], float] = {}
    highest_read: dict[str, int] = {}
    reads: list[tuple[Op, str, list[list[Any]]]] = []
    sends_by_process: dict[str, list[tuple[str, int, Any]]] = defaultdict(list)

    completed = sorted(pairs(history), key=lambda pair: pair[1].time)
    for _invocation, completion in completed:
        report.ops[f"{completion.f}:{completion.type}"] += 1
        if completion.f in ("send", "txn"):
            for mop in completion.value:
                if mop[0] != "send":
                    continue
                _, key, value, offset = mop
                if completion.type == "ok":
                    acked[(key, value)] = (offset, completion.time)
                    if offset is not None:
                        at_offset[key][offset].add(value)
                        offsets_of[key][value].add(offset)
                        sends_by_process[completion.process].append((key, offset, value))
                    if completion.commit_at is not None:
                        commit_at[(key, value)] = completion.commit_at
                elif completion.type == "fail":
                    failed[(key, value)] = completion.process
                elif completion.commit_at is not None:  # indefinite: it may commit later
                    commit_at[(key, value)] = completion.commit_at
        elif completion.f == "poll" and completion.type == "ok":
            for mop in completion.value:
                if mop[0] != "poll":
                    continue
                _, key, records = mop
                reads.append((completion, key, records))
                for offset, value in records:
                    at_offset[key][offset].add(value)
                    offsets_of[key][value].add(offset)
                    first_read.setdefault((key, value), completion.time)
                    highest_read[key] = max(highest_read.get(key, -1), offset)
                    report.read_values += 1
    report.acknowledged = len(acked)

    for key, by_offset in sorted(at_offset.items()):
        for offset, values in sorted(by_offset.items()):
            if len(values) > 1:
                report.add(
                    "inconsistent-offsets", {"key": key, "offset": offset, "values": sorted(values, key=str)}
                )
    for key, by_value in sorted(offsets_of.items()):
        for value, offsets in by_value.items():
            if len(offsets) > 1:
                report.add("duplicate", {"key": key, "value": value, "offsets": sorted(offsets)})

    read_values = set(first_read)
    for (key, value), (offset, ack_time) in acked.items():
        if (key, value) in read_values:
            report.worst_lag = max(report.worst_lag, first_read[(key, value)] - ack_time)
            continue
        if offset is not None and offset < highest_read.get(key, -1):
            report.add(
                "lost-write",
                {"key": key, "value": value, "offset": offset, "highest_read": highest_read[key]},
            )
        else:
            report.add("unseen", {"key": key, "value": value, "offset": offset})

    for completion, key, records in reads:
        for offset, value in records:
            if (key, value) in failed:
                report.add(
                    "G1a",
                    {
                        "key": key,
                        "value": value,
                        "offset": offset,
                        "reader": completion.process,
                        "writer": failed[(key, value)],
                    },
                )
            started = commit_at.get((key, value))
            if started is not None and completion.time < started:
                report.add(
                    "precommitted-read",
                    {"key": key, "value": value, "read_at": completion.time, "commit_at": started},
                )

    _check_polls(completed, at_offset, report)
    _check_sends(sends_by_process, report)
    _check_share(completed, report)
    return report


def _check_share(completed: list[tuple[Op, Op]], report: Report) -> None:
    sent: dict[tuple[str, Any], int | None] = {}  # (key, value) -> offset, acknowledged sends
    deliveries: dict[tuple[str, Any], list[tuple[float, str, int]]] = defaultdict(list)  # poll invoked, process, count
    finished: dict[tuple[str, Any], float] = {}  # first answered accept or reject
    maybe_finished: set[tuple[str, Any]] = set()  # accepted or rejected, perhaps
    for invocation, completion in completed:
        if completion.f == "share-send" and completion.type == "ok":
            for _, key, value, offset in completion.value:
                sent[(key, value)] = offset
        elif completion.f == "share-poll" and completion.type == "ok":
            for _, key, records in completion.value:
                for _offset, value, count in records:
                    deliveries[(key, value)].append((invocation.time, completion.process, count))
        elif completion.f == "ack" and completion.type in ("ok", "info"):
            for _, key, records in completion.value:
                for _offset, value, kind in records:
                    if kind == "release":
                        continue
                    maybe_finished.add((key, value))
                    if completion.type == "ok":
                        finished.setdefault((key, value), completion.time)
    for (key, value), answered in finished.items():
        later = [d for d in deliveries[(key, value)] if d[0] > answered]
        if later:
            report.add(
                "share-redelivered",
                {"key": key, "value": value, "finished_at": answered, "delivered": later[:3]},
            )
    for (key, value), offset in sent.items():
        seen = deliveries.get((key, value), [])
        if not seen:
            report.add("share-lost", {"key": key, "value": value, "offset": offset, "delivered": 0})
        elif (key, value) not in maybe_finished and max(d[2] for d in seen) < SHARE_DELIVERY_LIMIT:
            report.add(
                "share-lost",
                {"key": key, "value": value, "offset": offset, "deliveries": [d[2] for d in seen]},
            )


def _check_polls(
    completed: list[tuple[Op, Op]], at_offset: dict[str, dict[int, set[Any]]], report: Report
) -> None:
    """Per assign consumer session (from its `assign` op) and key: consecutive read offsets
    must rise, skipping no offset known to hold a value. Group members are not checked."""
    known = {key: sorted(by_offset) for key, by_offset in at_offset.items()}
    last: dict[tuple[str, str], int] = {}
    assigned: set[str] = set()  # processes in an assign session
    for _invocation, completion in completed:
        if completion.f == "assign":
            assigned.add(completion.process)
            for stale in [k for k in last if k[0] == completion.process]:
                del last[stale]
            continue
        if completion.f != "poll" or completion.type != "ok" or completion.process not in assigned:
            continue
        for mop in completion.value:
            if mop[0] != "poll":
                continue
            _, key, records = mop
            for offset, value in records:
                previous = last.get((completion.process, key))
                if previous is not None:
                    if offset <= previous:
                        report.add(
                            "nonmonotonic-poll",
                            {
                                "process": completion.process,
                                "key": key,
                                "offsets": [previous, offset],
                                "value": value,
                            },
                        )
                    else:
                        skipped = _between(known.get(key, []), previous, offset)
                        if skipped:
                            report.add(
                                "poll-skip",
                                {
                                    "process": completion.process,
                                    "key": key,
                                    "offsets": [previous, offset],
                                    "skipped": skipped[:5],
                                },
                            )
                last[(completion.process, key)] = offset


def _between(sorted_offsets: list[int], low: int, high: int) -> list[int]:
    return sorted_offsets[bisect.bisect_right(sorted_offsets, low) : bisect.bisect_left(sorted_offsets, high)]


def _check_sends(sends_by_process: dict[str, list[tuple[str, int, Any]]], report: Report) -> None:
    for process, sends in sends_by_process.items():
        last: dict[str, tuple[int, Any]] = {}
        for key, offset, value in sends:
            previous = last.get(key)
            if previous is not None and offset <= previous[0]:
                report.add(
                    "nonmonotonic-send",
                    {
                        "process": process,
                        "key": key,
                        "offsets": [previous[0], offset],
                        "values": [previous[1], value],
                    },
                )
            last[key] = (offset, value)
