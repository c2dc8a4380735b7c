"""`python -m faults.broken_broker MODE [broker arguments]`: the broker with one deliberate
bug, so that a test can show the campaign catches it. Used only by `tests/integration/faults/`.

- `no-fsync`: acks=all is answered without the fsync of the log (the group-commit
  flusher does nothing), so a power loss drops acknowledged records.
- `aborted-reads`: Fetch lists no aborted transactions, so read_committed consumers
  keep the records of aborted transactions.
"""

from __future__ import annotations

import sys
from typing import Any

MODES = ("no-fsync", "aborted-reads")


def _break(mode: str) -> None:
    if mode == "no-fsync":
        import storage.flusher

        def no_sync(targets: list[Any]) -> None:
            return None

        storage.flusher._sync_all = no_sync
    elif mode == "aborted-reads":
        import storage.log

        def none_aborted(self: Any, start_offset: int, end_offset: int) -> list[Any]:
            return []

        storage.log.Log.aborted_transactions = none_aborted  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown mode {mode!r}; one of {', '.join(MODES)}")


def main() -> int:
    mode, *argv = sys.argv[1:]
    _break(mode)
    from broker.__main__ import main as broker_main

    return broker_main(argv)


if __name__ == "__main__":
    sys.exit(main())
