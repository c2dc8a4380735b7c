"""Feature flags as ApiVersions v3+ reports them (KIP-584): the levels this broker supports
and the levels finalized for the cluster, with the epoch clients use to tell reports apart.

`transaction.version` level 2 is transaction version 2 (KIP-890 part 2). Clients switch to
it only when it is finalized; the broker serves both versions either way, by request
version, so producers that do not speak it keep working while it is finalized.

The broker setting `transaction.version` gives the level a fresh data directory starts
with (Kafka's `kafka-storage format --feature`); UpdateFeatures changes it afterwards, and
the change is kept, so it outlives restarts as in Kafka's metadata log: on the file engine
in the data directory (FileFeatures, here), on PostgreSQL in a document every broker over
the database applies, one value for the cluster (broker/shared_features.py).

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
grow, which is all a client can rely on (Kafka's client takes the finalized features of the
highest epoch any broker reported, its ApiVersions class)."""

from __future__ import annotations

import asyncio
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, TypeVar

from broker.config import Config
from protocol import metadata_version
from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError
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
T = TypeVar("T")

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


class FeatureUpdate(NamedTuple):
    """One FeatureUpdateKey of an UpdateFeatures request."""

    name: str
    level: int
    upgrade: int


def initial_levels(config: Config) -> dict[str, int]:
    """The levels a new data directory (or a new cluster's database) finalizes: the
    settings' (Kafka's `kafka-storage format --feature`)."""
    return {
        # Kafka 4.0 formats a new cluster at its latest metadata.version.
        METADATA_VERSION: metadata_version.LATEST,
        TRANSACTION_VERSION: config.get_int("transaction.version"),
        SHARE_VERSION: config.get_int("share.version"),
        GROUP_VERSION: config.get_int("group.version"),
    }


# node id -> the levels a registered broker supports, name -> (min, max); None: a broker
# registered by a version that did not record them (storage/postgres/migrations/0006_broker_features.sql).
BrokerSupport = Mapping[int, Mapping[str, tuple[int, int]] | None]
NO_BROKERS: BrokerSupport = MappingProxyType({})  # one broker on its own data directory


def _broker_range(finalized: Mapping[str, int], name: str, supported: Mapping[str, tuple[int, int]] | None) -> tuple[int, int]:
    if supported is not None:
        return supported.get(name, (0, 0))  # Kafka's QuorumFeatures.DISABLED
    # Unknown ranges: what it serves now, the level finalized (kraft.version: the quorum's),
    # down to this version's minimum. So no upgrade passes it before it runs a version that
    # registers its ranges, and a downgrade is not held up by it.
    current = KRAFT_VERSION_LEVEL if name == KRAFT_VERSION else finalized.get(name, 0)
    return min(SUPPORTED.get(name, (0, 0))[0], current), current


def _not_supported(what: str, level: int, lo: int, hi: int) -> str | None:
    # Kafka's QuorumFeatures.reasonNotSupported, the range as its VersionRange.toString.
    if lo <= level <= hi:
        return None
    if hi == 0:
        return f"{what} does not support this feature."
    return f"{what} only supports versions {lo if lo == hi else f'{lo}-{hi}'}"


def unsupported_finalized(
    finalized: Mapping[str, int], supported: Mapping[str, tuple[int, int]] = SUPPORTED
) -> str | None:
    """Why a broker supporting `supported` may not join a cluster whose levels are `finalized`
    (None: it may), as Kafka 4.0's ClusterControlManager.registerBroker refuses its
    registration (UNSUPPORTED_VERSION): a finalized level outside the broker's range, a
    feature it does not name counting as 0-0. The broker does not start: it would serve
    levels it cannot (an older version in a rolling downgrade, one of a narrower build)."""
    for name, level in sorted(finalized.items()):
        lo, hi = supported.get(name, (0, 0))
        if not lo <= level <= hi:
            return (
                f"Unable to register because the broker does not support finalized version {level} of {name}. "
                f"The broker wants a version between {lo} and {hi}, inclusive."
            )
    return None


def check(
    finalized: Mapping[str, int], name: str, level: int, upgrade: int, controller: int, brokers: BrokerSupport = NO_BROKERS
) -> tuple[int, str | None]:
    """Kafka 4.0's FeatureControlManager checks of one update against the levels `finalized`,
    in its order: (error code, message). `controller` is the node the messages name (Kafka's
    active controller); `brokers`, the registered brokers, by id, whose ranges the level
    must be in too (its reasonNotSupported: in a rolling upgrade no level is finalized that
    a broker of the older version cannot serve)."""
    invalid = f"Invalid update version {level} for feature {name}. "
    if upgrade not in UpgradeType.__members__.values():
        return ErrorCode.INVALID_UPDATE_VERSION, invalid + "The controller does not support the given upgrade type."
    if level < 0:
        return ErrorCode.INVALID_UPDATE_VERSION, invalid + "A feature version cannot be less than 0."
    if name not in SUPPORTED:
        return ErrorCode.INVALID_UPDATE_VERSION, invalid + f"Local controller {controller} does not support this feature."
    reason = _not_supported(f"Local controller {controller}", level, *SUPPORTED[name])
    if reason is not None:
        return ErrorCode.INVALID_UPDATE_VERSION, invalid + reason
    for node_id in sorted(brokers):
        reason = _not_supported(f"Broker {node_id}", level, *_broker_range(finalized, name, brokers[node_id]))
        if reason is not None:
            return ErrorCode.INVALID_UPDATE_VERSION, invalid + reason
    # kraft.version is not among the controller's finalized features: it counts as 0.
    current = 0 if name == KRAFT_VERSION else finalized.get(name, 0)
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


def evaluate(
    finalized: Mapping[str, int], updates: Sequence[FeatureUpdate], controller: int, brokers: BrokerSupport = NO_BROKERS
) -> tuple[int, str | None, dict[str, int]]:
    """A request's updates checked in order against `finalized` (and the `brokers`' ranges):
    the first failure (code, message), or NONE and the levels to apply together.

    A feature named twice is taken as Kafka 4.0's QuorumController takes it, into a map by
    name: its last level and upgrade type, checked once, no error."""
    last = {update.name: update for update in updates}
    levels: dict[str, int] = {}
    for update in last.values():
        code, message = check(finalized, update.name, update.level, update.upgrade, controller, brokers)
        if code != ErrorCode.NONE:
            return code, message, {}
        levels[update.name] = update.level
    return ErrorCode.NONE, None, levels


def applied(finalized: Mapping[str, int], levels: Mapping[str, int]) -> dict[str, int]:
    """`finalized` with checked `levels` applied: a feature at 0 is no longer listed."""
    out = dict(finalized)
    for name, level in levels.items():
        if name == KRAFT_VERSION:
            continue  # the quorum's level, which Kafka's controller does not change either
        if level > 0:
            out[name] = level
        else:
            out.pop(name, None)
    return out


class Features(ABC):
    """The finalized levels in force on this broker (a feature at level 0 is not finalized and
    is not listed) and their epoch. Readers take them as they are at the moment (ApiVersions,
    the group and share version gates): `change`, or on PostgreSQL another broker's change
    applied here, replaces both at once, between two steps of the event loop."""

    def __init__(self, finalized: dict[str, int], epoch: int) -> None:
        self.finalized = finalized
        self.epoch = epoch

    def level(self, name: str) -> int:
        return self.finalized.get(name, 0)

    def reported(self) -> dict[str, int]:
        """The finalized levels ApiVersions lists: these, and kraft.version from the quorum."""
        return {**self.finalized, KRAFT_VERSION: KRAFT_VERSION_LEVEL}

    def check(self, name: str, level: int, upgrade: int, controller: int) -> tuple[int, str | None]:
        return check(self.finalized, name, level, upgrade, controller)

    @abstractmethod
    async def change(
        self, updates: Sequence[FeatureUpdate], controller: int, validate_only: bool
    ) -> tuple[int, str | None]:
        """An UpdateFeatures: its updates checked against the levels as kept, and applied
        together unless one fails or `validate_only`; (error code, message)."""


class FileFeatures(Features):
    """The levels of a data directory, kept in its `finalized-features.json` (None: in memory
    only)."""

    def __init__(self, finalized: dict[str, int], epoch: int, path: Path | None) -> None:
        super().__init__(finalized, epoch)
        self.path = path
        # One change at a time, checked against the one before it: two writes at once would
        # share the temporary file, and could land out of order.
        self._lock = asyncio.Lock()

    @classmethod
    def load(cls, data_dir: Path | None, initial: dict[str, int]) -> FileFeatures:
        path = None if data_dir is None else data_dir / FEATURES_FILE
        found = None if path is None else read_file(path, initial)
        if found is None:
            return cls({k: v for k, v in initial.items() if v > 0}, 0, path)
        return cls(*found, path)

    async def change(
        self, updates: Sequence[FeatureUpdate], controller: int, validate_only: bool
    ) -> tuple[int, str | None]:
        """KafkaStorageError when the file cannot be written: nothing changed."""

        async def checked() -> tuple[int, str | None]:
            code, message, levels = evaluate(self.finalized, updates, controller)
            if code == ErrorCode.NONE and levels and not validate_only:
                await self._store(levels)
            return code, message

        return await self._locked(checked)

    async def update(self, levels: dict[str, int]) -> None:
        """Apply checked updates together (KafkaStorageError: nothing changed)."""
        await self._locked(lambda: self._store(levels))

    async def _locked(self, step: Callable[[], Awaitable[T]]) -> T:
        # In a task of its own, the lock held throughout: a cancelled request neither leaves
        # file and memory apart nor lets the next change start beside its write.
        async def run() -> T:
            async with self._lock:
                return await step()

        return await asyncio.shield(asyncio.ensure_future(run()))

    async def _store(self, levels: dict[str, int]) -> None:
        # The file first, then memory: a failed write leaves both as they were.
        finalized, epoch = applied(self.finalized, levels), self.epoch + 1
        if self.path is not None:
            doc = {"epoch": epoch, "finalized": finalized, "known": sorted(SUPPORTED)}
            data = json.dumps(doc, sort_keys=True).encode()
            try:
                await asyncio.to_thread(write_atomically, os.fspath(self.path), data)
            except OSError as exc:
                raise KafkaStorageError(f"cannot write {self.path}: {exc}") from exc
        self.finalized, self.epoch = finalized, epoch


def read_file(path: Path, initial: Mapping[str, int]) -> tuple[dict[str, int], int] | None:
    """The levels and epoch a features file holds (None: there is none), a feature it has never
    named at its `initial` level. FeaturesFileError when it cannot be read."""
    if not path.exists():
        return None
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
    return finalized, epoch
