"""docs/apis.md's table of APIs served is the router's, version for version."""

from __future__ import annotations

import re
from pathlib import Path

from broker.handlers import build_router

APIS_DOC = Path(__file__).resolve().parents[3] / "docs" / "apis.md"


def test_apis_doc_lists_exactly_the_served_versions() -> None:
    rows = re.findall(r"^\| (\d+) \| (\w+) \| (\d+)(?:-(\d+))? \|$", APIS_DOC.read_text(), re.MULTILINE)
    documented = {int(k): (name, int(lo), int(hi or lo)) for k, name, lo, hi in rows}
    served = {k: (r.api.name, r.min_version, r.max_version) for k, r in build_router().routes.items()}
    assert documented == served
