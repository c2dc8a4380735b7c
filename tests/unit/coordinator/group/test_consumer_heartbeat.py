"""ConsumerGroupHeartbeat's state machine on a manual clock: epochs, revocation before
assignment, static members, regex subscriptions, sessions and offset commits."""

from __future__ import annotations

import uuid
from dataclasses import replace

from coordinator.group.api import CommitOffsets, LeavingMember, MemberHeartbeat
from coordinator.group.consumer.group import ConsumerGroupState
from coordinator.group.consumer.heartbeat import ConsumerHeartbeat, ConsumerHeartbeatResult, TopicImage
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from protocol.errors import ErrorCode
from tests.unit.coordinator.group.group_harness import Harness

T_ID, U_ID = uuid.uuid4(), uuid.uuid4()
TOPICS = {"t": TopicImage(T_ID, 4), "u": TopicImage(U_ID, 2), "__consumer_offsets": TopicImage(uuid.uuid4(), 50, True)}


async def beat(h: Harness, member: str, epoch: int, *, topics: list[str] | None = None, regex: str | None = None,
         owned: dict[uuid.UUID, list[int]] | None = None, instance: str | None = None,
         assignor: str | None = None, group: str = "g") -> ConsumerHeartbeatResult:
    joining = epoch == 0
    return await h.coord.consumer_heartbeat(ConsumerHeartbeat(
        group_id=group, member_id=member, member_epoch=epoch, instance_id=instance,
        rebalance_timeout_ms=30_000 if joining else -1,
        subscribed_topic_names=topics if topics is not None or regex is not None or not joining else ["t"],
        subscribed_topic_regex=regex, server_assignor=assignor, owned=owned,
    ), TOPICS)


def parts(result: ConsumerHeartbeatResult, topic_id: uuid.UUID = T_ID) -> list[int]:
    assert result.assignment is not None
    return sorted(result.assignment.get(topic_id, []))


async def test_second_member_gets_partitions_only_after_the_first_revokes(h: Harness) -> None:
    a = await beat(h, "a", 0)
    assert a.error is ErrorCode.NONE and a.member_epoch == 1 and parts(a) == [0, 1, 2, 3]
    b = await beat(h, "b", 0)
    assert b.error is ErrorCode.NONE and b.member_epoch == 2
    assert parts(b) == []  # a still owns everything
    a2 = await beat(h, "a", 1)
    # a is told to keep two; its epoch stays until it confirms the revocation.
    assert a2.member_epoch == 1 and len(parts(a2)) == 2
    kept = parts(a2)
    a3 = await beat(h, "a", 1, owned={T_ID: kept})
    assert a3.member_epoch == 2 and a3.assignment is None
    b2 = await beat(h, "b", 2)
    assert sorted(parts(b2) + kept) == [0, 1, 2, 3]
    group = h.coord.rt.consumer_groups["g"]
    assert group.state() is ConsumerGroupState.STABLE and group.group_epoch == 2


async def test_epochs_are_checked(h: Harness) -> None:
    await beat(h, "a", 0)
    assert (await beat(h, "a", 5)).error is ErrorCode.FENCED_MEMBER_EPOCH
    assert (await beat(h, "zz", 1)).error is ErrorCode.UNKNOWN_MEMBER_ID
    await beat(h, "b", 0)
    a = await beat(h, "a", 1)
    await beat(h, "a", 1, owned={T_ID: parts(a)})  # now at epoch 2, previous 1
    # The previous epoch is accepted from a member owning no more than it is assigned (a lost response).
    assert (await beat(h, "a", 1, owned={T_ID: parts(a)})).error is ErrorCode.NONE
    assert (await beat(h, "a", 1, owned={T_ID: [0, 1, 2, 3]})).error is ErrorCode.FENCED_MEMBER_EPOCH
    assert (await beat(h, "", 0)).error is ErrorCode.INVALID_REQUEST
    assert (await beat(h, "c", 0, assignor="sticky")).error is ErrorCode.UNSUPPORTED_ASSIGNOR
    assert (await beat(h, "c", 0, regex="(")).error is ErrorCode.INVALID_REGULAR_EXPRESSION


async def test_leaving_bumps_the_group_epoch_and_frees_the_partitions(h: Harness) -> None:
    await beat(h, "a", 0)
    b = await beat(h, "b", 0)
    left = await beat(h, "a", -1)
    assert left.error is ErrorCode.NONE and left.member_epoch == -1
    b2 = await beat(h, "b", b.member_epoch)
    assert b2.member_epoch == 3 and parts(b2) == [0, 1, 2, 3]


async def test_session_expiry_on_the_clock_removes_the_member(h: Harness) -> None:
    await beat(h, "a", 0)
    b = await beat(h, "b", 0)
    await h.advance(h.coord.config.consumer_session_timeout_ms - 1)
    assert (await beat(h, "b", b.member_epoch)).error is ErrorCode.NONE  # b's session restarts
    await h.advance(1)
    assert "a" not in h.coord.rt.consumer_groups["g"].members
    assert (await beat(h, "a", 1)).error is ErrorCode.UNKNOWN_MEMBER_ID
    assert parts(await beat(h, "b", b.member_epoch)) == [0, 1, 2, 3]


async def test_a_member_that_does_not_revoke_in_time_is_fenced(h: Harness) -> None:
    await beat(h, "a", 0)
    await beat(h, "b", 0)
    await beat(h, "a", 1)  # told to revoke, never confirms
    await h.advance(29_999)
    await beat(h, "a", 1)
    assert "a" in h.coord.rt.consumer_groups["g"].members
    await h.advance(1)
    assert "a" not in h.coord.rt.consumer_groups["g"].members


async def test_static_member_returns_to_its_partitions_without_a_rebalance(h: Harness) -> None:
    a = await beat(h, "a", 0, instance="i1")
    b = await beat(h, "b", 0, instance="i2")
    a = await beat(h, "a", 1)
    await beat(h, "a", 1, owned={T_ID: parts(a)})
    b = await beat(h, "b", b.member_epoch)
    group = h.coord.rt.consumer_groups["g"]
    epoch = group.group_epoch
    assert (await beat(h, "b", -2, instance="i2")).member_epoch == -2
    assert group.members["b"].member_epoch == -2 and group.members["b"].assignment.assigned
    back = await beat(h, "b-new", 0, instance="i2")
    assert back.error is ErrorCode.NONE and back.member_epoch == b.member_epoch
    assert parts(back) == parts(b)
    assert group.group_epoch == epoch and "b" not in group.members
    # Its target moved with it (Kafka writes the target anew when a static member is
    # replaced): the next heartbeat keeps its partitions.
    assert group.target["b-new"] == frozenset(("t", p) for p in parts(b))
    kept = await beat(h, "b-new", back.member_epoch, owned={T_ID: parts(b)})
    assert kept.error is ErrorCode.NONE and kept.member_epoch == b.member_epoch
    assert group.members["b-new"].assignment.assigned == frozenset(("t", p) for p in parts(b))


async def test_static_instance_in_use_is_refused(h: Harness) -> None:
    await beat(h, "a", 0, instance="i1")
    assert (await beat(h, "b", 0, instance="i1")).error is ErrorCode.UNRELEASED_INSTANCE_ID


async def test_regex_subscription_matches_whole_names_and_skips_internal_topics(h: Harness) -> None:
    a = await beat(h, "a", 0, topics=None, regex="t|u|__.*")
    assert parts(a, T_ID) == [0, 1, 2, 3] and parts(a, U_ID) == [0, 1]
    group = h.coord.rt.consumer_groups["g"]
    assert set(group.subscription_metadata) == {"t", "u"}
    only_u = await beat(h, "c", 0, topics=None, regex="u", group="g2")
    assert only_u.assignment == {U_ID: [0, 1]}


async def test_offset_commits_carry_the_member_epoch(h: Harness) -> None:
    a = await beat(h, "a", 0)
    tp = ("t", 0)

    async def commit_async(member: str, epoch: int, version: int = 9) -> ErrorCode:
        results = await h.coord.commit_offsets(CommitOffsets(
            group_id="g", member_id=member, group_instance_id=None, generation_id=epoch,
            offsets={tp: OffsetAndMetadata(5, commit_timestamp=h.clock.now_ms())}, api_version=version))
        return results[tp]

    assert await commit_async("a", a.member_epoch) is ErrorCode.NONE
    assert await commit_async("a", a.member_epoch + 1) is ErrorCode.STALE_MEMBER_EPOCH
    assert await commit_async("nobody", a.member_epoch) is ErrorCode.UNKNOWN_MEMBER_ID
    assert await commit_async("a", a.member_epoch, version=8) is ErrorCode.UNSUPPORTED_VERSION
    assert await commit_async("", -1) is ErrorCode.UNKNOWN_MEMBER_ID  # the group has members
    error, fetched = h.coord.fetch_offsets("g", [tp], False)
    assert error is ErrorCode.NONE and fetched[tp].offset == 5


async def test_group_types_and_conversion_rules(h: Harness) -> None:
    await beat(h, "a", 0)
    _, listed = h.coord.list_groups([], [])
    assert [(g.group_id, g.group_type, g.state.value) for g in listed] == [("g", "consumer", "Stable")]
    assert h.coord.list_groups([], ["classic"])[1] == []
    assert h.coord.describe_group("g").error is ErrorCode.GROUP_ID_NOT_FOUND
    # A classic group with members is converted only as group.consumer.migration.policy allows
    # (its members stay, as classic members); an empty one always is.
    await h.stable_group(1, group="classic")
    allowed = h.coord.rt.config
    h.coord.rt.config = replace(allowed, migration_policy="downgrade")
    assert (await beat(h, "a", 0, group="classic")).error is ErrorCode.GROUP_ID_NOT_FOUND
    h.coord.rt.config = allowed
    assert (await beat(h, "a", 0, group="classic")).error is ErrorCode.NONE
    upgraded = h.coord.rt.consumer_groups["classic"]
    assert len(upgraded.members) == 2 and sum(m.classic is not None for m in upgraded.members.values()) == 1
    # The conversion is in the log: a reload finds the consumer group, its classic member's
    # protocols included, and an empty classic group holding the offsets.
    again = GroupCoordinator(h.log, h.clock, h.coord.config)
    again.rt.topic_names = lambda: {image.topic_id: name for name, image in TOPICS.items()}
    await again.load()
    reloaded = again.rt.consumer_groups["classic"]
    assert {m: (x.classic, x.assignment) for m, x in reloaded.members.items()} == \
        {m: (x.classic, x.assignment) for m, x in upgraded.members.items()}
    assert not again.rt.groups["classic"].members
    tp = ("t", 1)
    await h.coord.commit_offsets(CommitOffsets(
        group_id="empty", member_id="", group_instance_id=None, generation_id=-1,
        offsets={tp: OffsetAndMetadata(7, commit_timestamp=h.clock.now_ms())}))
    assert (await beat(h, "a", 0, group="empty")).error is ErrorCode.NONE
    assert h.coord.fetch_offsets("empty", [tp], False)[1][tp].offset == 7
    assert {g.group_id: g.group_type for g in h.coord.list_groups([], [])[1]}["empty"] == "consumer"


async def test_the_group_survives_a_reload_from_the_log(h: Harness) -> None:
    h.coord.rt.topic_names = lambda: {image.topic_id: name for name, image in TOPICS.items()}
    await beat(h, "a", 0, instance="i1")
    b = await beat(h, "b", 0)
    a = await beat(h, "a", 1)
    await beat(h, "a", 1, owned={T_ID: parts(a)})
    b = await beat(h, "b", b.member_epoch)
    await beat(h, "c", 0)
    await beat(h, "c", -1)  # left: tombstones
    before = h.coord.rt.consumer_groups["g"]

    again = GroupCoordinator(h.log, h.clock, h.coord.config)
    again.rt.topic_names = h.coord.rt.topic_names
    await again.load()
    after = again.rt.consumer_groups["g"]
    assert (after.group_epoch, after.assignment_epoch) == (before.group_epoch, before.assignment_epoch)
    assert set(after.members) == {"a", "b"}
    for m in ("a", "b"):
        assert after.members[m].assignment == before.members[m].assignment
        assert after.target[m] == before.target[m]
    assert after.members["a"].instance_id == "i1" and after.static_members == {"i1": "a"}
    assert after.owners == before.owners
    # Members carry on at their epochs; sessions restarted on load expire on the clock.
    half = again.config.consumer_session_timeout_ms // 2
    h.clock.advance(half)
    assert (await again.consumer_heartbeat(ConsumerHeartbeat(
        group_id="g", member_id="b", member_epoch=b.member_epoch), TOPICS)).error is ErrorCode.NONE
    h.clock.advance(again.config.consumer_session_timeout_ms - half)
    await again.settle()  # the expiry's write
    assert set(again.rt.consumer_groups["g"].members) == {"b"}


async def test_a_retried_join_is_answered_with_the_members_state(h: Harness) -> None:
    first = await beat(h, "a", 0)
    again = await beat(h, "a", 0)
    assert (again.error, again.member_epoch, again.assignment) == (ErrorCode.NONE, first.member_epoch, first.assignment)
    assert h.coord.rt.consumer_groups["g"].group_epoch == 1


async def test_an_empty_consumer_group_becomes_classic_on_join_and_deletes_durably(h: Harness) -> None:
    await beat(h, "a", 0)
    joining = h.join("g")
    await h.settle()
    # A classic member of the consumer group: the broker assigns, the generation is its epoch.
    joined = await joining
    assert (joined.error, joined.generation_id, joined.protocol_type) == (ErrorCode.NONE, 2, "consumer")
    assert (await h.coord.delete_groups(["g"])) == [("g", ErrorCode.NON_EMPTY_GROUP)]
    # The last member of the new protocol leaves: the group is classic again, and rebalances.
    await beat(h, "a", -1)
    assert "g" not in h.coord.rt.consumer_groups and h.coord.groups["g"].has(joined.member_id)
    # At the generation its classic member holds (no epoch bump, as Kafka's
    # consumerGroupFenceMember): told to rejoin, not fenced with ILLEGAL_GENERATION.
    assert h.coord.groups["g"].generation_id == joined.generation_id
    assert h.coord.heartbeat(MemberHeartbeat("g", joined.generation_id, joined.member_id, None)) \
        is ErrorCode.REBALANCE_IN_PROGRESS
    assert (await h.coord.leave_group("g", [LeavingMember(joined.member_id, None)])) == (ErrorCode.NONE, [ErrorCode.NONE])
    await h.settle()
    assert (await h.coord.delete_groups(["g"])) == [("g", ErrorCode.NONE)]
    again = GroupCoordinator(h.log, h.clock, h.coord.config)
    await again.load()
    assert "g" not in again.rt.consumer_groups

    await beat(h, "b", 0, group="g2")
    await beat(h, "b", -1, group="g2")
    await h.stable_group(1, group="g2")  # converted: a classic member joined and synced
    assert "g2" not in h.coord.rt.consumer_groups
    # A classic group with members: upgraded, its member kept as a classic member.
    assert (await beat(h, "c", 0, group="g2")).error is ErrorCode.NONE
    assert len(h.coord.rt.consumer_groups["g2"].members) == 2


async def test_no_downgrade_when_the_policy_forbids_it(h: Harness) -> None:
    h.coord.rt.config = replace(h.coord.rt.config, migration_policy="upgrade")
    h.coord.rt.topic_images = lambda: TOPICS
    await beat(h, "a", 0)
    joining = h.join("g")
    await h.settle()
    classic = await joining
    assert classic.error is ErrorCode.NONE
    # The last member of the new protocol leaves: the group stays a consumer group, its
    # classic member with it, and that one now gets every partition.
    await beat(h, "a", -1)
    group = h.coord.rt.consumer_groups["g"]
    assert list(group.members) == [classic.member_id] and "g" not in h.coord.groups
    assert h.coord.heartbeat(MemberHeartbeat("g", classic.generation_id, classic.member_id, None)) \
        is ErrorCode.REBALANCE_IN_PROGRESS
    rejoining = h.join("g", classic.member_id)
    await h.settle()
    rejoined = await rejoining
    assert rejoined.generation_id == group.group_epoch
    synced = await h.sync("g", rejoined.generation_id, classic.member_id)
    assert (synced.error, len(group.members[classic.member_id].assignment.assigned)) == (ErrorCode.NONE, 4)
