"""One module per API; `build_router` wires each handler to the versions it serves."""

from __future__ import annotations

from broker.handlers import (
    add_offsets_to_txn,
    add_partitions_to_txn,
    alter_client_quotas,
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    alter_user_scram_credentials,
    api_versions,
    consumer_group_describe,
    consumer_group_heartbeat,
    create_acls,
    create_partitions,
    create_topics,
    delegation_tokens,
    delete_acls,
    delete_groups,
    delete_records,
    delete_topics,
    describe_acls,
    describe_client_quotas,
    describe_cluster,
    describe_configs,
    describe_groups,
    describe_log_dirs,
    describe_producers,
    describe_quorum,
    describe_topic_partitions,
    describe_transactions,
    describe_user_scram_credentials,
    elect_leaders,
    end_txn,
    fetch,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    init_producer_id,
    join_group,
    leave_group,
    list_config_resources,
    list_groups,
    list_offsets,
    list_partition_reassignments,
    list_transactions,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    offset_for_leader_epoch,
    produce,
    sasl_authenticate,
    sasl_handshake,
    share_acknowledge,
    share_fetch,
    share_group_describe,
    share_group_heartbeat,
    share_group_offsets,
    share_group_state,
    sync_group,
    txn_offset_commit,
    unregister_broker,
    update_features,
    write_txn_markers,
)
from broker.router import Router


def build_router() -> Router:
    router = Router()
    router.add(api_versions.API_KEY, api_versions.handle)
    router.add(sasl_handshake.API_KEY, sasl_handshake.handle)
    router.add(sasl_authenticate.API_KEY, sasl_authenticate.handle)
    router.add(describe_user_scram_credentials.API_KEY, describe_user_scram_credentials.handle)
    router.add(alter_user_scram_credentials.API_KEY, alter_user_scram_credentials.handle)
    router.add(describe_acls.API_KEY, describe_acls.handle)
    router.add(describe_client_quotas.API_KEY, describe_client_quotas.handle)
    router.add(alter_client_quotas.API_KEY, alter_client_quotas.handle)
    router.add(create_acls.API_KEY, create_acls.handle)
    router.add(delete_acls.API_KEY, delete_acls.handle)
    router.add(delegation_tokens.CREATE_API_KEY, delegation_tokens.create)
    router.add(delegation_tokens.RENEW_API_KEY, delegation_tokens.renew)
    router.add(delegation_tokens.EXPIRE_API_KEY, delegation_tokens.expire)
    router.add(delegation_tokens.DESCRIBE_API_KEY, delegation_tokens.describe)
    router.add(metadata.API_KEY, metadata.handle)
    router.add(
        produce.API_KEY,
        produce.handle,
        min_version=produce.MIN_VERSION,
        advertised_min_version=produce.ADVERTISED_MIN_VERSION,
    )
    router.add(fetch.API_KEY, fetch.handle, min_version=fetch.MIN_VERSION)
    router.add(list_offsets.API_KEY, list_offsets.handle)
    router.add(offset_for_leader_epoch.API_KEY, offset_for_leader_epoch.handle)
    router.add(init_producer_id.API_KEY, init_producer_id.handle)
    router.add(add_partitions_to_txn.API_KEY, add_partitions_to_txn.handle)
    router.add(add_offsets_to_txn.API_KEY, add_offsets_to_txn.handle)
    router.add(end_txn.API_KEY, end_txn.handle)
    router.add(describe_transactions.API_KEY, describe_transactions.handle)
    router.add(describe_producers.API_KEY, describe_producers.handle)
    router.add(list_transactions.API_KEY, list_transactions.handle)
    router.add(write_txn_markers.API_KEY, write_txn_markers.handle)
    router.add(txn_offset_commit.API_KEY, txn_offset_commit.handle)
    # consumer groups
    router.add(find_coordinator.API_KEY, find_coordinator.handle)
    router.add(join_group.API_KEY, join_group.handle)
    router.add(sync_group.API_KEY, sync_group.handle)
    router.add(heartbeat.API_KEY, heartbeat.handle)
    router.add(leave_group.API_KEY, leave_group.handle)
    router.add(offset_commit.API_KEY, offset_commit.handle)
    router.add(offset_fetch.API_KEY, offset_fetch.handle)
    router.add(offset_delete.API_KEY, offset_delete.handle)
    router.add(describe_groups.API_KEY, describe_groups.handle)
    router.add(list_groups.API_KEY, list_groups.handle)
    router.add(delete_groups.API_KEY, delete_groups.handle)
    router.add(consumer_group_heartbeat.API_KEY, consumer_group_heartbeat.handle)
    router.add(consumer_group_describe.API_KEY, consumer_group_describe.handle)
    # share groups (KIP-932)
    router.add(share_group_heartbeat.API_KEY, share_group_heartbeat.handle)
    router.add(share_group_describe.API_KEY, share_group_describe.handle)
    router.add(share_fetch.API_KEY, share_fetch.handle)
    router.add(share_acknowledge.API_KEY, share_acknowledge.handle)
    router.add(share_group_offsets.DESCRIBE_API_KEY, share_group_offsets.describe)
    router.add(share_group_offsets.ALTER_API_KEY, share_group_offsets.alter)
    router.add(share_group_offsets.DELETE_API_KEY, share_group_offsets.delete)
    # The share coordinator's persister requests, between brokers.
    router.add(share_group_state.INITIALIZE_API_KEY, share_group_state.initialize)
    router.add(share_group_state.READ_API_KEY, share_group_state.read)
    router.add(share_group_state.WRITE_API_KEY, share_group_state.write)
    router.add(share_group_state.DELETE_API_KEY, share_group_state.delete)
    router.add(share_group_state.SUMMARY_API_KEY, share_group_state.read_summary)
    # Topic and config administration.
    router.add(create_topics.API_KEY, create_topics.handle)
    router.add(delete_topics.API_KEY, delete_topics.handle)
    router.add(create_partitions.API_KEY, create_partitions.handle)
    router.add(delete_records.API_KEY, delete_records.handle)
    router.add(describe_configs.API_KEY, describe_configs.handle)
    router.add(alter_configs.API_KEY, alter_configs.handle)
    router.add(incremental_alter_configs.API_KEY, incremental_alter_configs.handle)
    router.add(describe_cluster.API_KEY, describe_cluster.handle)
    router.add(list_config_resources.API_KEY, list_config_resources.handle)
    router.add(describe_quorum.API_KEY, describe_quorum.handle)
    router.add(unregister_broker.API_KEY, unregister_broker.handle)
    router.add(update_features.API_KEY, update_features.handle)
    router.add(alter_partition_reassignments.API_KEY, alter_partition_reassignments.handle)
    router.add(list_partition_reassignments.API_KEY, list_partition_reassignments.handle)
    router.add(describe_topic_partitions.API_KEY, describe_topic_partitions.handle)
    router.add(describe_log_dirs.API_KEY, describe_log_dirs.handle)
    router.add(alter_replica_log_dirs.API_KEY, alter_replica_log_dirs.handle)
    router.add(elect_leaders.API_KEY, elect_leaders.handle)
    return router
