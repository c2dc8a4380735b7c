"""ShareAcknowledge (KIP-932): acknowledgements outside a ShareFetch, answered once durable.
Epoch 0 is refused (a session is opened by ShareFetch only); -1 closes the session and
releases what the member still holds."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.share_support import (
    InvalidAcknowledgementError,
    acknowledgements,
    leader_of,
    leadership_error,
    share_groups_enabled,
    share_key,
)
from broker.topics import TopicResolver
from coordinator.share.sessions import FINAL_EPOCH, INITIAL_EPOCH, ShareSessionError
from protocol.errors import ErrorCode
from protocol.messages.share_acknowledge_request import ShareAcknowledgeRequest
from protocol.messages.share_acknowledge_response import (
    LeaderIdAndEpoch,
    PartitionData,
    ShareAcknowledgeResponse,
    ShareAcknowledgeTopicResponse,
)

API_KEY = 79


async def handle(ctx: RequestContext, request: ShareAcknowledgeRequest) -> ShareAcknowledgeResponse:
    if not share_groups_enabled(ctx):
        return ShareAcknowledgeResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    group_id = request.group_id or ""
    member_id = request.member_id or ""
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, group_id):
        return ShareAcknowledgeResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    share = ctx.share
    if request.share_session_epoch == INITIAL_EPOCH:
        return ShareAcknowledgeResponse(error_code=ErrorCode.INVALID_SHARE_SESSION_EPOCH,
                                        error_message="A share session is opened by ShareFetch only.")
    try:
        share.sessions.use(group_id, member_id, request.share_session_epoch)
    except ShareSessionError as exc:
        return ShareAcknowledgeResponse(error_code=exc.error, error_message=str(exc))
    resolver = TopicResolver(ctx)
    responses = []
    for t in request.topics:
        info = resolver.find_by_id(t.topic_id)
        out = ShareAcknowledgeTopicResponse(topic_id=t.topic_id)
        responses.append(out)
        for p in t.partitions:
            error: ErrorCode
            if info is None:
                error = ErrorCode.UNKNOWN_TOPIC_ID
            elif not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, info.name):
                error = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif not 0 <= p.partition_index < info.num_partitions:
                error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            elif (refused := leadership_error(ctx, t.topic_id, p.partition_index)) is not None:
                error = refused
            else:
                try:
                    acks = acknowledgements(
                        [(b.first_offset, b.last_offset, b.acknowledge_types) for b in p.acknowledgement_batches],
                        renew_allowed=ctx.api_version >= 2,
                    )
                except InvalidAcknowledgementError:
                    error = ErrorCode.INVALID_REQUEST
                else:
                    error = await share.acknowledge(share_key(group_id, t.topic_id, p.partition_index), member_id,
                                                    acks)
            out.partitions.append(PartitionData(
                partition_index=p.partition_index,
                error_code=error,
                current_leader=LeaderIdAndEpoch(*leader_of(ctx, t.topic_id, p.partition_index, error)),
            ))
    if request.share_session_epoch == FINAL_EPOCH:
        share.sessions.close(group_id, member_id)
        await share.release_member(group_id, member_id)
    return ShareAcknowledgeResponse(responses=responses)
