"""`odradek perf consume`: Kafka's kafka-consumer-perf-test.sh (its ConsumerPerformance)
over the wire protocol: --messages records of --topic fetched from every partition's leader,
from the --group's committed offsets (else the earliest, or the latest with --from-latest),
the group's offsets committed at the end; Kafka's header and line (MB, MB/s, records,
records/s, fetch time), a live progress line on a terminal, and with --json the summary and
the fetch requests' latency (avg, max, percentiles).

The group is used for its committed offsets only: no member joins it, so the rebalance time
is 0 (Kafka's tool subscribes and waits for its assignment)."""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.groups import GROUP_KEY, committed_offsets
from odradek.cli.offsets import EARLIEST, LATEST, list_offsets
from odradek.cli.output import Output
from odradek.cli.perf_stats import MB, Clock, Progress, Stats
from protocol import record_batch as rb
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)

DETAILED_HEADER = ("time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                   "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")
HEADER = ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
          "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")
FETCH_WAIT_MS = 100


def _date(epoch_seconds: float) -> str:
    """Kafka's `yyyy-MM-dd HH:mm:ss:SSS`, local time."""
    moment = dt.datetime.fromtimestamp(epoch_seconds)
    return moment.strftime("%Y-%m-%d %H:%M:%S:") + f"{moment.microsecond // 1000:03d}"


def _fetch(cluster: Cluster, leader: int, topic: str, positions: dict[int, int], fetch_size: int) -> Any:
    resp = cluster.node(leader).call(FetchRequest(
        replica_id=-1, max_wait_ms=FETCH_WAIT_MS, min_bytes=1, max_bytes=max(fetch_size, 1) * len(positions),
        isolation_level=0, session_id=0, session_epoch=-1,
        topics=[FetchTopic(topic=topic, partitions=[
            FetchPartition(partition=p, fetch_offset=off, partition_max_bytes=fetch_size)
            for p, off in sorted(positions.items())])]), 12)
    check(resp.error_code, f"fetching {topic}")
    return resp.responses[0].partitions


def _commit(cluster: Cluster, group: str, topic: str, positions: dict[int, int]) -> None:
    resp = cluster.coordinator(group, GROUP_KEY).call(OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=-1, member_id="",
        topics=[OffsetCommitRequestTopic(name=topic, partitions=[OffsetCommitRequestPartition(
            partition_index=p, committed_offset=off, committed_leader_epoch=-1, committed_metadata="")
            for p, off in sorted(positions.items())])]), 8)
    for t in resp.topics:
        for p in t.partitions:
            check(p.error_code, f"committing {group}'s offset of {t.name}-{p.partition_index}")


def consume(cluster: Cluster, topic: str, messages: int, group: str, *, from_latest: bool = False,
            timeout_ms: int = 10_000, fetch_size: int = 1024 * 1024, hide_header: bool = False,
            detailed_interval_ms: int | None = None, report: Callable[[str], None] | None = None,
            clock: Clock | None = None, progress: Progress | None = None, wall: Callable[[], float] = time.time) -> Output:
    """With `detailed_interval_ms` (--show-detailed-stats), Kafka's line per interval, handed
    to `report` as it ends (and kept in the JSON), instead of the final line."""
    clock = clock or Clock()
    progress = progress or Progress(clock)
    if messages <= 0:
        raise CliError("--messages must be greater than 0")
    leaders = cluster.leaders([topic])[topic]
    committed = committed_offsets(cluster, group)
    missing = [(topic, p) for p in sorted(leaders) if (topic, p) not in committed]
    reset = list_offsets(cluster, missing, LATEST if from_latest else EARLIEST) if missing else {}
    positions = {p: committed.get((topic, p), reset.get((topic, p), 0)) for p in sorted(leaders)}
    by_leader: dict[int, list[int]] = {}
    for p, leader in sorted(leaders.items()):
        by_leader.setdefault(leader, []).append(p)
    start_wall = wall()
    stats = Stats(clock)
    fetch_stats = Stats(clock)  # one entry per fetch that returned records: its round trip
    last_record = clock.now()
    timed_out = False
    intervals: list[dict[str, Any]] = []
    mark = {"at": clock.now(), "wall": start_wall, "bytes": 0, "count": 0}
    if detailed_interval_ms is not None and report is not None and not hide_header:
        report(DETAILED_HEADER)
    while stats.count < messages:
        for leader, parts in by_leader.items():
            asked = clock.now()
            answer = _fetch(cluster, leader, topic, {p: positions[p] for p in parts}, fetch_size)
            took = (clock.now() - asked) * 1000
            got_any = False
            for part in answer:
                check(part.error_code, f"fetching {topic}-{part.partition_index}")
                raw = bytes(part.records or b"")
                for batch in rb.decode_batches(raw[: rb.valid_prefix_length(raw)]):
                    if not batch.header.is_control:
                        for r in batch.records:
                            if r.offset < positions[part.partition_index] or stats.count >= messages:
                                continue
                            size = len(r.value or b"") + len(r.key or b"")
                            stats.record(size, 0.0)
                            positions[part.partition_index] = r.offset + 1
                            got_any = True
                    if stats.count < messages:
                        positions[part.partition_index] = max(positions[part.partition_index],
                                                              batch.header.next_offset)
            if got_any:
                fetch_stats.record(0, took)
                last_record = clock.now()
            if stats.count >= messages:
                break
        if detailed_interval_ms is not None and (clock.now() - mark["at"]) * 1000 >= detailed_interval_ms:
            intervals.append(_interval(stats, mark, clock.now(), wall()))
            if report is not None:
                progress.clear()
                report(intervals[-1]["line"])
        elapsed = max(clock.now() - stats.start, 1e-9)
        progress.show(f"{stats.count}/{messages} records, {stats.count / elapsed:.1f} records/sec, "
                      f"{stats.bytes / MB / elapsed:.2f} MB/sec")
        if stats.count < messages and (clock.now() - last_record) * 1000 > timeout_ms:
            timed_out = True
            break
    progress.clear()
    end_wall = wall()
    _commit(cluster, group, topic, positions)
    if timed_out:
        print(f"WARNING: Exiting before consuming the expected number of messages: timeout ({timeout_ms} ms) "
              "exceeded. You can use the --timeout option to increase the timeout.", file=sys.stderr)
    seconds = max(end_wall - start_wall, 1e-9)
    mb = stats.bytes / MB
    fetch_ms = int(seconds * 1000)
    fetch_seconds = max(fetch_ms / 1000, 1e-9)
    fetches = fetch_stats.summary()
    data = {"topic": topic, "group": group, "start_time": _date(start_wall), "end_time": _date(end_wall),
            "data_consumed_mb": mb, "mb_per_second": mb / seconds, "records": stats.count,
            "records_per_second": stats.count / seconds, "rebalance_time_ms": 0, "fetch_time_ms": fetch_ms,
            "fetch_mb_per_second": mb / fetch_seconds, "fetch_records_per_second": stats.count / fetch_seconds,
            "fetch_latency_avg_ms": fetches["latency_avg_ms"], "fetch_latency_max_ms": fetches["latency_max_ms"],
            "fetch_latency_percentiles_ms": fetches["latency_percentiles_ms"], "timed_out": timed_out}
    line = (f"{data['start_time']}, {data['end_time']}, {mb:.4f}, {data['mb_per_second']:.4f}, {stats.count}, "
            f"{data['records_per_second']:.4f}, 0, {fetch_ms}, {data['fetch_mb_per_second']:.4f}, "
            f"{data['fetch_records_per_second']:.4f}")
    if detailed_interval_ms is not None:
        data["intervals"] = [{k: v for k, v in i.items() if k != "line"} for i in intervals]
        return Output(data, lines=[])  # the lines went out as the intervals ended
    return Output(data, lines=[line] if hide_header else [HEADER, line])


def _interval(stats: Stats, mark: dict[str, Any], now: float, now_wall: float) -> dict[str, Any]:
    """Kafka's ConsumerPerformance progress line: totals so far, rates over the interval."""
    ms = max((now - mark["at"]) * 1000, 1e-6)
    mb = (stats.bytes - mark["bytes"]) / MB
    count = stats.count - mark["count"]
    shown = {"time": _date(now_wall), "data_consumed_mb": stats.bytes / MB, "mb_per_second": mb / ms * 1000,
             "records": stats.count, "records_per_second": count / ms * 1000, "rebalance_time_ms": 0,
             "fetch_time_ms": int(ms), "fetch_mb_per_second": mb / ms * 1000,
             "fetch_records_per_second": count / ms * 1000}
    shown["line"] = (f"{shown['time']}, 0, {shown['data_consumed_mb']:.4f}, {shown['mb_per_second']:.4f}, "
                     f"{stats.count}, {shown['records_per_second']:.4f}, 0, {int(ms)}, "
                     f"{shown['fetch_mb_per_second']:.4f}, {shown['fetch_records_per_second']:.4f}")
    mark.update(at=now, wall=now_wall, bytes=stats.bytes, count=stats.count)
    return shown
