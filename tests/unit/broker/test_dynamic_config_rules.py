"""Unit tests of the pure rules behind dynamic broker configs and group configs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from broker.config import SETTINGS
from broker.dynamic_config import (
    DynamicConfigError,
    DynamicConfigs,
    broker_config_synonyms,
    effective_topic_defaults,
    validate_broker_configs,
)
from broker.group_config import validate_group_configs
from broker.handlers.describe_configs import BrokerLayers, Synonym
from storage.errors import ConfigError
from storage.topic_config import ConfigSource

STATIC = frozenset(SETTINGS)


def test_synonym_names_follow_kafka() -> None:
    assert broker_config_synonyms("log.retention.ms") == ["log.retention.ms", "log.retention.minutes",
                                                          "log.retention.hours"]
    assert broker_config_synonyms("log.roll.hours") == ["log.roll.ms", "log.roll.hours"]
    assert broker_config_synonyms("listener.name.internal.ssl.keystore.location") == [
        "listener.name.internal.ssl.keystore.location", "ssl.keystore.location"]
    assert broker_config_synonyms("num.io.threads") == ["num.io.threads"]


def test_layers_drop_the_synonyms_before_the_name() -> None:
    layers = BrokerLayers({}, {"log.retention.hours": "2"}, {}, {"log.retention.hours": "168"})
    # Only other names are set: Kafka drops them when describing log.retention.ms itself.
    assert layers.synonyms("log.retention.ms") == []
    layers = BrokerLayers({"log.retention.ms": "5"}, {}, {}, {"log.retention.hours": "168"})
    assert layers.synonyms("log.retention.ms") == [
        Synonym("log.retention.ms", "5", ConfigSource.DYNAMIC_BROKER_CONFIG),
        Synonym("log.retention.hours", "168", ConfigSource.DEFAULT_CONFIG),
    ]
    sensitive = BrokerLayers({"ssl.key.password": "secret"}, {}, {}, {})
    assert sensitive.synonyms("ssl.key.password") == [
        Synonym("ssl.key.password", None, ConfigSource.DYNAMIC_BROKER_CONFIG)]


def test_broker_config_checks() -> None:
    validate_broker_configs({"listener.name.internal.ssl.keystore.location": "/k.jks"}, STATIC, per_broker=True)
    validate_broker_configs({"my.plugin.setting": "anything"}, STATIC, per_broker=False)  # custom configs are kept
    with pytest.raises(DynamicConfigError, match="broker id must be specified"):
        validate_broker_configs({"listener.name.internal.ssl.keystore.location": "/k.jks"}, STATIC, per_broker=False)
    validate_broker_configs({"listener.name.internal.max.connections": "10"}, STATIC, per_broker=False)
    with pytest.raises(DynamicConfigError, match=r"^Cannot update these configs dynamically: Set\(log.dirs\)$"):
        validate_broker_configs({"log.dirs": "/x", "num.io.threads": "3"}, STATIC, per_broker=True)
    with pytest.raises(DynamicConfigError, match=re.escape("num.io.threads")):
        validate_broker_configs({"num.io.threads": "0"}, STATIC, per_broker=True)


def test_group_config_checks() -> None:
    validate_group_configs({"consumer.session.timeout.ms": "60000", "streams.num.standby.replicas": "2"})
    with pytest.raises(ConfigError, match=re.escape("streams.num.standby.replicas must be less than or equal to")):
        validate_group_configs({"streams.num.standby.replicas": "3"})
    with pytest.raises(ConfigError, match=re.escape("consumer.heartbeat.interval.ms must be greater than or equal to")):
        validate_group_configs({"consumer.heartbeat.interval.ms": "10"})
    with pytest.raises(ConfigError, match=re.escape("share.isolation.level")):
        validate_group_configs({"share.isolation.level": "serializable"})


async def test_store_round_trip(tmp_path: Path) -> None:
    store = DynamicConfigs.load(tmp_path)
    await store.replace_broker(True, {"log.retention.ms": "1000", "num.io.threads": "4"})
    await store.replace_broker(False, {"log.retention.ms": "2000", "message.max.bytes": "3000"})
    await store.replace_group("g", {"consumer.session.timeout.ms": "50000"})
    again = DynamicConfigs.load(tmp_path)
    assert (again.broker, again.default, again.groups) == (store.broker, store.default, store.groups)
    assert effective_topic_defaults({"retention.ms": "9", "segment.bytes": "1048576"}, again) == {
        "retention.ms": "1000", "segment.bytes": "1048576", "max.message.bytes": "3000"}
    await store.replace_group("g", {})
    assert DynamicConfigs.load(tmp_path).groups == {}
