"""Metadata: the live brokers (this one alone outside a cluster), and the topics (auto-created
where asked) with each partition's leader."""

from __future__ import annotations

import uuid

from broker.authorized_operations import ResourceType, authorized_operations
from broker.context import RequestContext
from broker.ports import Cluster
from broker.security.acl.model import AclOperation
from broker.security.acl.model import ResourceType as AclResource
from broker.security.authorization import allowed, cluster_allowed
from broker.topics import TopicResolver
from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import (
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)
from storage.engine import TopicInfo

API_KEY = 3
# Outside a cluster this broker has always led every partition in this epoch.
LEADER_EPOCH = 0
# Before v4 a client could not ask us not to auto-create.
ALLOW_AUTO_CREATE_MIN_VERSION = 4
TOPIC_IDS_MIN_VERSION = 12
# The cluster's operations travel in Metadata v8-10 only (DescribeCluster took over).
AUTHORIZED_OPERATIONS_MIN_VERSION = 8
CLUSTER_OPERATIONS_MAX_VERSION = 10
CLUSTER_NAME = "kafka-cluster"


def describe_topic(info: TopicInfo, cluster: Cluster) -> MetadataResponseTopic:
    return MetadataResponseTopic(
        error_code=ErrorCode.NONE,
        name=info.name,
        topic_id=info.topic_id,
        is_internal=info.internal,
        partitions=[_partition(cluster, info, p) for p in range(info.num_partitions)],
    )


def _partition(cluster: Cluster, info: TopicInfo, partition: int) -> MetadataResponsePartition:
    # PostgreSQL holds the copies: the leader is the only replica (docs/cluster.md).
    leader, epoch = cluster.partition_leader(info.topic_id, partition)
    if leader < 0:
        return MetadataResponsePartition(
            error_code=ErrorCode.LEADER_NOT_AVAILABLE, partition_index=partition, leader_id=-1,
            leader_epoch=epoch, replica_nodes=[], isr_nodes=[], offline_replicas=[],
        )
    return MetadataResponsePartition(
        error_code=ErrorCode.NONE,
        partition_index=partition,
        leader_id=leader,
        leader_epoch=epoch,
        replica_nodes=[leader],
        isr_nodes=[leader],
        offline_replicas=[],
    )


def _unauthorized(name: str | None, topic_id: uuid.UUID) -> MetadataResponseTopic:
    return MetadataResponseTopic(
        error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=name, topic_id=topic_id, partitions=[]
    )


def add_authorized_operations(ctx: RequestContext, request: MetadataRequest, response: MetadataResponse) -> None:
    """As Kafka: every topic of the response, answered or not, gets the operations when asked."""
    version = ctx.api_version
    if version < AUTHORIZED_OPERATIONS_MIN_VERSION:
        return
    if version <= CLUSTER_OPERATIONS_MAX_VERSION and request.include_cluster_authorized_operations:
        response.cluster_authorized_operations = authorized_operations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
    if request.include_topic_authorized_operations:
        for topic in response.topics:
            topic.topic_authorized_operations = authorized_operations(ctx, ResourceType.TOPIC, topic.name or "")


async def handle(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    response = await _describe(ctx, request)
    add_authorized_operations(ctx, request, response)
    return response


async def _describe(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    cluster = ctx.cluster
    response = MetadataResponse(
        brokers=[
            MetadataResponseBroker(node_id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in cluster.live_brokers(ctx.connection.listener)
        ],
        cluster_id=cluster.cluster_id,
        controller_id=cluster.controller_id,
    )
    # v0 asks for every topic with an empty array; v1+ with a null one.
    all_topics = request.topics is None or (ctx.api_version == 0 and not request.topics)
    if all_topics:
        # Topics the principal may not describe are left out, as if they did not exist.
        response.topics = [
            describe_topic(info, cluster)
            for info in ctx.topics.list_topics()
            if allowed(ctx, AclOperation.DESCRIBE, AclResource.TOPIC, info.name)
        ]
        return response
    assert request.topics is not None
    resolver = TopicResolver(ctx)
    allow_create = ctx.api_version < ALLOW_AUTO_CREATE_MIN_VERSION or request.allow_auto_topic_creation
    for wanted in request.topics:
        if ctx.api_version < TOPIC_IDS_MIN_VERSION and (wanted.name is None or wanted.topic_id != ZERO_UUID):
            # Before v12 topics are named, never looked up by id (Kafka: INVALID_REQUEST).
            response.topics.append(
                MetadataResponseTopic(error_code=ErrorCode.INVALID_REQUEST, name=wanted.name or "", topic_id=ZERO_UUID)
            )
            continue
        # A topic id wins over the name, which the Java client sends as "" (not null) with it.
        if wanted.name is None or wanted.topic_id != ZERO_UUID:
            info = resolver.find_by_id(wanted.topic_id)
            if info is None:
                response.topics.append(
                    MetadataResponseTopic(error_code=ErrorCode.UNKNOWN_TOPIC_ID, name=None, topic_id=wanted.topic_id)
                )
            elif not allowed(ctx, AclOperation.DESCRIBE, AclResource.TOPIC, info.name):
                response.topics.append(_unauthorized(None, wanted.topic_id))
            else:
                response.topics.append(describe_topic(info, cluster))
            continue
        if not allowed(ctx, AclOperation.DESCRIBE, AclResource.TOPIC, wanted.name):
            response.topics.append(_unauthorized(wanted.name, ZERO_UUID))
            continue
        # Auto-creation needs CREATE on the cluster or the topic (KafkaApis.handleTopicMetadataRequest).
        may_create = allow_create and (
            cluster_allowed(ctx, AclOperation.CREATE)
            or allowed(ctx, AclOperation.CREATE, AclResource.TOPIC, wanted.name)
        )
        if allow_create and not may_create and resolver.find(wanted.name) is None:
            response.topics.append(_unauthorized(wanted.name, ZERO_UUID))
            continue
        info, error = await resolver.find_or_create(wanted.name, may_create)
        if info is None:
            code = error or ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            response.topics.append(MetadataResponseTopic(error_code=code, name=wanted.name, topic_id=ZERO_UUID))
        else:
            response.topics.append(describe_topic(info, cluster))
    return response
