"""The connector as a zip for `spark-submit --py-files` (or `SparkContext.addPyFile`): what a
cluster's executors need to import `pipeline` when nothing is installed on them.

    python -m pipeline.package connector.zip

The connector's wire client lives in `odradek.wire` and its codecs in `protocol`, so those
two packages travel with it. Executors still need pyspark, pyarrow and confluent-kafka."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

# The packages the connector imports (pipeline -> odradek.wire, odradek.cli.partitioner -> protocol).
PACKAGES = ("pipeline", "odradek", "protocol")


def source_root() -> Path:
    """The directory these packages are imported from here."""
    return Path(__file__).resolve().parent.parent


def build_zip(dest: Path) -> Path:
    """Writes the connector's packages (sources only, no bytecode) to the zip `dest`."""
    root = source_root()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for package in PACKAGES:
            for path in sorted((root / package).rglob("*")):
                if path.suffix in (".py", ".typed") and "__pycache__" not in path.parts:
                    zf.write(path, path.relative_to(root).as_posix())
    return dest


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(build_zip(Path(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
