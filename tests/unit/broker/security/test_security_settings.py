"""The security settings: Kafka's names, per-listener overrides and the protocol map."""

from __future__ import annotations

import pytest

from broker.config import Config, ConfigError
from broker.security.tls import openssl_cipher_name


def test_listener_prefixed_settings_win_over_plain_ones() -> None:
    config = Config({
        "listeners": "PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:9093",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL",
        "ssl.client.auth": "requested",
        "listener.name.internal.ssl.client.auth": "required",
        "sasl.jaas.config": "plain-default",
        "listener.name.internal.scram-sha-256.sasl.jaas.config": "scram-internal",
    })
    assert config.security_protocols == {"PLAINTEXT": "PLAINTEXT", "INTERNAL": "SASL_SSL"}
    assert config.security.for_listener("INTERNAL", "ssl.client.auth") == "required"
    assert config.security.for_listener("PLAINTEXT", "ssl.client.auth") == "requested"
    # Kafka's defaults where nothing is set.
    assert config.security.for_listener("PLAINTEXT", "ssl.enabled.protocols") == "TLSv1.2,TLSv1.3"
    assert config.security.for_listener("PLAINTEXT", "ssl.keystore.location") is None
    assert config.security.jaas_config("INTERNAL", "SCRAM-SHA-256") == "scram-internal"
    assert config.security.jaas_config("INTERNAL", "PLAIN") == "plain-default"


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"listeners": "CLIENT://127.0.0.1:9092"}, "no security protocol defined for listener CLIENT"),
        ({"listener.security.protocol.map": "PLAINTEXT:TLS"}, "cannot read 'PLAINTEXT:TLS'"),
        ({"listener.name.client.no.such.setting": "x"}, "unknown setting"),
    ],
)
def test_bad_security_settings_are_refused(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config(overrides)


@pytest.mark.parametrize(
    "kafka_name, openssl_name",
    [
        ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"),
        ("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"),
        ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"),
        ("ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"),
        ("TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
    ],
)
def test_kafka_cipher_suite_names_become_openssl_names(kafka_name: str, openssl_name: str) -> None:
    assert openssl_cipher_name(kafka_name) == openssl_name
