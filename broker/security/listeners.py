"""What each listener's security protocol asks of its connections."""

from __future__ import annotations

import ssl

from broker.config import Config, ConfigError
from broker.security.tls import TlsConfigError, server_context


def uses_tls(protocol: str) -> bool:
    return protocol in ("SSL", "SASL_SSL")


def uses_sasl(protocol: str) -> bool:
    return protocol in ("SASL_PLAINTEXT", "SASL_SSL")


def listener_tls_context(config: Config, listener: str) -> ssl.SSLContext | None:
    """The listener's TLS context, or None for a listener without TLS."""
    if not uses_tls(config.security_protocols[listener]):
        return None
    try:
        return server_context(config.security, listener)
    except TlsConfigError as exc:
        raise ConfigError(f"listener {listener}: {exc}") from None


def tls_contexts(config: Config) -> dict[str, ssl.SSLContext | None]:
    """Every listener's TLS context, built before anything else starts so that a bad
    setting stops the broker at once."""
    return {listener.name: listener_tls_context(config, listener.name) for listener in config.listeners}
