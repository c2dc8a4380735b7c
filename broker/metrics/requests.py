"""What the connections count per request, kept cheap: label children are looked up once per
(API, version) and cached, so a request costs a dict lookup and a few increments."""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from protocol.message import Message
from protocol.messages import API_SPECS

if TYPE_CHECKING:
    from storage.flusher import RoundStats

# Kafka's request latencies span from well under a millisecond (ApiVersions) to a Fetch long
# poll's max.wait.ms (500 ms by default) and a JoinGroup's rebalance.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
FSYNC_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
ROUND_SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
# A partition's takeover reads its segments' index and producer state back from PostgreSQL:
# milliseconds for a small log, seconds for a large one.
TAKEOVER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def api_name(api_key: int) -> str:
    spec = API_SPECS.get(api_key)
    return spec.name if spec is not None else str(api_key)


def error_codes(message: Message) -> list[int]:
    """Every non-zero `error_code` in a response, at any depth (Kafka's
    `AbstractResponse.errorCounts`). Only the fields that can lead to an error code are
    walked (see `_plan`): never record data, broker lists or tagged fields."""
    found: list[int] = []
    stack: list[Any] = [message]
    while stack:
        item = stack.pop()
        has_code, lists, structs = _plan(type(item))
        if has_code and item.error_code:
            found.append(item.error_code)
        for name in lists:
            stack.extend(getattr(item, name) or ())
        for name in structs:
            child = getattr(item, name)
            if child is not None:
                stack.append(child)
    return found


_Plan = tuple[bool, tuple[str, ...], tuple[str, ...]]
_PLANS: dict[type, _Plan] = {}
_LIST_OF = re.compile(r"^list\[(\w+)\]$")
_STRUCT = re.compile(r"^(\w+)(?: \| None)?$")


def _plan(cls: type) -> _Plan:
    """For a generated message class: whether it has an `error_code`, and which of its
    fields (lists of structs, structs) hold structs that can contain one. Worked out from
    the dataclass annotations once per class."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    _PLANS[cls] = (False, (), ())  # a struct that contains itself stops here
    namespace = vars(sys.modules[cls.__module__])
    has_code = False
    lists: list[str] = []
    structs: list[str] = []
    for f in dataclasses.fields(cls):
        if f.name == "error_code":
            has_code = True
            continue
        annotation = str(f.type)
        for pattern, into in ((_LIST_OF, lists), (_STRUCT, structs)):
            match = pattern.match(annotation)
            child = namespace.get(match.group(1)) if match else None
            if isinstance(child, type) and dataclasses.is_dataclass(child) and _reaches_error_code(child):
                into.append(f.name)
    plan = _PLANS[cls] = (has_code, tuple(lists), tuple(structs))
    return plan


def _reaches_error_code(cls: type) -> bool:
    has_code, lists, structs = _plan(cls)
    return has_code or bool(lists) or bool(structs)


class _RequestChildren:
    __slots__ = ("errors_by_code", "latency", "requests")

    def __init__(self, metrics: BrokerMetrics, api: str, version: str) -> None:
        self.requests = metrics.requests.labels(api, version)
        self.latency = metrics.latency.labels(api, version)
        self.errors_by_code: dict[int, Counter] = {}


class BrokerMetrics:
    """The broker's metrics, in a registry of their own (one per broker, so brokers started
    in one process do not share counters)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "odradek_requests", "Requests answered, by API and version.", ["api", "version"], registry=r
        )
        self.errors = Counter(
            "odradek_request_errors",
            "Error codes in responses (every non-zero error_code, at any depth), by API, version and code.",
            ["api", "version", "error_code"],
            registry=r,
        )
        self.latency = Histogram(
            "odradek_request_latency_seconds",
            "Time from a request's arrival to its response being ready, by API and version.",
            ["api", "version"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.failed = Counter(
            "odradek_requests_failed",
            "Requests that closed their connection (malformed, unsupported version, handler failure).",
            ["reason"],
            registry=r,
        )
        self.bytes_in = Counter("odradek_network_received_bytes", "Bytes read from client connections.", registry=r)
        self.bytes_out = Counter("odradek_network_sent_bytes", "Bytes written to client connections.", registry=r)
        self.connections_opened = Counter(
            "odradek_connections_opened", "Client connections accepted.", ["listener"], registry=r
        )
        self.connections_throttled = Counter(
            "odradek_connections_throttled",
            "Connections held back by max.connection.creation.rate (KIP-612).",
            ["listener"],
            registry=r,
        )
        self.fsync_latency = Histogram(
            "odradek_fsync_round_seconds",
            "Duration of one group-commit fsync round.",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self.fsync_round_size = Histogram(
            "odradek_fsync_round_waiters",
            "How many durable appends and syncs one group-commit round served.",
            buckets=ROUND_SIZE_BUCKETS,
            registry=r,
        )
        self.fsync_calls = Histogram(
            "odradek_fsync_seconds",
            "The fsync calls of one round alone, on the flusher's thread (the rest of "
            "odradek_fsync_round_seconds is the handoff to that thread and back).",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self.fsync_files = Histogram(
            "odradek_fsync_round_files",
            "Files and directories one group-commit round synced.",
            buckets=ROUND_SIZE_BUCKETS,
            registry=r,
        )
        self.fsync_queued = Histogram(
            "odradek_fsync_round_queued_seconds",
            "How long a round's first write waited for the round to start: behind the running "
            "round of the same partition (the file engine runs a lane of rounds per partition) "
            "or, for a lazily joined round, until the next turn of the event loop.",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self.event_loop_lag = Histogram(
            "odradek_event_loop_lag_seconds",
            "How late a timer of the event loop fired, sampled every 50 ms: the time a "
            "callback that became ready waits for the loop (broker/metrics/loop_lag.py).",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self.fsync_wait = Histogram(
            "odradek_fsync_wait_seconds",
            "How long a durable append or sync waited, from its call until durable (the "
            "rest of its round, if one was running, and its own round).",
            buckets=FSYNC_BUCKETS,
            registry=r,
        )
        self.storage_write_failures = Counter(
            "odradek_storage_write_failures",
            "Group-commit rounds that failed: a failed fsync (the broker then halts) or a "
            "PostgreSQL transaction that did not commit (retried).",
            registry=r,
        )
        self.partition_takeover = Histogram(
            "odradek_partition_takeover_seconds",
            "In a cluster: how long this broker took to take over a partition it was made leader of "
            "(its reload from PostgreSQL, before it serves it).",
            buckets=TAKEOVER_BUCKETS,
            registry=r,
        )
        self._children: dict[tuple[int, int], _RequestChildren] = {}

    def answered(self, api_key: int, version: int, seconds: float, response: Message | None) -> None:
        children = self._children.get((api_key, version))
        if children is None:
            children = self._children[(api_key, version)] = _RequestChildren(self, api_name(api_key), str(version))
        children.requests.inc()
        children.latency.observe(seconds)
        if response is not None:
            for code in error_codes(response):
                counter = children.errors_by_code.get(code)
                if counter is None:
                    counter = children.errors_by_code[code] = self.errors.labels(
                        api_name(api_key), str(version), str(code)
                    )
                counter.inc()

    def fsync_round(self, stats: RoundStats) -> None:
        self.fsync_latency.observe(stats.seconds)
        self.fsync_round_size.observe(stats.waiters)
        self.fsync_calls.observe(stats.fsync_seconds)
        self.fsync_files.observe(stats.files)
        self.fsync_queued.observe(stats.queued_seconds)

    def storage_write_failed(self, _error: object) -> None:
        self.storage_write_failures.inc()

    def fsync_waited(self, seconds: float) -> None:
        self.fsync_wait.observe(seconds)

    def partition_taken_over(self, seconds: float) -> None:
        self.partition_takeover.observe(seconds)
