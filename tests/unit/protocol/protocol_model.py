"""Test helpers: the repo's message specs walked per version, hypothesis strategies derived
from them for our generated dataclasses, and a generic conversion from kio entities.

Everything here reads only the repository's `schemas/` and the generated code.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import typing
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st
from kio.static.primitive import i64Timedelta

import protocol.messages as messages
from protocol.codec import ZERO_UUID, RawTaggedField
from protocol.codegen.generator import module_name, snake_case
from protocol.message import Message
from protocol.spec import FieldSpec, MessageSpec, load_spec

ROOT = Path(__file__).resolve().parents[3]
SCHEMAS = ROOT / "schemas"

_INT_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


@functools.cache
def load_specs() -> dict[str, MessageSpec]:
    """Every spec in `schemas/`, by message name."""
    return {s.name: s for s in (load_spec(p) for p in sorted(SCHEMAS.rglob("*.json")))}


@functools.cache
def message_classes() -> tuple[type[Message], ...]:
    """Every generated top-level message class, in name order."""
    out = []
    for name in messages.__all__:
        obj = getattr(messages, name)
        if isinstance(obj, type) and issubclass(obj, Message):
            out.append(obj)
    return tuple(sorted(out, key=lambda c: c.NAME))


def module_of(cls: type[Message]) -> ModuleType:
    mod = getattr(messages, module_name(cls.NAME))
    assert isinstance(mod, ModuleType)
    return mod


@dataclass(frozen=True)
class Target:
    """One generated message class at one version."""

    cls: type[Message]
    version: int

    @property
    def spec(self) -> MessageSpec:
        return load_specs()[self.cls.NAME]

    @property
    def id(self) -> str:
        return f"{self.cls.NAME}-v{self.version}"

    @property
    def flexible(self) -> bool:
        return self.spec.flexible_versions.contains(self.version)


def all_targets() -> list[Target]:
    """Every message class (APIs, headers, data schemas) at every version its spec defines."""
    return [Target(cls, v) for cls in message_classes() for v in range(cls.MIN_VERSION, cls.MAX_VERSION + 1)]


def struct_fields(spec: MessageSpec, f: FieldSpec) -> list[FieldSpec]:
    if f.fields:
        return f.fields
    for c in spec.common_structs:
        if c.name == f.element_type:
            return c.fields
    raise KeyError(f"{spec.name}: no struct {f.element_type}")


def present(fields: list[FieldSpec], v: int) -> list[FieldSpec]:
    return [f for f in fields if f.versions.contains(v)]


def iter_structs(spec: MessageSpec, fields: list[FieldSpec], v: int) -> Iterator[tuple[str, list[FieldSpec]]]:
    """(struct name, its fields) for every struct reachable at version `v`, top level first."""
    yield spec.name, fields
    for f in present(fields, v):
        if f.is_struct:
            yield from iter_structs_named(spec, f.element_type, struct_fields(spec, f), v)


def iter_structs_named(
    spec: MessageSpec, name: str, fields: list[FieldSpec], v: int
) -> Iterator[tuple[str, list[FieldSpec]]]:
    yield name, fields
    for f in present(fields, v):
        if f.is_struct:
            yield from iter_structs_named(spec, f.element_type, struct_fields(spec, f), v)


# -- strategies for our dataclasses ---------------------------------------------------------


def _primitive_strategy(t: str) -> st.SearchStrategy[Any]:
    if t in _INT_RANGES:
        lo, hi = _INT_RANGES[t]
        return st.integers(lo, hi)
    if t == "bool":
        return st.booleans()
    if t == "float64":
        return st.floats(allow_nan=False)
    if t == "string":
        return st.text(max_size=6)
    if t in ("bytes", "records"):
        return st.binary(max_size=12)
    if t == "uuid":
        return st.uuids() | st.just(ZERO_UUID)
    raise ValueError(f"no strategy for {t}")


def _unknown_tagged(known_tags: set[int]) -> st.SearchStrategy[list[RawTaggedField]]:
    tags = st.lists(st.integers(0, 300).filter(lambda t: t not in known_tags), max_size=2, unique=True).map(
        sorted
    )
    return tags.flatmap(
        lambda ts: st.tuples(*(st.binary(max_size=6) for _ in ts)).map(
            lambda datas: [RawTaggedField(t, d) for t, d in zip(ts, datas, strict=True)]
        )
    )


def _field_strategy(
    spec: MessageSpec, mod: ModuleType, f: FieldSpec, v: int, depth: int
) -> st.SearchStrategy[Any]:
    if f.is_struct:
        elem = _struct_strategy(spec, mod, f.element_type, struct_fields(spec, f), v, depth + 1)
    else:
        elem = _primitive_strategy(f.element_type)
    base = st.lists(elem, max_size=3 if depth < 2 else 1) if f.is_array else elem
    if f.nullable_versions.contains(v):
        return st.none() | base
    return base


def _struct_strategy(
    spec: MessageSpec, mod: ModuleType, name: str, fields: list[FieldSpec], v: int, depth: int
) -> st.SearchStrategy[Any]:
    cls = getattr(mod, name)
    kwargs: dict[str, st.SearchStrategy[Any]] = {
        snake_case(f.name): _field_strategy(spec, mod, f, v, depth) for f in present(fields, v)
    }
    if spec.flexible_versions.contains(v):
        known = {f.tag for f in fields if f.tag is not None}
        kwargs["unknown_tagged_fields"] = _unknown_tagged(known)
    return st.builds(cls, **kwargs)


@functools.cache
def message_strategy(cls: type[Message], v: int) -> st.SearchStrategy[Message]:
    """Values of `cls` with exactly the fields present at version `v` set (others default)."""
    spec = load_specs()[cls.NAME]
    return _struct_strategy(spec, module_of(cls), cls.NAME, spec.fields, v, 0)


# -- kio ------------------------------------------------------------------------------------


def _strip_optional(t: Any) -> Any:
    args = typing.get_args(t)
    if typing.get_origin(t) is tuple:
        return _strip_optional(args[0])
    if args and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return _strip_optional(inner)
    return t


def kio_name_matches(kio_name: str, spec_name: str) -> bool:
    """kio drops the `_ms` of fields it represents as timedelta/datetime."""
    ours = snake_case(spec_name)
    return kio_name == ours or kio_name + "_ms" == ours


def _kio_primitive(value: Any, kafka_type: str) -> Any:
    if value is None:
        if kafka_type == "uuid":
            return ZERO_UUID  # kio reads the zero UUID as None
        if kafka_type == "datetime_i64":
            return -1
        return None
    if kafka_type in ("timedelta_i32", "timedelta_i64"):
        assert isinstance(value, datetime.timedelta)
        return round(value.total_seconds() * 1000)
    if kafka_type == "datetime_i64":
        assert isinstance(value, datetime.datetime)
        return round(value.timestamp() * 1000)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)  # also ErrorCode and the i8..i64 wrappers
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        return bytes(value)
    if isinstance(value, uuid.UUID):
        return value
    raise TypeError(f"unexpected kio value {value!r} ({kafka_type})")


def from_kio(entity: Any, target: Target) -> Message:
    """Converts a kio entity into our dataclass, field by field, by matching names."""
    spec = target.spec
    return _from_kio_struct(entity, spec, module_of(target.cls), target.cls.NAME, spec.fields, target.version)  # type: ignore[no-any-return]


def _from_kio_struct(
    entity: Any, spec: MessageSpec, mod: ModuleType, name: str, fields: list[FieldSpec], v: int
) -> Any:
    kfields = dataclasses.fields(entity)
    ours = present(fields, v)
    assert [kf.name for kf in kfields] != [] or ours == [], name
    if len(kfields) != len(ours) or not all(
        kio_name_matches(kf.name, f.name) for kf, f in zip(kfields, ours, strict=True)
    ):
        raise AssertionError(
            f"{name} v{v}: kio fields {[k.name for k in kfields]} vs ours {[f.name for f in ours]}"
        )
    hints = typing.get_type_hints(type(entity))
    kwargs: dict[str, Any] = {}
    for kf, f in zip(kfields, ours, strict=True):
        value = getattr(entity, kf.name)
        if f.is_struct:
            sub = struct_fields(spec, f)

            def conv(x: Any, f: FieldSpec = f, sub: list[FieldSpec] = sub) -> Any:
                return _from_kio_struct(x, spec, mod, f.element_type, sub, v)

            assert dataclasses.is_dataclass(_strip_optional(hints[kf.name]))
        else:
            kafka_type = kf.metadata["kafka_type"]

            def conv(x: Any, kafka_type: str = kafka_type) -> Any:
                return _kio_primitive(x, kafka_type)

        if value is None:
            kwargs[snake_case(f.name)] = conv(None) if not f.is_struct and not f.is_array else None
        elif f.is_array:
            kwargs[snake_case(f.name)] = [conv(x) for x in value]
        else:
            kwargs[snake_case(f.name)] = conv(value)
    return getattr(mod, name)(**kwargs)


def _kio_hint_strategy(hint: Any, depth: int) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if args and type(None) in args and origin is not tuple:
        (inner,) = [a for a in args if a is not type(None)]
        return st.none() | _kio_hint_strategy(inner, depth)
    if origin is tuple:
        return st.lists(_kio_hint_strategy(args[0], depth + 1), max_size=3 if depth < 2 else 1).map(tuple)
    if dataclasses.is_dataclass(hint):
        return kio_strategy(hint, depth)
    if hint is i64Timedelta:
        # kio itself cannot read back milliseconds near timedelta.max; stay within 2**40 ms.
        return st.integers(-(2**40), 2**40).map(
            lambda ms: i64Timedelta.parse(datetime.timedelta(milliseconds=ms))
        )
    return st.from_type(hint)


@functools.cache
def kio_strategy(ktype: type[Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Random kio entities with small arrays (kio's own `from_type` makes big nested ones)."""
    hints = typing.get_type_hints(ktype)
    return st.builds(
        ktype, **{f.name: _kio_hint_strategy(hints[f.name], depth) for f in dataclasses.fields(ktype)}
    )
