"""SCRAM credentials, kept salted and hashed (never the password) in `scram-credentials.json`
in the data directory, rewritten atomically on every change.

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
from dataclasses import dataclass
from pathlib import Path

from storage.files import write_atomically

FILE_NAME = "scram-credentials.json"

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


class ScramCredentialStore:
    def __init__(self, path: Path, credentials: dict[tuple[str, str], ScramCredential] | None = None) -> None:
        self.path = path
        self._credentials = credentials or {}

    @classmethod
    def load(cls, data_dir: Path) -> ScramCredentialStore:
        path = data_dir / FILE_NAME
        credentials: dict[tuple[str, str], ScramCredential] = {}
        if path.exists():
            for entry in json.loads(path.read_text()):
                credentials[(entry["user"], entry["mechanism"])] = ScramCredential(
                    salt=base64.b64decode(entry["salt"]),
                    stored_key=base64.b64decode(entry["stored_key"]),
                    server_key=base64.b64decode(entry["server_key"]),
                    iterations=int(entry["iterations"]),
                )
        return cls(path, credentials)

    def get(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._credentials.get((user, mechanism))

    def users(self) -> dict[str, dict[str, int]]:
        """user -> mechanism -> iterations."""
        out: dict[str, dict[str, int]] = {}
        for (user, mechanism), credential in sorted(self._credentials.items()):
            out.setdefault(user, {})[mechanism] = credential.iterations
        return out

    def apply(self, upserts: dict[tuple[str, str], ScramCredential], deletions: set[tuple[str, str]]) -> None:
        """Changes the credentials and saves them: all of the changes or none."""
        updated = {k: v for k, v in self._credentials.items() if k not in deletions}
        updated.update(upserts)
        self._save(updated)
        self._credentials = updated

    def _save(self, credentials: dict[tuple[str, str], ScramCredential]) -> None:
        doc = [
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Salted and hashed, and still readable by the broker's user alone.
        write_atomically(os.fspath(self.path), json.dumps(doc).encode(), mode=0o600)
