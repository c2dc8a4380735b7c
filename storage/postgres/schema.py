"""The engine's schema: numbered migrations (migrations/NNNN_name.sql, shipped with the
package) applied at start in one transaction, the versions applied kept in `schema_version`. A database migrated by a newer broker is refused, never downgraded."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

from ..errors import KafkaStorageError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Held while migrating, so two brokers starting at once migrate one after the other.
_MIGRATION_LOCK = 0x6F64726164656B  # "odradek"


class SchemaVersionError(KafkaStorageError):
    """The database's schema is newer than this broker knows."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration of the package, in order; their numbers run 1, 2, 3, ... with no gap."""
    found: list[Migration] = []
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise RuntimeError(f"migration {migration.name}: expected number {expected:04d}")
    return found


def latest_version() -> int:
    return len(migrations())


async def migrate(conn: asyncpg.Connection) -> int:
    """Bring the schema to the latest version; returns the version found before."""
    known = migrations()
    latest = len(known)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        found = await conn.fetchval("SELECT max(version) FROM schema_version")
        current = 0 if found is None else int(found)
        if current > latest:
            raise SchemaVersionError(
                f"the database's schema is at version {current}, newer than this broker's {latest}: "
                "run a broker of the version that migrated it"
            )
        for migration in known[current:]:
            await conn.execute(migration.sql)
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", migration.version)
    return current
