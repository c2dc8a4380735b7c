"""A classic JoinGroup with a zero rebalance timeout, as kafkajs 2.2.4 sends it (it leaves
`rebalance_timeout_ms` unset): against Apache Kafka 4.0 the SyncGroup that follows succeeds
(kafkajs's own offsetCommit.spec.js and errorRecovery.spec.js pass there). Issue 28, item 6:
odradek answers UNKNOWN_MEMBER_ID; the fix belongs to coordinator/group (reshaped in
parallel), hence strict xfail until then."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.sync_group_request import SyncGroupRequest, SyncGroupRequestAssignment
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique


@pytest.mark.xfail(strict=True, reason="issue 28 item 6: a zero rebalance timeout expires the pending sync at once")
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
        assert (synced.error_code, synced.assignment) == (ErrorCode.NONE, b"a")
