"""The cluster's finalized features on PostgreSQL: one document of the cluster's metadata
(storage/postgres/cluster_metadata.py), {"finalized": {name: level}, "epoch": n, "known":
[names]}, as Kafka keeps them in its metadata log, one value with one epoch for every broker.

An UpdateFeatures is one change of the document: its updates are checked against the levels
as committed, inside the change, so two brokers updating at once apply one after the other,
the second checked against the first's result. The epoch is kept in the document and moved
by every change that moves a level, in the same transaction: it only grows, and every broker
reports the same epoch with the same levels. The broker that wrote applies the new levels on
commit; the others on NOTIFY 'metadata' or at the cluster's periodic check.

"known" names the features the document has ever held, as the features file's does: a broker
that supports one the document never named gives it its setting's level, once for the
cluster (the first such broker to start)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from broker.features import (
    FEATURES_FILE,
    NO_BROKERS,
    SUPPORTED,
    BrokerSupport,
    Features,
    FeaturesFileError,
    FeatureUpdate,
    applied,
    evaluate,
    read_file,
)
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from storage.postgres.cluster_metadata import MetadataDocuments

DOCUMENT = "features"


def _levels(doc: Any) -> dict[str, int]:
    # By name: every broker lists them in one order, whatever order PostgreSQL's jsonb keeps.
    return dict(sorted((str(k), int(v)) for k, v in ((doc or {}).get("finalized") or {}).items()))


def _document(finalized: Mapping[str, int], epoch: int, known: set[str]) -> dict[str, Any]:
    return {"finalized": dict(sorted(finalized.items())), "epoch": epoch, "known": sorted(known | set(SUPPORTED))}


class SharedFeatures(Features):
    def __init__(self, documents: MetadataDocuments) -> None:
        super().__init__({}, 0)
        self._documents = documents
        # The live brokers' supported levels as PostgreSQL has them (broker/metadata_stores.py
        # sets it for a cluster's broker): an update must be within every one's ranges.
        self.cluster_brokers: Callable[[], Awaitable[BrokerSupport]] | None = None
        documents.watch(DOCUMENT, self._loaded)

    def _loaded(self, doc: Any) -> None:
        if doc is None:
            return
        # Both at once: a reader never meets the levels of one epoch with another's number.
        self.finalized, self.epoch = _levels(doc), int(doc.get("epoch", 0))

    async def seed(self, data_dir: Path, initial: Mapping[str, int]) -> str | None:
        """Give the cluster its levels if it has none yet: the data directory's features file
        ("file", a broker moved from the file engine keeps its levels and epoch) or else the
        settings ("settings", as a fresh data directory); a feature the document never named
        at this broker's setting ("completed"). None when the document stays as it was."""
        try:
            local = read_file(data_dir / FEATURES_FILE, initial)
        except FeaturesFileError as exc:
            local = None
            damaged: FeaturesFileError | None = exc
        else:
            damaged = None

        def take(doc: Any) -> tuple[Any, str | None]:
            if doc is None:
                if damaged is not None:
                    raise damaged  # as on the file engine: not levels an operator changed
                if local is not None:
                    return _document(local[0], local[1], set()), "file"
                return _document({k: v for k, v in initial.items() if v > 0}, 0, set()), "settings"
            known = {str(k) for k in doc.get("known", ())}
            new = {name: level for name, level in initial.items() if name not in known}
            if not new:
                return doc, None
            finalized = {**{k: v for k, v in new.items() if v > 0}, **_levels(doc)}
            moved = finalized != _levels(doc)
            return _document(finalized, int(doc.get("epoch", 0)) + moved, known), "completed"

        return await self._documents.update(DOCUMENT, take)

    async def change(
        self, updates: Sequence[FeatureUpdate], controller: int, validate_only: bool
    ) -> tuple[int, str | None]:
        """KafkaStorageError when PostgreSQL fails: nothing changed.

        The brokers are read before the change's transaction, as Kafka's controller reads
        its registrations before it checks: one registering meanwhile is not seen."""
        brokers = NO_BROKERS if self.cluster_brokers is None else await self.cluster_brokers()

        def apply(doc: Any) -> tuple[Any, tuple[int, str | None]]:
            current = _levels(doc)
            code, message, levels = evaluate(current, updates, controller, brokers)
            if code != ErrorCode.NONE or validate_only or not levels:
                return doc, (code, message)
            epoch = int((doc or {}).get("epoch", 0)) + 1
            known = {str(k) for k in (doc or {}).get("known", ())}
            return _document(applied(current, levels), epoch, known), (code, message)

        return await self._documents.update(DOCUMENT, apply)
