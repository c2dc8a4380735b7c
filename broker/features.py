"""Feature flags as ApiVersions v3+ reports them (KIP-584): the levels this broker supports
and the levels finalized for the cluster, with the epoch clients use to tell reports apart.

`transaction.version` level 2 is transaction version 2 (KIP-890 part 2). Clients switch to
it only when it is finalized; the broker serves both versions either way, by request
version, so producers that do not speak it keep working while it is finalized."""

from __future__ import annotations

from dataclasses import dataclass, field

TRANSACTION_VERSION = "transaction.version"

# name -> (min, max) level this broker supports.
SUPPORTED: dict[str, tuple[int, int]] = {TRANSACTION_VERSION: (0, 2)}


@dataclass
class Features:
    """The finalized levels; a feature at level 0 is not finalized and is not listed."""

    finalized: dict[str, int] = field(default_factory=dict)
    epoch: int = 0

    def level(self, name: str) -> int:
        return self.finalized.get(name, 0)

    def finalize(self, name: str, level: int) -> None:
        lo, hi = SUPPORTED[name]
        if not lo <= level <= hi:
            raise ValueError(f"{name} level {level} is outside the supported {lo}-{hi}")
        if level == 0:
            self.finalized.pop(name, None)
        else:
            self.finalized[name] = level
        self.epoch += 1
