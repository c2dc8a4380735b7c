"""The ACLs, behind one interface with two backends: `FileAclStore` (`acls.json` in the
data directory, rewritten atomically on change: the file engine's single broker) and
`SharedAclStore` (a document of the PostgreSQL database that every broker of a cluster
applies, storage/postgres/cluster_metadata.py, as Kafka's metadata log carries them)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from broker.security.acl.model import AclBinding
from storage.files import write_atomically

if TYPE_CHECKING:
    from storage.postgres.cluster_metadata import MetadataDocuments

FILE_NAME = "acls.json"
DOCUMENT = "acls"

T = TypeVar("T")
# Given the ACLs in force, returns the new set (None: no change) and an answer.
AclChange = Callable[[frozenset[AclBinding]], tuple[set[AclBinding] | None, T]]


class AclStore(Protocol):
    @property
    def acls(self) -> frozenset[AclBinding]: ...

    async def update(self, change: AclChange[T]) -> T:
        """Apply `change` to the ACLs as stored and make the result the ones in force:
        all of it or nothing."""
        ...


def _to_doc(acls: set[AclBinding]) -> list[dict[str, Any]]:
    return [acl.to_json() for acl in sorted(acls)]


def _from_doc(doc: Any) -> frozenset[AclBinding]:
    return frozenset(AclBinding.from_json(d) for d in doc or [])


def read_file(data_dir: Path) -> list[dict[str, Any]] | None:
    """The ACLs of the data directory's file, if it has one."""
    path = data_dir / FILE_NAME
    return json.loads(path.read_text()) if path.exists() else None


class FileAclStore:
    def __init__(self, path: Path, acls: set[AclBinding]) -> None:
        self.path = path
        # Replaced whole on change, never mutated: readers need no copy.
        self._acls = frozenset(acls)

    @classmethod
    def load(cls, data_dir: Path) -> FileAclStore:
        return cls(data_dir / FILE_NAME, set(_from_doc(read_file(data_dir))))

    @property
    def acls(self) -> frozenset[AclBinding]:
        return self._acls

    async def update(self, change: AclChange[T]) -> T:
        new, answer = change(self._acls)
        if new is not None:
            self.replace(new)
        return answer

    def replace(self, acls: set[AclBinding]) -> None:
        """Saves the new set, then makes it the one in force: all or nothing."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(os.fspath(self.path), json.dumps(_to_doc(acls)).encode())
        self._acls = frozenset(acls)


class SharedAclStore:
    """The cluster's ACLs: changed in one transaction on the stored set (never on this
    broker's copy, which another broker's change may have made stale), in force here on
    commit and on the other brokers when they are told."""

    def __init__(self, documents: MetadataDocuments) -> None:
        self._documents = documents
        self._acls: frozenset[AclBinding] = frozenset()
        documents.watch(DOCUMENT, self._loaded)

    def _loaded(self, doc: Any) -> None:
        self._acls = _from_doc(doc)

    @property
    def acls(self) -> frozenset[AclBinding]:
        return self._acls

    async def seed(self, data_dir: Path) -> bool:
        """The data directory's ACLs become the cluster's if it has none yet (a broker moved
        from the file engine keeps its ACLs); True if they did."""
        local = read_file(data_dir)
        if local is None:
            return False
        return await self._documents.update(DOCUMENT, lambda doc: (local, True) if doc is None else (doc, False))

    async def update(self, change: AclChange[T]) -> T:
        def apply(doc: Any) -> tuple[Any, T]:
            new, answer = change(_from_doc(doc))
            return (doc if new is None else _to_doc(new)), answer

        return await self._documents.update(DOCUMENT, apply)
