"""Kafka's StandardAuthorizer: super users may do anything; otherwise a matching DENY wins
over a matching ALLOW; with no ALLOW the answer is no, except that a resource no ACL names at
all follows `allow.everyone.if.no.acl.found`.

An ACL matches a resource when it is LITERAL with the same name or `*`, or PREFIXED with a
prefix of the name; a principal when it names it or `User:*`; a host when it names it or
`*`; an operation when it is that operation or ALL, and for ALLOW also when it implies it
(READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS).
"""

from __future__ import annotations

from collections.abc import Iterable

from broker.security.acl.model import (
    WILDCARD,
    WILDCARD_PRINCIPAL,
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
)
from broker.security.acl.store import AclStore

_Op = AclOperation
_IMPLIED_BY: dict[AclOperation, frozenset[AclOperation]] = {
    _Op.DESCRIBE: frozenset({_Op.DESCRIBE, _Op.READ, _Op.WRITE, _Op.DELETE, _Op.ALTER}),
    _Op.DESCRIBE_CONFIGS: frozenset({_Op.DESCRIBE_CONFIGS, _Op.ALTER_CONFIGS}),
}


class StandardAuthorizer:
    def __init__(self, store: AclStore, super_users: Iterable[str], allow_if_no_acl: bool) -> None:
        self.store = store
        self.super_users = frozenset(super_users)
        self.allow_if_no_acl = allow_if_no_acl

    def authorize(self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType, name: str) -> bool:
        if principal in self.super_users:
            return True
        allow_ops = _IMPLIED_BY.get(operation, frozenset({operation})) | {_Op.ALL}
        found_resource_acl = False
        allowed = False
        for acl in self.store.acls:
            if acl.resource_type != resource_type or not _names(acl, name):
                continue
            found_resource_acl = True
            if acl.principal not in (principal, WILDCARD_PRINCIPAL) or acl.host not in (host, WILDCARD):
                continue
            if acl.permission == Permission.DENY:
                if acl.operation in (operation, _Op.ALL):
                    return False
            elif acl.operation in allow_ops:
                allowed = True
        if allowed:
            return True
        return not found_resource_acl and self.allow_if_no_acl


    def authorize_by_resource_type(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> bool:
        """Some resource of the type allows the operation (Kafka's default
        `Authorizer.authorizeByResourceType`): first a resource named `hardcode`, which answers
        for super users, an ALLOW on `*` and `allow.everyone.if.no.acl.found`; then an ALLOW
        ACL for the principal that no DENY dominates: a LITERAL DENY of the same name
        (for a LITERAL ALLOW), or a PREFIXED DENY whose prefix starts its name. A DENY on `*`
        refuses all."""
        if self.authorize(principal, host, operation, resource_type, "hardcode"):
            return True
        matching = [
            acl for acl in self.store.acls
            if acl.resource_type == resource_type
            and acl.principal in (principal, WILDCARD_PRINCIPAL)
            and acl.host in (host, WILDCARD)
            and acl.operation in (operation, _Op.ALL)
        ]
        deny_literal: set[str] = set()
        deny_prefixes: set[str] = set()
        for acl in matching:
            if acl.permission != Permission.DENY:
                continue
            if acl.pattern_type == PatternType.LITERAL:
                if acl.resource_name == WILDCARD:
                    return False
                deny_literal.add(acl.resource_name)
            elif acl.pattern_type == PatternType.PREFIXED:
                deny_prefixes.add(acl.resource_name)
        allows = [a for a in matching if a.permission == Permission.ALLOW]
        if any(a.pattern_type == PatternType.LITERAL and a.resource_name == WILDCARD for a in allows):
            return True
        for a in allows:
            if a.pattern_type == PatternType.LITERAL and a.resource_name in deny_literal:
                continue
            if not any(a.resource_name[:n] in deny_prefixes for n in range(1, len(a.resource_name) + 1)):
                return True
        return False


def _names(acl: AclBinding, name: str) -> bool:
    if acl.pattern_type == PatternType.LITERAL:
        return acl.resource_name in (name, WILDCARD)
    return acl.pattern_type == PatternType.PREFIXED and name.startswith(acl.resource_name)
