"""Reads the options of a JAAS config line, as Kafka's `sasl.jaas.config` holds it:

    org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";
"""

from __future__ import annotations

import re

_OPTION = re.compile(r'([A-Za-z0-9_.\-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s;"]+)')
_FLAGS = ("required", "requisite", "sufficient", "optional")


class JaasConfigError(ValueError):
    """A JAAS config that does not read as `<LoginModule> <flag> key=value ... ;`."""


def login_module_options(text: str) -> tuple[str, dict[str, str]]:
    """The login module class name and its options, quotes and escapes removed."""
    body = text.strip().rstrip(";").strip()
    parts = body.split(None, 2)
    if len(parts) < 2 or parts[1].lower() not in _FLAGS:
        raise JaasConfigError("a JAAS config is `<LoginModule> required key=\"value\" ...;`")
    module = parts[0]
    rest = parts[2] if len(parts) > 2 else ""
    options: dict[str, str] = {}
    pos = 0
    for match in _OPTION.finditer(rest):
        if rest[pos : match.start()].strip():
            raise JaasConfigError(f"cannot read {rest[pos:match.start()].strip()!r} in the JAAS config")
        value = match.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        options[match.group(1)] = value
        pos = match.end()
    if rest[pos:].strip():
        raise JaasConfigError(f"cannot read {rest[pos:].strip()!r} in the JAAS config")
    return module, options


def plain_users(text: str | None) -> dict[str, str]:
    """PlainLoginModule's users: every `user_<name>="<password>"` option."""
    if not text:
        return {}
    _, options = login_module_options(text)
    return {key[len("user_"):]: value for key, value in options.items() if key.startswith("user_")}
