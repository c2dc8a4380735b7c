"""The connector's zip (`pipeline.package`) is enough for an interpreter that has only the
connector's dependencies: every module the sink and the source import comes from it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from pipeline.package import build_zip

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import pipeline.datasource, pipeline.sink, pipeline.source, pipeline.two_phase
print("\\n".join(sorted({m.__file__ for n, m in sys.modules.items()
                         if n.split(".")[0] in ("pipeline", "odradek", "protocol")})))
"""


def test_zip_holds_the_connector_and_what_it_imports(tmp_path: Path) -> None:
    connector = build_zip(tmp_path / "connector.zip")
    names = zipfile.ZipFile(connector).namelist()
    assert {"pipeline/__init__.py", "pipeline/sink.py", "odradek/wire.py", "protocol/__init__.py"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]

    # A fresh interpreter in an empty directory, without PYTHONPATH, as a Spark executor's worker.
    files = subprocess.run(
        [sys.executable, "-c", PROBE, str(connector)],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True,
    ).stdout.split()
    assert len(files) > 20
    assert [f for f in files if not f.startswith(f"{connector}/")] == []
