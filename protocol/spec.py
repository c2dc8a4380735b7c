"""The JSON message-spec format (Kafka's `clients/.../common/message` dialect), parsed.

Used by the code generator only; the broker imports the generated modules.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# An open-ended upper bound.
MAX_VERSION = 0x7FFF


@dataclass(frozen=True)
class Versions:
    """An inclusive version range; `lo > hi` is the empty range ("none")."""

    lo: int
    hi: int

    @classmethod
    def parse(cls, text: str | None, default: Versions | None = None) -> Versions:
        if text is None:
            if default is None:
                raise ValueError("missing version range")
            return default
        text = text.strip()
        if text == "none":
            return NO_VERSIONS
        if text.endswith("+"):
            return cls(int(text[:-1]), MAX_VERSION)
        if "-" in text:
            lo, hi = text.split("-", 1)
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    @property
    def empty(self) -> bool:
        return self.lo > self.hi

    def intersect(self, other: Versions) -> Versions:
        return Versions(max(self.lo, other.lo), min(self.hi, other.hi))

    def contains(self, v: int) -> bool:
        return self.lo <= v <= self.hi

    def covers(self, other: Versions) -> bool:
        return other.empty or (self.lo <= other.lo and other.hi <= self.hi)

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.hi == MAX_VERSION:
            return f"{self.lo}+"
        return f"{self.lo}" if self.lo == self.hi else f"{self.lo}-{self.hi}"


NO_VERSIONS = Versions(1, 0)
ALL_VERSIONS = Versions(0, MAX_VERSION)

PRIMITIVES = frozenset(
    {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes", "uuid", "records"}
)


@dataclass
class FieldSpec:
    name: str
    type: str
    versions: Versions
    nullable_versions: Versions
    tagged_versions: Versions
    flexible_versions: Versions | None
    tag: int | None
    default: Any
    ignorable: bool
    map_key: bool
    fields: list[FieldSpec] = field(default_factory=list)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.element_type not in PRIMITIVES

    @property
    def is_tagged(self) -> bool:
        return self.tag is not None


@dataclass
class StructSpec:
    name: str
    versions: Versions
    fields: list[FieldSpec]


@dataclass
class MessageSpec:
    name: str
    type: str
    api_key: int | None
    valid_versions: Versions
    flexible_versions: Versions
    fields: list[FieldSpec]
    common_structs: list[StructSpec]
    latest_version_unstable: bool = False


def strip_comments(text: str) -> str:
    """Removes `//` line comments outside of strings."""
    out = []
    for line in text.splitlines():
        in_string = escaped = False
        cut = len(line)
        for i, c in enumerate(line):
            if in_string:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif line.startswith("//", i):
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


_FIELD_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


def _parse_field(raw: dict[str, Any], parent: Versions) -> FieldSpec:
    name = raw["name"]
    if not _FIELD_NAME.match(name):
        raise ValueError(f"invalid field name {name!r}")
    tagged = Versions.parse(raw.get("taggedVersions"), NO_VERSIONS)
    versions = Versions.parse(raw.get("versions"), tagged if not tagged.empty else None)
    flexible = raw.get("flexibleVersions")
    spec = FieldSpec(
        name=name,
        type=raw["type"],
        versions=versions,
        nullable_versions=Versions.parse(raw.get("nullableVersions"), NO_VERSIONS),
        tagged_versions=tagged,
        flexible_versions=None if flexible is None else Versions.parse(flexible),
        tag=raw.get("tag"),
        default=raw.get("default"),
        ignorable=bool(raw.get("ignorable", False)),
        map_key=bool(raw.get("mapKey", False)),
    )
    if (spec.tag is None) != tagged.empty:
        raise ValueError(f"{name}: a tagged field needs both tag and taggedVersions")
    spec.fields = [_parse_field(f, versions) for f in raw.get("fields", [])]
    return spec


def load_spec(path: Path) -> MessageSpec:
    raw = json.loads(strip_comments(path.read_text()))
    valid = Versions.parse(raw.get("validVersions", "none"))
    return MessageSpec(
        name=raw["name"],
        type=raw["type"],
        api_key=raw.get("apiKey"),
        valid_versions=valid,
        flexible_versions=Versions.parse(raw.get("flexibleVersions", "none")),
        fields=[_parse_field(f, valid) for f in raw.get("fields", [])],
        common_structs=[
            StructSpec(
                name=c["name"],
                versions=Versions.parse(c.get("versions"), valid),
                fields=[_parse_field(f, valid) for f in c["fields"]],
            )
            for c in raw.get("commonStructs", [])
        ],
        latest_version_unstable=bool(raw.get("latestVersionUnstable", False)),
    )
