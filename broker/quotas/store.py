"""Client quota configs by entity, kept in `client-quotas.json` in the data directory and
rewritten atomically on every change.

An entity is a user, a client id, or both (KIP-55); a name of None is the entity type's
default (`<default>`). Validation and matching are Kafka's: `ClientQuotaControlManager` for
AlterClientQuotas, `ClientQuotasImage.describe` for DescribeClientQuotas.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import ErrorCode
from storage.files import write_atomically

FILE_NAME = "client-quotas.json"

USER = "user"
CLIENT_ID = "client-id"
IP = "ip"

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"
CONTROLLER_MUTATION_RATE = "controller_mutation_rate"
CONNECTION_CREATION_RATE = "connection_creation_rate"
# The keys an entity may hold and the type of each value, as QuotaConfig's
# userAndClientQuotaConfigs and ipConfigs define them.
USER_AND_CLIENT_KEYS: dict[str, str] = {
    PRODUCER_BYTE_RATE: "LONG",
    CONSUMER_BYTE_RATE: "LONG",
    REQUEST_PERCENTAGE: "DOUBLE",
    CONTROLLER_MUTATION_RATE: "DOUBLE",
}
IP_KEYS: dict[str, str] = {CONNECTION_CREATION_RATE: "INT"}
_INTEGRAL_MAX = {"INT": 2147483647, "LONG": 9223372036854775807}
_AN = {"INT": "an INT", "LONG": "a LONG"}

# DescribeClientQuotas match types.
MATCH_EXACT = 0
MATCH_DEFAULT = 1
MATCH_SPECIFIED = 2

# (entity type, name or None for the default), sorted by type.
Entity = tuple[tuple[str, str | None], ...]


def entity_of(pairs: Iterable[tuple[str, str | None]]) -> Entity:
    return tuple(sorted(pairs, key=lambda p: p[0]))


@dataclass(frozen=True)
class QuotaError(Exception):
    error_code: int
    message: str


def validate_entity(pairs: list[tuple[str, str | None]], resolves: Callable[[str], bool] | None = None) -> Entity:
    """The entity of an AlterClientQuotas entry, or QuotaError as Kafka words it. An ip
    entity names an address or a host `resolves` accepts (default: a literal address only)."""
    if not pairs:
        raise QuotaError(ErrorCode.INVALID_REQUEST, "Invalid empty client quota entity")
    seen: dict[str, str | None] = {}
    for entity_type, name in pairs:
        if entity_type in seen:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Invalid client quota entity, duplicate entity entry {entity_type}")
        if entity_type not in (USER, CLIENT_ID, IP):
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Unhandled client quota entity type: {entity_type}")
        seen[entity_type] = name
        if name is not None and not name:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Empty {entity_type} not supported")
    if IP in seen:
        if USER in seen or CLIENT_ID in seen:
            # Kafka's message, its missing space included.
            raise QuotaError(
                ErrorCode.INVALID_REQUEST,
                "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId",
            )
        name = seen[IP]
        if name is not None and not (is_ip_address(name) or (resolves is not None and resolves(name))):
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"{name} is not a valid IP or resolvable host.")
    return entity_of(seen.items())


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def validate_value(entity: Entity, key: str, value: float) -> None:
    """ClientQuotaControlManager.validateQuotaKeyValue, with the keys of the entity's type."""
    value_type = (IP_KEYS if any(t == IP for t, _ in entity) else USER_AND_CLIENT_KEYS).get(key)
    if value_type is None:
        raise QuotaError(ErrorCode.INVALID_REQUEST, f"Invalid configuration key {key}")
    if not value > 0.0:
        raise QuotaError(ErrorCode.INVALID_REQUEST, f"Quota {key} must be greater than 0")
    if value_type in _INTEGRAL_MAX:
        if value > _INTEGRAL_MAX[value_type]:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Proposed value for {key} is too large for {_AN[value_type]}.")
        if abs(math.fmod(value, 1.0)) > 1e-6:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"{key} cannot be a fractional value.")


@dataclass(frozen=True)
class Filter:
    exact: dict[str, str | None]
    specified: set[str]
    strict: bool

    def matches(self, entity: Entity) -> bool:
        names = dict(entity)
        if self.strict and len(names) != len(self.exact) + len(self.specified):
            return False
        for entity_type, name in self.exact.items():
            if entity_type not in names or names[entity_type] != name:
                return False
        return all(t in names for t in self.specified)


def parse_filter(components: Iterable[tuple[str, int, str | None]], strict: bool) -> Filter:
    """A DescribeClientQuotas filter, or QuotaError as Kafka answers a bad one."""
    exact: dict[str, str | None] = {}
    specified: set[str] = set()
    for entity_type, match_type, match in components:
        if not entity_type:
            raise QuotaError(ErrorCode.INVALID_REQUEST, "Invalid empty entity type.")
        if entity_type in exact or entity_type in specified:
            raise QuotaError(
                ErrorCode.INVALID_REQUEST, f"Entity type {entity_type} cannot appear more than once in the filter."
            )
        if entity_type not in (IP, USER, CLIENT_ID):
            raise QuotaError(ErrorCode.UNSUPPORTED_VERSION, f"Unsupported entity type {entity_type}")
        if match_type == MATCH_EXACT:
            if match is None:
                raise QuotaError(
                    ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null."
                )
            exact[entity_type] = match
        elif match_type == MATCH_DEFAULT:
            if match is not None:
                raise QuotaError(
                    ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."
                )
            exact[entity_type] = None
        elif match_type == MATCH_SPECIFIED:
            if match is not None:
                raise QuotaError(
                    ErrorCode.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.",
                )
            specified.add(entity_type)
        else:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Unknown match type {match_type}")
    used = set(exact) | specified
    if IP in used and (USER in used or CLIENT_ID in used):
        raise QuotaError(
            ErrorCode.INVALID_REQUEST,
            "Invalid entity filter component combination. IP filter component should not be used with "
            "user or clientId filter component.",
        )
    return Filter(exact, specified, strict)


class QuotaStore:
    def __init__(self, path: Path, quotas: dict[Entity, dict[str, float]] | None = None) -> None:
        self.path = path
        self._quotas = quotas or {}
        # Bumped on every change, so that cached lookups know to start again.
        self.version = 0

    @classmethod
    def load(cls, data_dir: Path) -> QuotaStore:
        path = data_dir / FILE_NAME
        quotas: dict[Entity, dict[str, float]] = {}
        if path.exists():
            for entry in json.loads(path.read_text()):
                entity = entity_of((e["type"], e["name"]) for e in entry["entity"])
                quotas[entity] = {k: float(v) for k, v in entry["values"].items()}
        return cls(path, quotas)

    def get(self, entity: Entity) -> Mapping[str, float]:
        return self._quotas.get(entity, {})

    def describe(self, wanted: Filter) -> list[tuple[Entity, dict[str, float]]]:
        return [(e, dict(v)) for e, v in sorted(self._quotas.items(), key=_sort_key) if wanted.matches(e)]

    def has_client_quotas(self) -> bool:
        """Whether any user or client id quota is configured."""
        return any(t != IP for entity in self._quotas for t, _ in entity)

    def ip_quotas(self) -> dict[str | None, float]:
        """The connection creation rate of each ip entity (None: the default), as set."""
        return {
            entity[0][1]: values[CONNECTION_CREATION_RATE]
            for entity, values in self._quotas.items()
            if entity[0][0] == IP and CONNECTION_CREATION_RATE in values
        }

    def has_key(self, key: str) -> bool:
        return any(key in values for values in self._quotas.values())

    def apply(self, changes: Mapping[Entity, Mapping[str, float | None]]) -> None:
        """Sets (a value) or removes (None) keys of entities and saves: all or nothing."""
        updated = {e: dict(v) for e, v in self._quotas.items()}
        for entity, ops in changes.items():
            values = updated.setdefault(entity, {})
            for key, value in ops.items():
                if value is None:
                    values.pop(key, None)
                else:
                    values[key] = value
            if not values:
                del updated[entity]
        self._save(updated)
        self._quotas = updated
        self.version += 1

    def _save(self, quotas: dict[Entity, dict[str, float]]) -> None:
        doc = [
            {"entity": [{"type": t, "name": n} for t, n in entity], "values": values}
            for entity, values in sorted(quotas.items(), key=_sort_key)
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(os.fspath(self.path), json.dumps(doc, indent=1).encode())


def _sort_key(item: tuple[Entity, object]) -> list[tuple[str, bool, str]]:
    return [(t, n is not None, n or "") for t, n in item[0]]
