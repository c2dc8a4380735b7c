"""The administrative group APIs: DescribeGroups, ListGroups, DeleteGroups, OffsetDelete,
and what DescribeGroups and ListGroups answer."""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.group import records
from coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, ClassicGroup
from coordinator.group.classic.states import GroupState
from coordinator.group.consumer.group import ConsumerGroupState
from coordinator.group.consumer.records import group_tombstones
from coordinator.group.offset_manager import OffsetManager
from coordinator.group.runtime import CoordinatorStatus, GroupRuntime
from coordinator.log import OFFSET_COMMIT, CoordinatorLogError, Record
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition

GROUP_TYPE_CLASSIC = "classic"
GROUP_TYPE_CONSUMER = "consumer"


@dataclass(slots=True)
class MemberDescription:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(slots=True)
class GroupDescription:
    group_id: str
    error: ErrorCode
    # None when the group could not be described (see `error`).
    state: GroupState | None
    protocol_type: str
    protocol: str
    members: list[MemberDescription]


@dataclass(slots=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: GroupState | ConsumerGroupState
    group_type: str


class GroupAdmin:
    def __init__(self, rt: GroupRuntime, offsets: OffsetManager) -> None:
        self.rt = rt
        self.offsets = offsets

    def describe_group(self, group_id: str) -> GroupDescription:
        error = self.rt.validate(group_id, allow_empty=True)
        if error is not None:
            return GroupDescription(group_id, error, None, "", "", [])
        if group_id in self.rt.consumer_groups:
            # Kafka: DescribeGroups describes classic groups only.
            return GroupDescription(group_id, ErrorCode.GROUP_ID_NOT_FOUND, None, "", "", [])
        group = self.rt.groups.get(group_id)
        if group is None:
            return GroupDescription(group_id, ErrorCode.NONE, GroupState.DEAD, "", "", [])
        stable = group.is_state(GroupState.STABLE) and group.protocol_name is not None
        protocol = group.protocol_name if stable and group.protocol_name is not None else ""
        members = [
            MemberDescription(
                m.member_id, m.group_instance_id, m.client_id, m.client_host,
                m.metadata(protocol) if stable else b"", m.assignment if stable else b"",
            )
            for m in group.members.values()
        ]
        return GroupDescription(group_id, ErrorCode.NONE, group.state, group.protocol_type or "", protocol, members)

    def list_groups(self, states: list[str], types: list[str]) -> tuple[ErrorCode, list[ListedGroup]]:
        error = ErrorCode.NONE
        if self.rt.status is CoordinatorStatus.LOADING:
            error = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        elif self.rt.status is CoordinatorStatus.STOPPED:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        wanted_states = {s.lower() for s in states}
        wanted_types = {t.lower() for t in types}
        out = []
        for group in self.rt.groups.values():
            if group.group_id in self.rt.consumer_groups:
                continue  # the offsets of a consumer group: listed as that group
            if wanted_states and group.state.value.lower() not in wanted_states:
                continue
            if wanted_types and GROUP_TYPE_CLASSIC not in wanted_types:
                continue
            out.append(ListedGroup(group.group_id, group.protocol_type or "", group.state, GROUP_TYPE_CLASSIC))
        for consumer_group in self.rt.consumer_groups.values():
            state = consumer_group.state()
            if wanted_states and state.value.lower() not in wanted_states:
                continue
            if wanted_types and GROUP_TYPE_CONSUMER not in wanted_types:
                continue
            out.append(ListedGroup(consumer_group.group_id, CONSUMER_PROTOCOL_TYPE, state, GROUP_TYPE_CONSUMER))
        return error, out

    async def delete_groups(self, group_ids: list[str]) -> list[tuple[str, ErrorCode]]:
        results = []
        for group_id in group_ids:
            error = self.rt.validate(group_id, allow_empty=True)
            group = self.rt.groups.get(group_id)
            consumer_group = self.rt.consumer_groups.get(group_id)
            if error is None and consumer_group is not None:
                if consumer_group.members:
                    error = ErrorCode.NON_EMPTY_GROUP
                else:
                    error = await self._delete_consumer_group(group_id)
                    if error is ErrorCode.NONE and group is not None:
                        error = None  # its offsets go too
            if error is None:
                if group is None or group.is_state(GroupState.DEAD):
                    error = ErrorCode.GROUP_ID_NOT_FOUND
                elif not group.is_state(GroupState.EMPTY):
                    error = ErrorCode.NON_EMPTY_GROUP
            if error is None and group is not None:
                error = await self.rt.run_to_end(self._delete_group(group))
            results.append((group_id, error if error is not None else ErrorCode.NONE))
        return results

    async def _delete_consumer_group(self, group_id: str) -> ErrorCode:
        """Its tombstones; it goes once they are durable."""

        def operation() -> tuple[list[Record], ErrorCode]:
            consumer_group = self.rt.consumer_groups.get(group_id)
            if consumer_group is None:
                return [], ErrorCode.NONE
            if consumer_group.members:
                return [], ErrorCode.NON_EMPTY_GROUP
            self.rt.after_write(lambda: self.rt.drop_consumer_group(consumer_group))
            return group_tombstones(group_id), ErrorCode.NONE

        return await self.rt.write(group_id, operation, lambda exc: exc.client_error(OFFSET_COMMIT))

    async def _delete_group(self, group: ClassicGroup) -> ErrorCode:
        recs: list[Record] = [(records.offset_key(group.group_id, tp[0], tp[1]), None) for tp in group.offsets.committed]
        recs.append((records.group_key(group.group_id), None))
        try:
            await self.rt.append(group.group_id, recs)
        except CoordinatorLogError as exc:
            return exc.client_error(OFFSET_COMMIT)
        if self.rt.current(group) and group.is_state(GroupState.EMPTY):
            self.rt.drop_group(group)
        return ErrorCode.NONE

    async def delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        error = self.rt.validate(group_id, allow_empty=False)
        if error is not None:
            return error, {}
        group = self.rt.groups.get(group_id)
        consumer_group = self.rt.consumer_groups.get(group_id)
        results: dict[TopicPartition, ErrorCode] = {}
        if consumer_group is not None:
            # A KIP-848 group (its classic twin holds the offsets): Kafka's
            # OffsetMetadataManager.deleteOffsets refuses the topics its members subscribe to.
            subscribed = consumer_group.subscribed_topic_names()
            eligible = []
            for tp in partitions:
                if tp[0] in subscribed:
                    results[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
            if group is None:
                results.update(dict.fromkeys(eligible, ErrorCode.NONE))
                return ErrorCode.NONE, {tp: results[tp] for tp in partitions}
        elif group is None or group.is_state(GroupState.DEAD):
            return ErrorCode.GROUP_ID_NOT_FOUND, {}
        elif group.is_state(GroupState.EMPTY):
            eligible = list(partitions)
        elif group.protocol_type == CONSUMER_PROTOCOL_TYPE:
            eligible = []
            for tp in partitions:
                if group.is_subscribed_to_topic(tp[0]):
                    results[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
        else:
            return ErrorCode.NON_EMPTY_GROUP, {}
        to_remove = {tp: om for tp in eligible if (om := group.offsets.get(tp)) is not None}
        error = await self.rt.run_to_end(self.offsets.remove_offsets(group, to_remove))
        if error is not ErrorCode.NONE:
            return error, {}
        for tp in eligible:
            results[tp] = ErrorCode.NONE
        return ErrorCode.NONE, {tp: results[tp] for tp in partitions}
