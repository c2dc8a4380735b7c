"""The ACL a config resource of DescribeConfigs/AlterConfigs/IncrementalAlterConfigs needs,
as Kafka's `AuthHelper.authorizeConfigResource` and `configsAuthorizationApiError` map it:
broker, broker-logger and client-metrics resources are the cluster's, topics and groups their own."""

from __future__ import annotations

from broker.security.acl.model import CLUSTER_NAME, AclOperation, ResourceType
from broker.security.authorization import Requester, allowed
from protocol.errors import ErrorCode

# ConfigResource.Type ids.
_TOPIC, _BROKER, _BROKER_LOGGER, _CLIENT_METRICS, _GROUP = 2, 4, 8, 16, 32

_ACL_RESOURCE: dict[int, tuple[ResourceType, ErrorCode]] = {
    _TOPIC: (ResourceType.TOPIC, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    _GROUP: (ResourceType.GROUP, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    _BROKER: (ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    _BROKER_LOGGER: (ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
    _CLIENT_METRICS: (ResourceType.CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
}


def config_denied(ctx: Requester, operation: AclOperation, config_type: int, name: str) -> ErrorCode | None:
    """The authorization error for the resource, or None when allowed (or of a type the
    handler refuses on its own)."""
    if ctx.authorizer is None or config_type not in _ACL_RESOURCE:
        return None
    acl_type, error = _ACL_RESOURCE[config_type]
    return None if allowed(ctx, operation, acl_type, CLUSTER_NAME if acl_type is ResourceType.CLUSTER else name) else error
