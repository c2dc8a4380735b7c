"""`odradek quotas`: describe and alter client quotas (what Kafka's kafka-configs.sh does for
`--entity-type users`, `clients` and `ips`, through DescribeClientQuotas and AlterClientQuotas)."""

from __future__ import annotations

from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.cli.topics import parse_pairs
from protocol.messages.alter_client_quotas_request import (
    AlterClientQuotasRequest,
    EntityData,
    EntryData,
    OpData,
)
from protocol.messages.describe_client_quotas_request import ComponentData, DescribeClientQuotasRequest

DEFAULT = "<default>"
MATCH_EXACT, MATCH_DEFAULT = 0, 1


def _entity(user: str | None, client_id: str | None, ip: str | None = None) -> dict[str, str | None]:
    """Entity type to name; `<default>` names the default entity, as kafka-configs.sh."""
    out: dict[str, str | None] = {}
    for entity_type, name in (("user", user), ("client-id", client_id), ("ip", ip)):
        if name is not None:
            out[entity_type] = None if name == DEFAULT else name
    return out


def _shown(name: str | None) -> str:
    return DEFAULT if name is None else name


def describe(cluster: Cluster, user: str | None, client_id: str | None, ip: str | None = None) -> Output:
    components = [
        ComponentData(entity_type=t, match_type=MATCH_DEFAULT if n is None else MATCH_EXACT, match=n)
        for t, n in _entity(user, client_id, ip).items()
    ]
    resp = cluster.any_node().call(DescribeClientQuotasRequest(components=components, strict=False), 1)
    check(resp.error_code, "describing client quotas", resp.error_message)
    data: list[dict[str, Any]] = []
    for entry in resp.entries or []:
        entity = {e.entity_type: _shown(e.entity_name) for e in entry.entity}
        data.append({"entity": entity, "quotas": {v.key: v.value for v in entry.values}})
    columns = ["user", "client-id", *(["ip"] if any("ip" in d["entity"] for d in data) else []), "quotas"]
    rows = [{c: d["quotas"] if c == "quotas" else d["entity"].get(c) for c in columns} for d in data]
    return Output(data, columns, rows)


def alter(cluster: Cluster, user: str | None, client_id: str | None, adds: list[str], deletes: list[str],
          ip: str | None = None) -> Output:
    entity = _entity(user, client_id, ip)
    if not entity:
        raise CliError("name the entity: --user and/or --client-id, or --ip (`<default>` for the default)")
    if not adds and not deletes:
        raise CliError("nothing to change: give --add-config name=value or --delete-config name")
    values: dict[str, float] = {}
    for key, text in parse_pairs(adds, "--add-config").items():
        try:
            values[key] = float(text)
        except ValueError:
            raise CliError(f"--add-config {key}: not a number: {text!r}") from None
    ops = [OpData(key=k, value=v, remove=False) for k, v in values.items()]
    ops += [OpData(key=k, value=0.0, remove=True) for k in deletes]
    resp = cluster.any_node().call(AlterClientQuotasRequest(entries=[EntryData(
        entity=[EntityData(entity_type=t, entity_name=n) for t, n in entity.items()], ops=ops)]), 1)
    result = resp.entries[0]
    shown = {t: _shown(n) for t, n in entity.items()}
    check(result.error_code, f"altering client quotas of {shown}", result.error_message)
    return Output({"entity": shown, "set": values, "deleted": list(deletes)},
                  lines=[f"Completed updating client quotas of {', '.join(f'{t} {n}' for t, n in shown.items())}."])
