"""The Admin API through the Java client 4.3 (tests/integration/java/AdminCalls.java), as a Java user
calls it; the expected answers are Apache Kafka 4.0's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.broker_process import BrokerProcess, shared_broker
from tests.integration.java.java_programs import JAVA_OVERRIDES, run_java, skip_reason
from tests.names import unique

# Kafka 4.0's texts: DescribeAcls says where, CreateAcls and DeleteAcls do not.
NO_AUTHORIZER = "!SecurityDisabledException: No Authorizer is configured."
NO_AUTHORIZER_ON_BROKER = "!SecurityDisabledException: No Authorizer is configured on the broker"


@pytest.fixture(scope="module")
def admin(java_broker: BrokerProcess) -> tuple[str, dict[str, str]]:
    prefix = unique("ja")
    return prefix, run_java("AdminCalls.java", java_broker.bootstrap, prefix)


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """With Kafka's StandardAuthorizer; the anonymous PLAINTEXT principal is a super user."""
    if reason := skip_reason():
        pytest.skip(reason)
    yield from shared_broker(tmp_path_factory.mktemp("java-acl") / "data", {
        **JAVA_OVERRIDES,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS",
    })


def test_topics_by_name_and_by_id(admin: tuple[str, dict[str, str]]) -> None:
    prefix, facts = admin
    topic = f"{prefix}-t"
    assert (facts["create.partitions"], facts["create.config.retention.ms"]) == ("2", "60000")
    assert facts["list.has"] == "true"
    assert facts["byname"] == f"{topic}/2/true"
    assert facts["byid"] == f"{topic}/2/true"
    # UNKNOWN_TOPIC_ID, which the client words itself.
    assert facts["byid.unknown"].startswith("!UnknownTopicIdException: TopicId ")
    assert facts["byid.unknown"].endswith(" not found.")
    assert facts["byname.unknown"] == (
        "!UnknownTopicOrPartitionException: This server does not host this topic-partition.")
    assert facts["delete.byid"] == "false"


def test_partitions(admin: tuple[str, dict[str, str]]) -> None:
    prefix, facts = admin
    assert facts["partitions.create"] == "3"
    assert facts["partitions.fewer"] == (
        f"!InvalidPartitionsException: The topic {prefix}-t currently has 3 partition(s); 1 would not be an increase.")


def test_topic_configs_with_sources(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # value / source / read-only / sensitive
    assert facts["topic.retention.ms"] == "60000/DYNAMIC_TOPIC_CONFIG/false/false"
    assert facts["topic.cleanup.policy"] == "delete/DEFAULT_CONFIG/false/false"
    assert facts["topic.segment.bytes"] == "1073741824/DEFAULT_CONFIG/false/false"
    assert facts["topic.alter"] == "120000/compact/DYNAMIC_TOPIC_CONFIG"
    assert facts["broker.alter.unknown"] == "!InvalidConfigurationException: Unknown topic config name: no.such.config"


def test_broker_configs_as_kafka_describes_them(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # Kafka 4.0 describes 289 broker configs; odradek adds the few of later versions it has.
    assert int(facts["broker.count"]) >= 289
    # value / source / read-only / sensitive, as Kafka 4.0 answers
    assert facts["broker.log.retention.hours"] == "168/DEFAULT_CONFIG/true/false"
    assert facts["broker.log.retention.minutes"] == "null/DEFAULT_CONFIG/true/false"
    # Unset, it has no value of its own: log.retention.hours supplies the retention.
    assert facts["broker.log.retention.ms"] == "null/DEFAULT_CONFIG/false/false"
    # Kafka's node.id is a required static setting, copied to broker.id.
    assert facts["broker.node.id"] == "1/STATIC_BROKER_CONFIG/true/false"
    assert facts["broker.broker.id"] == "1/STATIC_BROKER_CONFIG/true/false"
    assert facts["broker.node.id.synonyms"] == "[node.id:1:STATIC_BROKER_CONFIG]"
    # A KIP-714 subscription with no configs, and Kafka's refusal of an empty name.
    assert facts["clientmetrics.describe"] == "0"
    assert facts["clientmetrics.describe.empty"] == (
        "!InvalidRequestException: Client metrics subscription name must not be empty")
    assert facts["broker.log.roll.hours"] == "168/DEFAULT_CONFIG/true/false"
    assert facts["broker.offsets.topic.replication.factor"] == "3/DEFAULT_CONFIG/true/false"
    assert facts["broker.log.dir"] == "/tmp/kafka-logs/DEFAULT_CONFIG/true/false"
    assert facts["broker.auto.create.topics.enable"] == "true/DEFAULT_CONFIG/true/false"
    assert facts["broker.ssl.key.password"] == "null/DEFAULT_CONFIG/false/true"
    # A read-only config is refused as Kafka refuses it.
    assert facts["broker.alter.readonly"] == (
        "!InvalidRequestException: Cannot update these configs dynamically: Set(log.retention.hours)")


def test_broker_loggers(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # Kafka lists its log4j loggers (root INFO by its log4j config); odradek its Python
    # loggers (root WARNING, Python's default, under log4j's name), as Kafka's ConfigHelper
    # describes them: dynamic, writable, no type.
    assert facts["logger.root"] == "WARN"
    assert facts["logger.before"] == "WARN/DYNAMIC_BROKER_LOGGER_CONFIG/false/false/UNKNOWN"
    assert facts["logger.set"] == "ERROR/DYNAMIC_BROKER_LOGGER_CONFIG/false/false/UNKNOWN"
    # Unset, a logger follows its parent again.
    assert facts["logger.unset"] == "WARN/DYNAMIC_BROKER_LOGGER_CONFIG/false/false/UNKNOWN"
    # Kafka's RuntimeLoggerManager texts.
    assert facts["logger.refused.SET.storage.log_manager"] == (
        "!InvalidConfigurationException: Cannot set the log level of storage.log_manager to LOUD as it is not a "
        "supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN")
    assert facts["logger.refused.SET.no.such.logger"] == (
        "!InvalidConfigurationException: Logger no.such.logger does not exist!")
    assert facts["logger.refused.DELETE.root"] == (
        "!InvalidRequestException: Removing the log level of the root logger is not allowed")
    assert facts["logger.refused.APPEND.root"] == (
        "!InvalidRequestException: APPEND operation is not allowed for the BROKER_LOGGER resource")


def test_list_config_resources(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # Kafka 4.1+'s KafkaApis (KIP-1142; Kafka 4.0 serves v0, client metrics only): every broker
    # as BROKER and BROKER_LOGGER, the topics, the groups with configs; no KIP-714 subscription.
    assert facts["configres.nontopic"] == "BROKER:1,BROKER_LOGGER:1"
    assert facts["configres.topic"] == "true/true"
    assert facts["configres.clientmetrics"] == "[]"


def test_records_and_offsets(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # DeleteRecords carries no message: the client's text for POLICY_VIOLATION.
    assert facts["records.delete.compacted"] == (
        "!PolicyViolationException: Request parameters do not satisfy the configured policy.")
    assert facts["records.delete"] == "2"
    assert facts["offsets.earliest"] == "2/-1"
    assert facts["offsets.latest"] == "5/-1"
    assert facts["offsets.max"] == "4/1700000000040"
    assert facts["offsets.bytime"] == "3/1700000000030"


def test_group_offsets_and_groups(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    assert facts["groups.alter"] == "3/meta/0"
    assert facts["groups.listed"] == "Classic/Empty"
    assert facts["groups.describe"] == "Empty/0/Classic"
    assert facts["groups.offsets.delete"] == "1"
    assert facts["groups.delete"] == "0"
    assert facts["groups.delete.unknown"] == "!GroupIdNotFoundException: The group id does not exist."


def test_log_dirs(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    assert (facts["logdirs.count"], facts["logdirs.error"]) == ("1", "none")
    assert facts["logdirs.replica"] == "true/0/false"  # size > 0, no lag, not a future replica
    assert facts["logdirs.space"] == "true/true"


def test_acls_without_authorizer(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    assert facts["acl.none.describe"] == NO_AUTHORIZER_ON_BROKER
    assert facts["acl.none.create"] == NO_AUTHORIZER
    assert facts["acl.none.delete"] == NO_AUTHORIZER


def test_features(admin: tuple[str, dict[str, str]], java_broker: BrokerProcess) -> None:
    _, facts = admin
    # Kafka 4.0 finalizes group.version 1, transaction.version 2 and its KRaft features,
    # metadata.version at 4.0-IV3 (25) and kraft.version 1 (formatted --standalone), on a new
    # cluster; share.version is Kafka 4.2's. Kafka 4.0 also supports
    # eligible.leader.replicas.version 0-1 (KIP-966, not finalized), which odradek has not.
    finalized = ["group.version:1-1", "kraft.version:1-1", "metadata.version:25-25", "share.version:1-1"]
    if java_broker.overrides.get("transaction.version") == "2":
        finalized.append("transaction.version:2-2")
    assert facts["features"] == (",".join(finalized) + "/group.version:0-1,kraft.version:0-1,"
                                 "metadata.version:7-25,share.version:0-1,transaction.version:0-2")
    assert facts["features.epoch"] == "true"


def test_update_kraft_features(admin: tuple[str, dict[str, str]]) -> None:
    """Validate-only updates of metadata.version and kraft.version, answered as Kafka 4.0's
    controller answers them."""
    _, facts = admin
    failed = "!InvalidUpdateVersionException: The update failed for all features since the following feature had an error: "
    assert (facts["features.mv.same"], facts["features.mv.down.safe"], facts["features.kraft.down"]) == ("ok",) * 3
    assert facts["features.mv.unknown"] == (
        failed + "Invalid update version 26 for feature metadata.version. Local controller 1 only supports versions 7-25")
    assert facts["features.mv.down.noflag"] == (
        failed + "Invalid update version 24 for feature metadata.version. Can't downgrade the version of this "
        "feature without setting the upgrade type to either safe or unsafe downgrade.")
    assert facts["features.mv.down.lossy"] == (
        failed + "Invalid metadata.version 22. Refusing to perform the requested downgrade because it might "
        "delete metadata information.")
    assert facts["features.mv.down.unsafe"] == (
        failed + "Invalid metadata.version 22. Unsafe metadata downgrade is not supported in this version.")
    assert facts["features.kraft.unknown"] == (
        failed + "Invalid update version 2 for feature kraft.version. Local controller 1 only supports versions 0-1")
    assert facts["features.unknown"] == (
        failed + "Invalid update version 1 for feature no.such.feature. Local controller 1 does not support this "
        "feature.")


def test_delegation_tokens_on_plaintext(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    for call in ("create", "describe", "renew", "expire"):
        assert facts[f"token.{call}"] == (
            "!UnsupportedByAuthenticationException: Delegation Token requests are not allowed on "
            "PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.")


def test_metadata_quorum_and_unregister_broker(admin: tuple[str, dict[str, str]]) -> None:
    _, facts = admin
    # As Kafka 4.0's single combined node: one voter, the leader, caught up; no observers.
    assert facts["quorum"] == "1/1/[1:true:true]/0/[1]"
    # Kafka's controller takes a live broker's unregistration (the broker registers again)
    # and refuses an unknown id; the message does not reach the client.
    assert facts["unregister"] == "ok"
    assert facts["unregister.unknown"] == "!BrokerIdNotRegisteredException: "


def test_acls_with_authorizer(acl_broker: BrokerProcess) -> None:
    facts = run_java("AdminCalls.java", acl_broker.bootstrap, unique("jacl"), "acl")
    assert facts["acl.create"] == "ok"
    assert facts["acl.describe"] == "User:alice:READ:ALLOW,User:bob:WRITE:ALLOW"
    assert facts["acl.delete"] == "1"
    assert facts["acl.after"] == "1"
    assert facts["acl.invalid"] == (
        "!InvalidRequestException: Could not parse principal from `alice` "
        "(no colon is present separating the principal type from the principal name)")
