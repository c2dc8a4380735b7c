"""Shared by CreateAcls, DescribeAcls and DeleteAcls: wire values to ACL model values, and
the per-item loop of the two that change the ACLs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TypeVar

from broker.context import RequestContext
from broker.security.acl.model import (
    AclBinding,
    AclFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
)
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError

E = TypeVar("E", bound=IntEnum)
W = TypeVar("W")  # one item of the request: a creation or a deletion filter
R = TypeVar("R")  # its answer

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


class InvalidAcl(Exception):
    """An item refused with INVALID_REQUEST; the message says why."""


# What one item changes: its answer, the bindings it adds and those it removes.
Change = tuple[R, set[AclBinding], set[AclBinding]]


async def alter_acls(
    ctx: RequestContext,
    items: Sequence[W],
    refused: Callable[[int, str | None], R],
    change: Callable[[frozenset[AclBinding], W], Change[R]],
) -> list[R]:
    """The answers of CreateAcls' creations or DeleteAcls' filters, in request order.
    Without an authorizer, or without ALTER on the cluster, every item is refused alike;
    else each item is applied (`change`, which raises InvalidAcl to refuse it) to the ACLs
    as stored before the request, and the store written once with all the changes."""
    authorizer = ctx.authorizer
    if authorizer is None:
        return [refused(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER) for _ in items]
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return [refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None) for _ in items]

    def apply(current: frozenset[AclBinding]) -> tuple[set[AclBinding] | None, list[R]]:
        added: set[AclBinding] = set()
        removed: set[AclBinding] = set()
        answers: list[R] = []
        for item in items:
            try:
                answer, adds, removes = change(current, item)
            except InvalidAcl as exc:
                answers.append(refused(ErrorCode.INVALID_REQUEST, str(exc)))
                continue
            added |= adds
            removed |= removes
            answers.append(answer)
        new = set(current - removed) | added
        return (new if new != current else None), answers

    try:
        return await authorizer.store.update(apply)
    except (OSError, KafkaStorageError) as exc:
        # Nothing was stored: every item fails alike (retriable).
        return [refused(ErrorCode.KAFKA_STORAGE_ERROR, f"Cannot store the ACLs: {exc}") for _ in items]
