"""DescribeLogDirs: the broker's one log directory (the first of `log.dirs`, where every
partition lives), with the size of each partition asked for and, from v4, the volume's
total and usable bytes.

As Kafka's `ReplicaManager.describeLogDirs`: a null topic list means every partition, a
partition this broker does not hold is left out, and a topic left with no partition is
dropped. A leader has no replica to lag behind, so the offset lag is 0."""

from __future__ import annotations

import shutil
from collections import defaultdict

from broker.context import RequestContext
from broker.logging import get_logger
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_log_dirs_request import DescribeLogDirsRequest
from protocol.messages.describe_log_dirs_response import (
    DescribeLogDirsPartition,
    DescribeLogDirsResponse,
    DescribeLogDirsResult,
    DescribeLogDirsTopic,
)
from storage.errors import StorageError

API_KEY = 35

log = get_logger("odradek.describe_log_dirs")


def _wanted(ctx: RequestContext, request: DescribeLogDirsRequest) -> dict[str, set[int]]:
    if request.topics is None:
        return {t.name: set(range(t.num_partitions)) for t in ctx.topics.list_topics()}
    wanted: dict[str, set[int]] = defaultdict(set)
    for t in request.topics:
        wanted[t.topic].update(t.partitions)
    return wanted


async def handle(ctx: RequestContext, request: DescribeLogDirsRequest) -> DescribeLogDirsResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        # Kafka's KafkaApis.handleDescribeLogDirs: no directories, and the error from v3.
        return DescribeLogDirsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results=[])
    catalog = ctx.topics
    log_dir = ctx.config.data_dir.absolute()
    result = DescribeLogDirsResult(error_code=ErrorCode.NONE, log_dir=str(log_dir))
    try:
        usage = shutil.disk_usage(log_dir)
    except OSError as exc:
        log.warning("log dir unreadable", log_dir=str(log_dir), error=str(exc))
        result.error_code = ErrorCode.KAFKA_STORAGE_ERROR
        return DescribeLogDirsResponse(results=[result])
    # Java's FileStore: total space, and the space available to this process.
    result.total_bytes, result.usable_bytes = usage.total, usage.free
    for topic, partitions in sorted(_wanted(ctx, request).items()):
        found: list[DescribeLogDirsPartition] = []
        for p in sorted(partitions):
            try:
                size = catalog.log(topic, p).size_bytes
            except StorageError:
                continue
            found.append(DescribeLogDirsPartition(partition_index=p, partition_size=size, offset_lag=0))
        if found:
            result.topics.append(DescribeLogDirsTopic(name=topic, partitions=found))
    return DescribeLogDirsResponse(error_code=ErrorCode.NONE, results=[result])
