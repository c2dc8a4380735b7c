"""FindCoordinator: the leader of the key's partition of `__consumer_offsets`,
`__transaction_state` or `__share_group_state` is its coordinator (Kafka's
KafkaApis.getCoordinator)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.ports import BrokerAddress
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, cluster_allowed
from coordinator.group.records import OFFSETS_TOPIC
from coordinator.partitioning import partition_for
from coordinator.share.records import SHARE_GROUP_STATE_TOPIC
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from protocol.errors import ErrorCode
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.find_coordinator_response import Coordinator, FindCoordinatorResponse
from storage.errors import StorageError, UnknownTopicOrPartitionError

API_KEY = 10

KEY_TYPE_GROUP = 0
KEY_TYPE_TRANSACTION = 1
# KIP-932 (v6+): the share coordinator of "group:topicId:partition", asked by brokers.
KEY_TYPE_SHARE = 2
SHARE_MIN_VERSION = 6
_PARTITION_COUNT_SETTING = {
    KEY_TYPE_GROUP: "offsets.topic.num.partitions",
    KEY_TYPE_TRANSACTION: "transaction.state.log.num.partitions",
    KEY_TYPE_SHARE: "share.coordinator.state.topic.num.partitions",
}
_TOPIC = {
    KEY_TYPE_GROUP: OFFSETS_TOPIC,
    KEY_TYPE_TRANSACTION: TRANSACTION_STATE_TOPIC,
    KEY_TYPE_SHARE: SHARE_GROUP_STATE_TOPIC,
}


def coordinator_partition(ctx: RequestContext, key_type: int, key: str) -> int:
    """The partition of __consumer_offsets / __transaction_state that owns `key`; its
    leader is the coordinator. An existing topic keeps its partition count."""
    topic = _TOPIC[key_type]
    try:
        count = ctx.topics.describe_topic(topic).num_partitions
    except UnknownTopicOrPartitionError:
        count = ctx.config.get_int(_PARTITION_COUNT_SETTING[key_type])
    return partition_for(key, count)


def _failed(key: str, code: ErrorCode) -> Coordinator:
    return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=code, error_message=None)


async def _find(ctx: RequestContext, key_type: int, key: str) -> Coordinator:
    # Kafka's KafkaApis.getCoordinator: DESCRIBE on the group or the transactional id.
    if key_type == KEY_TYPE_GROUP and not allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, key):
        return _failed(key, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if key_type == KEY_TYPE_TRANSACTION and not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key):
        return _failed(key, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if key_type == KEY_TYPE_SHARE and not cluster_allowed(ctx, AclOperation.CLUSTER_ACTION):
        return _failed(key, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if key_type == KEY_TYPE_SHARE and (ctx.api_version < SHARE_MIN_VERSION or len(key.split(":")) != 3):
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.INVALID_REQUEST,
                           error_message=f"Invalid share coordinator key {key}")
    if key_type not in _PARTITION_COUNT_SETTING:
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.INVALID_REQUEST,
                           error_message=f"Invalid coordinator type {key_type}")
    # The coordinator's topic is created on first use, as Kafka's FindCoordinator does.
    if key_type == KEY_TYPE_TRANSACTION and await ctx.transactions.ensure_log() is not ErrorCode.NONE:
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                           error_message="The coordinator is not available.")
    if key_type == KEY_TYPE_SHARE and await ctx.share.store.ensure_log() is not ErrorCode.NONE:
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                           error_message="The coordinator is not available.")
    if key_type == KEY_TYPE_GROUP and await ctx.groups.ensure_log() is not ErrorCode.NONE:
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                           error_message="The coordinator is not available.")
    leader = _leader(ctx, key_type, key)
    if leader is None:
        return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                           error_message="The coordinator is not available.")
    return Coordinator(key=key, node_id=leader.node_id, host=leader.host, port=leader.port,
                       error_code=ErrorCode.NONE, error_message=None)


def _leader(ctx: RequestContext, key_type: int, key: str) -> BrokerAddress | None:
    """The live broker leading the key's partition of the coordinator's topic: this broker
    while it is the only one, or before the topic exists (the coordinator creates it)."""
    cluster = ctx.cluster
    brokers = cluster.live_brokers(ctx.connection.listener)
    try:
        topic_id = ctx.topics.describe_topic(_TOPIC[key_type]).topic_id
    except StorageError:
        leader_id = cluster.node_id
    else:
        leader_id, _ = cluster.partition_leader(topic_id, coordinator_partition(ctx, key_type, key))
    found = next((b for b in brokers if b.node_id == leader_id), None)
    if found is None and leader_id == cluster.node_id:
        listener = cluster.advertised_listener(ctx.connection.listener)
        return BrokerAddress(cluster.node_id, listener.host, listener.port, None)
    return found


async def handle(ctx: RequestContext, request: FindCoordinatorRequest) -> FindCoordinatorResponse:
    key_type = request.key_type if ctx.api_version >= 1 else KEY_TYPE_GROUP
    if ctx.api_version >= 4:
        return FindCoordinatorResponse(coordinators=[await _find(ctx, key_type, key) for key in request.coordinator_keys])
    found = await _find(ctx, key_type, request.key)
    return FindCoordinatorResponse(
        error_code=found.error_code,
        error_message=found.error_message,
        node_id=found.node_id,
        host=found.host,
        port=found.port,
    )
