"""AlterClientQuotas (KIP-546): sets and removes quota configs with Kafka's validation
(ClientQuotaControlManager): an error is per entity and leaves that entity unchanged; the
accepted changes are saved together, unless `validate_only`. ALTER_CONFIGS on the cluster,
as KafkaApis checks."""

from __future__ import annotations

import asyncio

from broker.context import RequestContext
from broker.quotas.store import IP, Entity, QuotaError, is_ip_address, validate_entity, validate_value
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.alter_client_quotas_request import AlterClientQuotasRequest
from protocol.messages.alter_client_quotas_request import EntryData as RequestEntry
from protocol.messages.alter_client_quotas_response import AlterClientQuotasResponse, EntityData, EntryData

API_KEY = 49


def _result(entry: RequestEntry, code: int = ErrorCode.NONE, message: str | None = None) -> EntryData:
    return EntryData(
        error_code=code,
        error_message=message,
        entity=[EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity],
    )


def _changes(entry: RequestEntry, resolved: set[str]) -> tuple[Entity, dict[str, float | None]]:
    entity = validate_entity([(e.entity_type, e.entity_name) for e in entry.entity], resolved.__contains__)
    ops: dict[str, float | None] = {}
    for op in entry.ops:
        if op.key in ops:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Duplicate quota key {op.key} not updating quota for this entity")
        if op.remove:
            ops[op.key] = None
        else:
            validate_value(entity, op.key, op.value)
            ops[op.key] = op.value
    return entity, ops


async def _resolvable_hosts(request: AlterClientQuotasRequest) -> set[str]:
    """The host names of ip entities that resolve (Kafka checks with InetAddress.getByName),
    looked up off the event loop."""
    hosts = {
        e.entity_name for entry in request.entries for e in entry.entity
        if e.entity_type == IP and e.entity_name and not is_ip_address(e.entity_name)
    }
    loop = asyncio.get_running_loop()
    resolved: set[str] = set()
    for host in hosts:
        try:
            await loop.getaddrinfo(host, None)
        except (OSError, ValueError):  # ValueError: not a host name at all (idna, NUL)
            continue
        resolved.add(host)
    return resolved


async def handle(ctx: RequestContext, request: AlterClientQuotasRequest) -> AlterClientQuotasResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER_CONFIGS):
        return AlterClientQuotasResponse(entries=[
            _result(e, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.") for e in request.entries
        ])
    changes: dict[Entity, dict[str, float | None]] = {}
    results: list[EntryData] = []
    resolved = await _resolvable_hosts(request)
    for entry in request.entries:
        try:
            entity, ops = _changes(entry, resolved)
        except QuotaError as exc:
            results.append(_result(entry, exc.error_code, exc.message))
            continue
        if entity in changes:
            results.append(_result(entry, ErrorCode.INVALID_REQUEST, "Ignoring duplicate entity"))
            continue
        changes[entity] = ops
        results.append(_result(entry))
    if changes and not request.validate_only:
        ctx.quotas.store.apply(changes)
    return AlterClientQuotasResponse(entries=results)
