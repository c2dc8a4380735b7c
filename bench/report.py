"""Collects the outcomes of every run and prints the table and the JSON line."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Any

from bench.plan import METRICS, Spec
from bench.runner import Outcome


@dataclass
class Cell:
    """One metric of one workload on one broker over its runs."""

    values: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None


@dataclass
class Row:
    key: str
    title: str
    metric: str
    unit: str
    cells: dict[str, Cell]


class Results:
    """`ratios`: the pairs of brokers compared in the table, (a, b) shown as a/b; by default
    the first broker against the second."""

    def __init__(self, brokers: list[str], ratios: list[tuple[str, str]] | None = None) -> None:
        self.brokers = brokers
        self.ratios = ratios if ratios is not None else ([(brokers[0], brokers[1])] if len(brokers) > 1 else [])
        self.rows: list[Row] = []
        self._index: dict[tuple[str, str], Row] = {}

    def _row(self, key: str, title: str, metric: str) -> Row:
        row = self._index.get((key, metric))
        if row is None:
            label, unit, _ = METRICS[metric]
            full = f"{title} {label}".rstrip() if label else title
            row = Row(key, full, metric, unit, {b: Cell() for b in self.brokers})
            self._index[key, metric] = row
            self.rows.append(row)
        return row

    def add(self, spec: Spec, broker: str, outcome: Outcome) -> None:
        for metric in spec.metrics:
            cell = self._row(spec.key, spec.title, metric).cells[broker]
            if outcome.error is not None:
                cell.errors.append(outcome.error)
            elif metric in outcome.metrics:
                cell.values.append(outcome.metrics[metric])
            else:
                cell.errors.append(f"no {metric} reported")

    def add_value(
        self, key: str, title: str, metric: str, broker: str, value: float | None, why: str
    ) -> None:
        cell = self._row(key, title, metric).cells[broker]
        if value is None:
            cell.errors.append(why)
        else:
            cell.values.append(value)


def ratio(row: Row, pair: tuple[str, str]) -> float | None:
    if row.metric == "ok":
        return None
    ours, theirs = (row.cells[b].median for b in pair)
    if ours is None or theirs is None or theirs == 0:
        return None
    return ours / theirs


def format_value(metric: str, value: float) -> str:
    if metric == "ok":
        return "yes" if value >= 1 else "no"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def format_ratio(r: float | None) -> str:
    if r is None:
        return ""
    return f"{r:.2f}" if r >= 0.1 else f"{r:.3g}"


def format_cell(row: Row, broker: str, runs: int) -> str:
    cell = row.cells[broker]
    if cell.median is None:
        return f"error: {cell.errors[0]}" if cell.errors else "-"
    text = format_value(row.metric, cell.median)
    if cell.errors:  # some runs failed: say how many succeeded
        text += f" ({len(cell.values)}/{len(cell.values) + len(cell.errors)} ok)"
    return text


def table(results: Results, runs: int, width: int = 60) -> str:
    brokers = results.brokers
    header = ["workload", *brokers, *(f"{a}/{b}" for a, b in results.ratios), "unit"]
    lines: list[list[str]] = []
    for row in results.rows:
        line = [row.title, *(format_cell(row, b, runs)[:width] for b in brokers)]
        line += [format_ratio(ratio(row, pair)) for pair in results.ratios]
        line.append(row.unit)
        lines.append(line)
    widths = [max(len(x[i]) for x in [header, *lines]) for i in range(len(header))]

    def fmt(cols: list[str]) -> str:
        out = [cols[0].ljust(widths[0])]
        out += [
            c.rjust(w) if not c.startswith("error") else c.ljust(w)
            for c, w in zip(cols[1:-1], widths[1:-1], strict=True)
        ]
        out.append(cols[-1].ljust(widths[-1]))
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *(fmt(x) for x in lines)])


def as_json(results: Results, meta: dict[str, Any]) -> str:
    rows = []
    for row in results.rows:
        entry: dict[str, Any] = {
            "key": row.key,
            "workload": row.title,
            "metric": row.metric,
            "unit": row.unit,
        }
        for broker, cell in row.cells.items():
            entry[broker] = {
                "median": cell.median,
                "runs": [round(v, 6) for v in cell.values],
                "errors": cell.errors,
            }
        ratios = [ratio(row, pair) for pair in results.ratios]
        entry["ratio"] = round(ratios[0], 4) if ratios and ratios[0] is not None else None
        entry["ratios"] = {
            f"{a}/{b}": round(r, 4) if r is not None else None
            for (a, b), r in zip(results.ratios, ratios, strict=True)
        }
        rows.append(entry)
    return json.dumps({**meta, "results": rows}, separators=(",", ":"))
