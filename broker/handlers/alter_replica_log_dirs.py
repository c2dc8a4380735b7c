"""AlterReplicaLogDirs: move partitions between the broker's log directories. This broker
keeps every partition in one directory, so a move there is already done and any other
path is not one of its log dirs.

As Kafka's `ReplicaManager.alterReplicaLogDirs`: LOG_DIR_NOT_FOUND for a path that is not
a log dir (the absolute path, as written), REPLICA_NOT_AVAILABLE for a partition the broker
does not hold, NONE for one already in the directory named."""

from __future__ import annotations

from collections import defaultdict

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.alter_replica_log_dirs_request import AlterReplicaLogDirsRequest
from protocol.messages.alter_replica_log_dirs_response import (
    AlterReplicaLogDirPartitionResult,
    AlterReplicaLogDirsResponse,
    AlterReplicaLogDirTopicResult,
)
from storage.errors import StorageError

API_KEY = 34


async def handle(ctx: RequestContext, request: AlterReplicaLogDirsRequest) -> AlterReplicaLogDirsResponse:
    log_dir = str(ctx.config.data_dir.absolute())
    # Kafka keys the request by partition: a partition named twice is answered once, for
    # the last directory named.
    destinations: dict[tuple[str, int], str] = {}
    for d in request.dirs:
        for t in d.topics:
            for p in t.partitions:
                destinations[(t.name, p)] = d.path
    results: dict[str, list[AlterReplicaLogDirPartitionResult]] = defaultdict(list)
    authorized = cluster_allowed(ctx, AclOperation.ALTER)
    for (topic, partition), path in destinations.items():
        if not authorized:
            error = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        elif path != log_dir:
            error = ErrorCode.LOG_DIR_NOT_FOUND
        else:
            try:
                ctx.topics.log(topic, partition)
                error = ErrorCode.NONE
            except StorageError:
                error = ErrorCode.REPLICA_NOT_AVAILABLE
        results[topic].append(AlterReplicaLogDirPartitionResult(partition_index=partition, error_code=error))
    return AlterReplicaLogDirsResponse(
        results=[AlterReplicaLogDirTopicResult(topic_name=t, partitions=ps) for t, ps in results.items()]
    )
