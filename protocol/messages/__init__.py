"""Every generated message, and the API table built from them.

Generated from `schemas/*.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.add_offsets_to_txn_response import AddOffsetsToTxnResponse
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest
from protocol.messages.add_partitions_to_txn_response import AddPartitionsToTxnResponse
from protocol.messages.alter_client_quotas_request import AlterClientQuotasRequest
from protocol.messages.alter_client_quotas_response import AlterClientQuotasResponse
from protocol.messages.alter_configs_request import AlterConfigsRequest
from protocol.messages.alter_configs_response import AlterConfigsResponse
from protocol.messages.alter_partition_reassignments_request import AlterPartitionReassignmentsRequest
from protocol.messages.alter_partition_reassignments_response import AlterPartitionReassignmentsResponse
from protocol.messages.alter_replica_log_dirs_request import AlterReplicaLogDirsRequest
from protocol.messages.alter_replica_log_dirs_response import AlterReplicaLogDirsResponse
from protocol.messages.alter_share_group_offsets_request import AlterShareGroupOffsetsRequest
from protocol.messages.alter_share_group_offsets_response import AlterShareGroupOffsetsResponse
from protocol.messages.alter_user_scram_credentials_request import AlterUserScramCredentialsRequest
from protocol.messages.alter_user_scram_credentials_response import AlterUserScramCredentialsResponse
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_describe_response import ConsumerGroupDescribeResponse
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.consumer_group_heartbeat_response import ConsumerGroupHeartbeatResponse
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.messages.control_record_type_schema import ControlRecordTypeSchema
from protocol.messages.create_acls_request import CreateAclsRequest
from protocol.messages.create_acls_response import CreateAclsResponse
from protocol.messages.create_delegation_token_request import CreateDelegationTokenRequest
from protocol.messages.create_delegation_token_response import CreateDelegationTokenResponse
from protocol.messages.create_partitions_request import CreatePartitionsRequest
from protocol.messages.create_partitions_response import CreatePartitionsResponse
from protocol.messages.create_topics_request import CreateTopicsRequest
from protocol.messages.create_topics_response import CreateTopicsResponse
from protocol.messages.delete_acls_request import DeleteAclsRequest
from protocol.messages.delete_acls_response import DeleteAclsResponse
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_groups_response import DeleteGroupsResponse
from protocol.messages.delete_records_request import DeleteRecordsRequest
from protocol.messages.delete_records_response import DeleteRecordsResponse
from protocol.messages.delete_share_group_offsets_request import DeleteShareGroupOffsetsRequest
from protocol.messages.delete_share_group_offsets_response import DeleteShareGroupOffsetsResponse
from protocol.messages.delete_share_group_state_request import DeleteShareGroupStateRequest
from protocol.messages.delete_share_group_state_response import DeleteShareGroupStateResponse
from protocol.messages.delete_topics_request import DeleteTopicsRequest
from protocol.messages.delete_topics_response import DeleteTopicsResponse
from protocol.messages.describe_acls_request import DescribeAclsRequest
from protocol.messages.describe_acls_response import DescribeAclsResponse
from protocol.messages.describe_client_quotas_request import DescribeClientQuotasRequest
from protocol.messages.describe_client_quotas_response import DescribeClientQuotasResponse
from protocol.messages.describe_cluster_request import DescribeClusterRequest
from protocol.messages.describe_cluster_response import DescribeClusterResponse
from protocol.messages.describe_configs_request import DescribeConfigsRequest
from protocol.messages.describe_configs_response import DescribeConfigsResponse
from protocol.messages.describe_delegation_token_request import DescribeDelegationTokenRequest
from protocol.messages.describe_delegation_token_response import DescribeDelegationTokenResponse
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.describe_groups_response import DescribeGroupsResponse
from protocol.messages.describe_log_dirs_request import DescribeLogDirsRequest
from protocol.messages.describe_log_dirs_response import DescribeLogDirsResponse
from protocol.messages.describe_producers_request import DescribeProducersRequest
from protocol.messages.describe_producers_response import DescribeProducersResponse
from protocol.messages.describe_quorum_request import DescribeQuorumRequest
from protocol.messages.describe_quorum_response import DescribeQuorumResponse
from protocol.messages.describe_share_group_offsets_request import DescribeShareGroupOffsetsRequest
from protocol.messages.describe_share_group_offsets_response import DescribeShareGroupOffsetsResponse
from protocol.messages.describe_topic_partitions_request import DescribeTopicPartitionsRequest
from protocol.messages.describe_topic_partitions_response import DescribeTopicPartitionsResponse
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.describe_transactions_response import DescribeTransactionsResponse
from protocol.messages.describe_user_scram_credentials_request import DescribeUserScramCredentialsRequest
from protocol.messages.describe_user_scram_credentials_response import DescribeUserScramCredentialsResponse
from protocol.messages.elect_leaders_request import ElectLeadersRequest
from protocol.messages.elect_leaders_response import ElectLeadersResponse
from protocol.messages.end_txn_marker import EndTxnMarker
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.end_txn_response import EndTxnResponse
from protocol.messages.expire_delegation_token_request import ExpireDelegationTokenRequest
from protocol.messages.expire_delegation_token_response import ExpireDelegationTokenResponse
from protocol.messages.fetch_request import FetchRequest
from protocol.messages.fetch_response import FetchResponse
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.find_coordinator_response import FindCoordinatorResponse
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.heartbeat_response import HeartbeatResponse
from protocol.messages.incremental_alter_configs_request import IncrementalAlterConfigsRequest
from protocol.messages.incremental_alter_configs_response import IncrementalAlterConfigsResponse
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.init_producer_id_response import InitProducerIdResponse
from protocol.messages.initialize_share_group_state_request import InitializeShareGroupStateRequest
from protocol.messages.initialize_share_group_state_response import InitializeShareGroupStateResponse
from protocol.messages.join_group_request import JoinGroupRequest
from protocol.messages.join_group_response import JoinGroupResponse
from protocol.messages.leave_group_request import LeaveGroupRequest
from protocol.messages.leave_group_response import LeaveGroupResponse
from protocol.messages.list_config_resources_request import ListConfigResourcesRequest
from protocol.messages.list_config_resources_response import ListConfigResourcesResponse
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.list_groups_response import ListGroupsResponse
from protocol.messages.list_offsets_request import ListOffsetsRequest
from protocol.messages.list_offsets_response import ListOffsetsResponse
from protocol.messages.list_partition_reassignments_request import ListPartitionReassignmentsRequest
from protocol.messages.list_partition_reassignments_response import ListPartitionReassignmentsResponse
from protocol.messages.list_transactions_request import ListTransactionsRequest
from protocol.messages.list_transactions_response import ListTransactionsResponse
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import MetadataResponse
from protocol.messages.offset_commit_request import OffsetCommitRequest
from protocol.messages.offset_commit_response import OffsetCommitResponse
from protocol.messages.offset_delete_request import OffsetDeleteRequest
from protocol.messages.offset_delete_response import OffsetDeleteResponse
from protocol.messages.offset_fetch_request import OffsetFetchRequest
from protocol.messages.offset_fetch_response import OffsetFetchResponse
from protocol.messages.offset_for_leader_epoch_request import OffsetForLeaderEpochRequest
from protocol.messages.offset_for_leader_epoch_response import OffsetForLeaderEpochResponse
from protocol.messages.produce_request import ProduceRequest
from protocol.messages.produce_response import ProduceResponse
from protocol.messages.read_share_group_state_request import ReadShareGroupStateRequest
from protocol.messages.read_share_group_state_response import ReadShareGroupStateResponse
from protocol.messages.read_share_group_state_summary_request import ReadShareGroupStateSummaryRequest
from protocol.messages.read_share_group_state_summary_response import ReadShareGroupStateSummaryResponse
from protocol.messages.renew_delegation_token_request import RenewDelegationTokenRequest
from protocol.messages.renew_delegation_token_response import RenewDelegationTokenResponse
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_authenticate_response import SaslAuthenticateResponse
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.messages.sasl_handshake_response import SaslHandshakeResponse
from protocol.messages.share_acknowledge_request import ShareAcknowledgeRequest
from protocol.messages.share_acknowledge_response import ShareAcknowledgeResponse
from protocol.messages.share_fetch_request import ShareFetchRequest
from protocol.messages.share_fetch_response import ShareFetchResponse
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest
from protocol.messages.share_group_describe_response import ShareGroupDescribeResponse
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from protocol.messages.share_group_heartbeat_response import ShareGroupHeartbeatResponse
from protocol.messages.sync_group_request import SyncGroupRequest
from protocol.messages.sync_group_response import SyncGroupResponse
from protocol.messages.txn_offset_commit_request import TxnOffsetCommitRequest
from protocol.messages.txn_offset_commit_response import TxnOffsetCommitResponse
from protocol.messages.unregister_broker_request import UnregisterBrokerRequest
from protocol.messages.unregister_broker_response import UnregisterBrokerResponse
from protocol.messages.update_features_request import UpdateFeaturesRequest
from protocol.messages.update_features_response import UpdateFeaturesResponse
from protocol.messages.write_share_group_state_request import WriteShareGroupStateRequest
from protocol.messages.write_share_group_state_response import WriteShareGroupStateResponse
from protocol.messages.write_txn_markers_request import WriteTxnMarkersRequest
from protocol.messages.write_txn_markers_response import WriteTxnMarkersResponse
from protocol.messages.consumer_group_current_member_assignment_key import ConsumerGroupCurrentMemberAssignmentKey
from protocol.messages.consumer_group_current_member_assignment_value import ConsumerGroupCurrentMemberAssignmentValue
from protocol.messages.consumer_group_member_metadata_key import ConsumerGroupMemberMetadataKey
from protocol.messages.consumer_group_member_metadata_value import ConsumerGroupMemberMetadataValue
from protocol.messages.consumer_group_metadata_key import ConsumerGroupMetadataKey
from protocol.messages.consumer_group_metadata_value import ConsumerGroupMetadataValue
from protocol.messages.consumer_group_target_assignment_member_key import ConsumerGroupTargetAssignmentMemberKey
from protocol.messages.consumer_group_target_assignment_member_value import ConsumerGroupTargetAssignmentMemberValue
from protocol.messages.consumer_group_target_assignment_metadata_key import ConsumerGroupTargetAssignmentMetadataKey
from protocol.messages.consumer_group_target_assignment_metadata_value import ConsumerGroupTargetAssignmentMetadataValue
from protocol.messages.group_metadata_key import GroupMetadataKey
from protocol.messages.group_metadata_value import GroupMetadataValue
from protocol.messages.offset_commit_key import OffsetCommitKey
from protocol.messages.offset_commit_value import OffsetCommitValue
from protocol.messages.share_group_current_member_assignment_key import ShareGroupCurrentMemberAssignmentKey
from protocol.messages.share_group_current_member_assignment_value import ShareGroupCurrentMemberAssignmentValue
from protocol.messages.share_group_member_metadata_key import ShareGroupMemberMetadataKey
from protocol.messages.share_group_member_metadata_value import ShareGroupMemberMetadataValue
from protocol.messages.share_group_metadata_key import ShareGroupMetadataKey
from protocol.messages.share_group_metadata_value import ShareGroupMetadataValue
from protocol.messages.share_group_target_assignment_member_key import ShareGroupTargetAssignmentMemberKey
from protocol.messages.share_group_target_assignment_member_value import ShareGroupTargetAssignmentMemberValue
from protocol.messages.share_group_target_assignment_metadata_key import ShareGroupTargetAssignmentMetadataKey
from protocol.messages.share_group_target_assignment_metadata_value import ShareGroupTargetAssignmentMetadataValue
from protocol.messages.share_snapshot_key import ShareSnapshotKey
from protocol.messages.share_snapshot_value import ShareSnapshotValue
from protocol.messages.share_update_key import ShareUpdateKey
from protocol.messages.share_update_value import ShareUpdateValue
from protocol.messages.transaction_log_key import TransactionLogKey
from protocol.messages.transaction_log_value import TransactionLogValue

from protocol.apis import ApiSpec


API_SPECS: dict[int, ApiSpec] = {
    0: ApiSpec(0, 'Produce', ProduceRequest, ProduceResponse),
    1: ApiSpec(1, 'Fetch', FetchRequest, FetchResponse),
    2: ApiSpec(2, 'ListOffsets', ListOffsetsRequest, ListOffsetsResponse),
    3: ApiSpec(3, 'Metadata', MetadataRequest, MetadataResponse),
    8: ApiSpec(8, 'OffsetCommit', OffsetCommitRequest, OffsetCommitResponse),
    9: ApiSpec(9, 'OffsetFetch', OffsetFetchRequest, OffsetFetchResponse),
    10: ApiSpec(10, 'FindCoordinator', FindCoordinatorRequest, FindCoordinatorResponse),
    11: ApiSpec(11, 'JoinGroup', JoinGroupRequest, JoinGroupResponse),
    12: ApiSpec(12, 'Heartbeat', HeartbeatRequest, HeartbeatResponse),
    13: ApiSpec(13, 'LeaveGroup', LeaveGroupRequest, LeaveGroupResponse),
    14: ApiSpec(14, 'SyncGroup', SyncGroupRequest, SyncGroupResponse),
    15: ApiSpec(15, 'DescribeGroups', DescribeGroupsRequest, DescribeGroupsResponse),
    16: ApiSpec(16, 'ListGroups', ListGroupsRequest, ListGroupsResponse),
    17: ApiSpec(17, 'SaslHandshake', SaslHandshakeRequest, SaslHandshakeResponse),
    18: ApiSpec(18, 'ApiVersions', ApiVersionsRequest, ApiVersionsResponse),
    19: ApiSpec(19, 'CreateTopics', CreateTopicsRequest, CreateTopicsResponse),
    20: ApiSpec(20, 'DeleteTopics', DeleteTopicsRequest, DeleteTopicsResponse),
    21: ApiSpec(21, 'DeleteRecords', DeleteRecordsRequest, DeleteRecordsResponse),
    22: ApiSpec(22, 'InitProducerId', InitProducerIdRequest, InitProducerIdResponse),
    23: ApiSpec(23, 'OffsetForLeaderEpoch', OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse),
    24: ApiSpec(24, 'AddPartitionsToTxn', AddPartitionsToTxnRequest, AddPartitionsToTxnResponse),
    25: ApiSpec(25, 'AddOffsetsToTxn', AddOffsetsToTxnRequest, AddOffsetsToTxnResponse),
    26: ApiSpec(26, 'EndTxn', EndTxnRequest, EndTxnResponse),
    27: ApiSpec(27, 'WriteTxnMarkers', WriteTxnMarkersRequest, WriteTxnMarkersResponse),
    28: ApiSpec(28, 'TxnOffsetCommit', TxnOffsetCommitRequest, TxnOffsetCommitResponse),
    29: ApiSpec(29, 'DescribeAcls', DescribeAclsRequest, DescribeAclsResponse),
    30: ApiSpec(30, 'CreateAcls', CreateAclsRequest, CreateAclsResponse),
    31: ApiSpec(31, 'DeleteAcls', DeleteAclsRequest, DeleteAclsResponse),
    32: ApiSpec(32, 'DescribeConfigs', DescribeConfigsRequest, DescribeConfigsResponse),
    33: ApiSpec(33, 'AlterConfigs', AlterConfigsRequest, AlterConfigsResponse),
    34: ApiSpec(34, 'AlterReplicaLogDirs', AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse),
    35: ApiSpec(35, 'DescribeLogDirs', DescribeLogDirsRequest, DescribeLogDirsResponse),
    36: ApiSpec(36, 'SaslAuthenticate', SaslAuthenticateRequest, SaslAuthenticateResponse),
    37: ApiSpec(37, 'CreatePartitions', CreatePartitionsRequest, CreatePartitionsResponse),
    38: ApiSpec(38, 'CreateDelegationToken', CreateDelegationTokenRequest, CreateDelegationTokenResponse),
    39: ApiSpec(39, 'RenewDelegationToken', RenewDelegationTokenRequest, RenewDelegationTokenResponse),
    40: ApiSpec(40, 'ExpireDelegationToken', ExpireDelegationTokenRequest, ExpireDelegationTokenResponse),
    41: ApiSpec(41, 'DescribeDelegationToken', DescribeDelegationTokenRequest, DescribeDelegationTokenResponse),
    42: ApiSpec(42, 'DeleteGroups', DeleteGroupsRequest, DeleteGroupsResponse),
    43: ApiSpec(43, 'ElectLeaders', ElectLeadersRequest, ElectLeadersResponse),
    44: ApiSpec(44, 'IncrementalAlterConfigs', IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse),
    45: ApiSpec(45, 'AlterPartitionReassignments', AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse),
    46: ApiSpec(46, 'ListPartitionReassignments', ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse),
    47: ApiSpec(47, 'OffsetDelete', OffsetDeleteRequest, OffsetDeleteResponse),
    48: ApiSpec(48, 'DescribeClientQuotas', DescribeClientQuotasRequest, DescribeClientQuotasResponse),
    49: ApiSpec(49, 'AlterClientQuotas', AlterClientQuotasRequest, AlterClientQuotasResponse),
    50: ApiSpec(50, 'DescribeUserScramCredentials', DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse),
    51: ApiSpec(51, 'AlterUserScramCredentials', AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse),
    55: ApiSpec(55, 'DescribeQuorum', DescribeQuorumRequest, DescribeQuorumResponse),
    57: ApiSpec(57, 'UpdateFeatures', UpdateFeaturesRequest, UpdateFeaturesResponse),
    60: ApiSpec(60, 'DescribeCluster', DescribeClusterRequest, DescribeClusterResponse),
    61: ApiSpec(61, 'DescribeProducers', DescribeProducersRequest, DescribeProducersResponse),
    64: ApiSpec(64, 'UnregisterBroker', UnregisterBrokerRequest, UnregisterBrokerResponse),
    65: ApiSpec(65, 'DescribeTransactions', DescribeTransactionsRequest, DescribeTransactionsResponse),
    66: ApiSpec(66, 'ListTransactions', ListTransactionsRequest, ListTransactionsResponse),
    68: ApiSpec(68, 'ConsumerGroupHeartbeat', ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse),
    69: ApiSpec(69, 'ConsumerGroupDescribe', ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse),
    74: ApiSpec(74, 'ListConfigResources', ListConfigResourcesRequest, ListConfigResourcesResponse),
    75: ApiSpec(75, 'DescribeTopicPartitions', DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse),
    76: ApiSpec(76, 'ShareGroupHeartbeat', ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse),
    77: ApiSpec(77, 'ShareGroupDescribe', ShareGroupDescribeRequest, ShareGroupDescribeResponse),
    78: ApiSpec(78, 'ShareFetch', ShareFetchRequest, ShareFetchResponse),
    79: ApiSpec(79, 'ShareAcknowledge', ShareAcknowledgeRequest, ShareAcknowledgeResponse),
    83: ApiSpec(83, 'InitializeShareGroupState', InitializeShareGroupStateRequest, InitializeShareGroupStateResponse),
    84: ApiSpec(84, 'ReadShareGroupState', ReadShareGroupStateRequest, ReadShareGroupStateResponse),
    85: ApiSpec(85, 'WriteShareGroupState', WriteShareGroupStateRequest, WriteShareGroupStateResponse),
    86: ApiSpec(86, 'DeleteShareGroupState', DeleteShareGroupStateRequest, DeleteShareGroupStateResponse),
    87: ApiSpec(87, 'ReadShareGroupStateSummary', ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse),
    90: ApiSpec(90, 'DescribeShareGroupOffsets', DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse),
    91: ApiSpec(91, 'AlterShareGroupOffsets', AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse),
    92: ApiSpec(92, 'DeleteShareGroupOffsets', DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse),
}

__all__ = [
    'AddOffsetsToTxnRequest',
    'AddOffsetsToTxnResponse',
    'AddPartitionsToTxnRequest',
    'AddPartitionsToTxnResponse',
    'AlterClientQuotasRequest',
    'AlterClientQuotasResponse',
    'AlterConfigsRequest',
    'AlterConfigsResponse',
    'AlterPartitionReassignmentsRequest',
    'AlterPartitionReassignmentsResponse',
    'AlterReplicaLogDirsRequest',
    'AlterReplicaLogDirsResponse',
    'AlterShareGroupOffsetsRequest',
    'AlterShareGroupOffsetsResponse',
    'AlterUserScramCredentialsRequest',
    'AlterUserScramCredentialsResponse',
    'ApiVersionsRequest',
    'ApiVersionsResponse',
    'ConsumerGroupCurrentMemberAssignmentKey',
    'ConsumerGroupCurrentMemberAssignmentValue',
    'ConsumerGroupDescribeRequest',
    'ConsumerGroupDescribeResponse',
    'ConsumerGroupHeartbeatRequest',
    'ConsumerGroupHeartbeatResponse',
    'ConsumerGroupMemberMetadataKey',
    'ConsumerGroupMemberMetadataValue',
    'ConsumerGroupMetadataKey',
    'ConsumerGroupMetadataValue',
    'ConsumerGroupTargetAssignmentMemberKey',
    'ConsumerGroupTargetAssignmentMemberValue',
    'ConsumerGroupTargetAssignmentMetadataKey',
    'ConsumerGroupTargetAssignmentMetadataValue',
    'ConsumerProtocolAssignment',
    'ConsumerProtocolSubscription',
    'ControlRecordTypeSchema',
    'CreateAclsRequest',
    'CreateAclsResponse',
    'CreateDelegationTokenRequest',
    'CreateDelegationTokenResponse',
    'CreatePartitionsRequest',
    'CreatePartitionsResponse',
    'CreateTopicsRequest',
    'CreateTopicsResponse',
    'DeleteAclsRequest',
    'DeleteAclsResponse',
    'DeleteGroupsRequest',
    'DeleteGroupsResponse',
    'DeleteRecordsRequest',
    'DeleteRecordsResponse',
    'DeleteShareGroupOffsetsRequest',
    'DeleteShareGroupOffsetsResponse',
    'DeleteShareGroupStateRequest',
    'DeleteShareGroupStateResponse',
    'DeleteTopicsRequest',
    'DeleteTopicsResponse',
    'DescribeAclsRequest',
    'DescribeAclsResponse',
    'DescribeClientQuotasRequest',
    'DescribeClientQuotasResponse',
    'DescribeClusterRequest',
    'DescribeClusterResponse',
    'DescribeConfigsRequest',
    'DescribeConfigsResponse',
    'DescribeDelegationTokenRequest',
    'DescribeDelegationTokenResponse',
    'DescribeGroupsRequest',
    'DescribeGroupsResponse',
    'DescribeLogDirsRequest',
    'DescribeLogDirsResponse',
    'DescribeProducersRequest',
    'DescribeProducersResponse',
    'DescribeQuorumRequest',
    'DescribeQuorumResponse',
    'DescribeShareGroupOffsetsRequest',
    'DescribeShareGroupOffsetsResponse',
    'DescribeTopicPartitionsRequest',
    'DescribeTopicPartitionsResponse',
    'DescribeTransactionsRequest',
    'DescribeTransactionsResponse',
    'DescribeUserScramCredentialsRequest',
    'DescribeUserScramCredentialsResponse',
    'ElectLeadersRequest',
    'ElectLeadersResponse',
    'EndTxnMarker',
    'EndTxnRequest',
    'EndTxnResponse',
    'ExpireDelegationTokenRequest',
    'ExpireDelegationTokenResponse',
    'FetchRequest',
    'FetchResponse',
    'FindCoordinatorRequest',
    'FindCoordinatorResponse',
    'GroupMetadataKey',
    'GroupMetadataValue',
    'HeartbeatRequest',
    'HeartbeatResponse',
    'IncrementalAlterConfigsRequest',
    'IncrementalAlterConfigsResponse',
    'InitProducerIdRequest',
    'InitProducerIdResponse',
    'InitializeShareGroupStateRequest',
    'InitializeShareGroupStateResponse',
    'JoinGroupRequest',
    'JoinGroupResponse',
    'LeaveGroupRequest',
    'LeaveGroupResponse',
    'ListConfigResourcesRequest',
    'ListConfigResourcesResponse',
    'ListGroupsRequest',
    'ListGroupsResponse',
    'ListOffsetsRequest',
    'ListOffsetsResponse',
    'ListPartitionReassignmentsRequest',
    'ListPartitionReassignmentsResponse',
    'ListTransactionsRequest',
    'ListTransactionsResponse',
    'MetadataRequest',
    'MetadataResponse',
    'OffsetCommitKey',
    'OffsetCommitRequest',
    'OffsetCommitResponse',
    'OffsetCommitValue',
    'OffsetDeleteRequest',
    'OffsetDeleteResponse',
    'OffsetFetchRequest',
    'OffsetFetchResponse',
    'OffsetForLeaderEpochRequest',
    'OffsetForLeaderEpochResponse',
    'ProduceRequest',
    'ProduceResponse',
    'ReadShareGroupStateRequest',
    'ReadShareGroupStateResponse',
    'ReadShareGroupStateSummaryRequest',
    'ReadShareGroupStateSummaryResponse',
    'RenewDelegationTokenRequest',
    'RenewDelegationTokenResponse',
    'RequestHeader',
    'ResponseHeader',
    'SaslAuthenticateRequest',
    'SaslAuthenticateResponse',
    'SaslHandshakeRequest',
    'SaslHandshakeResponse',
    'ShareAcknowledgeRequest',
    'ShareAcknowledgeResponse',
    'ShareFetchRequest',
    'ShareFetchResponse',
    'ShareGroupCurrentMemberAssignmentKey',
    'ShareGroupCurrentMemberAssignmentValue',
    'ShareGroupDescribeRequest',
    'ShareGroupDescribeResponse',
    'ShareGroupHeartbeatRequest',
    'ShareGroupHeartbeatResponse',
    'ShareGroupMemberMetadataKey',
    'ShareGroupMemberMetadataValue',
    'ShareGroupMetadataKey',
    'ShareGroupMetadataValue',
    'ShareGroupTargetAssignmentMemberKey',
    'ShareGroupTargetAssignmentMemberValue',
    'ShareGroupTargetAssignmentMetadataKey',
    'ShareGroupTargetAssignmentMetadataValue',
    'ShareSnapshotKey',
    'ShareSnapshotValue',
    'ShareUpdateKey',
    'ShareUpdateValue',
    'SyncGroupRequest',
    'SyncGroupResponse',
    'TransactionLogKey',
    'TransactionLogValue',
    'TxnOffsetCommitRequest',
    'TxnOffsetCommitResponse',
    'UnregisterBrokerRequest',
    'UnregisterBrokerResponse',
    'UpdateFeaturesRequest',
    'UpdateFeaturesResponse',
    'WriteShareGroupStateRequest',
    'WriteShareGroupStateResponse',
    'WriteTxnMarkersRequest',
    'WriteTxnMarkersResponse',
    'API_SPECS',
]
