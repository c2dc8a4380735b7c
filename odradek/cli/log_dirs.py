"""`odradek log-dirs describe`: each broker's log directories and the partitions in them,
through DescribeLogDirs, printed as Kafka's kafka-log-dirs.sh (its LogDirsCommand) prints
them: two lines of progress, then one line of JSON."""

from __future__ import annotations

import json
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.wire import error_name
from protocol.errors import ErrorCode
from protocol.messages.describe_log_dirs_request import DescribableLogDirTopic, DescribeLogDirsRequest


def _broker_ids(text: str | None, known: list[int]) -> list[int]:
    if not text:
        return known
    try:
        wanted = [int(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise CliError(f"--broker-list takes broker ids, comma-separated: {text!r}") from None
    missing = sorted(set(wanted) - set(known))
    if missing:
        raise CliError(f"ERROR: The given brokers do not exist from --broker-list: {','.join(map(str, missing))}. "
                       f"Current existent brokers: {','.join(map(str, known))}")
    return wanted


def describe(cluster: Cluster, broker_list: str | None, topic_list: str | None) -> Output:
    meta = cluster.metadata(None)
    brokers = _broker_ids(broker_list, sorted(b.node_id for b in meta.brokers))
    names = [t for t in (topic_list or "").split(",") if t.strip()]
    # DescribeLogDirs with null topics asks for every partition (Kafka's describeLogDirs).
    topics = None if not names else [
        DescribableLogDirTopic(topic=t.name, partitions=[p.partition_index for p in t.partitions])
        for t in meta.topics if t.name in names]
    out: list[dict[str, Any]] = []
    for broker in brokers:
        resp = cluster.node(broker).call(DescribeLogDirsRequest(topics=topics), 4)
        check(resp.error_code, f"describing the log directories of broker {broker}")
        dirs = []
        for r in sorted(resp.results, key=lambda r: r.log_dir):
            partitions = [{"partition": f"{t.name}-{p.partition_index}", "size": p.partition_size,
                           "offsetLag": p.offset_lag, "isFuture": p.is_future_key}
                          for t in sorted(r.topics, key=lambda t: t.name)
                          for p in sorted(t.partitions, key=lambda p: p.partition_index)
                          if not names or t.name in names]
            dirs.append({"partitions": partitions,
                         "error": None if r.error_code == ErrorCode.NONE else error_name(r.error_code),
                         "logDir": r.log_dir})
        out.append({"broker": broker, "logDirs": dirs})
    data = {"brokers": out, "version": 1}
    return Output(data, lines=["Querying brokers for log directories information",
                               f"Received log directory information from brokers {','.join(map(str, brokers))}",
                               json.dumps(data, separators=(",", ":"))])
