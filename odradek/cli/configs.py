"""`odradek configs`: describe and alter configs as Kafka's kafka-configs.sh (its
ConfigCommand) does: topics, brokers (one or the cluster's default) and groups through
DescribeConfigs and IncrementalAlterConfigs; clients, users and ips through the client
quota APIs (KIP-546); users' SCRAM credentials through DescribeUserScramCredentials and
AlterUserScramCredentials (KIP-554), the password salted and hashed here as Kafka's
AdminClient does."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.groups import list_groups
from odradek.cli.output import Output
from odradek.client_config import ClientConfigError, read_properties
from protocol.errors import ErrorCode
from protocol.messages.alter_client_quotas_request import (
    AlterClientQuotasRequest,
    EntityData,
    EntryData,
    OpData,
)
from protocol.messages.alter_user_scram_credentials_request import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from protocol.messages.describe_client_quotas_request import ComponentData, DescribeClientQuotasRequest
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.describe_user_scram_credentials_request import (
    DescribeUserScramCredentialsRequest,
    UserName,
)
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)

# Kafka's ConfigResource.Type codes, and the names kafka-configs.sh gives the entity types.
CONFIG_RESOURCES = {"topics": 2, "brokers": 4, "groups": 32}
QUOTA_ENTITIES = {"users": "user", "clients": "client-id", "ips": "ip"}
ENTITY_TYPES = [*CONFIG_RESOURCES, *QUOTA_ENTITIES]
# DescribeConfigs' config sources (Kafka's ConfigEntry.ConfigSource, by wire id).
SOURCES = {0: "UNKNOWN", 1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG", 3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
           4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG", 6: "DYNAMIC_BROKER_LOGGER_CONFIG",
           7: "DYNAMIC_CLIENT_METRICS_CONFIG", 8: "DYNAMIC_GROUP_CONFIG"}
SET, DELETE = 0, 1
MATCH_EXACT, MATCH_DEFAULT, MATCH_ANY = 0, 1, 2
# Kafka's ScramMechanism: wire type, hash, minimum (and default) iterations.
SCRAM = {"SCRAM-SHA-256": (1, "sha256"), "SCRAM-SHA-512": (2, "sha512")}
SCRAM_MIN_ITERATIONS = 4096
# Kafka's split of --add-config: on commas and `=` outside [...] (ConfigCommand.parseConfigsToBeAdded).
_OUTSIDE_BRACKETS = r"(?=[^\]]*(?:\[|$))"


@dataclass(frozen=True)
class Entity:
    entity_type: str
    name: str | None  # None: the default entity (--entity-default)

    @property
    def singular(self) -> str:
        return self.entity_type[:-1]


def entities(types: list[str], names: list[str | None]) -> list[Entity]:
    """--entity-type paired in order with --entity-name / --entity-default, as Kafka pairs them;
    a type without a name left for describe to mean every entity of the type ("" here)."""
    for t in types:
        if t not in ENTITY_TYPES:
            raise CliError(f"Invalid entity type {t}, the entity type must be one of {', '.join(ENTITY_TYPES)}")
    if len(names) > len(types):
        raise CliError("an --entity-name or --entity-default without its --entity-type")
    out = [Entity(t, names[i] if i < len(names) else "") for i, t in enumerate(types)]
    if len(out) > 1 and not all(e.entity_type in ("users", "clients") for e in out):
        raise CliError("only --entity-type users and clients may be combined")
    return out


def parse_add_config(items: list[str], file: str | None) -> dict[str, str]:
    """`k1=v1,k2=[v1,v2]` (brackets dropped, their commas kept), then the --add-config-file's."""
    out: dict[str, str] = {}
    if file is not None:
        try:
            out.update(read_properties(file))
        except ClientConfigError as exc:
            raise CliError(str(exc)) from None
    for item in items:
        for pair in re.split("," + _OUTSIDE_BRACKETS, item):
            parts = re.split(r"\s*=\s*" + _OUTSIDE_BRACKETS, pair)
            if len(parts) != 2:
                raise CliError('Invalid entity config: all configs to be added must be in the format "key=val" '
                               'or "key=[val1,val2]".')
            out[parts[0].strip()] = re.sub(r"\[?\]?", "", parts[1]).strip()
    return out


def parse_delete_config(items: list[str]) -> list[str]:
    return [k.strip() for item in items for k in item.split(",") if k.strip()]


# --- describe -----------------------------------------------------------------------------

def _resource_name(entity: Entity) -> str:
    return "" if entity.name is None else entity.name


def _describe_resource(cluster: Cluster, entity: Entity, describe_all: bool) -> tuple[dict[str, Any], list[str]]:
    resp = cluster.any_node().call(DescribeConfigsRequest(resources=[DescribeConfigsResource(
        resource_type=CONFIG_RESOURCES[entity.entity_type], resource_name=_resource_name(entity),
        configuration_keys=None)], include_synonyms=True, include_documentation=False), 4)
    result = resp.results[0]
    if result.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        raise CliError(f"The {entity.singular} '{entity.name}' does not exist.")
    check(result.error_code, f"describing {entity.singular} {entity.name}", result.error_message)
    # Without --all only what was set for this entity itself (ConfigCommand's source filter).
    wanted = {"topics": "DYNAMIC_TOPIC_CONFIG", "groups": "DYNAMIC_GROUP_CONFIG",
              "brokers": "DYNAMIC_DEFAULT_BROKER_CONFIG" if entity.name is None else "DYNAMIC_BROKER_CONFIG"}
    configs = sorted((c for c in result.configs
                      if describe_all or SOURCES.get(c.config_source) == wanted[entity.entity_type]),
                     key=lambda c: c.name)
    if entity.entity_type == "brokers" and entity.name is None:
        title = "Default configs for brokers in the cluster are:"
    else:
        title = f"{'All' if describe_all else 'Dynamic'} configs for {entity.singular} {entity.name} are:"
    lines = [title]
    data: list[dict[str, Any]] = []
    for c in configs:
        synonyms = [{"name": s.name, "value": s.value, "source": SOURCES.get(s.source, "UNKNOWN")} for s in c.synonyms]
        text = ", ".join(f"{s['source']}:{s['name']}={_java(s['value'])}" for s in synonyms)
        lines.append(f"  {c.name}={_java(c.value)} sensitive={str(c.is_sensitive).lower()} synonyms={{{text}}}")
        data.append({"name": c.name, "value": c.value, "sensitive": c.is_sensitive,
                     "source": SOURCES.get(c.config_source, "UNKNOWN"), "synonyms": synonyms})
    return {"entity_type": entity.entity_type, "entity_name": entity.name, "configs": data}, lines


def _java(value: str | None) -> str:
    return "null" if value is None else value


def _every(cluster: Cluster, entity: Entity) -> list[Entity]:
    """The entities a describe without --entity-name covers, as kafka-configs.sh: every topic;
    every broker and then the brokers' default; every group."""
    if entity.name != "":
        return [entity]
    resp = cluster.metadata(None if entity.entity_type == "topics" else [])
    if entity.entity_type == "topics":
        return [Entity("topics", t.name) for t in sorted(resp.topics, key=lambda t: t.name)]
    if entity.entity_type == "brokers":
        return [*(Entity("brokers", str(b.node_id)) for b in sorted(resp.brokers, key=lambda b: b.node_id)),
                Entity("brokers", None)]
    return [Entity("groups", g["group"]) for g in list_groups(cluster).data]


def _quota_components(found: list[Entity]) -> list[ComponentData]:
    out = []
    for e in found:
        kind = QUOTA_ENTITIES[e.entity_type]
        if e.name == "":
            out.append(ComponentData(entity_type=kind, match_type=MATCH_ANY, match=None))
        elif e.name is None:
            out.append(ComponentData(entity_type=kind, match_type=MATCH_DEFAULT, match=None))
        else:
            out.append(ComponentData(entity_type=kind, match_type=MATCH_EXACT, match=e.name))
    return out


def _quota_label(kind: str, name: str | None) -> str:
    shown = {"user": "user-principal", "client-id": "client-id", "ip": "ip"}[kind]
    return f"the default {shown}" if name is None else f"{shown} '{name}'"


def _describe_quotas(cluster: Cluster, found: list[Entity]) -> tuple[list[dict[str, Any]], list[str]]:
    """Strict, as ConfigCommand asks: the entities of exactly the types named (a user's own
    quotas, not those of the user with a client id)."""
    resp = cluster.any_node().call(DescribeClientQuotasRequest(components=_quota_components(found),
                                                               strict=True), 1)
    check(resp.error_code, "describing client quotas", resp.error_message)
    data: list[dict[str, Any]] = []
    lines: list[str] = []
    order = {"user": 0, "client-id": 1, "ip": 2}
    for entry in resp.entries or []:
        parts = sorted(((e.entity_type, e.entity_name) for e in entry.entity), key=lambda p: order.get(p[0], 3))
        quotas = {v.key: v.value for v in sorted(entry.values, key=lambda v: v.key)}
        data.append({"entity": {k: n for k, n in parts}, "quotas": quotas})
        lines.append(f"Quota configs for {', '.join(_quota_label(k, n) for k, n in parts)} are "
                     f"{', '.join(f'{k}={v}' for k, v in quotas.items())}")
    return data, lines


def _describe_scram(cluster: Cluster, user: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """Every user's credentials (`user` ""), or one user's; none is no line (Kafka's tool
    prints nothing for a user without credentials)."""
    users = None if user == "" else [UserName(name=user or "")]
    resp = cluster.any_node().call(DescribeUserScramCredentialsRequest(users=users), 0)
    if resp.error_code != ErrorCode.RESOURCE_NOT_FOUND:
        check(resp.error_code, "describing SCRAM credentials", resp.error_message)
    data: list[dict[str, Any]] = []
    lines: list[str] = []
    for r in sorted(resp.results, key=lambda r: r.user):
        if r.error_code == ErrorCode.RESOURCE_NOT_FOUND:
            continue
        check(r.error_code, f"describing SCRAM credentials of {r.user}", r.error_message)
        infos = {_mechanism_name(i.mechanism): i.iterations for i in sorted(r.credential_infos, key=lambda i: i.mechanism)}
        data.append({"user": r.user, "credentials": {m: {"iterations": n} for m, n in infos.items()}})
        lines.append(f"SCRAM credential configs for user-principal '{r.user}' are "
                     f"{', '.join(f'{m}=iterations={n}' for m, n in infos.items())}")
    return data, lines


def _mechanism_name(code: int) -> str:
    return next((name for name, (c, _) in SCRAM.items() if c == code), f"UNKNOWN({code})")


def describe(cluster: Cluster, found: list[Entity], describe_all: bool) -> Output:
    if not found:
        raise CliError("--entity-type is required")
    first = found[0]
    if first.entity_type in CONFIG_RESOURCES:
        data: list[dict[str, Any]] = []
        lines: list[str] = []
        for entity in _every(cluster, first):
            d, text = _describe_resource(cluster, entity, describe_all)
            data.append(d)
            lines += text
        return Output(data, lines=lines)
    quotas, lines = _describe_quotas(cluster, found)
    result: dict[str, Any] = {"quotas": quotas}
    user = next((e.name for e in found if e.entity_type == "users"), "-")
    if len(found) == 1 and user != "-" and user is not None:
        result["scram_credentials"], scram_lines = _describe_scram(cluster, user)
        lines += scram_lines
    return Output(result, lines=lines)


# --- alter --------------------------------------------------------------------------------

def _completed(entity: Entity) -> str:
    if entity.name is None:
        return f"Completed updating default config for {entity.entity_type} in the cluster."
    return f"Completed updating config for {entity.singular} {entity.name}."


def _alter_resource(cluster: Cluster, entity: Entity, adds: dict[str, str], deletes: list[str]) -> None:
    changes = [AlterableConfig(name=k, config_operation=SET, value=v) for k, v in adds.items()]
    changes += [AlterableConfig(name=k, config_operation=DELETE, value=None) for k in deletes]
    resp = cluster.any_node().call(IncrementalAlterConfigsRequest(resources=[AlterConfigsResource(
        resource_type=CONFIG_RESOURCES[entity.entity_type], resource_name=_resource_name(entity), configs=changes)]), 1)
    r = resp.responses[0]
    if r.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        raise CliError(f"The {entity.singular} '{entity.name}' does not exist.")
    check(r.error_code, f"altering {entity.singular} {_resource_name(entity) or 'default'}", r.error_message)


def _alter_quotas(cluster: Cluster, found: list[Entity], adds: dict[str, str], deletes: list[str]) -> None:
    values: dict[str, float] = {}
    for key, text in adds.items():
        try:
            values[key] = float(text)
        except ValueError:
            raise CliError(f"Cannot parse quota configuration value for {key}: {text}") from None
    ops = [OpData(key=k, value=v, remove=False) for k, v in values.items()]
    ops += [OpData(key=k, value=0.0, remove=True) for k in deletes]
    resp = cluster.any_node().call(AlterClientQuotasRequest(entries=[EntryData(
        entity=[EntityData(entity_type=QUOTA_ENTITIES[e.entity_type], entity_name=e.name) for e in found],
        ops=ops)]), 1)
    r = resp.entries[0]
    check(r.error_code, "altering client quotas", r.error_message)


def salted_password(mechanism: str, password: str, salt: bytes, iterations: int) -> bytes:
    """SCRAM's SaltedPassword (RFC 5802's Hi: PBKDF2 with the mechanism's HMAC)."""
    return hashlib.pbkdf2_hmac(SCRAM[mechanism][1], password.encode(), salt, iterations)


def _scram_upsertion(user: str, mechanism: str, text: str) -> ScramCredentialUpsertion:
    """`iterations=8192,password=secret` (iterations optional: Kafka's minimum, 4096)."""
    options: dict[str, str] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep:
            raise CliError(f"{mechanism}: expected [iterations=N,]password=SECRET, got {text!r}")
        options[key.strip()] = value.strip()
    if "password" not in options:
        raise CliError(f"{mechanism}: a password is required (password=SECRET)")
    try:
        iterations = int(options.get("iterations", SCRAM_MIN_ITERATIONS))
    except ValueError:
        raise CliError(f"{mechanism}: iterations is not a number: {options['iterations']!r}") from None
    salt = os.urandom(32)
    return ScramCredentialUpsertion(name=user, mechanism=SCRAM[mechanism][0], iterations=iterations, salt=salt,
                                    salted_password=salted_password(mechanism, options["password"], salt, iterations))


def _alter_scram(cluster: Cluster, user: str, adds: dict[str, str], deletes: list[str]) -> None:
    """One request per mechanism: a broker refuses a user altered twice in one request
    (DUPLICATE_RESOURCE), and both mechanisms at once are one command here."""
    requests = [AlterUserScramCredentialsRequest(deletions=[ScramCredentialDeletion(name=user, mechanism=SCRAM[m][0])],
                                                 upsertions=[]) for m in deletes]
    requests += [AlterUserScramCredentialsRequest(deletions=[], upsertions=[_scram_upsertion(user, m, text)])
                 for m, text in adds.items()]
    for request in requests:
        resp = cluster.any_node().call(request, 0)
        for r in resp.results:
            check(r.error_code, f"altering SCRAM credentials of {r.user}", r.error_message)


def alter(cluster: Cluster, found: list[Entity], adds: dict[str, str], deletes: list[str]) -> Output:
    if not found:
        raise CliError("--entity-type is required")
    for e in found:
        if e.name == "":
            raise CliError(f"An entity name must be specified with --alter of {e.entity_type}")
    if not adds and not deletes:
        raise CliError("nothing to change: give --add-config, --add-config-file or --delete-config")
    first = found[0]
    if first.entity_type in CONFIG_RESOURCES:
        _alter_resource(cluster, first, adds, deletes)
    else:
        scram_adds = {k: v for k, v in adds.items() if k in SCRAM}
        scram_deletes = [k for k in deletes if k in SCRAM]
        quota_adds = {k: v for k, v in adds.items() if k not in SCRAM}
        quota_deletes = [k for k in deletes if k not in SCRAM]
        if scram_adds or scram_deletes:
            if len(found) != 1 or first.entity_type != "users" or first.name is None:
                raise CliError("SCRAM credentials are altered for one user: --entity-type users --entity-name NAME")
            _alter_scram(cluster, first.name, scram_adds, scram_deletes)
        if quota_adds or quota_deletes:
            _alter_quotas(cluster, found, quota_adds, quota_deletes)
    shown_adds = {k: ("[hidden]" if k in SCRAM else v) for k, v in adds.items()}
    return Output({"entities": [{"entity_type": e.entity_type, "entity_name": e.name} for e in found],
                   "set": shown_adds, "deleted": deletes}, lines=[_completed(first)])
