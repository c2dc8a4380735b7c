"""The operations a principal may perform on a resource, as the 32-bit field that
Metadata, DescribeCluster and DescribeGroups carry (bit n set = AclOperation code n).

As Kafka's `AuthHelper.authorizedOperations`: of the operations a resource type supports
(`AclEntry.supportedOperations`), those the authorizer allows; all of them without one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.limits import INT32_MIN

if TYPE_CHECKING:
    from broker.context import RequestContext


# The value sent when the client did not ask for the operations (the schemas' default).
OMITTED = INT32_MIN

_A = AclOperation
SUPPORTED_OPERATIONS: dict[ResourceType, frozenset[AclOperation]] = {
    ResourceType.TOPIC: frozenset(
        {_A.READ, _A.WRITE, _A.CREATE, _A.DESCRIBE, _A.DELETE, _A.ALTER, _A.DESCRIBE_CONFIGS, _A.ALTER_CONFIGS}
    ),
    ResourceType.GROUP: frozenset({_A.READ, _A.DESCRIBE, _A.DELETE, _A.DESCRIBE_CONFIGS, _A.ALTER_CONFIGS}),
    ResourceType.CLUSTER: frozenset(
        {_A.CREATE, _A.CLUSTER_ACTION, _A.DESCRIBE_CONFIGS, _A.ALTER_CONFIGS, _A.IDEMPOTENT_WRITE, _A.ALTER,
         _A.DESCRIBE}
    ),
}


def to_bitfield(operations: frozenset[AclOperation]) -> int:
    return sum(1 << op for op in operations)


def authorized_operations(ctx: RequestContext, resource_type: ResourceType, name: str) -> int:
    """The bitfield of what the connection's principal may do on the named resource."""
    supported = SUPPORTED_OPERATIONS[resource_type]
    if ctx.authorizer is None:
        return to_bitfield(supported)
    return to_bitfield(frozenset(op for op in supported if allowed(ctx, op, resource_type, name)))
