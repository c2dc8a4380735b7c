"""The ACL matrix of the APIs outside produce/consume/transactions: for each, one principal
with the ACL Kafka's KafkaApis/AuthHelper asks for and one without, with the exact codes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.message import Message
from protocol.messages.alter_configs_request import AlterConfigsRequest, AlterConfigsResource
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest,
    ReassignablePartition,
    ReassignableTopic,
)
from protocol.messages.alter_replica_log_dirs_request import (
    AlterReplicaLogDir,
    AlterReplicaLogDirsRequest,
    AlterReplicaLogDirTopic,
)
from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.create_acls_request import CreateAclsRequest
from protocol.messages.create_partitions_request import CreatePartitionsRequest, CreatePartitionsTopic
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.describe_client_quotas_request import DescribeClientQuotasRequest
from protocol.messages.describe_cluster_request import DescribeClusterRequest
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.describe_log_dirs_request import DescribeLogDirsRequest
from protocol.messages.describe_producers_request import DescribeProducersRequest, TopicRequest
from protocol.messages.describe_quorum_request import DescribeQuorumRequest
from protocol.messages.describe_quorum_request import PartitionData as QuorumPartition
from protocol.messages.describe_quorum_request import TopicData as QuorumTopic
from protocol.messages.describe_topic_partitions_request import (
    DescribeTopicPartitionsRequest,
)
from protocol.messages.describe_topic_partitions_request import (
    TopicRequest as PartitionsTopicRequest,
)
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.elect_leaders_request import ElectLeadersRequest, TopicPartitions
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    IncrementalAlterConfigsRequest,
)
from protocol.messages.incremental_alter_configs_request import (
    AlterConfigsResource as IncrementalResource,
)
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.list_config_resources_request import ListConfigResourcesRequest
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.list_partition_reassignments_request import ListPartitionReassignmentsRequest
from protocol.messages.list_transactions_request import ListTransactionsRequest
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_delete_request import (
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from protocol.messages.offset_fetch_request import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
)
from protocol.messages.offset_for_leader_epoch_request import (
    OffsetForLeaderEpochRequest,
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
)
from protocol.messages.unregister_broker_request import UnregisterBrokerRequest
from protocol.messages.update_features_request import UpdateFeaturesRequest
from tests.integration.security.acl_wire import (
    ALLOW,
    CLUSTER,
    DESCRIBE,
    GROUP,
    LITERAL,
    READ,
    TOPIC,
    TXN_ID,
    AclBroker,
    _acl,
    _start,
)

DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS = 6, 7, 10, 11
# ConfigResource.Type ids.
CONFIG_TOPIC, CONFIG_BROKER, CONFIG_GROUP = 2, 4, 32
ACLS = [
    _acl(GROUP, "ga", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(GROUP, "ga", LITERAL, "User:alice", DELETE, ALLOW),
    _acl(GROUP, "gd", LITERAL, "User:alice", DELETE, ALLOW),
    _acl(GROUP, "gz", LITERAL, "User:bob", DESCRIBE, ALLOW),
    _acl(GROUP, "gc", LITERAL, "User:alice", READ, ALLOW),
    _acl(GROUP, "ge", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(GROUP, "gh", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(TOPIC, "u", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:alice", DESCRIBE_CONFIGS, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:alice", ALTER_CONFIGS, ALLOW),
    _acl(CLUSTER, "kafka-cluster", LITERAL, "User:alice", DESCRIBE_CONFIGS, ALLOW),
    _acl(GROUP, "gc", LITERAL, "User:alice", ALTER_CONFIGS, ALLOW),
    _acl(TXN_ID, "ta", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(CLUSTER, "kafka-cluster", LITERAL, "User:alice", DESCRIBE, ALLOW),
    _acl(CLUSTER, "kafka-cluster", LITERAL, "User:alice", ALTER, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:*", DESCRIBE, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:alice", READ, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:alice", DELETE, ALLOW),
    _acl(TOPIC, "t", LITERAL, "User:alice", ALTER, ALLOW),
]
COMMITTED_TOPICS = ["t", "hidden"]  # alice may describe "t" only
GROUPS = ["ga", "gz"]  # groups with committed offsets: alice lists both (cluster DESCRIBE), bob "gz" only
TXN_IDS = ["ta", "tz"]  # transactional ids with a producer id; alice may describe "ta" only


@dataclass(frozen=True)
class Case:
    api_key: int
    version: int
    request: Callable[[], Message]
    code: Callable[[Any], Any]
    allowed: Any  # alice's outcome
    denied: Any  # bob's outcome


def _fetched_v8(r: Any) -> tuple[int, list[tuple[str, int, int, int]]]:
    group = r.groups[0]
    return group.error_code, sorted(
        (t.name, p.partition_index, p.committed_offset, p.error_code) for t in group.topics for p in t.partitions
    )


CASES = {
    "find_coordinator_group": Case(10, 4, lambda: FindCoordinatorRequest(key_type=0, coordinator_keys=["ga"]),
                                   lambda r: r.coordinators[0].error_code,
                                   ErrorCode.NONE, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "find_coordinator_txn": Case(10, 4, lambda: FindCoordinatorRequest(key_type=1, coordinator_keys=["ta"]),
                                 lambda r: r.coordinators[0].error_code,
                                 ErrorCode.NONE, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
    "find_coordinator_v0": Case(10, 0, lambda: FindCoordinatorRequest(key="ga"), lambda r: r.error_code,
                                ErrorCode.NONE, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "describe_groups": Case(15, 5, lambda: DescribeGroupsRequest(groups=["ga"]), lambda r: r.groups[0].error_code,
                            ErrorCode.NONE, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "delete_groups": Case(42, 2, lambda: DeleteGroupsRequest(groups_names=["gd"]), lambda r: r.results[0].error_code,
                          ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "list_partition_reassignments": Case(46, 0, lambda: ListPartitionReassignmentsRequest(), lambda r: r.error_code,
                                         ErrorCode.NONE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "describe_log_dirs": Case(35, 4, lambda: DescribeLogDirsRequest(topics=None), lambda r: r.error_code,
                              ErrorCode.NONE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "elect_leaders": Case(43, 2, lambda: ElectLeadersRequest(topic_partitions=[TopicPartitions(topic="t", partitions=[0])]),
                          lambda r: r.error_code, ErrorCode.NONE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "update_features": Case(57, 1, lambda: UpdateFeaturesRequest(validate_only=True), lambda r: r.error_code,
                            ErrorCode.NONE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "alter_replica_log_dirs": Case(
        34, 2,
        lambda: AlterReplicaLogDirsRequest(dirs=[AlterReplicaLogDir(path="/nowhere", topics=[
            AlterReplicaLogDirTopic(name="t", partitions=[0])])]),
        lambda r: r.results[0].partitions[0].error_code,
        ErrorCode.LOG_DIR_NOT_FOUND, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "alter_partition_reassignments": Case(
        45, 0,
        lambda: AlterPartitionReassignmentsRequest(topics=[ReassignableTopic(name="t", partitions=[
            ReassignablePartition(partition_index=0, replicas=None)])]),
        lambda r: r.responses[0].partitions[0].error_code,
        ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "list_groups": Case(16, 5, lambda: ListGroupsRequest(types_filter=["classic"]), lambda r: sorted(g.group_id for g in r.groups),
                        ["ga", "gz"], ["gz"]),
    # alice may delete the group's offsets but not read topic "u"; bob may not touch the group.
    "offset_delete": Case(
        47, 0,
        lambda: OffsetDeleteRequest(group_id="ga", topics=[OffsetDeleteRequestTopic(name="u", partitions=[
            OffsetDeleteRequestPartition(partition_index=0)])]),
        lambda r: (r.error_code, [p.error_code for t in r.topics for p in t.partitions]),
        (ErrorCode.NONE, [ErrorCode.TOPIC_AUTHORIZATION_FAILED]), (ErrorCode.GROUP_AUTHORIZATION_FAILED, [])),
    "delete_records": Case(
        21, 2,
        lambda: DeleteRecordsRequest(timeout_ms=10_000, topics=[DeleteRecordsTopic(name="t", partitions=[
            DeleteRecordsPartition(partition_index=0, offset=0)])]),
        lambda r: r.topics[0].partitions[0].error_code, ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    "create_partitions": Case(
        37, 3,
        lambda: CreatePartitionsRequest(timeout_ms=10_000, validate_only=True, topics=[
            CreatePartitionsTopic(name="t", count=1, assignments=None)]),
        lambda r: (r.results[0].error_code, r.results[0].error_message),
        (ErrorCode.INVALID_PARTITIONS, "Topic already has 1 partition(s)."),
        (ErrorCode.TOPIC_AUTHORIZATION_FAILED, "The topic authorization is failed.")),
    "describe_producers": Case(
        61, 0, lambda: DescribeProducersRequest(topics=[TopicRequest(name="t", partition_indexes=[0])]),
        lambda r: r.topics[0].partitions[0].error_code, ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    "list_transactions": Case(66, 0, lambda: ListTransactionsRequest(),
                              lambda r: sorted(t.transactional_id for t in r.transaction_states), ["ta"], []),
    "describe_transactions": Case(65, 0, lambda: DescribeTransactionsRequest(transactional_ids=["ta"]),
                                  lambda r: r.transaction_states[0].error_code,
                                  ErrorCode.NONE, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
    "offset_for_leader_epoch": Case(
        23, 4,
        lambda: OffsetForLeaderEpochRequest(topics=[OffsetForLeaderTopic(topic="u", partitions=[
            OffsetForLeaderPartition(partition=0, leader_epoch=0)])]),
        lambda r: r.topics[0].partitions[0].error_code, ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    "describe_topic_partitions_named": Case(
        75, 0, lambda: DescribeTopicPartitionsRequest(topics=[PartitionsTopicRequest(name="u")]),
        lambda r: [(t.name, t.error_code) for t in r.topics],
        [("u", ErrorCode.NONE)], [("u", ErrorCode.TOPIC_AUTHORIZATION_FAILED)]),
    "describe_topic_partitions_all": Case(
        75, 0, lambda: DescribeTopicPartitionsRequest(), lambda r: [t.name for t in r.topics], ["t", "u"], ["t"]),
    "consumer_group_heartbeat": Case(
        68, 0,
        lambda: ConsumerGroupHeartbeatRequest(group_id="gc", member_id="m-alice", member_epoch=0,
                                              rebalance_timeout_ms=60_000, subscribed_topic_names=["t"],
                                              topic_partitions=[]),
        lambda r: r.error_code, ErrorCode.NONE, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "consumer_group_heartbeat_hidden_topic": Case(
        68, 0,
        lambda: ConsumerGroupHeartbeatRequest(group_id="gc", member_id="m-alice-2", member_epoch=0,
                                              rebalance_timeout_ms=60_000, subscribed_topic_names=["t", "secret"],
                                              topic_partitions=[]),
        lambda r: r.error_code, ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "consumer_group_describe": Case(69, 0, lambda: ConsumerGroupDescribeRequest(group_ids=["ge"]),
                                    lambda r: r.groups[0].error_code,
                                    ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    "describe_configs_topic": Case(
        32, 4, lambda: DescribeConfigsRequest(resources=[DescribeConfigsResource(
            resource_type=CONFIG_TOPIC, resource_name="t", configuration_keys=["cleanup.policy"])]),
        lambda r: (r.results[0].error_code, [c.name for c in r.results[0].configs]),
        (ErrorCode.NONE, ["cleanup.policy"]), (ErrorCode.TOPIC_AUTHORIZATION_FAILED, [])),
    "describe_configs_broker": Case(
        32, 4, lambda: DescribeConfigsRequest(resources=[DescribeConfigsResource(
            resource_type=CONFIG_BROKER, resource_name="1", configuration_keys=["log.retention.ms"])]),
        lambda r: (r.results[0].error_code, [c.name for c in r.results[0].configs]),
        (ErrorCode.NONE, ["log.retention.ms"]), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, [])),
    "alter_configs_topic": Case(
        33, 2, lambda: AlterConfigsRequest(validate_only=True, resources=[AlterConfigsResource(
            resource_type=CONFIG_TOPIC, resource_name="t", configs=[])]),
        lambda r: r.responses[0].error_code, ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    "incremental_alter_configs_group": Case(
        44, 1, lambda: IncrementalAlterConfigsRequest(validate_only=True, resources=[IncrementalResource(
            resource_type=CONFIG_GROUP, resource_name="gc",
            configs=[AlterableConfig(name="consumer.session.timeout.ms", config_operation=0, value="45000")])]),
        lambda r: r.responses[0].error_code, ErrorCode.NONE, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    # alice has ALTER_CONFIGS on topics and groups but not on the cluster, which broker resources need.
    "incremental_alter_configs_broker": Case(
        44, 1, lambda: IncrementalAlterConfigsRequest(validate_only=True, resources=[IncrementalResource(
            resource_type=CONFIG_BROKER, resource_name="", configs=[])]),
        lambda r: r.responses[0].error_code, ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "offset_fetch_named": Case(
        9, 8,
        lambda: OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id="ga", topics=[
            OffsetFetchRequestTopics(name=n, partition_indexes=[0]) for n in ["t", "secret"]])]),
        _fetched_v8,
        (ErrorCode.NONE, [("secret", 0, -1, ErrorCode.TOPIC_AUTHORIZATION_FAILED), ("t", 0, 0, ErrorCode.NONE)]),
        (ErrorCode.GROUP_AUTHORIZATION_FAILED, [])),
    "offset_fetch_all_topics": Case(
        9, 8, lambda: OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id="ga", topics=None)]),
        _fetched_v8, (ErrorCode.NONE, [("t", 0, 0, ErrorCode.NONE)]), (ErrorCode.GROUP_AUTHORIZATION_FAILED, [])),
    # Before v2 the group's error is carried by each partition asked for.
    "offset_fetch_v1": Case(
        9, 1, lambda: OffsetFetchRequest(group_id="ga", topics=[OffsetFetchRequestTopic(name="t", partition_indexes=[0])]),
        lambda r: [(p.committed_offset, p.error_code) for t in r.topics for p in t.partitions],
        [(0, ErrorCode.NONE)], [(-1, ErrorCode.GROUP_AUTHORIZATION_FAILED)]),
    # No refusal: the cluster's operations are 0 without DESCRIBE on it; alice's are DESCRIBE,
    # ALTER and DESCRIBE_CONFIGS (bits 8, 7, 10).
    "describe_cluster": Case(60, 1, lambda: DescribeClusterRequest(include_cluster_authorized_operations=True),
                             lambda r: (r.error_code, r.cluster_authorized_operations),
                             (ErrorCode.NONE, 1 << 7 | 1 << 8 | 1 << 10), (ErrorCode.NONE, 0)),
    # DESCRIBE_CONFIGS on the cluster (KafkaApis.handleDescribeClientQuotas).
    "describe_client_quotas": Case(48, 1, lambda: DescribeClientQuotasRequest(components=[], strict=False),
                                   lambda r: (r.error_code, r.entries),
                                   (ErrorCode.NONE, []), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None)),
    # CLUSTER DESCRIBE_CONFIGS (KafkaApis.handleListConfigResources).
    "list_config_resources": Case(74, 1, lambda: ListConfigResourcesRequest(resource_types=[CONFIG_BROKER]),
                                  lambda r: (r.error_code, [(c.resource_type, c.resource_name) for c in r.config_resources]),
                                  (ErrorCode.NONE, [(CONFIG_BROKER, "1")]), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, [])),
    "describe_configs_broker_logger": Case(
        32, 4, lambda: DescribeConfigsRequest(resources=[DescribeConfigsResource(8, "1", ["root"])]),
        lambda r: (r.results[0].error_code, [c.name for c in r.results[0].configs]),
        (ErrorCode.NONE, ["root"]), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, [])),
    # CLUSTER DESCRIBE and ALTER at Kafka's controller (ControllerApis).
    "describe_quorum": Case(55, 2, lambda: DescribeQuorumRequest(topics=[
        QuorumTopic("__cluster_metadata", [QuorumPartition(0)])]),
        lambda r: (r.error_code, r.error_message, [t.partitions[0].leader_id for t in r.topics]),
        (ErrorCode.NONE, "", [1]), (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.", [])),
    "unregister_broker": Case(64, 0, lambda: UnregisterBrokerRequest(broker_id=77), lambda r: r.error_code,
                              ErrorCode.BROKER_ID_NOT_REGISTERED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    "consumer_group_describe_hidden_topic": Case(69, 0, lambda: ConsumerGroupDescribeRequest(group_ids=["gh"]),
                                                 lambda r: (r.groups[0].error_code, r.groups[0].members),
                                                 (ErrorCode.TOPIC_AUTHORIZATION_FAILED, []),
                                                 (ErrorCode.GROUP_AUTHORIZATION_FAILED, [])),
}


@pytest.fixture(scope="module")
def matrix_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = _start(tmp_path_factory.mktemp("acl-matrix"))
    try:
        with broker.login("admin") as admin:
            created: Any = admin.call(30, 3, CreateAclsRequest(creations=ACLS))
            assert [r.error_code for r in created.results] == [0] * len(ACLS)
            topics: Any = admin.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
                CreatableTopic(name=n, num_partitions=1, replication_factor=1) for n in ["t", "u", "hidden"]]))
            assert [t.error_code for t in topics.topics] == [0, 0, 0]
            for group in GROUPS:
                committed: Any = admin.call(8, 2, OffsetCommitRequest(
                    group_id=group, generation_id_or_member_epoch=-1, member_id="", retention_time_ms=-1,
                    topics=[OffsetCommitRequestTopic(name=name, partitions=[
                        OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])
                        for name in COMMITTED_TOPICS]))
                assert [t.partitions[0].error_code for t in committed.topics] == [0, 0]
            # A consumer group whose member is assigned a topic alice may not describe.
            joined: Any = admin.call(68, 0, ConsumerGroupHeartbeatRequest(
                group_id="gh", member_id="m-admin", member_epoch=0, rebalance_timeout_ms=60_000,
                subscribed_topic_names=["hidden"], topic_partitions=[]))
            assert joined.error_code == 0
            for tid in TXN_IDS:
                pid: Any = admin.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))
                assert pid.error_code == 0
        yield broker
    finally:
        broker.process.close()


@pytest.mark.parametrize("name", sorted(CASES))
def test_allowed_and_denied(matrix_broker: AclBroker, name: str) -> None:
    case = CASES[name]
    with matrix_broker.login("bob") as bob:
        assert case.code(bob.call(case.api_key, case.version, case.request())) == case.denied
    with matrix_broker.login("alice") as alice:
        assert case.code(alice.call(case.api_key, case.version, case.request())) == case.allowed
