"""Where the cluster's metadata is kept: the ACLs, the SCRAM credentials, the dynamic
configs (the cluster-wide defaults, each broker's own, the groups') and the finalized
features. On the file engine, files of the data directory; on PostgreSQL, documents of the
database that every broker over it applies (storage/postgres/cluster_metadata.py), read
before the broker serves anyone, so that no request meets a broker without its ACLs,
credentials, configs or feature levels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from broker.config import Config
from broker.dynamic_config import DYNAMIC_CONFIG_FILE, DynamicConfigs, SharedDynamicConfigs
from broker.features import (
    FEATURES_FILE,
    BrokerSupport,
    Features,
    FileFeatures,
    initial_levels,
    unsupported_finalized,
)
from broker.logging import get_logger
from broker.security.acl.store import AclStore, FileAclStore, SharedAclStore
from broker.security.scram_credentials import (
    FileScramCredentialStore,
    ScramCredentialStore,
    SharedScramCredentialStore,
)
from broker.storage_setup import StorageUnavailableError, is_postgres_url
from storage.log_manager import LogManager

if TYPE_CHECKING:
    from storage.postgres.cluster.node import ClusterNode
    from storage.postgres.cluster_metadata import MetadataDocuments

log = get_logger("odradek.metadata")


@dataclass
class MetadataStores:
    acls: AclStore
    scram: ScramCredentialStore
    dynamic: DynamicConfigs
    features: Features
    # PostgreSQL: the documents the stores read (None on the file engine).
    documents: MetadataDocuments | None = None

    def follow(self, node: ClusterNode) -> None:
        """Apply the other brokers' changes when the cluster node is told of them."""
        if self.documents is not None:
            node.metadata_refresh = self.documents.refresh
        from broker.shared_features import SharedFeatures

        if isinstance(self.features, SharedFeatures):

            async def brokers() -> BrokerSupport:
                return {b.node_id: b.supported_features for b in await node.live_brokers_now()}

            self.features.cluster_brokers = brokers

    async def close(self) -> None:
        if self.documents is not None:
            await self.documents.close()


async def open_metadata_stores(
    config: Config, storage: LogManager, file_dynamic: DynamicConfigs | None
) -> MetadataStores:
    """The stores of the engine; `file_dynamic`: the file engine's dynamic configs, already
    read (the logs opened with their topic defaults). Exits the broker (StorageUnavailableError,
    status 1), the engine closed, when it does not support a finalized feature level, before
    it registers or serves (broker/features.py `unsupported_finalized`)."""
    stores = await _open(config, storage, file_dynamic)
    refusal = unsupported_finalized(stores.features.finalized)
    if refusal is not None:
        await stores.close()
        if stores.documents is None:
            await storage.close()
        else:
            from storage.postgres.engine import PostgresStorage

            # As for a taken node id (broker/cluster_setup.py): the shutdown of a database
            # other brokers may be using is not this broker's to mark clean.
            assert isinstance(storage, PostgresStorage)
            await storage.abort()
        raise StorageUnavailableError(refusal)
    return stores


async def _open(config: Config, storage: LogManager, file_dynamic: DynamicConfigs | None) -> MetadataStores:
    if not is_postgres_url(config.get_str("storage.engine").strip()):
        assert file_dynamic is not None
        return MetadataStores(
            acls=FileAclStore.load(config.data_dir), scram=FileScramCredentialStore.load(config.data_dir),
            dynamic=file_dynamic, features=FileFeatures.load(config.data_dir, initial_levels(config)),
        )
    from broker.shared_features import SharedFeatures
    from storage.postgres.cluster_metadata import MetadataDocuments
    from storage.postgres.engine import PostgresStorage

    assert isinstance(storage, PostgresStorage)

    documents = MetadataDocuments(storage.connect)
    acls = SharedAclStore(documents)
    if await acls.seed(config.data_dir):
        log.info("the cluster's ACLs taken from the data directory", file="acls.json")
    scram = SharedScramCredentialStore(documents)
    if await scram.seed(config.data_dir):
        log.info("the cluster's SCRAM credentials taken from the data directory", file="scram-credentials.json")
    dynamic = SharedDynamicConfigs(documents, config.node_id)
    if await dynamic.seed(config.data_dir):
        log.info("the cluster's dynamic configs completed from the data directory", file=DYNAMIC_CONFIG_FILE)
    features = SharedFeatures(documents)
    seeded = await features.seed(config.data_dir, initial_levels(config))
    if seeded == "file":
        log.info("the cluster's finalized features taken from the data directory", file=FEATURES_FILE)
    elif seeded is not None:
        log.info("the cluster's finalized features written", source=seeded)
    await documents.refresh()
    return MetadataStores(acls=acls, scram=scram, dynamic=dynamic, features=features, documents=documents)
