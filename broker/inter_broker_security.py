"""How this broker reaches the other brokers of its cluster, by Kafka's settings: the
listener (`inter.broker.listener.name`, else the listener named by
`security.inter.broker.protocol`, Kafka's default PLAINTEXT, else the first listener), TLS
with that listener's own `ssl.*` settings (broker/security/tls.py's `client_context`), and a
SASL login with `sasl.mechanism.inter.broker.protocol`, whose credentials are the
`username` and `password` options of the listener's JAAS config for the mechanism
(`listener.name.<listener>.<mechanism>.sasl.jaas.config`, else `sasl.jaas.config`), as
Kafka's inter-broker client reads them. The peer authorizes the resulting principal
(User:<username>, or the certificate's subject over SSL) for CLUSTER_ACTION."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass

from broker.config import Config, ConfigError
from broker.security.jaas import JaasConfigError, login_module_options
from broker.security.listeners import uses_sasl, uses_tls
from broker.security.tls import TlsConfigError, client_context
from protocol.sasl_client import OAuthBearer, Plain, SaslMechanism, Scram, extensions, unsecured_token

# A fresh login per connection (an OAUTHBEARER token is minted for each).
SaslLogin = Callable[[], SaslMechanism]


@dataclass(frozen=True)
class InterBrokerSecurity:
    listener: str
    protocol: str
    ssl_context: ssl.SSLContext | None = None
    sasl: SaslLogin | None = None
    mechanism: str | None = None


def inter_broker_listener(config: Config) -> str:
    """The name of the listener the brokers speak to each other on (Kafka's
    `KafkaConfig.interBrokerListenerName`)."""
    security = config.security
    named = security.get("inter.broker.listener.name")
    protocol = security.get("security.inter.broker.protocol") or "PLAINTEXT"
    advertised = [listener.name for listener in config.advertised_listeners]
    if named:
        if security.given("security.inter.broker.protocol"):
            raise ConfigError("only one of inter.broker.listener.name and security.inter.broker.protocol may be set")
        if named not in advertised:
            raise ConfigError(f"inter.broker.listener.name {named} is not a listener of advertised.listeners")
        return named
    if protocol in advertised:
        return protocol
    if protocol != "PLAINTEXT":
        raise ConfigError(f"security.inter.broker.protocol {protocol}: no listener of that name")
    # Where Kafka would refuse to start, the first listener (a broker whose only listener
    # is, say, CLIENT still forms a cluster).
    return advertised[0]


def inter_broker_security(config: Config) -> InterBrokerSecurity:
    """ConfigError when the settings cannot make the inter-broker client, at start."""
    listener = inter_broker_listener(config)
    protocol = config.security_protocols.get(listener)
    if protocol is None:
        raise ConfigError(f"the inter-broker listener {listener} is advertised but not among listeners")
    context = None
    if uses_tls(protocol):
        try:
            context = client_context(config.security, listener)
        except TlsConfigError as exc:
            raise ConfigError(f"inter-broker listener {listener}: {exc}") from None
    if not uses_sasl(protocol):
        return InterBrokerSecurity(listener, protocol, context)
    mechanism = (config.security.get("sasl.mechanism.inter.broker.protocol") or "").strip().upper()
    enabled = [m.upper() for m in config.security.list_for_listener(listener, "sasl.enabled.mechanisms")]
    if mechanism not in enabled:
        raise ConfigError(
            f"sasl.mechanism.inter.broker.protocol {mechanism} is not among the sasl.enabled.mechanisms "
            f"of the inter-broker listener {listener} ({', '.join(enabled)})"
        )
    return InterBrokerSecurity(listener, protocol, context, _login(config, listener, mechanism), mechanism)


def _login(config: Config, listener: str, mechanism: str) -> SaslLogin:
    where = f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config"
    jaas = config.security.jaas_config(listener, mechanism)
    if not jaas:
        raise ConfigError(f"the inter-broker {mechanism} login needs {where} (or sasl.jaas.config)")
    try:
        _, options = login_module_options(jaas)
    except JaasConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if mechanism == "OAUTHBEARER":
        try:
            unsecured_token(options)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        return lambda: OAuthBearer(unsecured_token(options), extensions(options))
    missing = [k for k in ("username", "password") if k not in options]
    if missing:
        raise ConfigError(f"{where}: the inter-broker {mechanism} login needs {' and '.join(missing)}")
    username, password = options["username"], options["password"]
    if mechanism == "PLAIN":
        plain = Plain(username, password)
        return lambda: plain
    if mechanism.startswith("SCRAM-"):
        scram = Scram(mechanism, username, password)
        return lambda: scram
    raise ConfigError(f"sasl.mechanism.inter.broker.protocol {mechanism} is not supported between brokers")
