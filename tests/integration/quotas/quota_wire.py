"""DescribeClientQuotas and AlterClientQuotas over the raw wire, for the quota tests."""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.alter_client_quotas_request import (
    AlterClientQuotasRequest,
    EntityData,
    EntryData,
    OpData,
)
from protocol.messages.describe_client_quotas_request import ComponentData, DescribeClientQuotasRequest
from tests.kafka_wire import WireClient

DESCRIBE, ALTER, PRODUCE, FETCH, API_VERSIONS = 48, 49, 0, 1, 18


def op(key: str, value: float = 0.0, remove: bool = False) -> OpData:
    return OpData(key=key, value=value, remove=remove)


def entry(entity: dict[str, str | None], *ops: OpData) -> EntryData:
    return EntryData(entity=[EntityData(entity_type=t, entity_name=n) for t, n in entity.items()], ops=list(ops))


def alter(c: WireClient, *entries: EntryData, validate_only: bool = False, version: int = 1) -> list[tuple[int, Any]]:
    resp: Any = c.call(ALTER, version, AlterClientQuotasRequest(entries=list(entries), validate_only=validate_only))
    return [(e.error_code, e.error_message) for e in resp.entries]


def describe(c: WireClient, *components: tuple[str, int, str | None], strict: bool = False, version: int = 1) -> Any:
    return c.call(DESCRIBE, version, DescribeClientQuotasRequest(
        components=[ComponentData(entity_type=t, match_type=m, match=s) for t, m, s in components], strict=strict,
    ))


def described(c: WireClient) -> dict[tuple[tuple[str, str | None], ...], dict[str, float]]:
    resp = describe(c)
    assert resp.error_code == ErrorCode.NONE
    return {
        tuple((e.entity_type, e.entity_name) for e in item.entity): {v.key: v.value for v in item.values}
        for item in resp.entries
    }
