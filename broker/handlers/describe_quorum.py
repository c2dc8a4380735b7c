"""DescribeQuorum (KIP-595, KIP-853): Kafka describes its KRaft metadata quorum, the
partition `__cluster_metadata`-0. odradek has no metadata log and no Raft (in a cluster,
PostgreSQL is the consensus: docs/cluster.md), so it answers as a static quorum of one voter,
the controller (this broker outside a cluster), with the other live brokers as observers:
leader epoch 1, no directory ids (at kraft.version 1 Kafka's voters carry their metadata log
directory's id), and as offsets the epoch of the finalized features, which in Kafka is the
metadata log's offset too."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_quorum_request import DescribeQuorumRequest
from protocol.messages.describe_quorum_response import (
    DescribeQuorumResponse,
    Listener,
    Node,
    PartitionData,
    ReplicaState,
    TopicData,
)

API_KEY = 55
METADATA_TOPIC = "__cluster_metadata"
LEADER_EPOCH = 1
# Kafka's Errors messages, which its raft layer puts in these responses.
_UNKNOWN_PARTITION = "This server does not host this topic-partition."
_CLUSTER_AUTHORIZATION = "Cluster authorization failed."


async def handle(ctx: RequestContext, request: DescribeQuorumRequest) -> DescribeQuorumResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        return DescribeQuorumResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=_CLUSTER_AUTHORIZATION)
    topics = request.topics
    # Kafka's RaftUtil.hasValidTopicPartition: exactly the one metadata partition.
    if not (len(topics) == 1 and topics[0].topic_name == METADATA_TOPIC
            and [p.partition_index for p in topics[0].partitions] == [0]):
        return DescribeQuorumResponse(topics=[
            TopicData(t.topic_name, [
                PartitionData(p.partition_index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, _UNKNOWN_PARTITION)
                for p in t.partitions])
            for t in topics])
    cluster = ctx.cluster
    leader = cluster.controller_id
    if leader < 0:
        return DescribeQuorumResponse(topics=[TopicData(METADATA_TOPIC, [
            PartitionData(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, "For requests intended only for the leader, "
                          "this error indicates that the broker is not the current leader. For requests intended "
                          "for any replica, this error indicates that the broker is not a replica of the topic partition.")])])
    offset = ctx.features.epoch
    now = ctx.clock.now_ms()
    brokers = cluster.live_brokers(ctx.connection.listener)

    def state(node_id: int) -> ReplicaState:
        return ReplicaState(node_id, log_end_offset=offset, last_fetch_timestamp=now, last_caught_up_timestamp=now)

    partition = PartitionData(
        0, leader_id=leader, leader_epoch=LEADER_EPOCH, high_watermark=offset,
        current_voters=[state(leader)],
        observers=[state(b.node_id) for b in brokers if b.node_id != leader],
    )
    nodes = [Node(b.node_id, [Listener(ctx.connection.listener, b.host, b.port)]) for b in brokers if b.node_id == leader]
    return DescribeQuorumResponse(topics=[TopicData(METADATA_TOPIC, [partition])], nodes=nodes)
