"""Waits for a consumer group's committed offsets to settle, for the exactly-once tests."""

from __future__ import annotations

from tests.integration.transactions.txn_clients import (
    TP,
    end_offsets,
)
from tests.polling import wait_until


def settled(bootstrap: str, tps: list[TP], expected_hwm: dict[TP, int] | None = None) -> dict[TP, int]:
    """Wait until no transaction is open on `tps` (LSO == HWM; markers are written after
    EndTxn answers) and, if given, the high watermarks are as expected."""

    def check() -> bool:
        hwm = end_offsets(bootstrap, tps, committed=False)
        if expected_hwm is not None and hwm != expected_hwm:
            return False
        return end_offsets(bootstrap, tps, committed=True) == hwm

    wait_until(check, what="transactions to settle")
    return end_offsets(bootstrap, tps, committed=False)
