"""The one place handlers ask whether the connection's principal may do something.

Without an authorizer (`authorizer.class.name` empty, the default) everything is allowed and
a check costs one attribute test."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from broker.config import Config
from broker.security.acl.authorizer import StandardAuthorizer
from broker.security.acl.model import CLUSTER_NAME, AclOperation, ResourceType
from broker.security.acl.store import AclStore


class _Peer(Protocol):
    @property
    def principal(self) -> str: ...

    @property
    def peer(self) -> str: ...


class Requester(Protocol):
    """What an authorization check needs of a request (broker.context.RequestContext):
    declared here so that the security checks never import the context."""

    @property
    def connection(self) -> _Peer: ...

    @property
    def authorizer(self) -> StandardAuthorizer | None: ...


def build_authorizer(config: Config, store: AclStore) -> StandardAuthorizer | None:
    if not (config.security.get("authorizer.class.name") or "").strip():
        return None
    super_users = [u.strip() for u in (config.security.get("super.users") or "").split(";") if u.strip()]
    allow = (config.security.get("allow.everyone.if.no.acl.found") or "false").strip().lower() == "true"
    return StandardAuthorizer(store, super_users, allow)


def _host(peer: str) -> str:
    host = peer.rsplit(":", 1)[0]
    return host.strip("[]")


def allowed(ctx: Requester, operation: AclOperation, resource_type: ResourceType, name: str) -> bool:
    authorizer = ctx.authorizer
    if authorizer is None:
        return True
    connection = ctx.connection
    return authorizer.authorize(connection.principal, _host(connection.peer), operation, resource_type, name)


def cluster_allowed(ctx: Requester, operation: AclOperation) -> bool:
    return allowed(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME)


def allowed_names(
    ctx: Requester, operation: AclOperation, resource_type: ResourceType, names: Iterable[str]
) -> set[str]:
    """The names among `names` the principal may perform `operation` on."""
    if ctx.authorizer is None:
        return set(names)
    return {name for name in names if allowed(ctx, operation, resource_type, name)}


def allowed_any(ctx: Requester, operation: AclOperation, resource_type: ResourceType) -> bool:
    """Whether the principal may perform `operation` on some resource of the type (Kafka's
    `authorizeByResourceType`, KIP-679)."""
    authorizer = ctx.authorizer
    if authorizer is None:
        return True
    connection = ctx.connection
    return authorizer.authorize_by_resource_type(connection.principal, _host(connection.peer), operation, resource_type)
