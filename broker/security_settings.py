"""The security settings, by Kafka's names, and their per-listener overrides.

Kafka lets every `ssl.*` and `sasl.*` setting be given for one listener as
`listener.name.<listener>.<setting>` (the listener name in lower case), and a JAAS config for
one mechanism as `listener.name.<listener>.<mechanism>.sasl.jaas.config`; the prefixed value
wins over the plain one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Kafka's defaults (`BrokerSecurityConfigs`, `SslConfigs`); None where Kafka's is null.
DEFAULTS: dict[str, str | None] = {
    "listener.security.protocol.map": "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
    "ssl.protocol": "TLSv1.3",
    "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
    "ssl.cipher.suites": "",
    "ssl.client.auth": "none",
    "ssl.keystore.type": "JKS",
    "ssl.keystore.location": None,
    "ssl.keystore.password": None,
    "ssl.keystore.certificate.chain": None,
    "ssl.keystore.key": None,
    "ssl.key.password": None,
    "ssl.truststore.type": "JKS",
    "ssl.truststore.location": None,
    "ssl.truststore.password": None,
    "ssl.truststore.certificates": None,
    "ssl.endpoint.identification.algorithm": "https",
    "sasl.enabled.mechanisms": "GSSAPI",
    "sasl.jaas.config": None,
    # The listener brokers reach each other on, and how they log in there.
    "inter.broker.listener.name": None,
    "security.inter.broker.protocol": "PLAINTEXT",
    "sasl.mechanism.inter.broker.protocol": "GSSAPI",
    # Authorization (Kafka's StandardAuthorizer): on when authorizer.class.name is not empty.
    "authorizer.class.name": "",
    "super.users": None,
    "allow.everyone.if.no.acl.found": "false",
}

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")

_PREFIXED = re.compile(r"^listener\.name\.([^.]+)\.(.+)$")
_MECHANISM_JAAS = re.compile(r"^[a-z0-9-]+\.sasl\.jaas\.config$")
_MECHANISM_REAUTH = re.compile(r"^[a-z0-9-]+\.connections\.max\.reauth\.ms$")
_PER_LISTENER = frozenset({"max.connections", "max.connection.creation.rate", "connections.max.reauth.ms"})


def is_security_setting(name: str) -> bool:
    if name in DEFAULTS:
        return True
    match = _PREFIXED.match(name)
    if match is None:
        return False
    rest = match.group(2)
    # The per-listener connection settings are kept with them: read per listener the same way.
    return rest in _PER_LISTENER or bool(_MECHANISM_REAUTH.match(rest)) or (rest.startswith(("ssl.", "sasl.")) and rest in DEFAULTS) or bool(_MECHANISM_JAAS.match(rest))


class SecuritySettings:
    """The security settings as given (strings), looked up per listener."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)

    def get(self, name: str) -> str | None:
        return self._values.get(name, DEFAULTS.get(name))

    def given(self, name: str) -> bool:
        """Whether the setting was given, not left to its default."""
        return name in self._values

    def for_listener(self, listener: str, name: str) -> str | None:
        prefixed = f"listener.name.{listener.lower()}.{name}"
        if prefixed in self._values:
            return self._values[prefixed]
        return self.get(name)

    def jaas_config(self, listener: str, mechanism: str) -> str | None:
        """The JAAS config of a mechanism on a listener (Kafka's lookup order: the
        listener-and-mechanism-prefixed one, then the plain `sasl.jaas.config`)."""
        prefixed = f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config"
        if prefixed in self._values:
            return self._values[prefixed]
        return self.get("sasl.jaas.config")

    def mechanism_setting(self, listener: str, mechanism: str, name: str) -> str | None:
        """A listener-and-mechanism-prefixed setting, else the listener-prefixed one; None if
        neither is given (Kafka's `ListenerName.saslMechanismConfigPrefix` lookup)."""
        prefix = f"listener.name.{listener.lower()}."
        for key in (f"{prefix}{mechanism.lower()}.{name}", f"{prefix}{name}"):
            if key in self._values:
                return self._values[key]
        return None

    def list_for_listener(self, listener: str, name: str) -> list[str]:
        value = self.for_listener(listener, name) or ""
        return [item.strip() for item in value.split(",") if item.strip()]

    def protocol_map(self) -> dict[str, str]:
        """Listener name -> security protocol, from `listener.security.protocol.map`."""
        out: dict[str, str] = {}
        for item in (self.get("listener.security.protocol.map") or "").split(","):
            if not item.strip():
                continue
            name, sep, protocol = item.partition(":")
            protocol = protocol.strip().upper()
            if not sep or protocol not in SECURITY_PROTOCOLS:
                raise ValueError(f"listener.security.protocol.map: cannot read {item.strip()!r}")
            out[name.strip().upper()] = protocol
        return out
