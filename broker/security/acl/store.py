"""The ACLs, kept in `acls.json` in the data directory and rewritten atomically on change."""

from __future__ import annotations

import json
import os
from pathlib import Path

from broker.security.acl.model import AclBinding
from storage.files import write_atomically

FILE_NAME = "acls.json"


class AclStore:
    def __init__(self, path: Path, acls: set[AclBinding]) -> None:
        self.path = path
        # Replaced whole on change, never mutated: readers need no copy.
        self._acls = frozenset(acls)

    @classmethod
    def load(cls, data_dir: Path) -> AclStore:
        path = data_dir / FILE_NAME
        acls = {AclBinding.from_json(doc) for doc in json.loads(path.read_text())} if path.exists() else set()
        return cls(path, acls)

    @property
    def acls(self) -> frozenset[AclBinding]:
        return self._acls

    def replace(self, acls: set[AclBinding]) -> None:
        """Saves the new set, then makes it the one in force: all or nothing."""
        doc = [acl.to_json() for acl in sorted(acls)]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(os.fspath(self.path), json.dumps(doc).encode())
        self._acls = frozenset(acls)
