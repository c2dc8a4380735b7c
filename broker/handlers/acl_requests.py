"""Shared by CreateAcls, DescribeAcls and DeleteAcls: wire values to ACL model values."""

from __future__ import annotations

from enum import IntEnum
from typing import TypeVar

from broker.security.acl.model import AclFilter, AclOperation, PatternType, Permission, ResourceType

E = TypeVar("E", bound=IntEnum)

# Kafka 4.0's texts (AclApis): DescribeAcls says where, CreateAcls and DeleteAcls do not.
NO_AUTHORIZER = "No Authorizer is configured."
NO_AUTHORIZER_ON_BROKER = "No Authorizer is configured on the broker"


def code(enum: type[E], value: int) -> E:
    """The enum member for a wire code; codes this broker does not know read as UNKNOWN (0)."""
    try:
        return enum(value)
    except ValueError:
        return enum(0)


def acl_filter(
    resource_type: int, name: str | None, pattern_type: int, principal: str | None, host: str | None,
    operation: int, permission: int,
) -> AclFilter:
    return AclFilter(
        code(ResourceType, resource_type), name, code(PatternType, pattern_type), principal, host,
        code(AclOperation, operation), code(Permission, permission),
    )


def invalid_filter_reason(f: AclFilter) -> str | None:
    """Kafka refuses filters with an UNKNOWN part (AclBindingFilter.findIndefiniteField)."""
    for label, value in [
        ("resourceType", f.resource_type), ("patternType", f.pattern_type), ("operation", f.operation),
        ("permissionType", f.permission),
    ]:
        if value == 0:
            return f"Filter contain UNKNOWN elements: {label}"
    return None
