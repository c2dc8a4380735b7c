"""ACLs on the real broker (Kafka's StandardAuthorizer): CreateAcls/DescribeAcls/DeleteAcls,
and the main APIs answered for one principal allowed and one denied, with literal and
prefixed patterns, DENY over ALLOW, super users and durable ACLs."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.alter_user_scram_credentials_request import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
)
from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.create_acls_request import CreateAclsRequest
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_acls_request import DeleteAclsFilter, DeleteAclsRequest
from protocol.messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from protocol.messages.describe_acls_request import DescribeAclsRequest
from protocol.messages.describe_user_scram_credentials_request import DescribeUserScramCredentialsRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.initialize_share_group_state_request import (
    InitializeShareGroupStateRequest,
    InitializeStateData,
)
from protocol.messages.initialize_share_group_state_request import PartitionData as InitPartition
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from protocol.messages.read_share_group_state_summary_request import PartitionData as SummaryPartition
from protocol.messages.read_share_group_state_summary_request import (
    ReadShareGroupStateSummaryRequest,
    ReadStateSummaryData,
)
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from tests.broker_process import BrokerProcess
from tests.integration.security.acl_wire import (
    ALL,
    ALLOW,
    ANY,
    CLUSTER,
    DENY,
    DESCRIBE,
    GROUP,
    LITERAL,
    MATCH,
    PREFIXED,
    READ,
    TOPIC,
    TXN_ID,
    WRITE,
    AclBroker,
    _acl,
    _start,
)
from tests.kafka_wire import WireClient

ACLS = [
    _acl(TOPIC, "orders", LITERAL, "User:alice", WRITE, ALLOW),
    _acl(TOPIC, "pay-", PREFIXED, "User:alice", READ, ALLOW),
    _acl(TOPIC, "pay-secret", LITERAL, "User:alice", READ, DENY),
    _acl(TXN_ID, "tx-alice", LITERAL, "User:alice", WRITE, ALLOW),
    _acl(GROUP, "g-", PREFIXED, "User:*", ALL, ALLOW),
]


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = _start(tmp_path_factory.mktemp("acl"))
    try:
        with broker.login("admin") as admin:
            created: Any = admin.call(30, 3, CreateAclsRequest(creations=ACLS))
            assert [r.error_code for r in created.results] == [0] * len(ACLS)
            topics: Any = admin.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
                CreatableTopic(name=n, num_partitions=1, replication_factor=1)
                for n in ["orders", "pay-1", "pay-secret", "other"]
            ]))
            assert [t.error_code for t in topics.topics] == [0, 0, 0, 0]
            _produce(admin, "pay-1")
            _produce(admin, "pay-secret")
        yield broker
    finally:
        broker.process.close()


def _produce(c: WireClient, topic: str) -> int:
    batch = rb.build_batch([rb.Record(b"k", b"v", [], int(time.time() * 1000))])
    resp: Any = c.call(0, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])]))
    return int(resp.responses[0].partition_responses[0].error_code)


def _fetch(c: WireClient, topic: str) -> int:
    resp: Any = c.call(1, 11, FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=1_000_000, topics=[
        FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=100_000)])]))
    return int(resp.responses[0].partitions[0].error_code)


def _metadata(c: WireClient, topics: list[str] | None) -> dict[str, int]:
    request = MetadataRequest(
        topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
        allow_auto_topic_creation=False,
    )
    resp: Any = c.call(3, 12, request)
    return {t.name: t.error_code for t in resp.topics}


def _init_pid(c: WireClient, tid: str | None) -> int:
    resp: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))
    return int(resp.error_code)


def test_without_authorizer_acl_apis_answer_security_disabled(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        created: Any = c.call(30, 3, CreateAclsRequest(creations=[ACLS[0]]))
        assert [(r.error_code, r.error_message) for r in created.results] == [
            (ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.")
        ]
        described: Any = c.call(29, 3, DescribeAclsRequest(resource_type_filter=ANY, pattern_type_filter=ANY,
                                                           operation=ANY, permission_type=ANY))
        assert (described.error_code, described.error_message) == (ErrorCode.SECURITY_DISABLED,
                                                                   "No Authorizer is configured on the broker")
        deleted: Any = c.call(31, 3, DeleteAclsRequest(filters=[DeleteAclsFilter(
            resource_type_filter=ANY, pattern_type_filter=ANY, operation=ANY, permission_type=ANY)]))
        assert [r.error_code for r in deleted.filter_results] == [ErrorCode.SECURITY_DISABLED]


def test_metadata_shows_only_describable_topics(acl_broker: AclBroker) -> None:
    with acl_broker.login("alice") as alice, acl_broker.login("bob") as bob:
        # DESCRIBE is implied by WRITE (orders) and READ (pay-*); denying READ does not deny it.
        assert _metadata(alice, None) == {"orders": 0, "pay-1": 0, "pay-secret": 0}
        assert _metadata(bob, None) == {}
        assert _metadata(bob, ["orders"]) == {"orders": ErrorCode.TOPIC_AUTHORIZATION_FAILED}
        assert _metadata(alice, ["other", "orders"]) == {"other": ErrorCode.TOPIC_AUTHORIZATION_FAILED, "orders": 0}
        # Unknown topics a principal may not describe look the same as existing ones.
        assert _metadata(bob, ["no-such"]) == {"no-such": ErrorCode.TOPIC_AUTHORIZATION_FAILED}
        resp: Any = alice.call(3, 10, MetadataRequest(topics=[MetadataRequestTopic(name="orders")],
                                                       include_topic_authorized_operations=True))
        assert resp.topics[0].topic_authorized_operations == (1 << WRITE) | (1 << DESCRIBE)


def test_produce_and_fetch_literal_prefixed_and_deny(acl_broker: AclBroker) -> None:
    with acl_broker.login("alice") as alice, acl_broker.login("bob") as bob, acl_broker.login("admin") as admin:
        assert _produce(alice, "orders") == 0
        assert _produce(bob, "orders") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
        assert _produce(alice, "pay-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED  # READ only
        assert _fetch(alice, "pay-1") == 0  # prefixed ALLOW
        assert _fetch(alice, "pay-secret") == ErrorCode.TOPIC_AUTHORIZATION_FAILED  # DENY wins
        assert _fetch(alice, "orders") == ErrorCode.TOPIC_AUTHORIZATION_FAILED  # WRITE does not give READ
        assert _fetch(bob, "pay-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
        # The super user needs no ACL.
        assert _fetch(admin, "pay-secret") == 0
        assert _produce(admin, "other") == 0


def test_producer_ids_and_cluster_actions(acl_broker: AclBroker) -> None:
    with acl_broker.login("alice") as alice, acl_broker.login("bob") as bob:
        assert _init_pid(alice, "tx-alice") == 0
        assert _init_pid(bob, "tx-alice") == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        assert _init_pid(alice, "tx-other") == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        # Idempotent producers: WRITE on some topic is enough (KIP-679), else IDEMPOTENT_WRITE.
        assert _init_pid(alice, None) == 0
        assert _init_pid(bob, None) == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        markers: Any = alice.call(27, 1, WriteTxnMarkersRequest(markers=[WritableTxnMarker(
            producer_id=1, producer_epoch=0, transaction_result=True, coordinator_epoch=0,
            topics=[WritableTxnMarkerTopic(name="orders", partition_indexes=[0])])]))
        assert markers.markers[0].topics[0].partitions[0].error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        scram: Any = alice.call(51, 0, AlterUserScramCredentialsRequest(
            deletions=[ScramCredentialDeletion(name="admin", mechanism=1)]))
        assert [(r.user, r.error_code) for r in scram.results] == [("admin", ErrorCode.CLUSTER_AUTHORIZATION_FAILED)]
        users: Any = alice.call(50, 0, DescribeUserScramCredentialsRequest(users=None))
        assert users.error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        denied: Any = alice.call(29, 3, DescribeAclsRequest(resource_type_filter=ANY, pattern_type_filter=ANY,
                                                            operation=ANY, permission_type=ANY))
        assert denied.error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        # The share coordinator's persister APIs are the brokers' (CLUSTER_ACTION, as KafkaApis).
        topic_id = uuid.uuid4()
        initialized: Any = alice.call(83, 0, InitializeShareGroupStateRequest(group_id="g-1", topics=[
            InitializeStateData(topic_id=topic_id, partitions=[InitPartition(partition=0, start_offset=0)])]))
        summary: Any = alice.call(87, 1, ReadShareGroupStateSummaryRequest(group_id="g-1", topics=[
            ReadStateSummaryData(topic_id=topic_id, partitions=[SummaryPartition(partition=0)])]))
        assert [p.error_code for t in initialized.results for p in t.partitions] == [
            ErrorCode.CLUSTER_AUTHORIZATION_FAILED]
        assert [p.error_code for t in summary.results for p in t.partitions] == [
            ErrorCode.CLUSTER_AUTHORIZATION_FAILED]


def _create(admin: WireClient, acls: list[Any], topics: list[str]) -> None:
    created: Any = admin.call(30, 3, CreateAclsRequest(creations=acls))
    assert [r.error_code for r in created.results] == [0] * len(acls)
    made: Any = admin.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
        CreatableTopic(name=n, num_partitions=1, replication_factor=1) for n in topics]))
    assert [t.error_code for t in made.topics] == [0] * len(topics)


def test_idempotent_producer_id_refused_when_a_prefixed_deny_covers_every_allow(tmp_path: Path) -> None:
    # Kafka's Authorizer.authorizeByResourceType: an ALLOW whose name a PREFIXED DENY of the
    # same operation starts is no topic the principal may write.
    broker = _start(tmp_path)
    try:
        with broker.login("admin") as admin:
            _create(admin, [
                _acl(TOPIC, "orders-eu", LITERAL, "User:alice", WRITE, ALLOW),
                _acl(TOPIC, "orders-", PREFIXED, "User:alice", WRITE, DENY),
                _acl(TOPIC, "pay-", PREFIXED, "User:bob", WRITE, ALLOW),
                _acl(TOPIC, "pay", PREFIXED, "User:bob", ALL, DENY),
            ], ["orders-eu", "pay-1"])
        with broker.login("alice") as alice, broker.login("bob") as bob:
            assert _produce(alice, "orders-eu") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
            assert _produce(bob, "pay-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
            assert _init_pid(alice, None) == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
            assert _init_pid(bob, None) == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        with broker.login("admin") as admin:
            # A LITERAL DENY of the same name does not cover a PREFIXED ALLOW.
            _create(admin, [_acl(TOPIC, "pay-", LITERAL, "User:bob", WRITE, DENY),
                            _acl(TOPIC, "logs-", PREFIXED, "User:bob", WRITE, ALLOW),
                            _acl(TOPIC, "logs-", LITERAL, "User:bob", WRITE, DENY)], [])
        with broker.login("bob") as bob:
            assert _init_pid(bob, None) == 0
    finally:
        broker.process.close()


def test_idempotent_producer_id_follows_allow_everyone_if_no_acl_found(tmp_path: Path) -> None:
    # With allow.everyone.if.no.acl.found, a topic no ACL names may be written by anyone, so an
    # idempotent producer gets its id though the cluster and some topics have ACLs (Kafka's
    # authorizeByResourceType first authorizes a topic named `hardcode`).
    broker = _start(tmp_path, {"allow.everyone.if.no.acl.found": "true"})
    try:
        with broker.login("admin") as admin:
            _create(admin, [
                _acl(CLUSTER, "kafka-cluster", LITERAL, "User:alice", DESCRIBE, ALLOW),
                _acl(TOPIC, "orders", LITERAL, "User:alice", WRITE, ALLOW),
            ], ["orders", "free"])
        with broker.login("bob") as bob:
            assert _produce(bob, "orders") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
            assert _produce(bob, "free") == 0
            assert _init_pid(bob, None) == 0
    finally:
        broker.process.close()


def test_acl_apis_filters_deletion_and_durability(tmp_path: Path) -> None:
    broker = _start(tmp_path)
    try:
        with broker.login("admin") as admin:
            created: Any = admin.call(30, 3, CreateAclsRequest(creations=[
                *ACLS, _acl(CLUSTER, "other-cluster", LITERAL, "User:bob", ALL, ALLOW),
                _acl(TOPIC, "t", LITERAL, "bob", READ, ALLOW),
            ]))
            assert [r.error_code for r in created.results] == [0] * len(ACLS) + [ErrorCode.INVALID_REQUEST] * 2
            # MATCH: every ACL that applies to the topic `pay-secret`.
            matched: Any = admin.call(29, 3, DescribeAclsRequest(
                resource_type_filter=TOPIC, resource_name_filter="pay-secret", pattern_type_filter=MATCH,
                principal_filter=None, host_filter=None, operation=ANY, permission_type=ANY))
            assert matched.error_code == 0
            assert sorted((r.resource_name, r.pattern_type, [(a.operation, a.permission_type) for a in r.acls])
                          for r in matched.resources) == [("pay-", PREFIXED, [(READ, ALLOW)]),
                                                          ("pay-secret", LITERAL, [(READ, DENY)])]
        broker.process.restart()
        with broker.login("admin") as admin, broker.login("alice") as alice:
            deleted: Any = admin.call(31, 3, DeleteAclsRequest(filters=[DeleteAclsFilter(
                resource_type_filter=TOPIC, resource_name_filter="pay-secret", pattern_type_filter=LITERAL,
                principal_filter=None, host_filter=None, operation=ANY, permission_type=DENY)]))
            (result,) = deleted.filter_results
            assert [(m.resource_name, m.principal, m.operation, m.permission_type) for m in result.matching_acls] == [
                ("pay-secret", "User:alice", READ, DENY)
            ]
            everything: Any = admin.call(29, 3, DescribeAclsRequest(
                resource_type_filter=ANY, pattern_type_filter=ANY, operation=ANY, permission_type=ANY,
                resource_name_filter=None, principal_filter=None, host_filter=None))
            assert sum(len(r.acls) for r in everything.resources) == len(ACLS) - 1
            assert _metadata(alice, ["pay-secret"]) == {"pay-secret": ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    finally:
        broker.process.close()


def test_groups_and_topic_admin(acl_broker: AclBroker) -> None:
    with acl_broker.login("alice") as alice, acl_broker.login("bob") as bob:
        # Groups: everyone may use `g-*` (prefixed, User:*); nobody else's group.
        joined: Any = bob.call(11, 5, JoinGroupRequest(
            group_id="h-bob", session_timeout_ms=10_000, rebalance_timeout_ms=10_000, member_id="",
            protocol_type="consumer", protocols=[JoinGroupRequestProtocol(name="range", metadata=b"")]))
        assert (joined.error_code, joined.generation_id, joined.member_id) == (
            ErrorCode.GROUP_AUTHORIZATION_FAILED, -1, "")
        assert bob.call(12, 3, HeartbeatRequest(group_id="h-bob", generation_id=1, member_id="m")).error_code == (
            ErrorCode.GROUP_AUTHORIZATION_FAILED)

        def commit(c: WireClient, group: str, topic: str) -> int:
            resp: Any = c.call(8, 8, OffsetCommitRequest(group_id=group, topics=[OffsetCommitRequestTopic(
                name=topic, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=0)])]))
            return int(resp.topics[0].partitions[0].error_code)

        assert commit(bob, "h-bob", "pay-1") == ErrorCode.GROUP_AUTHORIZATION_FAILED
        assert commit(bob, "g-bob", "pay-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED  # no READ on the topic
        assert commit(alice, "g-alice", "pay-1") == 0

        def list_offset(c: WireClient, topic: str) -> tuple[int, int]:
            resp: Any = c.call(2, 7, ListOffsetsRequest(replica_id=-1, topics=[ListOffsetsTopic(
                name=topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)])]))
            p = resp.topics[0].partitions[0]
            return int(p.error_code), int(p.offset)

        assert list_offset(alice, "pay-1") == (0, 1)
        assert list_offset(bob, "pay-1") == (ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1)

        created: Any = bob.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
            CreatableTopic(name="bobs", num_partitions=1, replication_factor=1)]))
        assert [(t.name, t.error_code, t.error_message) for t in created.topics] == [
            ("bobs", ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.")]
        deleted: Any = alice.call(20, 6, DeleteTopicsRequest(timeout_ms=10_000, topics=[
            DeleteTopicState(name="orders"), DeleteTopicState(name="other")]))
        assert sorted((r.name, r.error_code) for r in deleted.responses) == [
            ("orders", ErrorCode.TOPIC_AUTHORIZATION_FAILED), ("other", ErrorCode.TOPIC_AUTHORIZATION_FAILED)]
        assert _metadata(alice, ["orders"]) == {"orders": 0}


def test_regex_subscription_resolves_to_describable_topics_only(acl_broker: AclBroker) -> None:
    """Kafka's refreshRegularExpressions keeps the matched topics the principal of the
    heartbeat that resolves the regex may DESCRIBE: alice may describe orders (WRITE) and
    pay-* (READ; a READ deny leaves DESCRIBE), not other; bob may describe none of them."""
    with acl_broker.login("admin") as admin:
        md: Any = admin.call(3, 12, MetadataRequest(topics=None))
        names = {t.topic_id: t.name for t in md.topics}

    def assigned(c: WireClient, group: str, regex: str) -> set[str]:
        hb: Any = c.call(68, 1, ConsumerGroupHeartbeatRequest(
            group_id=group, member_id=str(uuid.uuid4()), member_epoch=0, rebalance_timeout_ms=5000,
            subscribed_topic_regex=regex, topic_partitions=[]))
        assert hb.error_code == 0, hb.error_message
        assert hb.assignment is not None  # the first heartbeat's answer carries the assignment
        return {names[tp.topic_id] for tp in hb.assignment.topic_partitions if tp.partitions}

    def targets(group: str) -> set[str]:
        with acl_broker.login("admin") as admin:
            described: Any = admin.call(69, 0, ConsumerGroupDescribeRequest(group_ids=[group]))
        [g] = described.groups
        assert g.error_code == 0 and len(g.members) == 2
        return {tp.topic_name for m in g.members for tp in m.target_assignment.topic_partitions}

    regex, shared = "pay-.*|orders|other", f"g-{uuid.uuid4().hex[:8]}"
    with acl_broker.login("alice") as alice, acl_broker.login("bob") as bob:
        assert assigned(alice, shared, regex) == {"pay-1", "pay-secret", "orders"}
        assert assigned(bob, f"g-{uuid.uuid4().hex[:8]}", regex) == set()
        # Joining alice's group, bob brings no new regex and the topics are the same: the
        # resolution stays alice's, and the group's target still covers her three topics.
        assigned(bob, shared, regex)
        assert targets(shared) == {"pay-1", "pay-secret", "orders"}


def test_confluent_kafka_consumer_in_a_denied_group(acl_broker: AclBroker) -> None:
    consumer = Consumer({
        "bootstrap.servers": f"127.0.0.1:{acl_broker.sasl_port}", "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-pw",
        "group.id": "not-g", "auto.offset.reset": "earliest",
    })
    consumer.subscribe(["pay-1"])
    error = None
    deadline = time.monotonic() + 30
    try:
        while error is None and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is not None:
                error = msg.error()
    finally:
        consumer.close()
    assert error is not None and error.code() == KafkaError.GROUP_AUTHORIZATION_FAILED
