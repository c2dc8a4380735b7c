"""Turns message specs into Python modules: one dataclass per struct, with a `read` and a
`write` that branch on the version exactly where the spec says the wire format changes."""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from protocol.spec import MAX_VERSION, FieldSpec, MessageSpec, StructSpec, Versions, load_spec

HEADER = '"""{title}\n\nGenerated from `schemas/{source}` by `python -m protocol.codegen`; do not edit.\n"""\n'

_INT_TYPES = {"int8", "int16", "uint16", "int32", "uint32", "int64"}
_PY_TYPES = {
    "bool": "bool",
    "int8": "int",
    "int16": "int",
    "uint16": "int",
    "int32": "int",
    "uint32": "int",
    "int64": "int",
    "float64": "float",
    "string": "str",
    "bytes": "bytes",
    "records": "RecordsData",
    "uuid": "uuid.UUID",
}
_FIXED_METHODS = {
    "bool": "boolean",
    "int8": "int8",
    "int16": "int16",
    "uint16": "uint16",
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "float64": "float64",
    "uuid": "uuid_value",
}


def snake_case(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    return s + "_" if keyword.iskeyword(s) else s


def module_name(spec_name: str) -> str:
    return snake_case(spec_name)


def _cond(r: Versions, known: Versions, var: str = "v") -> str | None:
    """A Python condition for `var in r`, given that `var in known` already holds."""
    parts = []
    if r.lo > known.lo:
        parts.append(f"{var} >= {r.lo}")
    if r.hi < known.hi:
        parts.append(f"{var} <= {r.hi}")
    return " and ".join(parts) if parts else None


def _split(outer: Versions, inner: Versions) -> list[tuple[Versions, bool]]:
    """Splits `outer` into contiguous sub-ranges, each inside or outside `inner`."""
    if outer.empty:
        return []
    if inner.empty:
        return [(outer, False)]
    cuts = sorted({outer.lo, outer.hi + 1} | {x for x in (inner.lo, inner.hi + 1) if outer.lo < x <= outer.hi})
    return [(Versions(a, b - 1), inner.contains(a)) for a, b in itertools.pairwise(cuts)]


@dataclass
class _Struct:
    name: str
    fields: list[FieldSpec]
    versions: Versions


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, indent: int, text: str = "") -> None:
        self.lines.append(("    " * indent + text) if text else "")


class MessageGenerator:
    def __init__(self, spec: MessageSpec, source: str) -> None:
        self.spec = spec
        self.source = source
        self.valid = spec.valid_versions
        self.flexible = spec.flexible_versions
        self.common = {c.name: c for c in spec.common_structs}
        self.structs: dict[str, _Struct] = {}
        self._collect(spec.fields, self.valid)

    # -- struct discovery ---------------------------------------------------------------
    def _add_struct(self, name: str, fields: list[FieldSpec], versions: Versions) -> None:
        known = self.structs.get(name)
        if known is not None:
            # Used in several places: its fields are read in any version of any use, and so
            # are the fields of the structs nested in it.
            lo, hi = min(known.versions.lo, versions.lo), max(known.versions.hi, versions.hi)
            if (lo, hi) != (known.versions.lo, known.versions.hi):
                known.versions = Versions(lo, hi)
                self._collect(fields, known.versions)
            return
        self._collect(fields, versions)
        self.structs[name] = _Struct(name, fields, versions)

    def _collect(self, fields: list[FieldSpec], parent: Versions) -> None:
        for f in fields:
            if not f.is_struct:
                continue
            versions = f.versions.intersect(parent)
            if versions.empty:
                versions = f.versions.intersect(self.valid)
            if f.fields:
                self._add_struct(f.element_type, f.fields, versions)
            elif f.element_type in self.common:
                self._add_struct(f.element_type, self.common[f.element_type].fields, versions)
            else:
                raise ValueError(f"{self.spec.name}.{f.name}: unknown struct {f.element_type}")

    # -- types and defaults -------------------------------------------------------------
    def _nullable_anywhere(self, f: FieldSpec) -> bool:
        # Record sets default to None and are read as nullable at every version, also where
        # the spec allows null only at versions no longer served (ShareFetchResponse v0).
        return not f.nullable_versions.intersect(f.versions).empty or f.default == "null" or f.type == "records"

    def _annotation(self, f: FieldSpec) -> str:
        elem = f.element_type if f.is_struct else _PY_TYPES[f.element_type]
        base = f"list[{elem}]" if f.is_array else elem
        return f"{base} | None" if self._nullable_anywhere(f) else base

    def _default(self, f: FieldSpec) -> str:
        d = f.default
        if d == "null" or (d is None and f.type == "records"):
            return "None"
        if f.is_array:
            return "field(default_factory=list)"
        if f.is_struct:
            return f"field(default_factory={f.type})"
        t = f.type
        if t in _INT_TYPES:
            return str(int(str(d), 0)) if d is not None else "0"
        if t == "float64":
            return repr(float(d)) if d is not None else "0.0"
        if t == "bool":
            return "True" if str(d).lower() == "true" else "False"
        if t == "string":
            return repr(str(d)) if d is not None else "''"
        if t == "bytes":
            return "b''"
        if t == "uuid":
            return "ZERO_UUID"
        raise ValueError(f"no default for {t}")

    def _default_value_expr(self, f: FieldSpec) -> str:
        """An expression equal to the field's default, for the tagged-field 'is set' test."""
        d = self._default(f)
        if d == "field(default_factory=list)":
            return "[]"
        if d.startswith("field(default_factory="):
            return d[len("field(default_factory=") : -1] + "()"
        return d

    # -- reading --------------------------------------------------------------------------
    def _prim_read(self, t: str, flexible: bool, nullable: bool) -> str:
        if t in _FIXED_METHODS:
            return f"r.{_FIXED_METHODS[t]}()"
        if t == "records":
            # Records are nullable in every version that has them.
            return f"r.{'compact_' if flexible else ''}nullable_records()"
        kind = "string" if t == "string" else "blob"
        prefix = ("compact_" if flexible else "") + ("nullable_" if nullable else "")
        return f"r.{prefix}{kind}()"

    def _emit_read_value(self, e: _Emitter, ind: int, f: FieldSpec, target: str, flexible: bool, nullable: bool) -> None:
        if f.is_array:
            e.line(ind, f"n = r.{'compact_' if flexible else ''}array_length()")
            e.line(ind, "if n < 0:")
            if nullable:
                e.line(ind + 1, f"{target} = None")
            else:
                e.line(ind + 1, f"raise InvalidValueError('null in non-nullable array {f.name}')")
            e.line(ind, "else:")
            item = f"{f.element_type}.read(r, v)" if f.is_struct else self._prim_read(f.element_type, flexible, False)
            e.line(ind + 1, f"{target} = [{item} for _ in range(n)]")
        elif f.is_struct:
            if nullable:
                e.line(ind, f"{target} = {f.type}.read(r, v) if r.struct_presence() else None")
            else:
                e.line(ind, f"{target} = {f.type}.read(r, v)")
        else:
            e.line(ind, f"{target} = {self._prim_read(f.type, flexible, nullable)}")

    def _cases(self, f: FieldSpec, present: Versions) -> list[tuple[Versions, bool, bool]]:
        flex = self.flexible if f.flexible_versions is None else self.flexible.intersect(f.flexible_versions)
        cases = []
        for part, is_flex in _split(present, flex):
            for sub, is_null in _split(part, f.nullable_versions):
                cases.append((sub, is_flex, is_null))
        return cases

    def _emit_branches(
        self,
        e: _Emitter,
        ind: int,
        cases: list[tuple[Versions, bool, bool]],
        present: Versions,
        emit: Callable[[_Emitter, int, FieldSpec, str, bool, bool], None],
        f: FieldSpec,
        value: str,
    ) -> None:
        """Emits one branch per run of versions whose wire encoding is the same."""
        runs: list[tuple[Versions, list[str]]] = []
        for case in cases:
            sub = _Emitter()
            emit(sub, 0, f, value, case[1], case[2])
            if runs and runs[-1][1] == sub.lines:
                runs[-1] = (Versions(runs[-1][0].lo, case[0].hi), sub.lines)
            else:
                runs.append((case[0], sub.lines))
        for i, (versions, lines) in enumerate(runs):
            inner = ind
            if len(runs) > 1:
                inner = ind + 1
                if i == len(runs) - 1:
                    e.line(ind, "else:")
                else:
                    e.line(ind, f"{'if' if i == 0 else 'elif'} {_cond(versions, present)}:")
            for ln in lines:
                e.lines.append("    " * inner + ln if ln else "")

    def _guard(self, e: _Emitter, versions: Versions, known: Versions) -> int:
        """Opens `if <v in versions>:` where needed; the indent of the code under it."""
        c = _cond(versions, known)
        if not c:
            return 2
        e.line(2, f"if {c}:")
        return 3

    def _emit_untagged(
        self, e: _Emitter, s: _Struct, emit: Callable[[_Emitter, int, FieldSpec, str, bool, bool], None], owner: str
    ) -> tuple[list[FieldSpec], bool]:
        """Reads or writes (`emit`) the untagged fields of `s` in order, each where its
        versions need; answers the tagged fields and whether any field was emitted."""
        tagged = []
        emitted = False
        for f in s.fields:
            if f.is_tagged:
                tagged.append(f)
                continue
            present = f.versions.intersect(s.versions)
            if present.empty:
                continue
            ind = self._guard(e, present, s.versions)
            self._emit_branches(e, ind, self._cases(f, present), present, emit, f, f"{owner}.{snake_case(f.name)}")
            emitted = True
        return tagged, emitted

    def _emit_read_struct(self, e: _Emitter, s: _Struct) -> None:
        known = s.versions
        e.line(1, "@classmethod")
        e.line(1, f"def read(cls, r: Reader, v: int) -> {s.name}:")
        e.line(2, "o = cls()")
        tagged, _ = self._emit_untagged(e, s, self._emit_read_value, "o")
        flex_range = self.flexible.intersect(known)
        if not flex_range.empty:
            ind = self._guard(e, flex_range, known)
            e.line(ind, "for _ in range(r.uvarint()):")
            e.line(ind + 1, "tag, sub = r.tagged_field_header()")
            for j, f in enumerate(tagged):
                tv = f.tagged_versions.intersect(flex_range)
                if tv.empty:
                    continue
                tc = _cond(tv, flex_range)
                test = f"tag == {f.tag}" + (f" and {tc}" if tc else "")
                e.line(ind + 1, f"{'if' if j == 0 else 'elif'} {test}:")
                nullable = not f.nullable_versions.intersect(tv).empty
                e.line(ind + 2, "_r, r = r, sub")
                self._emit_read_value(e, ind + 2, f, f"o.{snake_case(f.name)}", True, nullable)
                e.line(ind + 2, "r = _r")
            if tagged:
                e.line(ind + 1, "else:")
                e.line(ind + 2, "o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))")
            else:
                e.line(ind + 1, "o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))")
        e.line(2, "return o")

    # -- writing --------------------------------------------------------------------------
    def _prim_write(self, t: str, flexible: bool, nullable: bool, value: str, w: str) -> str:
        if t in _FIXED_METHODS:
            return f"{w}.{_FIXED_METHODS[t]}({value})"
        if t == "records":
            return f"{w}.{'compact_' if flexible else ''}nullable_records({value})"
        kind = "string" if t == "string" else "blob"
        prefix = ("compact_" if flexible else "") + ("nullable_" if nullable else "")
        return f"{w}.{prefix}{kind}({value})"

    def _emit_write_value(
        self, e: _Emitter, ind: int, f: FieldSpec, value: str, flexible: bool, nullable: bool, w: str = "w"
    ) -> None:
        if f.is_array:
            # A loop variable named for the field keeps each loop's element type its own.
            item = f"{snake_case(f.name)}_item"
            if not nullable and self._nullable_anywhere(f):
                e.line(ind, f"if {value} is None:")
                e.line(ind + 1, f"raise ValueError('{f.name} is not nullable in version %d' % v)")
            e.line(ind, f"{w}.{'compact_' if flexible else ''}array_length({value})")
            loop_ind = ind
            if nullable:
                e.line(ind, f"if {value} is not None:")
                loop_ind = ind + 1
            e.line(loop_ind, f"for {item} in {value}:")
            if f.is_struct:
                e.line(loop_ind + 1, f"{item}.write({w}, v)")
            else:
                e.line(loop_ind + 1, self._prim_write(f.element_type, flexible, False, item, w))
        elif f.is_struct:
            if nullable:
                e.line(ind, f"if {value} is None:")
                e.line(ind + 1, f"{w}.int8(-1)")
                e.line(ind, "else:")
                e.line(ind + 1, f"{w}.int8(1)")
                e.line(ind + 1, f"{value}.write({w}, v)")
            else:
                e.line(ind, f"{value}.write({w}, v)")
        else:
            e.line(ind, self._prim_write(f.type, flexible, nullable, value, w))

    def _emit_write_struct(self, e: _Emitter, s: _Struct) -> None:
        known = s.versions
        e.line(1, "def write(self, w: Writer, v: int) -> None:")
        tagged, wrote = self._emit_untagged(e, s, self._emit_write_value, "self")
        flex_range = self.flexible.intersect(known)
        if not flex_range.empty:
            ind = self._guard(e, flex_range, known)
            live = [f for f in tagged if not f.tagged_versions.intersect(flex_range).empty]
            if not live:
                e.line(ind, "w.tagged_fields(self.unknown_tagged_fields)")
            else:
                e.line(ind, "tagged = list(self.unknown_tagged_fields)")
                for f in live:
                    tv = f.tagged_versions.intersect(flex_range)
                    attr = snake_case(f.name)
                    test = f"self.{attr} != {self._default_value_expr(f)}"
                    tc = _cond(tv, flex_range)
                    if tc:
                        test = f"{tc} and {test}"
                    nullable = not f.nullable_versions.intersect(tv).empty
                    e.line(ind, f"if {test}:")
                    e.line(ind + 1, "t = Writer()")
                    self._emit_write_value(e, ind + 1, f, f"self.{attr}", True, nullable, w="t")
                    e.line(ind + 1, f"tagged.append(RawTaggedField({f.tag}, bytes(t.buf)))")
                e.line(ind, "tagged.sort(key=_tag_order)")
                e.line(ind, "w.tagged_fields(tagged)")
            wrote = True
        if not wrote:
            e.line(2, "pass")

    # -- module ---------------------------------------------------------------------------
    def _emit_class(self, e: _Emitter, s: _Struct, top: bool) -> None:
        e.line(0, "@dataclass(slots=True)")
        base = "(Message)" if top else ""
        e.line(0, f"class {s.name}{base}:")
        if top:
            spec = self.spec
            e.line(1, f"NAME: ClassVar[str] = {spec.name!r}")
            e.line(1, f"API_KEY: ClassVar[int] = {spec.api_key if spec.api_key is not None else -1}")
            e.line(1, f"MIN_VERSION: ClassVar[int] = {self.valid.lo if not self.valid.empty else 0}")
            e.line(1, f"MAX_VERSION: ClassVar[int] = {self.valid.hi if not self.valid.empty else -1}")
            fl = self.flexible.lo if not self.flexible.empty else MAX_VERSION
            e.line(1, f"FLEXIBLE_MIN_VERSION: ClassVar[int] = {fl}")
            e.line(1, f"LATEST_VERSION_UNSTABLE: ClassVar[bool] = {self.spec.latest_version_unstable}")
            e.line(0)
        for f in s.fields:
            e.line(1, f"{snake_case(f.name)}: {self._annotation(f)} = {self._default(f)}")
        e.line(1, "unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)")
        e.line(0)
        self._emit_read_struct(e, s)
        e.line(0)
        self._emit_write_struct(e, s)
        e.line(0)
        e.line(0)

    def generate(self) -> str:
        title = f"{self.spec.name}" + (f" (API key {self.spec.api_key})" if self.spec.api_key is not None else "")
        e = _Emitter()
        e.lines.append(HEADER.format(title=title, source=self.source))
        e.line(0, "# ruff: noqa")
        e.line(0, "from __future__ import annotations")
        e.line(0)
        e.line(0, "import uuid")
        e.line(0, "from dataclasses import dataclass, field")
        e.line(0, "from typing import ClassVar")
        e.line(0)
        e.line(0, "from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer")
        e.line(0, "from protocol.message import Message, _tag_order")
        e.line(0)
        e.line(0)
        for s in self.structs.values():
            self._emit_class(e, s, top=False)
        self._emit_class(e, _Struct(self.spec.name, self.spec.fields, self.valid), top=True)
        text = "\n".join(e.lines).rstrip() + "\n"
        return text


def _registry(specs: list[tuple[str, MessageSpec]]) -> str:
    lines = [
        HEADER.format(title="Every generated message, and the API table built from them.", source="*.json"),
        "# ruff: noqa",
        "from __future__ import annotations",
        "",
    ]
    for mod, spec in specs:
        lines.append(f"from protocol.messages.{mod} import {spec.name}")
    lines += ["", "from protocol.apis import ApiSpec", "", "", "API_SPECS: dict[int, ApiSpec] = {"]
    requests = {s.api_key: s for _, s in specs if s.type == "request"}
    responses = {s.api_key: s for _, s in specs if s.type == "response"}
    for key in sorted(k for k in requests if k is not None):
        req, resp = requests[key], responses[key]
        lines.append(f"    {key}: ApiSpec({key}, {req.name[: -len('Request')]!r}, {req.name}, {resp.name}),")
    lines.append("}")
    names = [*sorted(s.name for _, s in specs), "API_SPECS"]
    lines += ["", "__all__ = ["] + [f"    {n!r}," for n in names] + ["]", ""]
    return "\n".join(lines)


def generate_all(schema_dir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    specs = []
    for path in sorted(schema_dir.rglob("*.json")):
        spec = load_spec(path)
        mod = module_name(spec.name)
        if mod + ".py" in out:
            raise ValueError(f"two specs named {spec.name}")
        source = str(path.relative_to(schema_dir))
        out[mod + ".py"] = MessageGenerator(spec, source).generate()
        specs.append((mod, spec))
    out["__init__.py"] = _registry(specs)
    return out


__all__ = ["MessageGenerator", "StructSpec", "generate_all", "module_name", "snake_case"]
