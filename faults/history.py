"""The history format: one JSON object a line, as Jepsen records it.

Every operation is an invocation (`type: "invoke"`) followed by its completion from the
same process: `ok`, `fail` (definitely did not happen) or `info` (may or may not have
happened). `f` is the operation: `send` (one idempotent produce), `txn` (a transaction of
sends, committed at the end), `poll` (one read), `assign` (a consumer's position was reset,
so the next poll of a key may start anywhere). `value` is a list of micro-operations:

    ["send", key, value, offset]       offset is null until known
    ["poll", key, [[offset, value], ...]]

A key is one topic-partition, written "topic-partition". Values are unique per history.
`time` is CLOCK_MONOTONIC seconds (shared by every process of the machine), and a `txn`
completion carries `commit_at`, the time the commit was asked for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

Mop = list[Any]


@dataclass
class Op:
    process: str
    type: str  # invoke | ok | fail | info
    f: str  # send | txn | poll | assign
    value: list[Mop] = field(default_factory=list)
    time: float = 0.0
    commit_at: float | None = None
    error: str | None = None

    def to_json(self) -> str:
        data: dict[str, Any] = {"process": self.process, "type": self.type, "f": self.f, "value": self.value}
        data["time"] = self.time
        if self.commit_at is not None:
            data["commit_at"] = self.commit_at
        if self.error is not None:
            data["error"] = self.error
        return json.dumps(data)

    @classmethod
    def from_json(cls, line: str) -> Op:
        d = json.loads(line)
        return cls(
            d["process"],
            d["type"],
            d["f"],
            d.get("value", []),
            d.get("time", 0.0),
            d.get("commit_at"),
            d.get("error"),
        )


class HistoryWriter:
    """Appends one process's events to its JSONL file, flushed per line so a killed client
    leaves every completed event behind."""

    def __init__(self, path: Path, process: str) -> None:
        self.process = process
        self._file: IO[str] = open(path, "a")  # noqa: SIM115 - held for the process's life

    def record(self, type_: str, f: str, value: list[Mop], **extra: Any) -> Op:
        op = Op(self.process, type_, f, value, time.monotonic(), **extra)
        self._file.write(op.to_json() + "\n")
        self._file.flush()
        return op

    def close(self) -> None:
        self._file.close()


def read_history(paths: Iterable[Path]) -> list[Op]:
    """Every event of every file, ordered by time (a torn last line of a killed client is
    skipped)."""
    ops: list[Op] = []
    for path in paths:
        for line in path.read_text().splitlines():
            try:
                ops.append(Op.from_json(line))
            except (ValueError, KeyError):
                continue
    ops.sort(key=lambda op: op.time)
    return ops


def pairs(history: list[Op]) -> Iterator[tuple[Op, Op]]:
    """(invocation, completion) per operation; an invocation without a completion (its
    process died) is completed as `info`."""
    open_ops: dict[str, Op] = {}
    for op in history:
        if op.type == "invoke":
            if op.process in open_ops:
                stale = open_ops.pop(op.process)
                yield stale, Op(stale.process, "info", stale.f, stale.value, op.time)
            open_ops[op.process] = op
        else:
            invocation = open_ops.pop(op.process, None)
            if invocation is None:
                invocation = Op(op.process, "invoke", op.f, op.value, op.time)
            yield invocation, op
    for invocation in open_ops.values():
        yield invocation, Op(invocation.process, "info", invocation.f, invocation.value, float("inf"))
