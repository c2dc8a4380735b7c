"""SCRAM credentials, kept salted and hashed (never the password): in `scram-credentials.json`
in the data directory, rewritten atomically on every change, or on PostgreSQL in the
cluster's metadata (storage/postgres/cluster_metadata.py), shared by every broker.

Each credential is what RFC 5802 has the server keep: the salt, the iteration count,
StoredKey = H(HMAC(SaltedPassword, "Client Key")) and ServerKey = HMAC(SaltedPassword,
"Server Key"). AlterUserScramCredentials sends the SaltedPassword, never the password.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from storage.files import write_atomically

if TYPE_CHECKING:
    from storage.postgres.cluster_metadata import MetadataDocuments

FILE_NAME = "scram-credentials.json"
DOCUMENT = "scram-credentials"
T = TypeVar("T")

# Kafka's ScramMechanism: the type byte of the wire protocol, the hash, and the name.
MECHANISMS: dict[int, str] = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
MECHANISM_TYPES: dict[str, int] = {name: code for code, name in MECHANISMS.items()}
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
# Kafka's bounds on the iteration count (ScramMechanism.minIterations / maxIterations).
MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_salted_password(cls, mechanism: str, salt: bytes, salted_password: bytes, iterations: int) -> ScramCredential:
        digest = _HASHES[mechanism]
        client_key = hmac.new(salted_password, b"Client Key", digest).digest()
        return cls(
            salt=salt,
            stored_key=hashlib.new(digest, client_key).digest(),
            server_key=hmac.new(salted_password, b"Server Key", digest).digest(),
            iterations=iterations,
        )

    @classmethod
    def from_password(cls, mechanism: str, password: str, iterations: int = MIN_ITERATIONS) -> ScramCredential:
        salt = os.urandom(32)
        salted = hashlib.pbkdf2_hmac(_HASHES[mechanism], password.encode(), salt, iterations)
        return cls.from_salted_password(mechanism, salt, salted, iterations)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


Credentials = Mapping[tuple[str, str], ScramCredential]  # (user, mechanism) -> credential
# Given the credentials as stored, returns the new ones (None: no change) and an answer.
CredentialChange = Callable[[Credentials], tuple[dict[tuple[str, str], ScramCredential] | None, T]]


class ScramCredentialStore(Protocol):
    """The SCRAM credentials, with two backends: `FileScramCredentialStore` (the file
    engine's single broker) and `SharedScramCredentialStore` (a document of the PostgreSQL
    database every broker of a cluster applies, storage/postgres/cluster_metadata.py)."""

    def get(self, user: str, mechanism: str) -> ScramCredential | None: ...

    def users(self) -> dict[str, dict[str, int]]:
        """user -> mechanism -> iterations."""
        ...

    async def update(self, change: CredentialChange[T]) -> T:
        """Apply `change` to the credentials as stored and put the result in force: all of
        it or nothing."""
        ...


def _users(credentials: Credentials) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (user, mechanism), credential in sorted(credentials.items()):
        out.setdefault(user, {})[mechanism] = credential.iterations
    return out


def _to_doc(credentials: Credentials) -> list[dict[str, Any]]:
    return [
        {
            "user": user,
            "mechanism": mechanism,
            "salt": _b64(c.salt),
            "stored_key": _b64(c.stored_key),
            "server_key": _b64(c.server_key),
            "iterations": c.iterations,
        }
        for (user, mechanism), c in sorted(credentials.items())
    ]


def _from_doc(doc: Any) -> dict[tuple[str, str], ScramCredential]:
    return {
        (entry["user"], entry["mechanism"]): ScramCredential(
            salt=base64.b64decode(entry["salt"]),
            stored_key=base64.b64decode(entry["stored_key"]),
            server_key=base64.b64decode(entry["server_key"]),
            iterations=int(entry["iterations"]),
        )
        for entry in doc or []
    }


def read_file(data_dir: Path) -> list[dict[str, Any]] | None:
    """The credentials of the data directory's file, if it has one."""
    path = data_dir / FILE_NAME
    return json.loads(path.read_text()) if path.exists() else None


class FileScramCredentialStore:
    def __init__(self, path: Path, credentials: dict[tuple[str, str], ScramCredential] | None = None) -> None:
        self.path = path
        self._credentials = credentials or {}

    @classmethod
    def load(cls, data_dir: Path) -> FileScramCredentialStore:
        return cls(data_dir / FILE_NAME, _from_doc(read_file(data_dir)))

    def get(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._credentials.get((user, mechanism))

    def users(self) -> dict[str, dict[str, int]]:
        return _users(self._credentials)

    async def update(self, change: CredentialChange[T]) -> T:
        new, answer = change(self._credentials)
        if new is not None:
            self._save(new)
            self._credentials = new
        return answer

    def _save(self, credentials: Credentials) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Salted and hashed, and still readable by the broker's user alone.
        write_atomically(os.fspath(self.path), json.dumps(_to_doc(credentials)).encode(), mode=0o600)


class SharedScramCredentialStore:
    """The cluster's SCRAM credentials: a user created on one broker logs in on every one."""

    def __init__(self, documents: MetadataDocuments) -> None:
        self._documents = documents
        self._credentials: dict[tuple[str, str], ScramCredential] = {}
        documents.watch(DOCUMENT, self._loaded)

    def _loaded(self, doc: Any) -> None:
        self._credentials = _from_doc(doc)

    def get(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._credentials.get((user, mechanism))

    def users(self) -> dict[str, dict[str, int]]:
        return _users(self._credentials)

    async def seed(self, data_dir: Path) -> bool:
        """The data directory's credentials become the cluster's if it has none yet; True
        if they did."""
        local = read_file(data_dir)
        if local is None:
            return False
        return await self._documents.update(DOCUMENT, lambda doc: (local, True) if doc is None else (doc, False))

    async def update(self, change: CredentialChange[T]) -> T:
        def apply(doc: Any) -> tuple[Any, T]:
            new, answer = change(_from_doc(doc))
            return (doc if new is None else _to_doc(new)), answer

        return await self._documents.update(DOCUMENT, apply)
