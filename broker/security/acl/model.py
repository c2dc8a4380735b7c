"""ACL bindings and filters with Kafka's codes (`AclOperation`, `ResourceType`,
`PatternType`, `AclPermissionType`) and its filter matching (`AclBindingFilter.matches`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

CLUSTER_NAME = "kafka-cluster"
WILDCARD = "*"
WILDCARD_PRINCIPAL = "User:*"


class ResourceType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class Permission(IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


@dataclass(frozen=True, order=True)
class AclBinding:
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission: Permission

    def to_json(self) -> dict[str, object]:
        return {
            "resource_type": self.resource_type.name, "resource_name": self.resource_name,
            "pattern_type": self.pattern_type.name, "principal": self.principal, "host": self.host,
            "operation": self.operation.name, "permission": self.permission.name,
        }

    @classmethod
    def from_json(cls, doc: dict[str, str]) -> AclBinding:
        return cls(
            ResourceType[doc["resource_type"]], doc["resource_name"], PatternType[doc["pattern_type"]],
            doc["principal"], doc["host"], AclOperation[doc["operation"]], Permission[doc["permission"]],
        )


def invalid_binding_reason(binding: AclBinding) -> str | None:
    """Why CreateAcls refuses a binding (Kafka's AclControlManager.validateNewAcl), or None."""
    if binding.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        return "Invalid resourceType " + binding.resource_type.name
    if binding.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return "Invalid patternType " + binding.pattern_type.name
    if binding.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        return "Invalid operation " + binding.operation.name
    if binding.permission not in (Permission.ALLOW, Permission.DENY):
        return "Invalid permissionType " + binding.permission.name
    if not binding.resource_name:
        return "Resource name should not be empty"
    if binding.resource_type == ResourceType.CLUSTER and binding.resource_name != CLUSTER_NAME:
        return "The only valid name for the CLUSTER resource is " + CLUSTER_NAME
    kind, sep, name = binding.principal.partition(":")
    if not sep or not kind or not name:
        return f"Could not parse principal from `{binding.principal}` (no colon is present separating the principal type from the principal name)"
    if binding.host == "":
        return "Invalid host: an empty host is not allowed, use * for any host"
    return None


@dataclass(frozen=True)
class AclFilter:
    resource_type: ResourceType
    resource_name: str | None
    pattern_type: PatternType
    principal: str | None
    host: str | None
    operation: AclOperation
    permission: Permission

    def matches(self, acl: AclBinding) -> bool:
        if self.resource_type != ResourceType.ANY and self.resource_type != acl.resource_type:
            return False
        if not self._matches_pattern(acl):
            return False
        if self.principal is not None and self.principal != acl.principal:
            return False
        if self.host is not None and self.host != acl.host:
            return False
        if self.operation != AclOperation.ANY and self.operation != acl.operation:
            return False
        return self.permission == Permission.ANY or self.permission == acl.permission

    def _matches_pattern(self, acl: AclBinding) -> bool:
        name, kind = self.resource_name, self.pattern_type
        if kind == PatternType.ANY:
            return name is None or name == acl.resource_name
        if kind == PatternType.MATCH:
            if name is None:
                return True
            if acl.pattern_type == PatternType.LITERAL:
                return acl.resource_name in (name, WILDCARD)
            return acl.pattern_type == PatternType.PREFIXED and name.startswith(acl.resource_name)
        if kind != acl.pattern_type:
            return False
        return name is None or name == acl.resource_name
