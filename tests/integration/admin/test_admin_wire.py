"""Topic and config administration at the wire level: exact per-version fields, error codes
and messages, against the real broker process."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterator

import pytest

from protocol.codec import ZERO_UUID, Reader
from protocol.errors import ErrorCode
from protocol.messages.alter_configs_request import AlterableConfig, AlterConfigsRequest, AlterConfigsResource
from protocol.messages.alter_configs_response import AlterConfigsResponse
from protocol.messages.create_partitions_request import (
    CreatePartitionsAssignment,
    CreatePartitionsRequest,
    CreatePartitionsTopic,
)
from protocol.messages.create_partitions_response import CreatePartitionsResponse
from protocol.messages.create_topics_request import (
    CreatableReplicaAssignment,
    CreatableTopic,
)
from protocol.messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from protocol.messages.delete_topics_response import DeleteTopicsResponse
from protocol.messages.describe_cluster_request import DescribeClusterRequest
from protocol.messages.describe_cluster_response import DescribeClusterResponse
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.describe_quorum_request import DescribeQuorumRequest
from protocol.messages.describe_quorum_request import PartitionData as QuorumPartition
from protocol.messages.describe_quorum_request import TopicData as QuorumTopic
from protocol.messages.describe_quorum_response import DescribeQuorumResponse
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig as IncrementalConfig,
)
from protocol.messages.incremental_alter_configs_request import (
    AlterConfigsResource as IncrementalResource,
)
from protocol.messages.incremental_alter_configs_request import (
    IncrementalAlterConfigsRequest,
)
from protocol.messages.incremental_alter_configs_response import IncrementalAlterConfigsResponse
from protocol.messages.list_config_resources_request import ListConfigResourcesRequest
from protocol.messages.list_config_resources_response import ListConfigResourcesResponse
from protocol.messages.unregister_broker_request import UnregisterBrokerRequest
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import (
    ALTER_CONFIGS,
    BROKER,
    CREATE_PARTITIONS,
    DELETE_TOPICS,
    DESCRIBE_CLUSTER,
    DESCRIBE_CONFIGS,
    INCREMENTAL_ALTER_CONFIGS,
    TOPIC,
    create,
    describe,
    topic,
    topic_exists,
)
from tests.kafka_wire import WireClient
from tests.names import unique

DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5


# --- CreateTopics ---------------------------------------------------------------------


@pytest.fixture
def client(broker: BrokerProcess) -> Iterator[WireClient]:
    with WireClient(broker.bootstrap) as c:
        yield c


def test_create_topics_v0_answers_only_name_and_code(client: WireClient) -> None:
    name = unique()
    [result] = create(client, topic(name, 3), version=0)
    assert (result.name, result.error_code) == (name, 0)
    [again] = create(client, topic(name, 3), version=0)
    assert again.error_code == ErrorCode.TOPIC_ALREADY_EXISTS


def test_create_topics_v5_returns_partitions_replication_and_configs(client: WireClient) -> None:
    name = unique()
    [result] = create(client, topic(name, 3, retention_ms="12345"), version=5)
    assert (result.error_code, result.error_message) == (0, None)
    assert (result.num_partitions, result.replication_factor) == (3, 1)
    assert result.topic_id == ZERO_UUID  # v7+
    configs = {c.name: c for c in result.configs or []}
    assert configs["retention.ms"].value == "12345"
    assert configs["retention.ms"].config_source == DYNAMIC_TOPIC_CONFIG
    assert configs["cleanup.policy"].value == "delete"
    assert configs["cleanup.policy"].config_source == DEFAULT_CONFIG
    assert not configs["cleanup.policy"].read_only and not configs["cleanup.policy"].is_sensitive


def test_create_topics_v7_returns_the_topic_id_and_defaults_apply(client: WireClient) -> None:
    name = unique()
    [result] = create(client, CreatableTopic(name=name, num_partitions=-1, replication_factor=-1))
    assert result.error_code == 0 and result.topic_id != ZERO_UUID
    assert (result.num_partitions, result.replication_factor) == (
        1,
        1,
    )  # num.partitions, default.replication.factor


def test_create_topics_errors_carry_kafkas_codes_and_messages(client: WireClient) -> None:
    existing = unique()
    create(client, topic(existing))
    dup = unique()
    results = create(
        client,
        topic("bad name"),
        topic(""),
        topic(".."),
        topic("x" * 250),
        topic(existing),
        topic(unique(), rf=3),
        topic(unique(), rf=0),
        topic(unique(), partitions=0),
        topic(unique(), retention_ms="abc"),
        topic(unique(), no_such_config="1"),
        topic(dup),
        topic(dup),
        version=4,
    )
    got = [(r.error_code, r.error_message) for r in results]
    # Kafka 4.0's Topic.validate texts.
    assert got[0] == (
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, "
        "'.', '_' and '-'",
    )
    assert got[1][0] == got[2][0] == got[3][0] == ErrorCode.INVALID_TOPIC_EXCEPTION
    assert got[1][1] == "Topic name is invalid: the empty string is not allowed"
    assert got[2][1] == "Topic name is invalid: '..' is not allowed"
    assert got[3][1] == f"Topic name is invalid: the length of '{'x' * 250}' is longer than the max allowed length 249"
    assert got[4] == (ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{existing}' already exists.")
    assert got[5] == (
        ErrorCode.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached "
        "because only 1 broker(s) are registered.",
    )
    assert got[6] == (
        ErrorCode.INVALID_REPLICATION_FACTOR,
        "Replication factor must be larger than 0, or -1 to use the default value.",
    )
    assert got[7] == (
        ErrorCode.INVALID_PARTITIONS,
        "Number of partitions was set to an invalid non-positive value.",
    )
    assert got[8][0] == ErrorCode.INVALID_CONFIG and "retention.ms" in (got[8][1] or "")
    assert got[9] == (ErrorCode.INVALID_CONFIG, "Unknown topic config name: no.such.config")
    # Each duplicated name is answered once, after the others, and none is created.
    assert len(results) == 11
    assert (results[-1].name, *got[-1]) == (dup, ErrorCode.INVALID_REQUEST, "Duplicate topic name.")
    assert not topic_exists(client, dup)


def test_create_topics_refuses_names_colliding_on_dot_and_underscore(client: WireClient) -> None:
    base = unique("c")
    create(client, topic(f"{base}.x"))
    [result] = create(client, topic(f"{base}_x"))
    assert (result.error_code, result.error_message) == (
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        f"Topic '{base}_x' collides with existing topic: {base}.x",
    )


def test_create_topics_validate_only_creates_nothing(client: WireClient) -> None:
    name = unique()
    [result] = create(client, topic(name, 4, cleanup_policy="compact"), validate_only=True)
    assert (result.error_code, result.num_partitions) == (0, 4)
    assert {c.name: c.value for c in result.configs or []}["cleanup.policy"] == "compact"
    assert not topic_exists(client, name)
    [real] = create(client, topic(name, 4))
    assert real.error_code == 0


def test_create_topics_manual_assignments(client: WireClient) -> None:
    def assigned(*replicas: list[int]) -> CreatableTopic:
        return CreatableTopic(
            name=unique(),
            num_partitions=-1,
            replication_factor=-1,
            assignments=[CreatableReplicaAssignment(i, r) for i, r in enumerate(replicas)],
        )

    [ok] = create(client, assigned([1], [1]))
    assert (ok.error_code, ok.num_partitions) == (0, 2)
    [other_broker] = create(client, assigned([2]))
    assert (other_broker.error_code, other_broker.error_message) == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "The manual partition assignment includes broker 2, but no such broker is registered.",
    )
    [twice] = create(client, assigned([1, 1]))
    assert twice.error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    [empty] = create(client, assigned([]))
    assert empty.error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    with_rf = assigned([1])
    with_rf.replication_factor = 1
    [rf_set] = create(client, with_rf)
    assert rf_set.error_code == ErrorCode.INVALID_REQUEST


# --- DeleteTopics ---------------------------------------------------------------------


def test_delete_topics_v6_by_id_and_by_name(client: WireClient) -> None:
    a, b = unique(), unique()
    [ra, _rb] = create(client, topic(a), topic(b))
    missing = uuid.uuid4()
    request = DeleteTopicsRequest(
        topics=[
            DeleteTopicState(topic_id=ra.topic_id),
            DeleteTopicState(name=b),
            DeleteTopicState(topic_id=missing),
            DeleteTopicState(name="no-such-topic"),
            DeleteTopicState(name=b, topic_id=ra.topic_id),
        ]
    )
    response = client.call(DELETE_TOPICS, 6, request)
    assert isinstance(response, DeleteTopicsResponse)
    by_key = {(r.name, r.topic_id): (r.error_code, r.error_message) for r in response.responses}
    assert by_key[(a, ra.topic_id)] == (0, None)
    assert by_key[(None, missing)] == (ErrorCode.UNKNOWN_TOPIC_ID, "This server does not host this topic ID.")
    assert by_key[("no-such-topic", ZERO_UUID)] == (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        "This server does not host this topic-partition.",
    )
    assert by_key[(b, ra.topic_id)] == (
        ErrorCode.INVALID_REQUEST,
        "You may not specify both topic name and topic id.",
    )
    assert [k for k, v in by_key.items() if k[0] == b and v[0] == 0]
    assert not topic_exists(client, a) and not topic_exists(client, b)
    [recreated] = create(client, topic(a))
    assert recreated.error_code == 0 and recreated.topic_id != ra.topic_id


def test_delete_topics_v1_by_name_and_duplicates(client: WireClient) -> None:
    name = unique()
    create(client, topic(name))
    response = client.call(DELETE_TOPICS, 1, DeleteTopicsRequest(topic_names=[name, name]))
    assert isinstance(response, DeleteTopicsResponse)
    assert [(r.name, r.error_code) for r in response.responses] == [(name, ErrorCode.INVALID_REQUEST)]
    assert topic_exists(client, name)
    response = client.call(DELETE_TOPICS, 1, DeleteTopicsRequest(topic_names=[name]))
    assert [(r.name, r.error_code) for r in response.responses] == [(name, 0)]


def test_delete_topics_refuses_internal_topics(fresh_broker: BrokerProcess) -> None:
    # The coordinators keep their logs open, so unlike Kafka the broker refuses.
    with WireClient(fresh_broker.bootstrap) as client:
        _refuse_internal(client)


def _refuse_internal(client: WireClient) -> None:
    if not topic_exists(client, "__transaction_state"):
        create(client, topic("__transaction_state"))
    response = client.call(DELETE_TOPICS, 5, DeleteTopicsRequest(topic_names=["__transaction_state"]))
    assert isinstance(response, DeleteTopicsResponse)
    assert [(r.error_code, r.error_message) for r in response.responses] == [
        (ErrorCode.INVALID_TOPIC_EXCEPTION, "Cannot delete internal topic __transaction_state")
    ]
    assert topic_exists(client, "__transaction_state")


def test_delete_topics_disabled(tmp_path: object) -> None:
    from pathlib import Path

    proc = BrokerProcess(Path(str(tmp_path)) / "data", overrides={"delete.topic.enable": "false"})
    proc.start()
    try:
        with WireClient(proc.bootstrap) as c:
            name = unique()
            create(c, topic(name))
            old = c.call(DELETE_TOPICS, 2, DeleteTopicsRequest(topic_names=[name]))
            new = c.call(DELETE_TOPICS, 6, DeleteTopicsRequest(topics=[DeleteTopicState(name=name)]))
            assert isinstance(old, DeleteTopicsResponse) and isinstance(new, DeleteTopicsResponse)
            assert [r.error_code for r in old.responses] == [ErrorCode.INVALID_REQUEST]
            assert [r.error_code for r in new.responses] == [ErrorCode.TOPIC_DELETION_DISABLED]
            assert topic_exists(c, name)
    finally:
        proc.stop()


# --- CreatePartitions -----------------------------------------------------------------


def test_create_partitions_increase_only(client: WireClient) -> None:
    name = unique()
    create(client, topic(name, 2))

    def grow(
        count: int, validate_only: bool = False, assignments: list[list[int]] | None = None
    ) -> tuple[int, str | None]:
        t = CreatePartitionsTopic(
            name=name,
            count=count,
            assignments=None if assignments is None else [CreatePartitionsAssignment(a) for a in assignments],
        )
        response = client.call(
            CREATE_PARTITIONS, 3, CreatePartitionsRequest(topics=[t], validate_only=validate_only)
        )
        assert isinstance(response, CreatePartitionsResponse)
        [result] = response.results
        return result.error_code, result.error_message

    assert grow(2) == (ErrorCode.INVALID_PARTITIONS, "Topic already has 2 partition(s).")
    assert grow(1) == (
        ErrorCode.INVALID_PARTITIONS,
        f"The topic {name} currently has 2 partition(s); 1 would not be an increase.",
    )
    assert grow(5, validate_only=True) == (0, None)
    assert grow(3, assignments=[[1], [1]]) == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "Attempted to add 1 additional partition(s), but only 2 assignment(s) were specified.",
    )
    assert grow(3, assignments=[[1, 1]])[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert grow(4, assignments=[[1], [1]]) == (0, None)
    assert grow(4) == (
        ErrorCode.INVALID_PARTITIONS,
        "Topic already has 4 partition(s).",
    )  # validate_only left 2→4 only
    response = client.call(
        CREATE_PARTITIONS,
        0,
        CreatePartitionsRequest(topics=[CreatePartitionsTopic(name="no-such-topic", count=2)]),
    )
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None)
    ]


# --- DescribeConfigs ------------------------------------------------------------------


def test_describe_configs_v0_carries_is_default(client: WireClient) -> None:
    name = unique()
    create(client, topic(name, retention_ms="5000"))
    request = DescribeConfigsRequest(
        resources=[DescribeConfigsResource(TOPIC, name, ["retention.ms", "cleanup.policy"])]
    )
    client.send(DESCRIBE_CONFIGS, 0, request)
    frame = client.recv_frame()
    r = Reader(frame, 4)  # after the correlation id
    assert r.int32() == 0  # throttle
    assert r.array_length() == 1
    assert (r.int16(), r.nullable_string(), r.int8(), r.string()) == (0, "", TOPIC, name)  # Kafka 3.x+ leaves the message at its default ""
    entries = {}
    for _ in range(r.array_length()):
        entry_name = r.string()
        entries[entry_name] = (r.nullable_string(), r.boolean(), r.boolean(), r.boolean())
    assert r.remaining() == 0
    # (value, read_only, is_default, is_sensitive)
    assert entries == {
        "retention.ms": ("5000", False, False, False),
        "cleanup.policy": ("delete", False, True, False),
    }
    assert struct.unpack(">i", frame[:4])[0] == client.correlation_id


def test_describe_configs_sources_synonyms_and_documentation(client: WireClient) -> None:
    name = unique()
    create(client, topic(name, retention_ms="5000"))
    v1 = describe(client, TOPIC, name, ["retention.ms", "segment.bytes"], version=1, include_synonyms=True)
    rows = {c.name: c for c in v1.configs}
    assert rows["retention.ms"].config_source == DYNAMIC_TOPIC_CONFIG
    # Kafka's log.retention.ms has no default (log.retention.hours supplies it), so the
    # override is the only synonym, while segment.bytes has its broker default.
    assert [(s.name, s.value, s.source) for s in rows["retention.ms"].synonyms] == [
        ("retention.ms", "5000", DYNAMIC_TOPIC_CONFIG),
    ]
    assert rows["segment.bytes"].config_source == DEFAULT_CONFIG
    assert [(s.name, s.value, s.source) for s in rows["segment.bytes"].synonyms] == [
        ("log.segment.bytes", "1073741824", DEFAULT_CONFIG),
    ]
    plain = describe(client, TOPIC, name, ["retention.ms"], version=3)
    assert plain.configs[0].synonyms == [] and plain.configs[0].documentation is not None
    assert plain.configs[0].config_type == 5  # LONG
    everything = describe(client, TOPIC, name, None, version=4)
    assert len(everything.configs) > 20


def test_describe_configs_broker_and_errors(client: WireClient) -> None:
    this = describe(client, BROKER, "1", ["num.partitions", "delete.topic.enable", "no.such"])
    assert {(c.name, c.value, c.read_only, c.config_source) for c in this.configs} == {
        ("num.partitions", "1", True, DEFAULT_CONFIG),
        ("delete.topic.enable", "true", True, DEFAULT_CONFIG),
    }
    assert {c.documentation for c in this.configs if c.name == "num.partitions"} == {
        "Partitions of an auto-created topic."
    }
    listeners = describe(client, BROKER, "1", ["listeners"]).configs[0]
    assert listeners.config_source == STATIC_BROKER_CONFIG
    assert describe(client, BROKER, "").configs == []  # no dynamic cluster-wide defaults
    wrong = describe(client, BROKER, "7")
    assert (wrong.error_code, wrong.error_message) == (
        ErrorCode.INVALID_REQUEST,
        "Unexpected broker id, expected 1 or empty string, but received 7",
    )
    assert describe(client, TOPIC, "no-such-topic").error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert describe(client, TOPIC, "bad name").error_code == ErrorCode.INVALID_TOPIC_EXCEPTION
    # Apache Kafka 4.0.0's messages: the schema's default "" where its ConfigHelper sets none
    # (kafkajs 2.2.4's describeConfigs spec, written for older brokers, expects null).
    name = unique()
    create(client, topic(name))
    assert [(r.error_code, r.error_message) for r in (
        this, describe(client, BROKER, ""), describe(client, TOPIC, name), describe(client, TOPIC, "no-such-topic")
    )] == [(ErrorCode.NONE, "")] * 3 + [(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "")]
    assert describe(client, TOPIC, "bad name").error_message == (
        "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, "
        "'.', '_' and '-'"
    )


# --- AlterConfigs / IncrementalAlterConfigs -------------------------------------------


def overrides(client: WireClient, name: str) -> dict[str, str | None]:
    result = describe(client, TOPIC, name)
    return {c.name: c.value for c in result.configs if c.config_source == DYNAMIC_TOPIC_CONFIG}


def test_alter_configs_replaces_all_overrides(client: WireClient) -> None:
    name = unique()
    create(client, topic(name, retention_ms="5000", segment_ms="100000"))

    def alter(
        configs: dict[str, str], validate_only: bool = False, rtype: int = TOPIC, rname: str = name
    ) -> tuple[int, str | None]:
        resource = AlterConfigsResource(rtype, rname, [AlterableConfig(k, v) for k, v in configs.items()])
        response = client.call(
            ALTER_CONFIGS, 2, AlterConfigsRequest(resources=[resource], validate_only=validate_only)
        )
        assert isinstance(response, AlterConfigsResponse)
        return response.responses[0].error_code, response.responses[0].error_message

    assert alter({"max.message.bytes": "2000"}, validate_only=True) == (0, None)
    assert overrides(client, name) == {"retention.ms": "5000", "segment.ms": "100000"}
    assert alter({"max.message.bytes": "2000"}) == (0, None)
    assert overrides(client, name) == {"max.message.bytes": "2000"}
    assert alter({"retention.ms": "soon"})[0] == ErrorCode.INVALID_CONFIG
    assert alter({"retention.ms": "1"}, rname="no-such-topic") == (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        "The topic 'no-such-topic' does not exist.",
    )
    assert alter({"num.partitions": "3"}, rtype=BROKER, rname="1") == (
        ErrorCode.INVALID_REQUEST,
        "Cannot update these configs dynamically: Set(num.partitions)",
    )
    assert alter({}, rtype=BROKER, rname="2") == (
        ErrorCode.INVALID_REQUEST,
        "Unexpected broker id, expected 1, but received 2",
    )
    assert overrides(client, name) == {"max.message.bytes": "2000"}


def test_incremental_alter_configs_operations(client: WireClient) -> None:
    name = unique()
    create(client, topic(name, retention_ms="5000"))

    def alter(
        *ops: tuple[str, int, str | None], validate_only: bool = False, rtype: int = TOPIC
    ) -> tuple[int, str | None]:
        resource = IncrementalResource(
            rtype, name if rtype == TOPIC else "1", [IncrementalConfig(n, op, v) for n, op, v in ops]
        )
        request = IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only)
        response = client.call(INCREMENTAL_ALTER_CONFIGS, 1, request)
        assert isinstance(response, IncrementalAlterConfigsResponse)
        return response.responses[0].error_code, response.responses[0].error_message

    assert alter(("segment.ms", 0, "100000"), ("retention.ms", 1, None)) == (0, None)
    assert overrides(client, name) == {"segment.ms": "100000"}
    assert alter(("cleanup.policy", 2, "compact")) == (0, None)
    assert overrides(client, name)["cleanup.policy"] == "delete,compact"
    assert alter(("cleanup.policy", 3, "delete")) == (0, None)
    assert overrides(client, name)["cleanup.policy"] == "compact"
    assert alter(("retention.ms", 2, "1")) == (
        ErrorCode.INVALID_CONFIG,
        "Can't APPEND to key retention.ms because its type is not LIST.",
    )
    assert alter(("retention.ms", 0, None)) == (
        ErrorCode.INVALID_REQUEST,
        "Null value not supported for : retention.ms",
    )
    assert alter(("retention.ms", 0, "1"), ("retention.ms", 1, None)) == (
        ErrorCode.INVALID_REQUEST,
        "Error due to duplicate config keys",
    )
    assert alter(("retention.ms", 0, "1"), validate_only=True) == (0, None)
    assert "retention.ms" not in overrides(client, name)
    assert alter(("num.partitions", 0, "2"), rtype=BROKER)[0] == ErrorCode.INVALID_REQUEST
    assert alter(("num.partitions", 1, None), rtype=BROKER) == (0, None)


# --- DescribeCluster ------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1, 2])
def test_describe_cluster(client: WireClient, broker: BrokerProcess, version: int) -> None:
    request = DescribeClusterRequest(include_cluster_authorized_operations=True, include_fenced_brokers=True)
    response = client.call(DESCRIBE_CLUSTER, version, request)
    assert isinstance(response, DescribeClusterResponse)
    assert response.error_code == 0 and response.cluster_id
    assert response.controller_id == 1
    assert [(b.broker_id, b.host, b.port, b.is_fenced) for b in response.brokers] == [
        (1, "127.0.0.1", broker.port, False)
    ]
    assert response.cluster_authorized_operations > 0


def test_describe_cluster_controller_endpoints_are_not_served_here(client: WireClient) -> None:
    response = client.call(DESCRIBE_CLUSTER, 1, DescribeClusterRequest(endpoint_type=2))
    assert isinstance(response, DescribeClusterResponse)
    assert response.error_code == ErrorCode.MISMATCHED_ENDPOINT_TYPE
    response = client.call(DESCRIBE_CLUSTER, 1, DescribeClusterRequest(endpoint_type=9))
    assert response.error_code == ErrorCode.UNSUPPORTED_ENDPOINT_TYPE


# --- ListConfigResources --------------------------------------------------------------


def test_list_config_resources_by_version_and_type(client: WireClient) -> None:
    name, group = unique(), unique("g")
    create(client, topic(name))
    altered = client.call(INCREMENTAL_ALTER_CONFIGS, 1, IncrementalAlterConfigsRequest(resources=[
        IncrementalResource(32, group, [IncrementalConfig("consumer.session.timeout.ms", 0, "50000")])]))
    assert altered.responses[0].error_code == ErrorCode.NONE

    def listed(version: int, *types: int) -> tuple[int, list[tuple[int, str]]]:
        response = client.call(74, version, ListConfigResourcesRequest(resource_types=list(types)))
        assert isinstance(response, ListConfigResourcesResponse)
        return response.error_code, [(r.resource_type, r.resource_name) for r in response.config_resources]

    # v0 (ListClientMetricsResources): client metrics subscriptions only, and none are kept.
    assert listed(0) == (ErrorCode.NONE, [])
    code, everything = listed(1)
    assert code == ErrorCode.NONE
    assert (32, group) in everything and (TOPIC, name) in everything
    assert [r for r in everything if r[0] in (BROKER, 8)] == [(8, "1"), (BROKER, "1")]
    assert listed(1, BROKER, 8) == (ErrorCode.NONE, [(8, "1"), (BROKER, "1")])
    code, topics = listed(1, TOPIC)
    assert code == ErrorCode.NONE and (TOPIC, name) in topics and {t for t, _ in topics} == {TOPIC}
    # A type the version does not know fails the whole request, as Kafka's KafkaApis does.
    assert listed(1, TOPIC, 1) == (ErrorCode.UNSUPPORTED_VERSION, [])


# --- DescribeQuorum, UnregisterBroker -------------------------------------------------


def test_describe_quorum_of_one_voter_and_kafkas_refusals(client: WireClient, broker: BrokerProcess) -> None:
    def quorum(version: int, *partitions: tuple[str, int]) -> DescribeQuorumResponse:
        topics: dict[str, list[QuorumPartition]] = {}
        for name, index in partitions:
            topics.setdefault(name, []).append(QuorumPartition(index))
        response = client.call(55, version, DescribeQuorumRequest(topics=[QuorumTopic(n, p) for n, p in topics.items()]))
        assert isinstance(response, DescribeQuorumResponse)
        return response

    described = quorum(2, ("__cluster_metadata", 0))
    (partition,) = described.topics[0].partitions
    assert (partition.error_code, partition.leader_id, partition.leader_epoch, partition.observers) == (0, 1, 1, [])
    (voter,) = partition.current_voters
    assert (voter.replica_id, voter.replica_directory_id, voter.log_end_offset) == (1, ZERO_UUID, partition.high_watermark)
    host, port = broker.bootstrap.rsplit(":", 1)
    assert [(n.node_id, [(x.host, x.port) for x in n.listeners]) for n in described.nodes] == [(1, [(host, int(port))])]
    # Kafka's RaftUtil.hasValidTopicPartition: anything but exactly the metadata partition
    # fails each partition asked for.
    for asked in ([("__cluster_metadata", 1)], [("other", 0)], [("__cluster_metadata", 0), ("__cluster_metadata", 1)]):
        refused = quorum(2, *asked)
        assert [(t.topic_name, p.partition_index, p.error_code, p.error_message)
                for t in refused.topics for p in t.partitions] == [
            (n, i, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")
            for n, i in asked]
    assert quorum(2).topics == []
    assert quorum(0, ("__cluster_metadata", 0)).topics[0].partitions[0].leader_id == 1

    unknown = client.call(64, 0, UnregisterBrokerRequest(broker_id=77))
    assert (unknown.error_code, unknown.error_message) == (ErrorCode.BROKER_ID_NOT_REGISTERED, "")
    assert client.call(64, 0, UnregisterBrokerRequest(broker_id=1)).error_code == ErrorCode.NONE
