"""Feature flags as ApiVersions v3+ reports them (KIP-584): the levels this broker supports
and the levels finalized for the cluster, with the epoch clients use to tell reports apart.

`transaction.version` level 2 is transaction version 2 (KIP-890 part 2). Clients switch to
it only when it is finalized; the broker serves both versions either way, by request
version, so producers that do not speak it keep working while it is finalized.

The broker setting `transaction.version` gives the level a fresh data directory starts
with (Kafka's `kafka-storage format --feature`); UpdateFeatures changes it afterwards, and
the change is kept in the data directory, so it outlives restarts as in Kafka's metadata log.

KRaft's two features are reported as a Kafka 4.0 cluster formatted by `kafka-storage format
--standalone` reports them. `metadata.version` is supported over Kafka 4.0's levels
(protocol/metadata_version.py) and finalized at its latest, kept in the features file like
the others, and updated with the FeatureControlManager's checks (a downgrade across a level
that changed the metadata records is refused). `kraft.version` is 1 (KIP-853's dynamic
quorum): Kafka keeps it in the Raft log, not among the finalized features its controller
updates, so its controller takes an UpdateFeatures of it as of a feature at level 0 and
the reported level does not move; so does this broker.

The epoch: Kafka reports the offset of its metadata image, which every metadata record
moves; this broker has no metadata log and counts the feature updates instead. Both only
grow, which is all a client can rely on."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from protocol import metadata_version
from protocol.errors import ErrorCode
from storage.files import write_atomically

TRANSACTION_VERSION = "transaction.version"
# KIP-848: level 1 serves the consumer group protocol (ConsumerGroupHeartbeat and
# ConsumerGroupDescribe); Kafka 4.0 finalizes it on new clusters.
GROUP_VERSION = "group.version"
# KIP-932: share groups are served at level 1 (Kafka 4.2 finalizes it on new clusters).
SHARE_VERSION = "share.version"
METADATA_VERSION = metadata_version.FEATURE_NAME
KRAFT_VERSION = "kraft.version"
# As a quorum formatted with `kafka-storage format --standalone` (Kafka 4.0's quickstart).
KRAFT_VERSION_LEVEL = 1
FEATURES_FILE = "finalized-features.json"

# name -> (min, max) level this broker supports.
SUPPORTED: dict[str, tuple[int, int]] = {
    METADATA_VERSION: (metadata_version.MINIMUM, metadata_version.LATEST),
    KRAFT_VERSION: (0, 1),
    TRANSACTION_VERSION: (0, 2),
    SHARE_VERSION: (0, 1),
    GROUP_VERSION: (0, 1),
}
# The features every features file has named since it was first written: absent from one,
# they were disabled. A feature added later and absent from an older file starts at its
# setting's level, as on a fresh data directory.
_FILE_FEATURES = frozenset({TRANSACTION_VERSION, SHARE_VERSION})


class UpgradeType(IntEnum):
    """UpdateFeatures v1+ (KIP-778). Kafka 4.0's controller reads this field at every
    version: a v0 request, which has AllowDowngrade instead, is an upgrade."""

    UPGRADE = 1
    SAFE_DOWNGRADE = 2
    UNSAFE_DOWNGRADE = 3


class FeaturesFileError(RuntimeError):
    """The finalized features file exists but cannot be read."""


@dataclass
class Features:
    """The finalized levels; a feature at level 0 is not finalized and is not listed."""

    finalized: dict[str, int] = field(default_factory=dict)
    epoch: int = 0
    path: Path | None = None

    @classmethod
    def load(cls, data_dir: Path | None, initial: dict[str, int]) -> Features:
        path = None if data_dir is None else data_dir / FEATURES_FILE
        if path is not None and path.exists():
            try:
                doc = json.loads(path.read_bytes())
                finalized = {str(k): int(v) for k, v in doc["finalized"].items()}
                known = _FILE_FEATURES | {str(k) for k in doc.get("known", ())}
                epoch = int(doc["epoch"])
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                # Written atomically: only outside damage gets here. Refuse to start rather
                # than fall back to levels an operator changed.
                raise FeaturesFileError(f"cannot read {path}: {exc}") from exc
            for name, level in initial.items():
                if name not in known and level > 0:
                    finalized.setdefault(name, level)
            return cls(finalized, epoch, path)
        return cls({k: v for k, v in initial.items() if v > 0}, 0, path)

    def level(self, name: str) -> int:
        return self.finalized.get(name, 0)

    def reported(self) -> dict[str, int]:
        """The finalized levels ApiVersions lists: these, and kraft.version from the quorum."""
        return {**self.finalized, KRAFT_VERSION: KRAFT_VERSION_LEVEL}

    def check(self, name: str, level: int, upgrade: int, controller: int) -> tuple[int, str | None]:
        """Kafka 4.0's FeatureControlManager checks of one update, in its order: (error code,
        message). `controller` is the node the messages name (Kafka's active controller)."""
        invalid = f"Invalid update version {level} for feature {name}. "
        if upgrade not in UpgradeType.__members__.values():
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + "The controller does not support the given upgrade type."
        if level < 0:
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + "A feature version cannot be less than 0."
        if name not in SUPPORTED:
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + f"Local controller {controller} does not support this feature."
        lo, hi = SUPPORTED[name]
        if not lo <= level <= hi:
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + f"Local controller {controller} only supports versions {lo}-{hi}"
        # kraft.version is not among the controller's finalized features: it counts as 0.
        current = 0 if name == KRAFT_VERSION else self.level(name)
        if level < current and upgrade == UpgradeType.UPGRADE:
            return (
                ErrorCode.INVALID_UPDATE_VERSION,
                invalid + "Can't downgrade the version of this feature without setting the upgrade type "
                "to either safe or unsafe downgrade.",
            )
        if level > current and upgrade != UpgradeType.UPGRADE:
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + "Can't downgrade to a newer version."
        if name == METADATA_VERSION and level < current and metadata_version.metadata_changed(current, level):
            reason = (
                "Unsafe metadata downgrade is not supported in this version."
                if upgrade == UpgradeType.UNSAFE_DOWNGRADE
                else "Refusing to perform the requested downgrade because it might delete metadata information."
            )
            return ErrorCode.INVALID_UPDATE_VERSION, f"Invalid metadata.version {level}. {reason}"
        return ErrorCode.NONE, None

    async def update(self, levels: dict[str, int]) -> None:
        """Apply checked updates together: memory first (no suspension before it), then the
        file, written in a task of its own so a cancelled request leaves both agreeing."""
        for name, level in levels.items():
            if name == KRAFT_VERSION:
                continue  # the quorum's level, which Kafka's controller does not change either
            if level > 0:
                self.finalized[name] = level
            else:
                self.finalized.pop(name, None)
        self.epoch += 1
        if self.path is not None:
            doc = {"epoch": self.epoch, "finalized": self.finalized, "known": sorted(SUPPORTED)}
            data = json.dumps(doc, sort_keys=True).encode()
            await asyncio.shield(asyncio.to_thread(write_atomically, os.fspath(self.path), data))
