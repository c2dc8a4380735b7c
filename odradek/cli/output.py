"""What a command prints: a human table by default, JSON with `--json`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Output:
    """`data` is what `--json` prints; `rows` (dicts keyed by `columns`) make the table, or
    `lines` plain text when a table does not fit."""

    data: Any
    columns: Sequence[str] = ()
    rows: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] | None = None


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, list | tuple | dict) and not value):
        return "-"
    if isinstance(value, list | tuple):
        return ",".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={_cell(v)}" for k, v in value.items())
    return str(value)


def table(columns: Sequence[str], rows: list[dict[str, Any]]) -> str:
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c.upper())] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    out = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(out)


def render(output: Output, as_json: bool) -> str:
    if as_json:
        return json.dumps(output.data, indent=2, sort_keys=False)
    if output.lines is not None:
        return "\n".join(output.lines)
    return table(output.columns, output.rows)
