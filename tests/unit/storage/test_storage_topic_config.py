"""Topic config definitions, parsing and DescribeConfigs rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.errors import ConfigError
from storage.file_storage import FileStorage
from storage.topic_config import (
    CONFIG_DEFS,
    ConfigSource,
    ConfigType,
    TopicConfig,
    validate_configs,
)
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import Draws


def test_segment_roll_age_and_jitter() -> None:
    # Kafka's LogConfig.maxSegmentMs and randomSegmentJitter.
    assert TopicConfig().max_segment_ms == 604800000
    assert TopicConfig({"segment.ms": "5000", "max.compaction.lag.ms": "1000"}).max_segment_ms == 5000
    compacted = {"segment.ms": "5000", "cleanup.policy": "compact", "max.compaction.lag.ms": "1000"}
    assert TopicConfig(compacted).max_segment_ms == 1000
    assert TopicConfig({**compacted, "max.compaction.lag.ms": "9000"}).max_segment_ms == 5000
    draws = Draws(2_147_483_647)
    assert TopicConfig().random_segment_jitter(draws) == 0 and draws.stops == []  # no draw
    # The bound is the smaller of segment.jitter.ms and segment.ms; the draw is below 2**31.
    config = TopicConfig({"segment.ms": "1000", "segment.jitter.ms": "5000"})
    assert config.random_segment_jitter(draws) == 647 and draws.stops == [1 << 31]
    assert TopicConfig({"segment.jitter.ms": "5000"}).random_segment_jitter(Draws(123_456)) == 3456


def test_defaults() -> None:
    c = TopicConfig()
    assert c.segment_bytes == 1073741824
    assert c.segment_ms == 604800000
    assert c.retention_ms == 604800000
    assert c.retention_bytes == -1
    assert c.max_message_bytes == 1048588
    assert c.index_interval_bytes == 4096
    assert c.cleanup_policy == {"delete"} and c.delete and not c.compact
    assert c.compression_type == "producer"
    assert not c.log_append_time
    assert c.min_insync_replicas == 1
    assert c.get("unclean.leader.election.enable") is False


def test_normalisation() -> None:
    assert validate_configs({"cleanup.policy": " compact , delete "}) == {"cleanup.policy": "compact,delete"}
    assert validate_configs({"preallocate": "TRUE"}) == {"preallocate": "true"}
    assert validate_configs({"retention.ms": " 5 "}) == {"retention.ms": "5"}
    assert validate_configs({"retention.ms": None}) == {"retention.ms": None}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("segment.bytes", "1048575"),
        ("segment.bytes", "4294967296"),  # not an int32
        ("segment.ms", "0"),
        ("retention.ms", "1.5"),
        ("min.cleanable.dirty.ratio", "1.5"),
        ("flush.messages", "0"),
        ("cleanup.policy", "compact,forever"),
        ("segment.index.bytes", "3"),
    ],
)
def test_rejects(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_configs({name: value})
    assert info.value.error_code == 40


def test_describe_rows() -> None:
    c = TopicConfig({"retention.ms": "10"}, {"segment.ms": "20"})
    rows = {r.name: r for r in c.describe()}
    assert set(rows) == set(CONFIG_DEFS)
    assert rows["retention.ms"].source == ConfigSource.TOPIC_CONFIG and not rows["retention.ms"].is_default
    assert rows["segment.ms"].source == ConfigSource.STATIC_BROKER_CONFIG and rows["segment.ms"].value == "20"
    assert rows["segment.bytes"].is_default and rows["segment.bytes"].config_type == ConfigType.INT
    assert [r.name for r in c.describe(["retention.ms", "nope"])] == ["retention.ms"]


async def test_broker_defaults_and_internal_topics(tmp_path: Path) -> None:
    s = await FileStorage.open(tmp_path, broker_defaults={"retention.ms": "1234"}, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    await s.create_topic("__transaction_state", 1)
    assert s.describe_topic("t").config.retention_ms == 1234
    internal = s.describe_topic("__transaction_state")
    assert internal.internal and internal.config.compact
    assert not s.describe_topic("t").internal
    with pytest.raises(ConfigError):
        await FileStorage.open(tmp_path / "x", broker_defaults={"retention.ms": "bad"}, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.close()
