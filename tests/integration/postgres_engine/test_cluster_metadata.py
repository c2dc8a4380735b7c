"""The cluster's metadata documents (storage/postgres/cluster_metadata.py), two readers on
one database as two brokers: a change is one transaction on the document as stored
(concurrent changes from two brokers all land; a refused one leaves nothing), the writer's
watchers see it on commit, the other's at its next refresh, announced by NOTIFY 'metadata';
a broker's data-directory ACLs seed the cluster's only while it has none; and the finalized
features, a document whose changes are checked against its committed levels."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from broker.features import FEATURES_FILE, FeaturesFileError, FeatureUpdate, UpgradeType
from broker.security.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from broker.security.acl.store import FILE_NAME, SharedAclStore
from broker.shared_features import SharedFeatures
from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError
from storage.postgres.cluster.notify import CLUSTER_CHANNEL
from storage.postgres.cluster_metadata import MetadataDocuments
from storage.postgres.schema import migrate
from tests.names import unique


async def documents(url: str, name: str) -> tuple[MetadataDocuments, list[Any]]:
    seen: list[Any] = []
    docs = MetadataDocuments(lambda: asyncpg.connect(url, server_settings={"application_name": name}))
    docs.watch("things", seen.append)
    return docs, seen


def append(item: int) -> Any:
    return lambda doc: ([*(doc or []), item], len(doc or []))


async def test_changes_are_transactions_on_the_stored_document(postgres_url: str) -> None:
    sql = await asyncpg.connect(postgres_url)
    announced = asyncio.Event()
    await migrate(sql)
    await sql.add_listener(CLUSTER_CHANNEL, lambda conn, pid, channel, payload: payload == "metadata" and announced.set())
    one_name = unique("metadata-one")
    (one, seen_one), (two, seen_two) = await documents(postgres_url, one_name), await documents(postgres_url, "two")
    try:
        assert await one.refresh() == [] and seen_one == []
        assert await one.update("things", append(1)) == 0
        assert seen_one == [[1]]  # the writer: on commit
        assert seen_two == []
        assert await two.refresh() == ["things"] and seen_two == [[1]]
        assert await two.refresh() == []  # nothing newer

        # Both brokers at once: every change applies to the other's result, none is lost.
        await asyncio.gather(*(docs.update("things", append(i)) for i in range(2, 22) for docs in (one, two)))
        stored = json.loads(await sql.fetchval("SELECT doc FROM cluster_metadata WHERE name = 'things'"))
        assert sorted(stored) == sorted([1, *range(2, 22), *range(2, 22)])
        await one.refresh()
        await two.refresh()
        assert seen_one[-1] == seen_two[-1] == stored

        # A change that raises leaves the document and its version as they were.
        def refuse(doc: Any) -> tuple[Any, None]:
            raise ValueError("refused")

        version = await sql.fetchval("SELECT version FROM cluster_metadata WHERE name = 'things'")
        with pytest.raises(ValueError, match="refused"):
            await one.update("things", refuse)
        assert await sql.fetchval("SELECT version FROM cluster_metadata WHERE name = 'things'") == version
        # Returning the document given writes nothing.
        assert await one.update("things", lambda doc: (doc, "same")) == "same"
        assert await sql.fetchval("SELECT version FROM cluster_metadata WHERE name = 'things'") == version
        assert await two.refresh() == []

        await asyncio.wait_for(announced.wait(), 10)
        # The writer's session ended while it waits in its transaction (on a row lock held
        # here): KafkaStorageError, nothing changed; the next change reconnects.
        holder = await asyncpg.connect(postgres_url)
        try:
            async with holder.transaction():
                await holder.execute("SELECT 1 FROM cluster_metadata WHERE name = 'things' FOR UPDATE")
                pending = asyncio.ensure_future(one.update("things", append(99)))
                while not await sql.fetchval("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 "
                                             "AND wait_event_type = 'Lock'", one_name):
                    await asyncio.sleep(0.01)  # until it waits for the lock
                await sql.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE application_name = $1", one_name)
                with pytest.raises(KafkaStorageError, match="cannot store the cluster's things"):
                    await pending
        finally:
            await holder.close()
        assert await sql.fetchval("SELECT version FROM cluster_metadata WHERE name = 'things'") == version
        assert await one.update("things", append(100)) == len(stored)
        assert seen_one[-1] == [*stored, 100]
    finally:
        await one.close()
        await two.close()
        await sql.close()


async def test_data_directory_acls_seed_the_cluster_only_while_it_has_none(postgres_url: str,
                                                                           tmp_path: Path) -> None:
    sql = await asyncpg.connect(postgres_url)
    await migrate(sql)
    await sql.close()
    acl = AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                     Permission.ALLOW)
    other = AclBinding(ResourceType.TOPIC, "u", PatternType.LITERAL, "User:bob", "*", AclOperation.READ,
                       Permission.ALLOW)
    first, second = tmp_path / "first", tmp_path / "second"
    for data_dir, binding in ((first, acl), (second, other)):
        data_dir.mkdir()
        (data_dir / FILE_NAME).write_text(json.dumps([binding.to_json()]))
    one_docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
    two_docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
    try:
        one, two = SharedAclStore(one_docs), SharedAclStore(two_docs)
        assert await one.seed(first) is True
        assert await two.seed(second) is False
        await two_docs.refresh()
        assert one.acls == two.acls == frozenset({acl})
        assert await one.seed(tmp_path / "empty") is False
    finally:
        await one_docs.close()
        await two_docs.close()


SETTINGS = {"metadata.version": 25, "transaction.version": 1, "share.version": 1, "group.version": 1}


async def test_finalized_features_are_one_document_changed_against_its_committed_levels(
        postgres_url: str, tmp_path: Path) -> None:
    """broker/shared_features.py: the first broker seeds the levels, a second's settings are
    not taken; two updates at once are each checked against the other's result; the epoch
    moves with every change and is the same on both."""
    sql = await asyncpg.connect(postgres_url)
    await migrate(sql)
    await sql.close()
    one_docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
    two_docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
    try:
        one, two = SharedFeatures(one_docs), SharedFeatures(two_docs)
        assert await one.seed(tmp_path, SETTINGS) == "settings"
        assert await two.seed(tmp_path, {**SETTINGS, "transaction.version": 2}) is None
        await two_docs.refresh()
        assert (one.finalized, one.epoch) == (two.finalized, two.epoch) == (SETTINGS, 0)

        # From transaction.version 1: an upgrade to 2 and a safe downgrade to 0 at once; both
        # pass whichever is first, and the level is the last one's.
        up, down = FeatureUpdate("transaction.version", 2, UpgradeType.UPGRADE), FeatureUpdate(
            "transaction.version", 0, UpgradeType.SAFE_DOWNGRADE)
        answers = await asyncio.gather(one.change([up], 1, False), two.change([down], 1, False))
        assert answers == [(ErrorCode.NONE, None), (ErrorCode.NONE, None)]
        await one_docs.refresh()
        await two_docs.refresh()
        assert one.epoch == two.epoch == 2
        assert one.finalized == two.finalized
        assert one.level("transaction.version") in (0, 2)

        # Checked against the committed levels, not this broker's stale copy: at 2, a safe
        # "downgrade" to 1 passes on broker two although it has not been told of the change.
        committed = await one.change([FeatureUpdate("transaction.version", 2, UpgradeType.UPGRADE)], 1, False)
        assert committed == (ErrorCode.NONE, None) and one.epoch == 3
        assert two.epoch == 2
        down_to_1 = FeatureUpdate("transaction.version", 1, UpgradeType.SAFE_DOWNGRADE)
        assert await two.change([down_to_1], 1, True) == (ErrorCode.NONE, None)  # validate only
        assert two.epoch == 2
        assert await two.change([FeatureUpdate("transaction.version", 1, UpgradeType.UPGRADE)], 1, False) == (
            ErrorCode.INVALID_UPDATE_VERSION,
            "Invalid update version 1 for feature transaction.version. Can't downgrade the version of this "
            "feature without setting the upgrade type to either safe or unsafe downgrade.")
        assert await two.change([down_to_1], 1, False) == (ErrorCode.NONE, None)
        assert (two.level("transaction.version"), two.epoch) == (1, 4)
        await one_docs.refresh()
        assert (one.finalized, one.epoch) == (two.finalized, two.epoch)

        # A document written before group.version existed: the first broker that supports it
        # gives it its setting, once, and the epoch moves.
        await sql_execute(postgres_url, "UPDATE cluster_metadata SET doc = jsonb_set(doc #- '{finalized,group.version}',"
                          " '{known}', (doc->'known') - 'group.version'::text), version = version + 1 "
                          "WHERE name = 'features'")
        assert await one.seed(tmp_path, SETTINGS) == "completed"
        assert (one.level("group.version"), one.epoch) == (1, 5)
        assert await two.seed(tmp_path, {**SETTINGS, "group.version": 0}) is None
        await two_docs.refresh()
        assert (two.finalized, two.epoch) == (one.finalized, 5)
    finally:
        await one_docs.close()
        await two_docs.close()


async def sql_execute(url: str, statement: str) -> None:
    sql = await asyncpg.connect(url)
    try:
        await sql.execute(statement)
    finally:
        await sql.close()


async def test_a_data_directory_features_file_seeds_the_cluster_levels_and_epoch(
        postgres_url: str, tmp_path: Path) -> None:
    """A broker moved from the file engine keeps its levels and its epoch (which only grows);
    once the cluster has levels, a file is not read."""
    sql = await asyncpg.connect(postgres_url)
    await migrate(sql)
    await sql.close()
    moved, damaged = tmp_path / "moved", tmp_path / "damaged"
    moved.mkdir()
    damaged.mkdir()
    (moved / FEATURES_FILE).write_text(json.dumps({"epoch": 7, "finalized": {"transaction.version": 2},
                                                   "known": ["group.version", "metadata.version"]}))
    (damaged / FEATURES_FILE).write_text("{")
    docs = MetadataDocuments(lambda: asyncpg.connect(postgres_url))
    try:
        with pytest.raises(FeaturesFileError):
            await SharedFeatures(docs).seed(damaged, SETTINGS)
        features = SharedFeatures(docs)
        assert await features.seed(moved, SETTINGS) == "file"
        # share.version was off in the file, group.version and metadata.version as it had them.
        assert (features.finalized, features.epoch) == ({"transaction.version": 2}, 7)
        assert await SharedFeatures(docs).seed(damaged, SETTINGS) is None
    finally:
        await docs.close()
