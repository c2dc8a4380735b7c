"""A listener's TLS context from Kafka's `ssl.*` settings, PEM stores only.

Kafka's PEM keystore is either a file (`ssl.keystore.location`, holding the private key and
the certificate chain) or the PEM text itself (`ssl.keystore.certificate.chain` and
`ssl.keystore.key`); the truststore likewise (`ssl.truststore.location` or
`ssl.truststore.certificates`). `ssl.key.password` decrypts an encrypted key.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Callable
from pathlib import Path

from broker.security.tls13_suites import is_tls13_suite, set_tls13_suites
from broker.security_settings import SecuritySettings

_CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
_PROTOCOL_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}

# Attribute names of a certificate subject as Java's X500Principal writes them (RFC 2253).
_RDN_NAMES = {
    "commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU", "countryName": "C",
    "localityName": "L", "stateOrProvinceName": "ST", "streetAddress": "STREET", "domainComponent": "DC",
    "userId": "UID",
}


_Getter = Callable[[str], "str | None"]


class TlsConfigError(ValueError):
    """The `ssl.*` settings of a listener cannot make a TLS context."""


def server_context(settings: SecuritySettings, listener: str) -> ssl.SSLContext:
    def get(name: str) -> str | None:
        return settings.for_listener(listener, name)

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _set_versions(ctx, settings.list_for_listener(listener, "ssl.enabled.protocols"))
    suites = settings.list_for_listener(listener, "ssl.cipher.suites")
    if suites:
        _set_cipher_suites(ctx, suites)
    _load_keystore(ctx, get)
    auth = (get("ssl.client.auth") or "none").strip().lower()
    if auth not in _CLIENT_AUTH:
        raise TlsConfigError(f"ssl.client.auth must be none, requested or required, not {auth!r}")
    ctx.verify_mode = _CLIENT_AUTH[auth]
    _load_truststore(ctx, get, needed=auth != "none")
    return ctx


def client_context(settings: SecuritySettings, listener: str) -> ssl.SSLContext:
    """The context this broker connects to a peer's `listener` with, as Kafka's inter-broker
    client: the listener's own `ssl.*` settings, its truststore to check the peer (the
    system's CAs without one), its keystore presented as this broker's certificate (for a
    peer with `ssl.client.auth`), the host name checked unless
    `ssl.endpoint.identification.algorithm` is empty."""

    def get(name: str) -> str | None:
        return settings.for_listener(listener, name)

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _set_versions(ctx, settings.list_for_listener(listener, "ssl.enabled.protocols"))
    suites = settings.list_for_listener(listener, "ssl.cipher.suites")
    if suites:
        _set_cipher_suites(ctx, suites)
    if get("ssl.keystore.location") or get("ssl.keystore.certificate.chain"):
        _load_keystore(ctx, get)
    if get("ssl.truststore.location") or get("ssl.truststore.certificates"):
        _load_truststore(ctx, get, needed=True)
    else:
        ctx.load_default_certs()
    algorithm = (get("ssl.endpoint.identification.algorithm") or "").strip().lower()
    if algorithm not in ("", "https"):
        raise TlsConfigError(f"ssl.endpoint.identification.algorithm must be https or empty, not {algorithm!r}")
    ctx.check_hostname = algorithm == "https"
    return ctx


def _set_versions(ctx: ssl.SSLContext, enabled: list[str]) -> None:
    unknown = [p for p in enabled if p not in _PROTOCOL_VERSIONS]
    if unknown or not enabled:
        raise TlsConfigError(f"ssl.enabled.protocols: only TLSv1.2 and TLSv1.3 are supported, got {enabled}")
    versions = sorted(_PROTOCOL_VERSIONS[p] for p in enabled)
    ctx.minimum_version = versions[0]
    ctx.maximum_version = versions[-1]


def _set_cipher_suites(ctx: ssl.SSLContext, suites: list[str]) -> None:
    """Kafka's `ssl.cipher.suites` enables the listed suites of every protocol version, in
    the listed order of preference: a version none of them serves is off, as in a JSSE
    engine with no suite for it."""
    tls13 = [s for s in suites if is_tls13_suite(s)]
    older = [openssl_cipher_name(s) for s in suites if not is_tls13_suite(s)]
    if not older and ctx.minimum_version < ssl.TLSVersion.TLSv1_3:
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    if not tls13 and ctx.maximum_version > ssl.TLSVersion.TLSv1_2:
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    if ctx.minimum_version > ctx.maximum_version:
        raise TlsConfigError(f"ssl.cipher.suites: none of {suites} serves ssl.enabled.protocols")
    try:
        if older:
            ctx.set_ciphers(":".join(older))
        if tls13:
            set_tls13_suites(ctx, tls13)
    except (ssl.SSLError, ValueError) as exc:
        raise TlsConfigError(f"ssl.cipher.suites: {exc}") from None


def openssl_cipher_name(suite: str) -> str:
    """Kafka names suites as IANA does (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256), OpenSSL in
    its own way (ECDHE-RSA-AES128-GCM-SHA256); names already in OpenSSL's form pass through,
    as do the TLS 1.3 suites, named alike by both."""
    if not suite.startswith("TLS_") or "_WITH_" not in suite:
        return suite
    kx, _, cipher = suite[4:].partition("_WITH_")
    cipher = cipher.replace("AES_128_", "AES128_").replace("AES_256_", "AES256_")
    cipher = cipher.replace("CHACHA20_POLY1305_SHA256", "CHACHA20_POLY1305")
    return f"{kx}_{cipher}".replace("_", "-")


def _require_pem(kind: str, value: str | None) -> None:
    if (value or "").upper() != "PEM":
        raise TlsConfigError(f"ssl.{kind}store.type must be PEM (the only store type supported), not {value!r}")


def _load_keystore(ctx: ssl.SSLContext, get: _Getter) -> None:
    location, chain, key = get("ssl.keystore.location"), get("ssl.keystore.certificate.chain"), get("ssl.keystore.key")
    if not (location or chain):
        raise TlsConfigError("a TLS listener needs ssl.keystore.location or ssl.keystore.certificate.chain")
    _require_pem("key", get("ssl.keystore.type"))
    password = get("ssl.key.password") or get("ssl.keystore.password")
    try:
        if location:
            ctx.load_cert_chain(location, password=password)
            return
        if not key:
            raise TlsConfigError("ssl.keystore.certificate.chain needs ssl.keystore.key")
        # The ssl module loads keys from files only: a private directory, removed at once.
        with tempfile.TemporaryDirectory(prefix="odradek-tls-") as tmp:
            path = Path(tmp) / "keystore.pem"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(_pem_text(key) + "\n" + _pem_text(chain or ""))
            ctx.load_cert_chain(path, password=password)
    except (OSError, ssl.SSLError) as exc:
        raise TlsConfigError(f"cannot load the keystore: {exc}") from None


def _load_truststore(ctx: ssl.SSLContext, get: _Getter, needed: bool) -> None:
    location, certificates = get("ssl.truststore.location"), get("ssl.truststore.certificates")
    if not (location or certificates):
        if needed:
            raise TlsConfigError("ssl.client.auth needs a truststore to check client certificates against")
        return
    _require_pem("trust", get("ssl.truststore.type"))
    try:
        if location:
            ctx.load_verify_locations(cafile=location)
        else:
            ctx.load_verify_locations(cadata=_pem_text(certificates or ""))
    except (OSError, ssl.SSLError) as exc:
        raise TlsConfigError(f"cannot load the truststore: {exc}") from None


def _pem_text(value: str) -> str:
    # PEM given inline in a .properties file often has its line breaks escaped or flattened.
    return value.replace("\\n", "\n").strip()


def peer_principal_name(ssl_object: ssl.SSLObject | None) -> str | None:
    """The client certificate's subject as Kafka's DefaultKafkaPrincipalBuilder names it
    (the RFC 2253 distinguished name), or None without a verified client certificate."""
    if ssl_object is None:
        return None
    cert = ssl_object.getpeercert()
    if not cert:
        return None
    subject = cert.get("subject", ())
    parts = []
    for rdn in reversed(subject):
        parts.append("+".join(f"{_RDN_NAMES.get(k, k)}={_escape(v)}" for k, v in rdn))
    return ",".join(parts)


def _escape(value: str) -> str:
    out = "".join("\\" + c if c in ',+"\\<>;=' else c for c in value)
    if out.startswith((" ", "#")):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


