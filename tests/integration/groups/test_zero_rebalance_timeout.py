"""A classic JoinGroup with a zero rebalance timeout, as kafkajs 2.2.4 sends it (it leaves
`rebalance_timeout_ms` unset). Kafka's GroupMetadataManager schedules the pending-sync
expiry after the group's rebalance timeout, the largest of its members': with 0 it fires at
once and removes the member before its SyncGroup arrives. The same exchange against Apache
Kafka 4.0.0 (initial rebalance delay 0 and 3000 ms alike) answers the SyncGroup
UNKNOWN_MEMBER_ID, as this broker does.

In Kafka the expiry is a race, not a rule: its timer runs on the SystemTimerReaper thread and
queues the expiry as one more coordinator event, so a SyncGroup sent the instant the JoinGroup
answer arrives can be queued first. Measured against Apache Kafka 4.0.0 on loopback: 11 of 40
immediate SyncGroups succeeded, none of 20 sent 20 ms later; kafkajs 2.2.4's own
`offsetCommit.spec.js` tests passed 4 of 18 runs there, its `errorRecovery.spec.js` "recovers
from offset out of range" failed 7 of 7. The expiry firing at once is the answer Kafka gives in
most runs and in every run where the client takes a few milliseconds."""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.sync_group_request import SyncGroupRequest, SyncGroupRequestAssignment
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique


def test_join_and_sync_with_zero_rebalance_timeout(group_broker: BrokerProcess) -> None:
    group = unique("g")

    def join(c: WireClient, member_id: str) -> Any:
        return c.call(11, 5, JoinGroupRequest(
            group_id=group, session_timeout_ms=30_000, rebalance_timeout_ms=0, member_id=member_id,
            protocol_type="consumer", protocols=[JoinGroupRequestProtocol(name="roundrobin", metadata=b"m")]))

    with WireClient(group_broker.bootstrap, timeout=30.0) as c:
        first = join(c, "")
        assert first.error_code == ErrorCode.MEMBER_ID_REQUIRED
        joined = join(c, first.member_id)
        assert (joined.error_code, joined.generation_id, joined.leader) == (ErrorCode.NONE, 1, first.member_id)
        assert [m.member_id for m in joined.members] == [first.member_id]
        synced: Any = c.call(14, 3, SyncGroupRequest(
            group_id=group, generation_id=1, member_id=first.member_id,
            assignments=[SyncGroupRequestAssignment(member_id=first.member_id, assignment=b"a")]))
        assert (synced.error_code, synced.assignment) == (ErrorCode.UNKNOWN_MEMBER_ID, b"")
