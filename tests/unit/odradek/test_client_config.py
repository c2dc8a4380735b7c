"""odradek/client_config.py's reading of Kafka client properties: the `.properties` syntax
Kafka's tools read, `sasl.jaas.config`, the unsecured OAUTHBEARER token, and which
`ODRADEK_*` variables count for a client. (The connections they make are tested against the
broker in test_cli_security.py.)"""

from __future__ import annotations

import base64
import json
import re

import pytest

from odradek.client_config import (
    ClientConfigError,
    client_security,
    env_properties,
    parse_jaas,
    parse_properties,
)
from protocol.sasl_client import OAuthBearer, Plain, Scram, unsecured_token

SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"


def test_properties_syntax() -> None:
    text = (
        "# a comment\n"
        "! another\n"
        "\n"
        "security.protocol = SASL_SSL\n"
        f"sasl.jaas.config={SCRAM_MODULE} required \\\n"
        '    username="alice" \\\n'
        '    password="a=b;c";\n'
        "ssl.truststore.location: /etc/odradek/ca\\ file.pem\n"
        "client.id odradek\\u00e9\n"
        "ssl.keystore.key=line1\\nline2\n"
    )
    assert parse_properties(text) == {
        "security.protocol": "SASL_SSL",
        "sasl.jaas.config": f'{SCRAM_MODULE} required username="alice" password="a=b;c";',
        "ssl.truststore.location": "/etc/odradek/ca file.pem",
        "client.id": "odradek\u00e9",
        "ssl.keystore.key": "line1\nline2",
    }


def test_jaas_options() -> None:
    assert parse_jaas(f'{SCRAM_MODULE} required username="al\\"ice" password=plain tokenauth="false";') == (
        SCRAM_MODULE, {"username": 'al"ice', "password": "plain", "tokenauth": "false"})
    with pytest.raises(ClientConfigError, match="cannot read 'garbage'"):
        parse_jaas(f'{SCRAM_MODULE} required username="a" garbage;')
    with pytest.raises(ClientConfigError, match="is not of the form"):
        parse_jaas("username=alice")


def test_sasl_mechanisms_from_properties() -> None:
    def sasl(mechanism: str, jaas: str) -> object:
        props = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism, "sasl.jaas.config": jaas}
        return client_security(props, clock=lambda: 1_000_000.0).sasl

    plain = "org.apache.kafka.common.security.plain.PlainLoginModule"
    assert sasl("PLAIN", f'{plain} required username="u" password="p";') == Plain("u", "p")
    assert sasl("SCRAM-SHA-512", f'{SCRAM_MODULE} required username="u" password="p";') == Scram(
        "SCRAM-SHA-512", "u", "p")
    oauth = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
    bearer = sasl("OAUTHBEARER", f'{oauth} required unsecuredLoginStringClaim_sub="bob" '
                                 'unsecuredLoginLifetimeSeconds="60" unsecuredLoginExtension_traceId="t1";')
    assert isinstance(bearer, OAuthBearer) and bearer.extensions == {"traceId": "t1"}
    plain_not_scram = f"sasl.mechanism PLAIN logs in with {plain}, not {SCRAM_MODULE}"
    with pytest.raises(ClientConfigError, match=re.escape(plain_not_scram)):
        sasl("PLAIN", f'{SCRAM_MODULE} required username="u" password="p";')
    with pytest.raises(ClientConfigError, match="lacks password"):
        sasl("SCRAM-SHA-256", f'{SCRAM_MODULE} required username="u";')
    with pytest.raises(ClientConfigError, match="only unsecured tokens"):
        sasl("OAUTHBEARER", f"{oauth} required;")


def test_unsecured_token_claims() -> None:
    token = unsecured_token({
        "unsecuredLoginStringClaim_sub": "bob",
        "unsecuredLoginNumberClaim_level": "3",
        "unsecuredLoginListClaim_scope": ",read,write",
        "unsecuredLoginLifetimeSeconds": "60",
    }, clock=lambda: 1_000_000.5)
    header, claims, signature = token.split(".")

    def decode(part: str) -> object:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))

    assert (decode(header), signature) == ({"alg": "none"}, "")
    assert decode(claims) == {"sub": "bob", "level": 3, "scope": ["read", "write"], "iat": 1_000_000,
                              "exp": 1_000_060}
    with pytest.raises(ValueError, match="unsecuredLoginStringClaim_principal"):
        unsecured_token({"unsecuredLoginPrincipalClaimName": "principal"})


def test_plaintext_ignores_the_ssl_and_sasl_settings() -> None:
    security = client_security({"ssl.truststore.location": "/nowhere", "sasl.mechanism": "GSSAPI"})
    assert (security.protocol, security.ssl_context, security.sasl) == ("PLAINTEXT", None, None)


def test_the_environment_counts_only_beside_its_security_protocol() -> None:
    broker_only = {"ODRADEK_SSL_KEYSTORE_LOCATION": "/broker.pem", "ODRADEK_LOG_DIRS": "/data"}
    assert env_properties(broker_only) == {}
    client = {**broker_only, "ODRADEK_SECURITY_PROTOCOL": "SASL_SSL", "ODRADEK_SASL_MECHANISM": "PLAIN",
              "ODRADEK_SASL_JAAS_CONFIG": "x", "ODRADEK_BOOTSTRAP_SERVER": "h:1"}
    assert env_properties(client) == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.jaas.config": "x",
        "ssl.keystore.location": "/broker.pem"}
