"""The SASL mechanisms each listener offers, and a fresh mechanism server per exchange."""

from __future__ import annotations

from broker.config import Config, ConfigError
from broker.security.jaas import JaasConfigError, plain_users
from broker.security.sasl.mechanisms import (
    MechanismServer,
    OAuthBearerUnsecuredServer,
    PlainServer,
    ScramServer,
)
from broker.security.scram_credentials import ScramCredentialStore
from storage.clock import Clock

SUPPORTED = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")


class SaslServers:
    def __init__(self, config: Config, scram: ScramCredentialStore, clock: Clock) -> None:
        self.scram = scram
        self.clock = clock
        self._mechanisms: dict[str, list[str]] = {}
        self._plain_users: dict[str, dict[str, str]] = {}
        # connections.max.reauth.ms by (listener, mechanism), as Kafka's
        # `connectionsMaxReauthMsByMechanism`.
        self._max_reauth_ms: dict[tuple[str, str], int] = {}
        for listener in config.listeners:
            name = listener.name
            if config.security_protocols[name] not in ("SASL_PLAINTEXT", "SASL_SSL"):
                continue
            enabled = [m.upper() for m in config.security.list_for_listener(name, "sasl.enabled.mechanisms")]
            unsupported = [m for m in enabled if m not in SUPPORTED]
            if unsupported or not enabled:
                raise ConfigError(
                    f"listener {name}: sasl.enabled.mechanisms may name {', '.join(SUPPORTED)}, not {enabled}"
                )
            self._mechanisms[name] = enabled
            for mechanism in enabled:
                value = config.security.mechanism_setting(name, mechanism, "connections.max.reauth.ms")
                try:
                    reauth_ms = config.get_int("connections.max.reauth.ms") if value is None else int(value)
                except ValueError:
                    raise ConfigError(f"listener {name}: connections.max.reauth.ms for {mechanism}: {value!r}") from None
                self._max_reauth_ms[(name, mechanism)] = reauth_ms
            if "PLAIN" in enabled:
                jaas = config.security.jaas_config(name, "PLAIN")
                if not jaas:
                    raise ConfigError(
                        f"listener {name}: PLAIN needs listener.name.{name.lower()}.plain.sasl.jaas.config "
                        "or sasl.jaas.config with user_<name>=\"<password>\" entries"
                    )
                try:
                    self._plain_users[name] = plain_users(jaas)
                except JaasConfigError as exc:
                    raise ConfigError(f"listener {name}: {exc}") from None

    def mechanisms(self, listener: str) -> list[str]:
        return self._mechanisms.get(listener, [])

    def max_reauth_ms(self, listener: str, mechanism: str) -> int:
        return self._max_reauth_ms.get((listener, mechanism), 0)

    def create(self, listener: str, mechanism: str) -> MechanismServer:
        if mechanism == "PLAIN":
            return PlainServer(self._plain_users[listener])
        if mechanism.startswith("SCRAM-"):
            return ScramServer(mechanism, self.scram)
        return OAuthBearerUnsecuredServer(self.clock.now_ms)
