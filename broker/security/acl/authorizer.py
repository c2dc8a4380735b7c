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
        """Some resource of the type allows the operation: an ALLOW ACL for the principal that
        no DENY covers, a DENY on every name (`*`, or the empty prefix) refusing all of them."""
        if principal in self.super_users:
            return True
        matching = [
            acl for acl in self.store.acls
            if acl.resource_type == resource_type
            and acl.principal in (principal, WILDCARD_PRINCIPAL)
            and acl.host in (host, WILDCARD)
            and acl.operation in (operation, _Op.ALL)
        ]
        for acl in matching:
            if acl.permission == Permission.DENY and (
                (acl.pattern_type == PatternType.LITERAL and acl.resource_name == WILDCARD)
                or (acl.pattern_type == PatternType.PREFIXED and acl.resource_name == "")
            ):
                return False
        denied = {(a.pattern_type, a.resource_name) for a in matching if a.permission == Permission.DENY}
        return any(
            a.permission == Permission.ALLOW and (a.pattern_type, a.resource_name) not in denied for a in matching
        )


def _names(acl: AclBinding, name: str) -> bool:
    if acl.pattern_type == PatternType.LITERAL:
        return acl.resource_name in (name, WILDCARD)
    return acl.pattern_type == PatternType.PREFIXED and name.startswith(acl.resource_name)
