"""Client quota configs by entity, kept in `client-quotas.json` in the data directory and
rewritten atomically on every change.

An entity is a user, a client id, or both (KIP-55); a name of None is the entity type's
default (`<default>`). Validation and matching are Kafka's: `ClientQuotaControlManager` for
AlterClientQuotas, `ClientQuotasImage.describe` for DescribeClientQuotas.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
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
# QuotaConfig.userAndClientQuotaConfigs: the key and whether it holds a whole number.
KEYS: dict[str, bool] = {
    PRODUCER_BYTE_RATE: True,
    CONSUMER_BYTE_RATE: True,
    REQUEST_PERCENTAGE: False,
    CONTROLLER_MUTATION_RATE: False,
}
_LONG_MAX = 9223372036854775807

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


def validate_entity(pairs: list[tuple[str, str | None]]) -> Entity:
    """The entity of an AlterClientQuotas entry, or QuotaError as Kafka words it."""
    if not pairs:
        raise QuotaError(ErrorCode.INVALID_REQUEST, "Invalid empty client quota entity")
    seen: dict[str, str | None] = {}
    for entity_type, name in pairs:
        if entity_type in seen:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Invalid client quota entity, duplicate entity entry {entity_type}")
        if entity_type not in (USER, CLIENT_ID):
            # IP quotas (KIP-612, connection_creation_rate) are not enforced here, so not kept.
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Unhandled client quota entity type: {entity_type}")
        seen[entity_type] = name
        if name is not None and not name:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Empty {entity_type} not supported")
    return entity_of(seen.items())


def validate_value(key: str, value: float) -> None:
    """ClientQuotaControlManager.validateQuotaKeyValue."""
    integral = KEYS.get(key)
    if integral is None:
        raise QuotaError(ErrorCode.INVALID_REQUEST, f"Invalid configuration key {key}")
    if not value > 0.0:
        raise QuotaError(ErrorCode.INVALID_REQUEST, f"Quota {key} must be greater than 0")
    if integral:
        if value > _LONG_MAX:
            raise QuotaError(ErrorCode.INVALID_REQUEST, f"Proposed value for {key} is too large for a LONG.")
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

    def __bool__(self) -> bool:
        """Whether any quota is configured."""
        return bool(self._quotas)

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
