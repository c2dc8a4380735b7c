"""`odradek acls`: add, remove and list ACL bindings as Kafka's kafka-acls.sh (its
AclCommand) does, through CreateAcls, DeleteAcls and DescribeAcls: the same options, the
`--producer`/`--consumer` conveniences, the same text (AccessControlEntry and
ResourcePattern as Kafka prints them) and a confirmation before a removal unless `--force`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from protocol.messages.create_acls_request import AclCreation, CreateAclsRequest
from protocol.messages.delete_acls_request import DeleteAclsFilter, DeleteAclsRequest
from protocol.messages.describe_acls_request import DescribeAclsRequest

# Kafka's codes: ResourceType, PatternType, AclOperation, AclPermissionType.
RESOURCE_TYPES = {"ANY": 1, "TOPIC": 2, "GROUP": 3, "CLUSTER": 4, "TRANSACTIONAL_ID": 5, "DELEGATION_TOKEN": 6,
                  "USER": 7}
PATTERN_TYPES = {"ANY": 1, "MATCH": 2, "LITERAL": 3, "PREFIXED": 4}
OPERATIONS = {"ANY": 1, "ALL": 2, "READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7, "DESCRIBE": 8,
              "CLUSTER_ACTION": 9, "DESCRIBE_CONFIGS": 10, "ALTER_CONFIGS": 11, "IDEMPOTENT_WRITE": 12,
              "CREATE_TOKENS": 13, "DESCRIBE_TOKENS": 14, "TWO_PHASE_COMMIT": 15}
PERMISSIONS = {"ANY": 1, "DENY": 2, "ALLOW": 3}
CLUSTER_NAME = "kafka-cluster"
WILDCARD_HOST = "*"

# The operations each resource type takes (Kafka's AclEntry.supportedOperations), in the
# order Kafka 4.0's kafka-acls.sh lists them when refusing another.
SUPPORTED = {
    "TOPIC": ["DESCRIBE", "CREATE", "ALTER_CONFIGS", "DESCRIBE_CONFIGS", "ALTER", "ALL", "WRITE", "READ", "DELETE"],
    "GROUP": ["DESCRIBE", "ALTER_CONFIGS", "DESCRIBE_CONFIGS", "ALL", "READ", "DELETE"],
    "CLUSTER": ["DESCRIBE", "CREATE", "ALTER_CONFIGS", "DESCRIBE_CONFIGS", "ALTER", "CLUSTER_ACTION", "ALL",
                "IDEMPOTENT_WRITE"],
    "TRANSACTIONAL_ID": ["DESCRIBE", "ALL", "WRITE"],
    "DELEGATION_TOKEN": ["DESCRIBE", "ALL"],
    "USER": ["CREATE_TOKENS", "ALL", "DESCRIBE_TOKENS"],
}
NO_RESOURCE = ("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or "
               "--delegation-token <Delegation Token ID>")
NO_PRINCIPAL = "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."


def _name(table: dict[str, int], code: int) -> str:
    return next((k for k, v in table.items() if v == code), "UNKNOWN")


@dataclass(frozen=True, order=True)
class Pattern:
    resource_type: str
    name: str
    pattern_type: str

    def __str__(self) -> str:
        return f"ResourcePattern(resourceType={self.resource_type}, name={self.name}, patternType={self.pattern_type})"

    def as_dict(self) -> dict[str, str]:
        return {"resource_type": self.resource_type, "name": self.name, "pattern_type": self.pattern_type}


@dataclass(frozen=True, order=True)
class Entry:
    principal: str
    host: str
    operation: str
    permission: str

    def __str__(self) -> str:
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation}, "
                f"permissionType={self.permission})")

    def as_dict(self) -> dict[str, str]:
        return {"principal": self.principal, "host": self.host, "operation": self.operation,
                "permission": self.permission}


@dataclass
class AclOptions:
    """kafka-acls.sh's options, as parsed."""

    allow_principals: list[str] = field(default_factory=list)
    deny_principals: list[str] = field(default_factory=list)
    principals: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    deny_hosts: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    cluster: bool = False
    transactional_ids: list[str] = field(default_factory=list)
    delegation_tokens: list[str] = field(default_factory=list)
    user_principals: list[str] = field(default_factory=list)
    pattern_type: str = "LITERAL"
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    force: bool = False


def _patterns(opts: AclOptions, pattern_type: str) -> list[Pattern]:
    out = [Pattern("TOPIC", t, pattern_type) for t in opts.topics]
    out += [Pattern("GROUP", g, pattern_type) for g in opts.groups]
    if opts.cluster:
        out.append(Pattern("CLUSTER", CLUSTER_NAME, pattern_type))
    out += [Pattern("TRANSACTIONAL_ID", t, pattern_type) for t in opts.transactional_ids]
    out += [Pattern("DELEGATION_TOKEN", t, pattern_type) for t in opts.delegation_tokens]
    out += [Pattern("USER", u, pattern_type) for u in opts.user_principals]
    return out


def _entries(opts: AclOptions, operations: set[str]) -> list[Entry]:
    """ALLOW entries for every allowed principal and host, DENY ones likewise; a principal
    without hosts on every host ("*"), as AclCommand.getAcls."""
    out: list[Entry] = []
    for permission, principals, hosts in (("ALLOW", opts.allow_principals, opts.allow_hosts),
                                          ("DENY", opts.deny_principals, opts.deny_hosts)):
        for principal in principals:
            for host in hosts or [WILDCARD_HOST]:
                out += [Entry(principal, host, op, permission) for op in sorted(operations)]
    return out


def _check_principal(principal: str) -> None:
    kind, sep, name = principal.partition(":")
    if not sep or not kind or not name:
        raise CliError(f"expected a string in format principalType:principalName but got {principal}")


def _validate(opts: AclOptions) -> None:
    for p in opts.allow_principals + opts.deny_principals + opts.principals:
        _check_principal(p)
    for convenience, given in (("producer", opts.producer), ("consumer", opts.consumer)):
        if given:
            for other, used in (("operation", opts.operations), ("deny-principal", opts.deny_principals),
                                ("deny-host", opts.deny_hosts)):
                if used:
                    raise CliError(f'Option "[{convenience}]" can\'t be used with option "[{other}]"')
    for op in opts.operations:
        if op.upper() not in OPERATIONS or op.upper() == "ANY":
            raise CliError(f"unknown operation {op!r}; one of {', '.join(o for o in OPERATIONS if o != 'ANY')}")


def bindings(opts: AclOptions) -> dict[Pattern, list[Entry]]:
    """The entries to add (or remove) for each resource pattern (AclCommand.getResourceToAcls)."""
    _validate(opts)
    if opts.pattern_type not in ("LITERAL", "PREFIXED"):
        raise CliError(f"A '--resource-pattern-type' value of '{opts.pattern_type}' is not valid when adding acls.")
    out: dict[Pattern, list[Entry]] = {}
    if opts.producer or opts.consumer:
        if opts.producer and not opts.topics:
            raise CliError("With --producer you must specify a --topic")
        if opts.consumer and (not opts.topics or not opts.groups or opts.cluster or opts.transactional_ids):
            raise CliError("With --consumer you must specify a --topic and a --group and no --cluster or "
                           "--transactional-id option should be specified.")
        if not opts.allow_principals:
            raise CliError(NO_PRINCIPAL)
        p = opts.pattern_type
        if opts.producer:
            for t in opts.topics:
                out.setdefault(Pattern("TOPIC", t, p), []).extend(_entries(opts, {"WRITE", "DESCRIBE", "CREATE"}))
            for t in opts.transactional_ids:
                out.setdefault(Pattern("TRANSACTIONAL_ID", t, p), []).extend(_entries(opts, {"WRITE", "DESCRIBE"}))
            if opts.idempotent:
                out.setdefault(Pattern("CLUSTER", CLUSTER_NAME, "LITERAL"), []).extend(
                    _entries(opts, {"IDEMPOTENT_WRITE"}))
        if opts.consumer:
            for t in opts.topics:
                out.setdefault(Pattern("TOPIC", t, p), []).extend(_entries(opts, {"READ", "DESCRIBE"}))
            for g in opts.groups:
                out.setdefault(Pattern("GROUP", g, p), []).extend(_entries(opts, {"READ"}))
        return {k: sorted(set(v)) for k, v in out.items()}
    patterns = _patterns(opts, opts.pattern_type)
    if not patterns:
        raise CliError(NO_RESOURCE)
    if not opts.allow_principals and not opts.deny_principals:
        raise CliError(NO_PRINCIPAL)
    operations = {op.upper() for op in opts.operations} or {"ALL"}
    for pattern in patterns:
        if operations - set(SUPPORTED[pattern.resource_type]):
            raise CliError(f"ResourceType {pattern.resource_type} only supports operations "
                           f"[{', '.join(SUPPORTED[pattern.resource_type])}]")
        out[pattern] = _entries(opts, operations)
    return out


def _filters(opts: AclOptions) -> list[Pattern]:
    """The resource filters of --list and --remove: the named resources, or every one."""
    pattern_type = opts.pattern_type
    if pattern_type not in PATTERN_TYPES:
        raise CliError(f"unknown --resource-pattern-type {pattern_type}; one of {', '.join(PATTERN_TYPES)}")
    if opts.producer or opts.consumer:
        return sorted(bindings(opts))
    return _patterns(opts, pattern_type)


def _describe(cluster: Cluster, pattern: Pattern | None, principal: str | None = None) -> dict[Pattern, list[Entry]]:
    request = DescribeAclsRequest(
        resource_type_filter=RESOURCE_TYPES["ANY"] if pattern is None else RESOURCE_TYPES[pattern.resource_type],
        resource_name_filter=None if pattern is None else pattern.name,
        pattern_type_filter=PATTERN_TYPES["ANY"] if pattern is None else PATTERN_TYPES[pattern.pattern_type],
        principal_filter=principal, host_filter=None, operation=OPERATIONS["ANY"], permission_type=PERMISSIONS["ANY"],
    )
    resp = cluster.any_node().call(request, 3)
    check(resp.error_code, "describing ACLs", resp.error_message)
    out: dict[Pattern, list[Entry]] = {}
    for r in resp.resources:
        key = Pattern(_name(RESOURCE_TYPES, r.resource_type), r.resource_name, _name(PATTERN_TYPES, r.pattern_type))
        out.setdefault(key, []).extend(
            Entry(a.principal, a.host, _name(OPERATIONS, a.operation), _name(PERMISSIONS, a.permission_type))
            for a in r.acls)
    return {k: sorted(out[k]) for k in sorted(out)}


def _block(title: str, acls: dict[Pattern, list[Entry]], *, adding: bool = False) -> list[str]:
    """Kafka's layout: a line per resource, then its entries tab-indented, then a blank line.
    Adding, Kafka writes `: ` then ` \t` before the first entry (a quirk kept)."""
    lines: list[str] = []
    for pattern, entries in acls.items():
        if adding:
            lines.append(f"{title} `{pattern}`: ")
            lines += [(" \t" if i == 0 else "\t") + str(e) for i, e in enumerate(entries)]
        else:
            lines.append(f"{title} `{pattern}`:")
            lines += [f"\t{e}" for e in entries]
        lines.append("")
    return lines


def _as_data(acls: dict[Pattern, list[Entry]]) -> list[dict[str, Any]]:
    return [{"resource": p.as_dict(), "acls": [e.as_dict() for e in entries]} for p, entries in acls.items()]


def add(cluster: Cluster, opts: AclOptions) -> Output:
    wanted = bindings(opts)
    lines: list[str] = []
    for pattern, entries in wanted.items():
        lines += _block("Adding ACLs for resource", {pattern: entries}, adding=True)
        resp = cluster.any_node().call(CreateAclsRequest(creations=[AclCreation(
            resource_type=RESOURCE_TYPES[pattern.resource_type], resource_name=pattern.name,
            resource_pattern_type=PATTERN_TYPES[pattern.pattern_type], principal=e.principal, host=e.host,
            operation=OPERATIONS[e.operation], permission_type=PERMISSIONS[e.permission]) for e in entries]), 3)
        for r in resp.results:
            check(r.error_code, f"adding ACLs for {pattern}", r.error_message)
    return Output({"added": _as_data(wanted)}, lines=lines)


def _confirm(question: str, ask: Callable[[str], str]) -> bool:
    try:
        return ask(f"{question} (y/n)\n").strip().lower() == "y"
    except EOFError:
        return False


def _ask(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return input()


def remove(cluster: Cluster, opts: AclOptions, ask: Callable[[str], str] = _ask) -> Output:
    _validate(opts)
    filters = _filters(opts)
    if not filters:
        raise CliError(NO_RESOURCE)
    wanted = bindings(opts) if opts.producer or opts.consumer else None
    removed: list[dict[str, Any]] = []
    for pattern in filters:
        if wanted is not None:
            entries: list[Entry] | None = wanted[pattern]
        elif opts.allow_principals or opts.deny_principals:
            entries = _entries(opts, {op.upper() for op in opts.operations} or {"ALL"})
        else:
            entries = None  # every entry of the resource
        if not opts.force:
            question = (f"Are you sure you want to delete all ACLs for resource filter `{pattern}`?" if entries is None
                        else "Are you sure you want to remove ACLs: \n " + "\n".join(f"\t{e}" for e in entries)
                             + f"\n from resource filter `{pattern}`?")
            if not _confirm(question, ask):
                continue
        acl_filters = [DeleteAclsFilter(
            resource_type_filter=RESOURCE_TYPES[pattern.resource_type], resource_name_filter=pattern.name,
            pattern_type_filter=PATTERN_TYPES[pattern.pattern_type],
            principal_filter=None if e is None else e.principal, host_filter=None if e is None else e.host,
            operation=OPERATIONS["ANY"] if e is None else OPERATIONS[e.operation],
            permission_type=PERMISSIONS["ANY"] if e is None else PERMISSIONS[e.permission],
        ) for e in (entries if entries is not None else [None])]
        resp = cluster.any_node().call(DeleteAclsRequest(filters=acl_filters), 3)
        for result in resp.filter_results:
            check(result.error_code, f"removing ACLs of {pattern}", result.error_message)
            for m in result.matching_acls:
                check(m.error_code, f"removing ACLs of {pattern}", m.error_message)
                removed.append({
                    "resource": Pattern(_name(RESOURCE_TYPES, m.resource_type), m.resource_name,
                                        _name(PATTERN_TYPES, m.pattern_type)).as_dict(),
                    "acl": Entry(m.principal, m.host, _name(OPERATIONS, m.operation),
                                 _name(PERMISSIONS, m.permission_type)).as_dict()})
    # Kafka's tool prints nothing once it has removed them.
    return Output({"removed": removed}, lines=[])


def list_acls(cluster: Cluster, opts: AclOptions) -> Output:
    for p in opts.principals:
        _check_principal(p)
    filters: list[Pattern | None] = list(_filters(opts)) or [None]
    found: dict[Pattern, list[Entry]] = {}
    lines: list[str] = []
    for principal in opts.principals or [None]:  # type: ignore[list-item]
        by_principal: dict[Pattern, list[Entry]] = {}
        for f in filters:
            for pattern, entries in _describe(cluster, f, principal).items():
                by_principal.setdefault(pattern, []).extend(entries)
        if principal is not None:
            lines.append(f"ACLs for principal `{principal}`")
        lines += _block("Current ACLs for resource", by_principal)
        for pattern, entries in by_principal.items():
            found.setdefault(pattern, []).extend(entries)
    return Output(_as_data({k: sorted(set(found[k])) for k in sorted(found)}), lines=lines)
