"""The broker configs Apache Kafka 4.0 describes (KafkaConfig and the config classes it
gathers: ServerConfigs, ServerLogConfigs, ReplicationConfigs, GroupCoordinatorConfig, ...)
that this broker has no setting of its own for: name, type and Kafka's default (None where
Kafka has none). None of them is dynamic in Kafka, so DescribeConfigs reports them read-only
with their defaults, and AlterConfigs refuses to change them as Kafka refuses a read-only
config ("Cannot update these configs dynamically").

Taken from what Kafka 4.0 answers to a DescribeConfigs of its broker resource with synonyms.
"""

from __future__ import annotations

from broker.config import Config
from broker.security_settings import DEFAULTS as SECURITY_DEFAULTS
from storage.topic_config import ConfigType

_T = ConfigType

_STATIC: list[tuple[str, ConfigType, str | None]] = [
    ('add.partitions.to.txn.retry.backoff.max.ms', _T.INT, '100'),
    ('add.partitions.to.txn.retry.backoff.ms', _T.INT, '20'),
    ('alter.config.policy.class.name', _T.CLASS, None),
    ('alter.log.dirs.replication.quota.window.num', _T.INT, '11'),
    ('alter.log.dirs.replication.quota.window.size.seconds', _T.INT, '1'),
    ('authorizer.class.name', _T.STRING, ''),
    ('auto.leader.rebalance.enable', _T.BOOLEAN, 'true'),
    ('broker.heartbeat.interval.ms', _T.INT, '2000'),
    ('broker.id', _T.INT, '-1'),
    ('broker.rack', _T.STRING, None),
    ('broker.session.timeout.ms', _T.INT, '9000'),
    ('client.quota.callback.class', _T.CLASS, None),
    ('connection.failed.authentication.delay.ms', _T.INT, '100'),
    ('controlled.shutdown.enable', _T.BOOLEAN, 'true'),
    ('controller.listener.names', _T.STRING, None),
    ('controller.quorum.append.linger.ms', _T.INT, '25'),
    ('controller.quorum.bootstrap.servers', _T.LIST, ''),
    ('controller.quorum.election.backoff.max.ms', _T.INT, '1000'),
    ('controller.quorum.election.timeout.ms', _T.INT, '1000'),
    ('controller.quorum.fetch.timeout.ms', _T.INT, '2000'),
    ('controller.quorum.request.timeout.ms', _T.INT, '2000'),
    ('controller.quorum.retry.backoff.ms', _T.INT, '20'),
    ('controller.quorum.voters', _T.LIST, ''),
    ('controller.quota.window.num', _T.INT, '11'),
    ('controller.quota.window.size.seconds', _T.INT, '1'),
    ('controller.socket.timeout.ms', _T.INT, '30000'),
    ('create.topic.policy.class.name', _T.CLASS, None),
    ('delegation.token.expiry.check.interval.ms', _T.LONG, '3600000'),
    ('delegation.token.expiry.time.ms', _T.LONG, '86400000'),
    ('delegation.token.max.lifetime.ms', _T.LONG, '604800000'),
    ('delegation.token.secret.key', _T.PASSWORD, None),
    ('delete.records.purgatory.purge.interval.requests', _T.INT, '1'),
    ('early.start.listeners', _T.STRING, None),
    ('fetch.max.bytes', _T.INT, '57671680'),
    ('fetch.purgatory.purge.interval.requests', _T.INT, '1000'),
    ('group.consumer.max.heartbeat.interval.ms', _T.INT, '15000'),
    ('group.consumer.max.session.timeout.ms', _T.INT, '60000'),
    ('group.consumer.min.heartbeat.interval.ms', _T.INT, '5000'),
    ('group.consumer.min.session.timeout.ms', _T.INT, '45000'),
    ('group.coordinator.append.linger.ms', _T.INT, '5'),
    ('group.coordinator.rebalance.protocols', _T.LIST, 'classic,consumer'),
    ('group.coordinator.threads', _T.INT, '4'),
    ('group.share.max.groups', _T.SHORT, '10'),
    ('group.share.max.heartbeat.interval.ms', _T.INT, '15000'),
    ('group.share.max.session.timeout.ms', _T.INT, '60000'),
    ('group.share.min.heartbeat.interval.ms', _T.INT, '5000'),
    ('group.share.min.session.timeout.ms', _T.INT, '45000'),
    ('initial.broker.registration.timeout.ms', _T.INT, '60000'),
    ('inter.broker.listener.name', _T.STRING, None),
    ('kafka.metrics.polling.interval.secs', _T.INT, '10'),
    ('kafka.metrics.reporters', _T.LIST, ''),
    ('leader.imbalance.check.interval.seconds', _T.LONG, '300'),
    ('log.cleaner.enable', _T.BOOLEAN, 'true'),
    ('log.dir', _T.STRING, '/tmp/kafka-logs'),
    ('log.dir.failure.timeout.ms', _T.LONG, '30000'),
    ('log.flush.offset.checkpoint.interval.ms', _T.INT, '60000'),
    ('log.flush.scheduler.interval.ms', _T.LONG, '9223372036854775807'),
    ('log.flush.start.offset.checkpoint.interval.ms', _T.INT, '60000'),
    ('log.retention.hours', _T.INT, '168'),
    ('log.retention.minutes', _T.INT, None),
    ('log.roll.hours', _T.INT, '168'),
    ('log.roll.jitter.hours', _T.INT, '0'),
    ('metadata.log.dir', _T.STRING, None),
    ('metadata.log.max.record.bytes.between.snapshots', _T.LONG, '20971520'),
    ('metadata.log.max.snapshot.interval.ms', _T.LONG, '3600000'),
    ('metadata.log.segment.bytes', _T.INT, '1073741824'),
    ('metadata.log.segment.ms', _T.LONG, '604800000'),
    ('metadata.max.idle.interval.ms', _T.INT, '500'),
    ('metadata.max.retention.bytes', _T.LONG, '104857600'),
    ('metadata.max.retention.ms', _T.LONG, '604800000'),
    ('metrics.num.samples', _T.INT, '2'),
    ('metrics.recording.level', _T.STRING, 'INFO'),
    ('metrics.sample.window.ms', _T.LONG, '30000'),
    ('num.replica.alter.log.dirs.threads', _T.INT, None),
    ('offsets.commit.timeout.ms', _T.INT, '5000'),
    ('offsets.load.buffer.size', _T.INT, '5242880'),
    ('offsets.topic.compression.codec', _T.INT, '0'),
    ('offsets.topic.replication.factor', _T.SHORT, '3'),
    ('process.roles', _T.LIST, None),
    ('producer.purgatory.purge.interval.requests', _T.INT, '1000'),
    ('queued.max.request.bytes', _T.LONG, '-1'),
    ('remote.log.manager.copy.quota.window.num', _T.INT, '11'),
    ('remote.log.manager.copy.quota.window.size.seconds', _T.INT, '1'),
    ('remote.log.manager.fetch.quota.window.num', _T.INT, '11'),
    ('remote.log.manager.fetch.quota.window.size.seconds', _T.INT, '1'),
    ('remote.log.manager.task.interval.ms', _T.LONG, '30000'),
    ('remote.log.manager.thread.pool.size', _T.INT, '2'),
    ('remote.log.metadata.custom.metadata.max.bytes', _T.INT, '128'),
    ('remote.log.metadata.manager.class.name', _T.STRING, 'org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager'),
    ('remote.log.metadata.manager.class.path', _T.STRING, None),
    ('remote.log.metadata.manager.impl.prefix', _T.STRING, 'rlmm.config.'),
    ('remote.log.metadata.manager.listener.name', _T.STRING, None),
    ('remote.log.reader.max.pending.tasks', _T.INT, '100'),
    ('remote.log.storage.manager.class.name', _T.STRING, None),
    ('remote.log.storage.manager.class.path', _T.STRING, None),
    ('remote.log.storage.manager.impl.prefix', _T.STRING, 'rsm.config.'),
    ('remote.log.storage.system.enable', _T.BOOLEAN, 'false'),
    ('replica.fetch.backoff.ms', _T.INT, '1000'),
    ('replica.fetch.max.bytes', _T.INT, '1048576'),
    ('replica.fetch.min.bytes', _T.INT, '1'),
    ('replica.fetch.response.max.bytes', _T.INT, '10485760'),
    ('replica.fetch.wait.max.ms', _T.INT, '500'),
    ('replica.high.watermark.checkpoint.interval.ms', _T.LONG, '5000'),
    ('replica.lag.time.max.ms', _T.LONG, '30000'),
    ('replica.selector.class', _T.STRING, None),
    ('replica.socket.receive.buffer.bytes', _T.INT, '65536'),
    ('replica.socket.timeout.ms', _T.INT, '30000'),
    ('replication.quota.window.num', _T.INT, '11'),
    ('replication.quota.window.size.seconds', _T.INT, '1'),
    ('request.timeout.ms', _T.INT, '30000'),
    ('sasl.client.callback.handler.class', _T.CLASS, None),
    ('sasl.login.callback.handler.class', _T.CLASS, None),
    ('sasl.login.class', _T.CLASS, None),
    ('sasl.login.connect.timeout.ms', _T.INT, None),
    ('sasl.login.read.timeout.ms', _T.INT, None),
    ('sasl.login.retry.backoff.max.ms', _T.LONG, '10000'),
    ('sasl.login.retry.backoff.ms', _T.LONG, '100'),
    ('sasl.mechanism.controller.protocol', _T.STRING, 'GSSAPI'),
    ('sasl.oauthbearer.clock.skew.seconds', _T.INT, '30'),
    ('sasl.oauthbearer.expected.audience', _T.LIST, None),
    ('sasl.oauthbearer.expected.issuer', _T.STRING, None),
    ('sasl.oauthbearer.jwks.endpoint.refresh.ms', _T.LONG, '3600000'),
    ('sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms', _T.LONG, '10000'),
    ('sasl.oauthbearer.jwks.endpoint.retry.backoff.ms', _T.LONG, '100'),
    ('sasl.oauthbearer.jwks.endpoint.url', _T.STRING, None),
    ('sasl.oauthbearer.scope.claim.name', _T.STRING, 'scope'),
    ('sasl.oauthbearer.sub.claim.name', _T.STRING, 'sub'),
    ('sasl.oauthbearer.token.endpoint.url', _T.STRING, None),
    ('sasl.server.callback.handler.class', _T.CLASS, None),
    ('sasl.server.max.receive.size', _T.INT, '524288'),
    ('security.inter.broker.protocol', _T.STRING, 'PLAINTEXT'),
    ('security.providers', _T.STRING, None),
    ('share.coordinator.append.linger.ms', _T.INT, '10'),
    ('share.coordinator.load.buffer.size', _T.INT, '5242880'),
    ('share.coordinator.state.topic.compression.codec', _T.INT, '0'),
    ('share.coordinator.state.topic.min.isr', _T.SHORT, '2'),
    ('share.coordinator.state.topic.replication.factor', _T.SHORT, '3'),
    ('share.coordinator.state.topic.segment.bytes', _T.INT, '104857600'),
    ('share.coordinator.threads', _T.INT, '1'),
    ('share.coordinator.write.timeout.ms', _T.INT, '5000'),
    ('share.fetch.purgatory.purge.interval.requests', _T.INT, '1000'),
    ('socket.connection.setup.timeout.max.ms', _T.LONG, '30000'),
    ('socket.connection.setup.timeout.ms', _T.LONG, '10000'),
    ('socket.listen.backlog.size', _T.INT, '50'),
    ('socket.receive.buffer.bytes', _T.INT, '102400'),
    ('socket.send.buffer.bytes', _T.INT, '102400'),
    ('ssl.allow.dn.changes', _T.BOOLEAN, 'false'),
    ('ssl.allow.san.changes', _T.BOOLEAN, 'false'),
    ('ssl.principal.mapping.rules', _T.STRING, 'DEFAULT'),
    ('telemetry.max.bytes', _T.INT, '1048576'),
    ('transaction.state.log.load.buffer.size', _T.INT, '5242880'),
    ('transaction.state.log.min.isr', _T.INT, '2'),
    ('transaction.state.log.replication.factor', _T.SHORT, '3'),
]

# Name -> (type, Kafka's default).
KAFKA_STATIC_BROKER_CONFIGS: dict[str, tuple[ConfigType, str | None]] = {
    name: (type_, default) for name, type_, default in _STATIC
}


# Kafka's types of settings this broker does have (broker/config.py), where the setting's
# own parser does not tell them (an int that Kafka types LONG, a list, an enum string).
KAFKA_TYPES: dict[str, ConfigType] = {
    "connections.max.idle.ms": _T.LONG,
    "connections.max.reauth.ms": _T.LONG,
    "offsets.retention.check.interval.ms": _T.LONG,
    "group.consumer.assignors": _T.LIST,
    "group.consumer.migration.policy": _T.STRING,
}


def static_security_settings(config: Config) -> dict[str, str]:
    """The security settings (broker/security_settings.py: TLS, SASL, the authorizer) given
    a value other than Kafka's default: the STATIC_BROKER_CONFIG layer DescribeConfigs shows
    for them, which the broker's own settings table does not hold."""
    out = {}
    for name, default in SECURITY_DEFAULTS.items():
        value = config.security.get(name)
        if value is not None and value != default:
            out[name] = value
    return out
