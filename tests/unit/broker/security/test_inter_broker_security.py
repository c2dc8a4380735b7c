"""Which listener brokers reach each other on, and how they log in there
(broker/inter_broker_security.py), by Kafka's settings."""

from __future__ import annotations

import re

import pytest

from broker.config import Config, ConfigError
from broker.inter_broker_security import inter_broker_listener, inter_broker_security
from protocol.sasl_client import OAuthBearer, Plain, Scram

TWO = "CLIENT://127.0.0.1:9192,INTERNAL://127.0.0.1:9193"
MAP = "CLIENT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT"
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="broker" password="s3cret" user_broker="s3cret";')


def test_default_is_the_listener_named_plaintext_else_the_first() -> None:
    assert inter_broker_listener(Config({"listeners": "SSL://127.0.0.1:1,PLAINTEXT://127.0.0.1:2"})) == "PLAINTEXT"
    assert inter_broker_listener(Config({"listeners": TWO, "listener.security.protocol.map": MAP})) == "CLIENT"


def test_named_listener_and_its_conflicts() -> None:
    base = {"listeners": TWO, "listener.security.protocol.map": MAP}
    assert inter_broker_listener(Config({**base, "inter.broker.listener.name": "INTERNAL"})) == "INTERNAL"
    with pytest.raises(ConfigError, match="not a listener"):
        inter_broker_listener(Config({**base, "inter.broker.listener.name": "OTHER"}))
    with pytest.raises(ConfigError, match="only one of"):
        inter_broker_listener(Config({**base, "inter.broker.listener.name": "INTERNAL",
                                      "security.inter.broker.protocol": "SSL"}))
    with pytest.raises(ConfigError, match="no listener of that name"):
        inter_broker_listener(Config({**base, "security.inter.broker.protocol": "SSL"}))


def test_sasl_login_from_the_listener_and_mechanism_jaas_config() -> None:
    base = {"listeners": TWO, "listener.security.protocol.map": MAP, "inter.broker.listener.name": "INTERNAL",
            "listener.name.internal.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512,OAUTHBEARER"}
    with pytest.raises(ConfigError, match="GSSAPI is not among"):
        inter_broker_security(Config(base))
    plain = inter_broker_security(Config({**base, "sasl.mechanism.inter.broker.protocol": "PLAIN",
                                          "listener.name.internal.plain.sasl.jaas.config": PLAIN_JAAS}))
    assert (plain.protocol, plain.ssl_context, plain.mechanism) == ("SASL_PLAINTEXT", None, "PLAIN")
    assert plain.sasl is not None and plain.sasl() == Plain("broker", "s3cret")
    scram = inter_broker_security(Config({
        **base, "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="broker" password="pw";'}))
    assert scram.sasl is not None and scram.sasl() == Scram("SCRAM-SHA-512", "broker", "pw")
    oauth = inter_broker_security(Config({
        **base, "sasl.mechanism.inter.broker.protocol": "OAUTHBEARER",
        "listener.name.internal.oauthbearer.sasl.jaas.config":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
            'unsecuredLoginStringClaim_sub="broker";'}))
    assert oauth.sasl is not None and isinstance(oauth.sasl(), OAuthBearer)
    with pytest.raises(ConfigError, match="needs password"):
        inter_broker_security(Config({
            **base, "sasl.mechanism.inter.broker.protocol": "PLAIN",
            "listener.name.internal.plain.sasl.jaas.config":
                'org.apache.kafka.common.security.plain.PlainLoginModule required username="broker";'}))
    with pytest.raises(ConfigError, match=re.escape("needs listener.name.internal.plain.sasl.jaas.config")):
        inter_broker_security(Config({**base, "sasl.mechanism.inter.broker.protocol": "PLAIN"}))
