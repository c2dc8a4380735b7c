"""Brokers that speak to each other on a SASL_SSL listener of their own
(`inter.broker.listener.name`, broker/inter_broker_security.py) with ACLs on: the
transaction coordinator's markers and the partition leaders' KIP-890 verification cross
brokers logged in as User:broker, which needs CLUSTER_ACTION on the cluster. Without it the
markers are refused with CLUSTER_AUTHORIZATION_FAILED and retried, the transaction completing
once the ACL is there, and a leader's verification is refused (INVALID_TXN_STATE to the
producer). Clients use the PLAINTEXT listener, whose User:ANONYMOUS is a super
user here."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import asyncpg
import pytest
from confluent_kafka.admin import AdminClient

from broker.config import Config
from broker.features import SUPPORTED
from broker.inter_broker import InterBrokerClient, PeerUnavailable
from broker.inter_broker_security import inter_broker_security
from odradek.pki import make_pki
from odradek.testing import OdradekBroker, OdradekCluster, free_port
from odradek.wire import parse_host_port
from protocol.errors import ErrorCode
from protocol.messages.alter_user_scram_credentials_request import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.create_acls_request import AclCreation, CreateAclsRequest
from protocol.messages.delete_acls_request import DeleteAclsFilter, DeleteAclsRequest
from protocol.messages.describe_acls_request import DescribeAclsRequest
from protocol.messages.describe_user_scram_credentials_request import (
    DescribeUserScramCredentialsRequest,
    UserName,
)
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.update_features_request import FeatureUpdateKey, UpdateFeaturesRequest
from protocol.sasl_client import Plain, SaslMechanism, Scram
from tests.integration.admin.test_dynamic_broker_configs import (
    BROKER,
    DEFAULT,
    DELETE,
    DYNAMIC_BROKER,
    DYNAMIC_DEFAULT,
    GROUP,
    GROUP_CONFIG,
    RELOGIN,
    SET,
    incremental,
    row,
)
from tests.integration.cluster.conftest import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from tests.integration.cluster.test_failover import consume_all, create_topic, wait_for_leaders
from tests.integration.cluster.test_transactions import (
    ALL,
    TXN_STATE_PARTITIONS,
    expected,
    find_txn_coordinator,
    leader_of_key,
    txn_producer,
    txn_state,
)
from tests.integration.idempotence.idempotent_produce import produce
from tests.kafka_wire import WireClient, add_partition, end_txn, producer_batch
from tests.names import unique
from tests.polling import wait_until

# Kafka's codes: ResourceType TOPIC and CLUSTER, PatternType LITERAL, AclOperation
# DESCRIBE and CLUSTER_ACTION, AclPermissionType DENY and ALLOW.
TOPIC, CLUSTER, LITERAL, DESCRIBE, CLUSTER_ACTION, DENY, ALLOW = 2, 4, 3, 8, 9, 2, 3
BROKER_PRINCIPAL = "User:broker"
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="broker" password="broker-secret" user_broker="broker-secret";'
)
SCRAM_SHA_256 = 1  # Kafka's ScramMechanism type
REFUSED = "transaction markers refused: CLUSTER_AUTHORIZATION_FAILED"


@pytest.fixture(scope="module")
def secure_cluster(tmp_path_factory: pytest.TempPathFactory,
                   new_postgres_url: Callable[[], str]) -> Iterator[OdradekCluster]:
    """One cluster for this module's tests (they leave each other's state alone)."""
    tmp_path = tmp_path_factory.mktemp("secure-cluster")
    pki = make_pki(tmp_path / "pki")
    nodes = OdradekCluster(
        new_postgres_url(),
        tmp_path,
        overrides={
            "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
            "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
            "num.partitions": "3",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL",
            "inter.broker.listener.name": "INTERNAL",
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            # SCRAM for the cluster's credentials test (the brokers log in with PLAIN).
            "listener.name.internal.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
            "listener.name.internal.plain.sasl.jaas.config": JAAS,
            "ssl.keystore.type": "PEM",
            "ssl.truststore.type": "PEM",
            "listener.name.internal.ssl.keystore.location": str(pki.server.keystore),
            "listener.name.internal.ssl.truststore.location": str(pki.ca),
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": "User:ANONYMOUS",
        },
        per_node=lambda node_id, port: {
            "listeners": f"PLAINTEXT://127.0.0.1:{port},INTERNAL://127.0.0.1:{free_port()}"
        },
    )
    with nodes:
        yield nodes


def cluster_action_acls(broker: OdradekBroker) -> int:
    """How many CLUSTER_ACTION ACLs of the brokers' principal `broker` has in force."""
    with WireClient(broker.bootstrap, timeout=30) as c:
        described: Any = c.call(29, 3, DescribeAclsRequest(
            resource_type_filter=CLUSTER, resource_name_filter="kafka-cluster", pattern_type_filter=LITERAL,
            principal_filter=BROKER_PRINCIPAL, host_filter="*", operation=CLUSTER_ACTION, permission_type=ALLOW))
    assert described.error_code == ErrorCode.NONE
    return sum(len(r.acls) for r in described.resources)


def grant_cluster_action(cluster: OdradekCluster, on: int = 1) -> None:
    """CLUSTER_ACTION for the brokers' principal, created on broker `on`: the cluster's ACLs
    (storage/postgres/cluster_metadata.py), in force on every broker soon after."""
    acl = AclCreation(resource_type=CLUSTER, resource_name="kafka-cluster", resource_pattern_type=LITERAL,
                      principal=BROKER_PRINCIPAL, host="*", operation=CLUSTER_ACTION, permission_type=ALLOW)
    with WireClient(cluster.broker(on).bootstrap, timeout=30) as c:
        created: Any = c.call(30, 3, CreateAclsRequest(creations=[acl]))
    assert [r.error_code for r in created.results] == [ErrorCode.NONE]
    wait_until(lambda: all(cluster_action_acls(b) == 1 for b in cluster.brokers.values()), timeout=30,
               what="the ACL on every broker")


def revoke_cluster_action(cluster: OdradekCluster, on: int = 2) -> None:
    with WireClient(cluster.broker(on).bootstrap, timeout=30) as c:
        deleted: Any = c.call(31, 3, DeleteAclsRequest(filters=[DeleteAclsFilter(
            resource_type_filter=CLUSTER, resource_name_filter="kafka-cluster", pattern_type_filter=LITERAL,
            principal_filter=BROKER_PRINCIPAL, host_filter="*", operation=CLUSTER_ACTION,
            permission_type=ALLOW)]))
    assert [r.error_code for r in deleted.filter_results] == [ErrorCode.NONE]
    assert len(deleted.filter_results[0].matching_acls) == 1
    wait_until(lambda: all(cluster_action_acls(b) == 0 for b in cluster.brokers.values()), timeout=30,
               what="the ACL gone from every broker")


class TransactionOnPartitionZero:
    """A transaction (over the raw wire) that added partition 0 of `topic`, whose
    coordinator is not that partition's leader: its first batch there is verified with
    the coordinator over the inter-broker listener."""

    def __init__(self, cluster: OdradekCluster, topic: str, leader: int) -> None:
        self.topic = topic
        self.leader = cluster.broker(leader)
        for _ in range(100):
            self.tid = unique("verified-tid")
            coordinator = find_txn_coordinator(cluster, self.tid)
            if coordinator != leader:
                break
        else:
            raise AssertionError(f"every transactional id lands on broker {leader}")
        self.coordinator = cluster.broker(coordinator)
        ids: list[tuple[int, int]] = []

        def initialized() -> bool:
            with WireClient(self.coordinator.bootstrap, timeout=30) as c:
                resp: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=self.tid,
                                                                transaction_timeout_ms=60_000))
            ids[:] = [(resp.producer_id, resp.producer_epoch)] if resp.error_code == ErrorCode.NONE else []
            return bool(ids)

        wait_until(initialized, timeout=30, what="InitProducerId answered")
        self.pid, self.epoch = ids[0]
        with WireClient(self.coordinator.bootstrap, timeout=30) as c:
            add_partition(c, self.tid, self.pid, self.epoch, topic)
        self.mark = self.leader.log_size()

    def produce(self) -> int:
        with WireClient(self.leader.bootstrap, timeout=30) as c:
            out = produce(c, {(self.topic, 0): producer_batch(self.pid, self.epoch, 0, txn=True)}, tid=self.tid)
        return out[(self.topic, 0)][0]

    def abort(self) -> None:
        with WireClient(self.coordinator.bootstrap, timeout=30) as c:
            end_txn(c, self.tid, self.pid, self.epoch, False)


def test_transactions_across_brokers_over_sasl_ssl_with_acls(secure_cluster: OdradekCluster) -> None:
    cluster = secure_cluster
    for broker in cluster.brokers.values():
        assert "inter-broker listener" in broker.log() and "SASL_SSL" in broker.log()
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("secure-txn")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    grant_cluster_action(cluster)
    tid = unique("secure-tid")
    p = txn_producer(cluster.bootstrap, tid)
    p.init_transactions(60)
    coordinator = cluster.broker(leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS))

    # Verification (each leader asks the coordinator) and markers (the coordinator tells
    # each leader) cross brokers over the SASL_SSL listener.
    first = [(i % 3, f"one-{i}".encode()) for i in range(9)]
    p.begin_transaction()
    for partition, value in first:
        p.produce(topic, value, partition=partition)
    p.commit_transaction(60)
    assert consume_all(cluster.bootstrap, topic, 3, len(first)) == expected(first)

    # The records are in (verified while the ACL allowed it); the markers are refused by the
    # two leaders other than the coordinator, and retried.
    second = [(i % 3, f"two-{i}".encode()) for i in range(9)]
    p.begin_transaction()
    for partition, value in second:
        p.produce(topic, value, partition=partition)
    p.flush(30)
    mark = coordinator.log_size()
    revoke_cluster_action(cluster)
    p.commit_transaction(60)
    wait_until(lambda: REFUSED in coordinator.log_since(mark), timeout=30, what="the markers refused")
    assert txn_state(coordinator.bootstrap, tid) == "PrepareCommit"
    # A leader's KIP-890 verification with another broker is refused too: the producer is
    # answered INVALID_TXN_STATE (Kafka's AddPartitionsToTxnManager), not told why.
    verifier = TransactionOnPartitionZero(cluster, topic, led[0])
    assert verifier.produce() == ErrorCode.INVALID_TXN_STATE
    assert "transaction verification refused" in verifier.leader.log_since(verifier.mark)

    grant_cluster_action(cluster)
    assert verifier.produce() == ErrorCode.NONE
    verifier.abort()
    wait_until(lambda: txn_state(coordinator.bootstrap, tid) == "CompleteCommit", timeout=30,
               what="the transaction completed once the ACL allows the markers")
    assert "transaction markers accepted again" in coordinator.log_since(mark)
    assert consume_all(cluster.bootstrap, topic, 3, len(first) + len(second)) == expected(first + second)


def internal_address(cluster: OdradekCluster, node_id: int) -> tuple[str, int]:
    listeners = cluster.broker(node_id).overrides["listeners"].split(",")
    return parse_host_port(next(u for u in listeners if u.startswith("INTERNAL://")).removeprefix("INTERNAL://"))


def test_the_inter_broker_client_logs_in_over_tls(secure_cluster: OdradekCluster) -> None:
    """broker/inter_broker.py with the settings the brokers run with: a TLS connection that
    checks the peer's certificate and host, a PLAIN login, the connection kept; a wrong
    password or no TLS is a peer unavailable."""
    cluster = secure_cluster
    security = inter_broker_security(Config(cluster.broker(1).overrides))
    assert (security.listener, security.protocol, security.mechanism) == ("INTERNAL", "SASL_SSL", "PLAIN")
    assert security.ssl_context is not None and security.ssl_context.check_hostname
    address = internal_address(cluster, 2)
    request = ApiVersionsRequest(client_software_name="odradek-broker", client_software_version="1")

    async def call(client: InterBrokerClient) -> Any:
        try:
            return await client.call(2, 18, 3, request)
        finally:
            client.close()

    async def logged_in() -> int:
        client = InterBrokerClient({2: address}.get, client_id="test", timeout_s=10,
                                   ssl_context=security.ssl_context, sasl=security.sasl)
        try:
            for _ in range(2):
                resp: Any = await client.call(2, 18, 3, request)
                assert resp.error_code == ErrorCode.NONE
            return client.idle_connections(2)
        finally:
            client.close()

    assert asyncio.run(logged_in()) == 1
    wrong = InterBrokerClient({2: address}.get, client_id="test", timeout_s=10, ssl_context=security.ssl_context,
                              sasl=lambda: Plain("broker", "wrong"))
    with pytest.raises(PeerUnavailable, match="refused the PLAIN login"):
        asyncio.run(call(wrong))
    plaintext = InterBrokerClient({2: address}.get, client_id="test", timeout_s=10, sasl=security.sasl)
    with pytest.raises(PeerUnavailable):
        asyncio.run(call(plaintext))


def as_broker_principal(cluster: OdradekCluster, node_id: int, request: Any, api_key: int, version: int,
                        sasl: Callable[[], SaslMechanism] | None = None) -> Any:
    """`request` to broker `node_id` over its inter-broker listener, logged in as User:broker
    (or with `sasl`): a client that is no super user."""
    security = inter_broker_security(Config(cluster.broker(1).overrides))

    async def call() -> Any:
        client = InterBrokerClient({node_id: internal_address(cluster, node_id)}.get, client_id="test",
                                   timeout_s=10, ssl_context=security.ssl_context, sasl=sasl or security.sasl)
        try:
            return await client.call(node_id, api_key, version, request)
        finally:
            client.close()

    return asyncio.run(call())


def topic_error(cluster: OdradekCluster, node_id: int, topic: str) -> int:
    """Metadata of `topic` asked of broker `node_id` by User:broker: NONE when DESCRIBE is allowed."""
    request = MetadataRequest(topics=[MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False)
    response = as_broker_principal(cluster, node_id, request, 3, 12)
    [answer] = response.topics
    return int(answer.error_code)


def topic_errors(cluster: OdradekCluster, topic: str) -> dict[int, int]:
    return {node: topic_error(cluster, node, topic) for node in sorted(cluster.brokers)}


def change_acls(cluster: OdradekCluster, on: int, api_key: int, request: Any) -> Any:
    with WireClient(cluster.broker(on).bootstrap, timeout=30) as c:
        return c.call(api_key, 3, request)


def test_acls_changed_on_one_broker_apply_on_every_broker(secure_cluster: OdradekCluster) -> None:
    """CreateAcls and DeleteAcls on one broker change the cluster's ACLs (Kafka's metadata
    log; here storage/postgres/cluster_metadata.py): a client of another broker is allowed
    or refused accordingly, and a restarted broker has them before it serves anyone."""
    cluster = secure_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("acl-shared")
    create_topic(admin, topic, 1)
    assert topic_errors(cluster, topic) == dict.fromkeys((1, 2, 3), ErrorCode.TOPIC_AUTHORIZATION_FAILED)

    def acl(permission: int) -> AclCreation:
        return AclCreation(resource_type=TOPIC, resource_name=topic, resource_pattern_type=LITERAL,
                           principal=BROKER_PRINCIPAL, host="*", operation=DESCRIBE, permission_type=permission)

    created = change_acls(cluster, 1, 30, CreateAclsRequest(creations=[acl(ALLOW)]))
    assert [r.error_code for r in created.results] == [ErrorCode.NONE]
    assert topic_error(cluster, 1, topic) == ErrorCode.NONE  # the writer: on commit
    wait_until(lambda: topic_errors(cluster, topic) == dict.fromkeys((1, 2, 3), ErrorCode.NONE), timeout=30,
               what="the ALLOW in force on every broker")

    created = change_acls(cluster, 3, 30, CreateAclsRequest(creations=[acl(DENY)]))
    assert [r.error_code for r in created.results] == [ErrorCode.NONE]
    wait_until(lambda: topic_errors(cluster, topic) == dict.fromkeys((1, 2, 3), ErrorCode.TOPIC_AUTHORIZATION_FAILED),
               timeout=30, what="the DENY in force on every broker")

    deleted = change_acls(cluster, 2, 31, DeleteAclsRequest(filters=[DeleteAclsFilter(
        resource_type_filter=TOPIC, resource_name_filter=topic, pattern_type_filter=LITERAL,
        principal_filter=BROKER_PRINCIPAL, host_filter="*", operation=DESCRIBE, permission_type=DENY)]))
    assert [r.error_code for r in deleted.filter_results] == [ErrorCode.NONE]
    assert [(m.resource_name, m.permission_type) for m in deleted.filter_results[0].matching_acls] == [(topic, DENY)]
    wait_until(lambda: topic_errors(cluster, topic) == dict.fromkeys((1, 2, 3), ErrorCode.NONE), timeout=30,
               what="the DENY gone on every broker")

    # Restarted, broker 3 answers its first request with the cluster's ACLs in force.
    cluster.broker(3).restart()
    assert topic_error(cluster, 3, topic) == ErrorCode.NONE


def scram_login(cluster: OdradekCluster, node_id: int, user: str, password: str) -> str:
    """A SCRAM-SHA-256 login to broker `node_id`'s inter-broker listener, then ApiVersions:
    "ok", or the refusal."""
    request = ApiVersionsRequest(client_software_name="test", client_software_version="1")
    try:
        response = as_broker_principal(cluster, node_id, request, 18, 3,
                                       sasl=lambda: Scram("SCRAM-SHA-256", user, password))
    except PeerUnavailable as exc:
        return f"refused: {exc}"
    assert response.error_code == ErrorCode.NONE
    return "ok"


def test_scram_credentials_altered_on_one_broker_log_in_on_every_broker(secure_cluster: OdradekCluster) -> None:
    """AlterUserScramCredentials on one broker changes the cluster's credentials: the user
    logs in on every broker, a restarted one included; deleted, nowhere."""
    cluster = secure_cluster
    user, password = unique("scram-user"), "scram-secret"
    assert "refused the SCRAM-SHA-256 login" in scram_login(cluster, 2, user, password)
    salt = b"cluster-salt"
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 4096)
    upsert = AlterUserScramCredentialsRequest(upsertions=[ScramCredentialUpsertion(
        name=user, mechanism=SCRAM_SHA_256, iterations=4096, salt=salt, salted_password=salted)])
    with WireClient(cluster.broker(1).bootstrap, timeout=30) as c:
        altered: Any = c.call(51, 0, upsert)
    assert [(r.user, r.error_code) for r in altered.results] == [(user, ErrorCode.NONE)]
    assert scram_login(cluster, 1, user, password) == "ok"  # the writer: on commit
    wait_until(lambda: [scram_login(cluster, n, user, password) for n in (2, 3)] == ["ok", "ok"], timeout=30,
               what="the user logging in on every broker")
    assert "refused the SCRAM-SHA-256 login" in scram_login(cluster, 3, user, "wrong")
    # Another broker's DescribeUserScramCredentials shows the user too.
    with WireClient(cluster.broker(3).bootstrap, timeout=30) as c:
        described: Any = c.call(50, 0, DescribeUserScramCredentialsRequest(users=[UserName(name=user)]))
    assert [(r.user, r.error_code, [(i.mechanism, i.iterations) for i in r.credential_infos])
            for r in described.results] == [(user, ErrorCode.NONE, [(SCRAM_SHA_256, 4096)])]

    cluster.broker(2).restart()
    assert scram_login(cluster, 2, user, password) == "ok"

    # Deleting it on broker 2 (the stored credentials decide: it exists) ends it everywhere;
    # deleting it again is RESOURCE_NOT_FOUND.
    delete = AlterUserScramCredentialsRequest(deletions=[ScramCredentialDeletion(name=user, mechanism=SCRAM_SHA_256)])
    for expected_code in (ErrorCode.NONE, ErrorCode.RESOURCE_NOT_FOUND):
        with WireClient(cluster.broker(2).bootstrap, timeout=30) as c:
            deleted: Any = c.call(51, 0, delete)
        assert [(r.user, r.error_code) for r in deleted.results] == [(user, expected_code)]
    wait_until(lambda: all("refused" in scram_login(cluster, n, user, password) for n in (1, 2, 3)), timeout=30,
               what="the user refused on every broker")


def config_on(cluster: OdradekCluster, node_id: int, rtype: int, name: str, key: str) -> tuple[str | None, int]:
    """The value and source of config `key` of a resource, as broker `node_id` describes it."""
    with WireClient(cluster.broker(node_id).bootstrap, timeout=30) as c:
        value, source, _ = row(c, rtype, name, key)
    return value, source


def alter_on(cluster: OdradekCluster, node_id: int, name: str, *ops: tuple[str, int, str | None],
             rtype: int = BROKER) -> tuple[int, str | None]:
    with WireClient(cluster.broker(node_id).bootstrap, timeout=30) as c:
        return incremental(c, name, *ops, rtype=rtype)


def test_dynamic_configs_altered_on_one_broker(secure_cluster: OdradekCluster) -> None:
    """The cluster-wide default (empty broker name) and group configs altered on one broker
    are in force on every broker (a topic's default included), a restarted one too; a
    broker's own configs are altered on that broker alone and apply to it alone, as Kafka's
    ConfigAdminManager checks."""
    cluster = secure_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, group = unique("config-shared"), unique("config-group")
    create_topic(admin, topic, 1)
    day = "86400000"
    assert alter_on(cluster, 1, "", ("log.retention.ms", SET, day)) == (ErrorCode.NONE, None)
    assert config_on(cluster, 1, BROKER, "", "log.retention.ms") == (day, DYNAMIC_DEFAULT)  # on commit
    wait_until(lambda: [config_on(cluster, n, BROKER, str(n), "log.retention.ms") for n in (2, 3)]
               == [(day, DYNAMIC_DEFAULT)] * 2, timeout=30, what="the cluster default on every broker")
    # Applied, not only reported: each broker's topics take it as their default.
    assert [config_on(cluster, n, TOPIC, topic, "retention.ms") for n in (1, 2, 3)] == [(day, DYNAMIC_DEFAULT)] * 3

    assert alter_on(cluster, 2, group, ("consumer.session.timeout.ms", SET, "50000"), rtype=GROUP) == (
        ErrorCode.NONE, None)
    wait_until(lambda: [config_on(cluster, n, GROUP, group, "consumer.session.timeout.ms") for n in (1, 3)]
               == [("50000", GROUP_CONFIG)] * 2, timeout=30, what="the group config on every broker")

    # Another broker's own configs are that broker's to alter.
    assert alter_on(cluster, 1, "2", (RELOGIN, SET, "58000")) == (
        ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected 1, but received 2")
    assert alter_on(cluster, 2, "2", (RELOGIN, SET, "58000")) == (ErrorCode.NONE, None)
    assert config_on(cluster, 2, BROKER, "2", RELOGIN) == ("58000", DYNAMIC_BROKER)

    cluster.broker(1).restart()
    assert config_on(cluster, 1, BROKER, "", "log.retention.ms") == (day, DYNAMIC_DEFAULT)
    assert config_on(cluster, 1, TOPIC, topic, "retention.ms") == (day, DYNAMIC_DEFAULT)
    assert config_on(cluster, 1, GROUP, group, "consumer.session.timeout.ms") == ("50000", GROUP_CONFIG)
    assert config_on(cluster, 1, BROKER, "1", RELOGIN) == ("60000", DEFAULT)  # broker 2's own stays its own
    assert config_on(cluster, 2, BROKER, "2", RELOGIN) == ("58000", DYNAMIC_BROKER)

    # Deleted on broker 3, the default is gone everywhere (the module's other tests keep Kafka's).
    assert alter_on(cluster, 3, "", ("log.retention.ms", DELETE, None)) == (ErrorCode.NONE, None)
    wait_until(lambda: [config_on(cluster, n, TOPIC, topic, "retention.ms") for n in (1, 2, 3)]
               == [("604800000", DEFAULT)] * 3, timeout=30, what="the default gone on every broker")


UPGRADE, SAFE_DOWNGRADE = 1, 2  # Kafka's FeatureUpdate.UpgradeType


def finalized_on(cluster: OdradekCluster, node_id: int) -> tuple[dict[str, int], int]:
    """The finalized levels and their epoch, as broker `node_id`'s ApiVersions reports them."""
    with WireClient(cluster.broker(node_id).bootstrap, timeout=30) as c:
        resp: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    return {f.name: f.max_version_level for f in resp.finalized_features}, resp.finalized_features_epoch


def finalized_everywhere(cluster: OdradekCluster) -> list[tuple[dict[str, int], int]]:
    return [finalized_on(cluster, n) for n in sorted(cluster.brokers)]


def transaction_version(level: int, upgrade_type: int) -> UpdateFeaturesRequest:
    return UpdateFeaturesRequest(feature_updates=[
        FeatureUpdateKey(feature="transaction.version", max_version_level=level, upgrade_type=upgrade_type)])


def test_finalized_features_updated_on_one_broker_are_the_clusters(secure_cluster: OdradekCluster) -> None:
    """UpdateFeatures on one broker changes the cluster's levels (Kafka's metadata log; here
    broker/shared_features.py): every broker's ApiVersions reports them with the same epoch;
    two conflicting updates sent at once to two brokers are both answered, one applied after
    the other, and every broker agrees on the last one; a restarted broker keeps them."""
    cluster = secure_cluster
    levels, epoch = finalized_on(cluster, 1)
    assert "transaction.version" not in levels  # not finalized on a new cluster
    assert finalized_everywhere(cluster) == [(levels, epoch)] * 3

    with WireClient(cluster.broker(1).bootstrap, timeout=30) as c:
        assert c.call(57, 2, transaction_version(1, UPGRADE)).error_code == ErrorCode.NONE
    at_1 = ({**levels, "transaction.version": 1}, epoch + 1)
    assert finalized_on(cluster, 1) == at_1  # the writer: on commit
    wait_until(lambda: finalized_everywhere(cluster) == [at_1] * 3, timeout=30, what="the new level on every broker")

    # At once, from 1: an upgrade to 2 on broker 2 and a safe downgrade to 0 on broker 3. Each
    # is checked against the other's result and passes either way; the last one's level stays.
    with WireClient(cluster.broker(2).bootstrap, timeout=30) as up, \
            WireClient(cluster.broker(3).bootstrap, timeout=30) as down:
        up.send(57, 2, transaction_version(2, UPGRADE))
        down.send(57, 2, transaction_version(0, SAFE_DOWNGRADE))
        answers: list[Any] = [c.recv(57, 2)[1] for c in (up, down)]
    assert [a.error_code for a in answers] == [ErrorCode.NONE, ErrorCode.NONE]
    seen: list[tuple[dict[str, int], int]] = []

    def agreed() -> bool:
        seen[:] = finalized_everywhere(cluster)
        return seen[0][1] == epoch + 3 and all(f == seen[0] for f in seen)

    wait_until(agreed, timeout=30, what="every broker at the same result")
    final = seen[0]
    assert final in (({**levels, "transaction.version": 2}, epoch + 3), (levels, epoch + 3))

    cluster.broker(2).restart()
    assert finalized_on(cluster, 2) == final

    # Left as found for the module's other tests: not finalized.
    with WireClient(cluster.broker(2).bootstrap, timeout=30) as c:
        assert c.call(57, 2, transaction_version(0, SAFE_DOWNGRADE)).error_code == ErrorCode.NONE
    wait_until(lambda: finalized_everywhere(cluster) == [(levels, epoch + 4)] * 3, timeout=30,
               what="transaction.version off on every broker")


def test_a_feature_level_a_registered_broker_does_not_support_is_refused(secure_cluster: OdradekCluster) -> None:
    """As Kafka's controller checks every registered broker's supported ranges: broker 3's
    registration narrowed in PostgreSQL (as an older version would register it), an upgrade
    past it is refused on broker 1 with Kafka's message; one within it passes."""
    cluster = secure_cluster

    async def narrow(ranges: str) -> None:
        conn = await asyncpg.connect(cluster.postgres_url)
        try:
            await conn.execute("UPDATE brokers SET supported_features = $1::jsonb WHERE node_id = 3", ranges)
        finally:
            await conn.close()

    def validate(level: int) -> UpdateFeaturesRequest:
        return UpdateFeaturesRequest(validate_only=True, feature_updates=[
            FeatureUpdateKey(feature="transaction.version", max_version_level=level, upgrade_type=UPGRADE)])

    asyncio.run(narrow('{"metadata.version": [7, 25], "transaction.version": [0, 1]}'))
    try:
        with WireClient(cluster.broker(1).bootstrap, timeout=30) as c:
            refused = c.call(57, 2, validate(2))
            assert (refused.error_code, refused.error_message) == (
                ErrorCode.INVALID_UPDATE_VERSION, "The update failed for all features since the following feature "
                "had an error: Invalid update version 2 for feature transaction.version. Broker 3 only supports "
                "versions 0-1")
            assert c.call(57, 2, validate(1)).error_code == ErrorCode.NONE
    finally:
        asyncio.run(narrow(json.dumps({n: list(r) for n, r in SUPPORTED.items()})))
