"""A Kafka client's connection security from its properties, as Kafka's tools read them from
`--command-config` files: `security.protocol`, the `ssl.*` settings with PEM trust and key
stores, `sasl.mechanism` and `sasl.jaas.config` (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER
with an unsecured token). The same names also come from `ODRADEK_*` variables."""

from __future__ import annotations

import os
import re
import ssl
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from protocol.sasl_client import OAuthBearer, Plain, SaslMechanism, Scram, extensions, unsecured_token

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
ENV_PREFIX = "ODRADEK_"
# The properties a client's variables may set: the broker reads ODRADEK_SSL_* for its own
# listeners, so they count for a client only beside ODRADEK_SECURITY_PROTOCOL, which no
# broker reads (a broker's container does not turn its CLI into a TLS client by accident).
ENV_FAMILIES = ("security.", "ssl.", "sasl.")
LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "OAUTHBEARER": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
}


class ClientConfigError(ValueError):
    """Properties that do not make a connection; the text is shown to the user as it is."""


@dataclass(frozen=True)
class ClientSecurity:
    """How to reach a listener: TLS with `ssl_context`, a SASL login with `sasl`."""

    protocol: str = "PLAINTEXT"
    ssl_context: ssl.SSLContext | None = None
    sasl: SaslMechanism | None = None


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_ENTRY = re.compile(r"((?:[^\\=:\s]|\\.)*)\s*[=:]?\s*(.*)", re.S)


def parse_properties(text: str) -> dict[str, str]:
    """A Java `.properties` text (java.util.Properties#load): `key=value`, `key: value` or
    `key value`, `#`/`!` comments, a line ending in an odd number of backslashes continued
    on the next (as `sasl.jaas.config` often is), backslash escapes."""
    values: dict[str, str] = {}
    logical = ""
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        line = raw.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 and i + 1 < len(lines):
            logical += line[:-1]
            continue
        logical += line[:-1] if trailing % 2 else line
        match = _ENTRY.match(logical)
        assert match is not None  # the pattern matches any text
        values[_unescape(match.group(1))] = _unescape(match.group(2))
        logical = ""
    return values


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise ClientConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_properties(path: str | Path) -> dict[str, str]:
    return parse_properties(_read(path))


def env_properties(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The client properties of `ODRADEK_SECURITY_PROTOCOL`, `ODRADEK_SSL_*` and
    `ODRADEK_SASL_*` (`_` for `.`); none unless ODRADEK_SECURITY_PROTOCOL is set."""
    env = os.environ if environ is None else environ
    if ENV_PREFIX + "SECURITY_PROTOCOL" not in env:
        return {}
    found = {}
    for key, value in env.items():
        if key.startswith(ENV_PREFIX):
            name = key.removeprefix(ENV_PREFIX).lower().replace("_", ".")
            if name.startswith(ENV_FAMILIES):
                found[name] = value
    return found


def parse_jaas(config: str) -> tuple[str, dict[str, str]]:
    """`sasl.jaas.config`'s one login module and its options:
    `Module required key="value" key2=value;`."""
    match = re.fullmatch(r"\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\s*(.*?)\s*;?\s*", config, re.S)
    if match is None:
        raise ClientConfigError("sasl.jaas.config is not of the form: LoginModule required key=\"value\" ...;")
    options: dict[str, str] = {}
    rest = match.group(3)
    for opt in re.finditer(r'\s*([\w.$-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s;"]+)', rest):
        options[opt.group(1)] = re.sub(r"\\(.)", r"\1", opt.group(3)) if opt.group(3) is not None else opt.group(2)
    leftover = re.sub(r'\s*([\w.$-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s;"]+)', "", rest).strip()
    if leftover:
        raise ClientConfigError(f"sasl.jaas.config: cannot read {leftover!r}")
    return match.group(1), options


def _sasl(props: Mapping[str, str], clock: Callable[[], float]) -> SaslMechanism:
    mechanism = props.get("sasl.mechanism", "GSSAPI").strip().upper()
    if mechanism not in LOGIN_MODULES:
        raise ClientConfigError(
            f"sasl.mechanism {mechanism} is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)")
    if "sasl.jaas.config" not in props:
        raise ClientConfigError(f"sasl.mechanism {mechanism} needs sasl.jaas.config")
    module, options = parse_jaas(props["sasl.jaas.config"])
    if module != LOGIN_MODULES[mechanism]:
        raise ClientConfigError(f"sasl.mechanism {mechanism} logs in with {LOGIN_MODULES[mechanism]}, not {module}")
    if mechanism == "OAUTHBEARER":
        if not any(k.startswith("unsecuredLogin") for k in options):
            raise ClientConfigError("OAUTHBEARER: only unsecured tokens (unsecuredLoginStringClaim_sub=...) "
                                    "are supported")
        try:
            return OAuthBearer(unsecured_token(options, clock), extensions(options))
        except ValueError as exc:
            raise ClientConfigError(f"OAUTHBEARER: {exc}") from None
    missing = [k for k in ("username", "password") if k not in options]
    if missing:
        raise ClientConfigError(f"sasl.jaas.config for {mechanism} lacks {' and '.join(missing)}")
    if mechanism == "PLAIN":
        return Plain(options["username"], options["password"])
    return Scram(mechanism, options["username"], options["password"])


def _pem_store(props: Mapping[str, str], kind: str) -> None:
    store_type = props.get(f"ssl.{kind}.type", "PEM").strip().upper()
    if store_type != "PEM":
        raise ClientConfigError(f"ssl.{kind}.type {store_type} is not supported: give the store as PEM")


def _load_inline_key(context: ssl.SSLContext, chain: str, key: str, password: str | None) -> None:
    # ssl loads keys from files only: the inline PEM goes through a file only we can read.
    fd, name = tempfile.mkstemp(suffix=".pem")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(f"{key.strip()}\n{chain.strip()}\n")
        context.load_cert_chain(name, password=password)
    finally:
        os.unlink(name)


def _tls_versions(context: ssl.SSLContext, enabled: str) -> None:
    names = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
    wanted = [v.strip() for v in enabled.split(",") if v.strip()]
    unknown = [v for v in wanted if v not in names]
    if unknown or not wanted:
        raise ClientConfigError(f"ssl.enabled.protocols: {', '.join(unknown) or 'none'} (TLSv1.2, TLSv1.3)")
    versions = sorted(names[v] for v in wanted)
    context.minimum_version, context.maximum_version = versions[0], versions[-1]


def _ssl_context(props: Mapping[str, str]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        if "ssl.truststore.certificates" in props:
            _pem_store(props, "truststore")
            context.load_verify_locations(cadata=props["ssl.truststore.certificates"])
        elif "ssl.truststore.location" in props:
            _pem_store(props, "truststore")
            context.load_verify_locations(cadata=_read(props["ssl.truststore.location"]))
        else:
            context.load_default_certs()
        password = props.get("ssl.key.password") or props.get("ssl.keystore.password") or None
        if "ssl.keystore.key" in props or "ssl.keystore.certificate.chain" in props:
            _pem_store(props, "keystore")
            if not props.get("ssl.keystore.key") or not props.get("ssl.keystore.certificate.chain"):
                raise ClientConfigError("ssl.keystore.key and ssl.keystore.certificate.chain go together")
            _load_inline_key(context, props["ssl.keystore.certificate.chain"], props["ssl.keystore.key"], password)
        elif "ssl.keystore.location" in props:
            _pem_store(props, "keystore")
            # Kafka's PEM keystore file: the private key and the certificate chain.
            _read(props["ssl.keystore.location"])
            context.load_cert_chain(props["ssl.keystore.location"], password=password)
    except ssl.SSLError as exc:
        raise ClientConfigError(f"the TLS settings do not load: {exc.reason or exc}") from None
    algorithm = props.get("ssl.endpoint.identification.algorithm", "https").strip().lower()
    if algorithm == "":
        # Kafka's way to trust the certificate chain without matching the host name.
        context.check_hostname = False
    elif algorithm != "https":
        raise ClientConfigError(f"ssl.endpoint.identification.algorithm {algorithm} is not supported (https or empty)")
    if "ssl.enabled.protocols" in props:
        _tls_versions(context, props["ssl.enabled.protocols"])
    return context


def client_security(props: Mapping[str, str], clock: Callable[[], float] = time.time) -> ClientSecurity:
    """What `props` (Kafka client properties) say about reaching the brokers; as in Kafka,
    the ssl.* and sasl.* settings count only when security.protocol asks for them."""
    protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in PROTOCOLS:
        raise ClientConfigError(f"security.protocol {protocol} is not one of {', '.join(PROTOCOLS)}")
    context = _ssl_context(props) if protocol in ("SSL", "SASL_SSL") else None
    sasl = _sasl(props, clock) if protocol.startswith("SASL_") else None
    return ClientSecurity(protocol, context, sasl)
