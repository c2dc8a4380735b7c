"""Converting a group between the two protocols (KIP-848's online upgrade and downgrade;
Kafka's GroupMetadataManager.convertToConsumerGroup and convertToClassicGroup), as
`group.consumer.migration.policy` allows.

Upgrade: a classic group of the consumer protocol with members becomes a consumer group when
a ConsumerGroupHeartbeat joins; its members stay, as classic members, with the partitions
they hold and the generation as their epoch. Downgrade: a consumer group whose last member of
the new protocol leaves while classic members remain becomes a classic group at the group
epoch, and rebalances. Either way the classic group object of the id, which holds the
offsets, stays the same object, Empty while the consumer group exists. And an empty
consumer group gives way to a JoinGroup of its id (`make_way_for_classic`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import structlog

from coordinator.group.api import JoinMember, JoinResult, SyncResult
from coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, ClassicGroup, Member, decode_subscription
from coordinator.group.classic.metadata import group_record
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.classic.states import GroupState
from coordinator.group.consumer import records as consumer_records
from coordinator.group.consumer.classic_protocol import decode_assignment, encode_assignment
from coordinator.group.consumer.group import ClassicMetadata, ConsumerGroup, ConsumerMember, TopicImage
from coordinator.group.consumer.reconciliation import MemberAssignment
from coordinator.group.consumer.records import group_tombstones
from coordinator.group.runtime import GroupRuntime
from coordinator.group.timers import (
    consumer_revocation_key,
    consumer_session_key,
    heartbeat_key,
    join_key,
    sync_key,
)
from coordinator.log import GROUP_METADATA, Record
from protocol.errors import ErrorCode

log = structlog.get_logger("odradek.groups")


class GroupConversion:
    def __init__(self, rt: GroupRuntime, rebalance: Rebalancer) -> None:
        self.rt = rt
        self.rebalance = rebalance

    def _empty_classic(self, group_id: str) -> ClassicGroup:
        """The classic group of the id, emptied in place: it keeps its offsets, and commits
        in flight to it still land."""
        group = self.rt.groups.get(group_id)
        if group is None:
            return self.rt.new_group(group_id)
        for member_id in list(group.members):
            group.remove(member_id)
        for member_id in group.pending_members:
            self.rt.cancel(heartbeat_key(group_id, member_id))
        group.pending_members.clear()
        group.pending_sync_members.clear()
        self.rt.cancel(join_key(group_id))
        self.rt.cancel(sync_key(group_id))
        group.join_op = None
        group.protocol_name = group.leader_id = None
        group.subscribed_topics = None
        group.state = GroupState.EMPTY
        group.current_state_timestamp = self.rt.clock.now_ms()
        return group

    # --- an empty consumer group -> classic ---------------------------------------------------

    async def make_way_for_classic(self, req: JoinMember) -> JoinResult | None:
        """A JoinGroup for the id of a consumer group: the refusal, or None once no
        consumer group is in the way (`classic/join.py`'s ConsumerGroupInTheWay)."""
        consumer_group = self.rt.consumer_groups.get(req.group_id)
        if consumer_group is None:
            return None
        # Kafka: a consumer group (KIP-848) with members is no classic group; an empty
        # one becomes classic on the first JoinGroup (its offsets stay).
        if consumer_group.members:
            return JoinResult(ErrorCode.GROUP_ID_NOT_FOUND, req.member_id)
        return await self.rt.write(
            req.group_id, lambda: self._drop_empty_consumer_group(req),
            lambda exc: JoinResult(exc.client_error(GROUP_METADATA), req.member_id))

    def _drop_empty_consumer_group(self, req: JoinMember) -> tuple[list[Record], JoinResult | None]:
        """The consumer group's tombstones; it goes once they are durable. A refusal if a
        member joined it meanwhile."""
        consumer_group = self.rt.consumer_groups.get(req.group_id)
        if consumer_group is None:
            return [], None
        if consumer_group.members:
            return [], JoinResult(ErrorCode.GROUP_ID_NOT_FOUND, req.member_id)
        self.rt.after_write(lambda: self.rt.drop_consumer_group(consumer_group))
        return group_tombstones(req.group_id), None

    # --- classic -> consumer -------------------------------------------------------------

    def upgrade(self, classic: ClassicGroup, topics: Mapping[str, TopicImage]) -> list[Record] | None:
        """Kafka's validateOnlineUpgrade, then convertToConsumerGroup; None when refused."""
        config = self.rt.config
        if not config.upgrade_enabled or classic.protocol_type != CONSUMER_PROTOCOL_TYPE \
                or len(classic.members) > config.consumer_max_size:
            log.info("classic group not upgraded", group=classic.group_id, policy=config.migration_policy)
            return None
        subscriptions = {}
        for m in classic.members.values():
            sub = decode_subscription(m.metadata(classic.protocol_name or m.protocols[0][0]))
            if sub is None:
                return None
            subscriptions[m.member_id] = sub
        epoch = classic.generation_id
        group = ConsumerGroup(classic.group_id, group_epoch=epoch, assignment_epoch=epoch, subscription_metadata=None)
        stable = classic.is_state(GroupState.STABLE)
        for m in classic.members.values():
            held = decode_assignment(m.assignment) if stable else frozenset()
            group.add(ConsumerMember(
                m.member_id, instance_id=m.group_instance_id, client_id=m.client_id, client_host=m.client_host,
                rebalance_timeout_ms=m.rebalance_timeout_ms,
                subscribed_topic_names=tuple(sorted(subscriptions[m.member_id].topics)),
                assignment=MemberAssignment(member_epoch=epoch, assigned=held),
                classic=ClassicMetadata(m.session_timeout_ms, tuple(m.protocols))))
            group.target[m.member_id] = held
            # Waiting requests learn to rejoin, now into the consumer group (once it is).
            self.rt.after_write(_told_to_rejoin(m))
            self.rebalance.cancel_heartbeat(classic, m.member_id)
        empty = self._empty_classic(classic.group_id)
        self.rt.consumer_groups[group.group_id] = group
        ids = {name: image.topic_id for name, image in topics.items()}
        records: list[Record] = [group_record(empty, {}), consumer_records.epoch_record(group)]
        for member in group.members.values():
            records.extend(consumer_records.member_records(group.group_id, member, ids))
        records.extend(consumer_records.target_records(group, ids))
        log.info("classic group upgraded to a consumer group", group=group.group_id, epoch=epoch)
        return records

    # --- consumer -> classic ---------------------------------------------------------------

    def downgrade(self, group: ConsumerGroup) -> list[Record]:
        """Kafka's validateOnlineDowngrade, then convertToClassicGroup; no records when refused."""
        config = self.rt.config
        if not config.downgrade_enabled or not group.classic_only() or len(group.members) > config.max_size:
            return []
        records: list[Record] = []
        classic = self._empty_classic(group.group_id)
        classic.generation_id = group.group_epoch
        classic.protocol_type = CONSUMER_PROTOCOL_TYPE
        for cm in group.members.values():
            assert cm.classic is not None
            member = Member(cm.member_id, cm.instance_id, cm.client_id, cm.client_host, cm.rebalance_timeout_ms,
                            cm.classic.session_timeout_ms, CONSUMER_PROTOCOL_TYPE, list(cm.classic.protocols),
                            assignment=encode_assignment(cm.assignment.assigned))
            classic.add(member, None)
            records.extend(consumer_records.member_tombstones(group.group_id, cm.member_id))
            self.rt.cancel(consumer_session_key(group.group_id, cm.member_id))
            self.rt.cancel(consumer_revocation_key(group.group_id, cm.member_id))
        records.extend(consumer_records.group_tombstones(group.group_id))
        classic.protocol_name = classic.select_protocol()
        classic.state = GroupState.STABLE
        records.append(group_record(classic, {m.member_id: m.assignment for m in classic.members.values()}))
        del self.rt.consumer_groups[group.group_id]
        for member in classic.members.values():
            self.rebalance.schedule_heartbeat(classic, member)
        # The members rejoin, now into the classic group.
        self.rebalance.prepare_rebalance(classic)
        log.info("consumer group downgraded to a classic group", group=group.group_id, generation=group.group_epoch)
        return records


def _told_to_rejoin(m: Member) -> Callable[[], None]:
    def tell() -> None:
        m.complete_join(_rejoin_join(m))
        m.complete_sync(_rejoin_sync())
    return tell


def _rejoin_join(m: Member) -> JoinResult:
    return JoinResult(ErrorCode.REBALANCE_IN_PROGRESS, m.member_id)


def _rejoin_sync() -> SyncResult:
    return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
