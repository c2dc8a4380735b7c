"""The README's table of APIs served is the router's, version for version."""

from __future__ import annotations

import re
from pathlib import Path

from broker.handlers import build_router

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_exactly_the_served_versions() -> None:
    rows = re.findall(r"^\| (\d+) \| (\w+) \| (\d+)(?:-(\d+))? \|$", README.read_text(), re.MULTILINE)
    documented = {int(k): (name, int(lo), int(hi or lo)) for k, name, lo, hi in rows}
    served = {k: (r.api.name, r.min_version, r.max_version) for k, r in build_router().routes.items()}
    assert documented == served
