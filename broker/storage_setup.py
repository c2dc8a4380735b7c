"""The storage engine `storage.engine` names: the local file log or PostgreSQL."""

from __future__ import annotations

from collections.abc import Mapping

from broker.config import Config, ConfigError
from broker.logging import get_logger
from coordinator.producer_ids import ProducerIdManager
from storage.clock import Clock
from storage.errors import KafkaStorageError
from storage.file_storage import FileStorage
from storage.log_manager import LogManager

log = get_logger("odradek.storage")


class StorageUnavailableError(Exception):
    """The engine cannot be opened (PostgreSQL unreachable, a schema too new): the broker
    exits with status 1 and this one line."""


def is_postgres_url(value: str) -> bool:
    return value.startswith(("postgresql://", "postgres://"))


async def open_storage(
    config: Config,
    clock: Clock,
    *,
    broker_defaults: Mapping[str, str],
    producer_id_expiration_ms: int,
    internal_segment_bytes: Mapping[str, int],
) -> LogManager:
    engine = config.get_str("storage.engine").strip()
    if config.get("cluster.enable") and not is_postgres_url(engine):
        raise ConfigError("cluster.enable: a cluster needs a postgresql:// URL as storage.engine")
    if engine == "file":
        return await FileStorage.open(
            config.data_dir, clock=clock, broker_defaults=broker_defaults,
            producer_id_expiration_ms=producer_id_expiration_ms, internal_segment_bytes=internal_segment_bytes,
        )
    if not is_postgres_url(engine):
        raise ConfigError("storage.engine: expected `file` or a postgresql://user@host:port/db URL")
    from storage.postgres.cluster.membership import application_name, new_incarnation
    from storage.postgres.engine import PostgresStorage, address_of, read_password_file

    password_file = config.get_str("storage.engine.password.file")
    try:
        password = read_password_file(password_file) if password_file else None
    except OSError as exc:
        raise ConfigError(f"storage.engine.password.file: {exc.strerror}: {password_file}") from None
    try:
        storage = await PostgresStorage.open(
            engine, password=password, clock=clock, broker_defaults=broker_defaults,
            producer_id_expiration_ms=producer_id_expiration_ms, internal_segment_bytes=internal_segment_bytes,
            application_name=(
                application_name(config.node_id, new_incarnation()) if config.get("cluster.enable") else None
            ),
            tail_cache_bytes=config.get_int("storage.postgres.tail.cache.bytes"),
        )
    except KafkaStorageError as exc:
        raise StorageUnavailableError(str(exc)) from None
    # The address only: the URL may hold the password.
    log.info("storage on PostgreSQL", address=address_of(engine), schema_version_found=storage.schema_version_found)
    return storage


def producer_id_manager(config: Config, storage: LogManager) -> ProducerIdManager:
    """Producer ids from the block file of the data directory, or, on PostgreSQL (which
    several brokers may share), from a sequence of the database, starting above the block
    file this broker used before, if any."""
    if is_postgres_url(config.get_str("storage.engine").strip()):
        from storage.postgres.engine import PostgresStorage

        assert isinstance(storage, PostgresStorage)
        floor = ProducerIdManager(config.data_dir).reserved_end
        return ProducerIdManager(None, blocks=storage.producer_id_blocks(floor))
    return ProducerIdManager(config.data_dir)
