"""Generates `protocol/messages/` from the JSON specs in `schemas/`.

    python -m protocol.codegen          # write the modules
    python -m protocol.codegen --check  # fail if the committed modules are stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol.codegen.generator import generate_all

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.codegen")
    parser.add_argument("--check", action="store_true", help="only check that the output is up to date")
    args = parser.parse_args(argv)
    out_dir = ROOT / "protocol" / "messages"
    files = generate_all(ROOT / "schemas")
    stale = []
    for name, text in files.items():
        path = out_dir / name
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append(name)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    extra = sorted(p.name for p in out_dir.glob("*.py") if p.name not in files) if out_dir.exists() else []
    if args.check:
        if stale or extra:
            print(f"generated code is stale: {', '.join(stale + extra)}; run `make codegen`", file=sys.stderr)
            return 1
        print(f"generated code is up to date ({len(files)} modules)")
        return 0
    for name in extra:
        (out_dir / name).unlink()
    print(f"wrote {len(stale)} of {len(files)} modules, removed {len(extra)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
