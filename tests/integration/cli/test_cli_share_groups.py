"""`odradek groups` for share groups: listed with protocol type share, described with their
members and start offsets, their start offsets reset while empty (`--share`)."""

from __future__ import annotations

from typing import Any

import pytest

from odradek.testing import OdradekBroker
from protocol.messages.share_fetch_request import FetchPartition, FetchTopic, ShareFetchRequest
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from tests.integration.cli.cli_helpers import cli
from tests.integration.share.share_clients import create_topic, new_name, produce
from tests.kafka_wire import WireClient


def test_share_group_list_describe_reset(capsys: pytest.CaptureFixture[str], broker: OdradekBroker) -> None:
    bs = broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["a", "b", "c", "d"])
    group = new_name("sg")
    run = cli(capsys, bs, "groups", "reset-offsets", group, "--share", "--topic", topic, "--to-offset", "1",
              "--execute")
    assert (run.code, run.json["offsets"]) == (0, [
        {"group": group, "topic": topic, "partition": 0, "current_offset": None, "new_offset": 1},
    ])
    with WireClient(bs) as c:
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        topic_id = joined.assignment.topic_partitions[0].topic_id
        fetched: Any = c.call(78, 1, ShareFetchRequest(
            group_id=group, member_id="m", share_session_epoch=0, max_records=10,
            topics=[FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]))
        assert [(a.first_offset, a.last_offset) for t in fetched.responses for p in t.partitions
                for a in p.acquired_records] == [(1, 3)]

        listed = cli(capsys, bs, "groups", "list")
        assert {"group": group, "state": "Stable", "protocol_type": "share"} in listed.json
        described = cli(capsys, bs, "groups", "describe", group)
        assert (described.code, described.json) == (0, {
            "group": group, "type": "share", "state": "Stable", "group_epoch": 1,
            "members": [{"member_id": "m", "client_id": described.json["members"][0]["client_id"],
                         "host": "/127.0.0.1", "assignment": [f"{topic}-0"]}],
            "offsets": [{"topic": topic, "partition": 0, "start_offset": 1, "lag": 3}],
        })
        refused = cli(capsys, bs, "groups", "reset-offsets", group, "--share", "--topic", topic, "--to-earliest",
                      "--execute")
        assert refused.code == 1 and "empty" in refused.err
        c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=-1))
    reset = cli(capsys, bs, "groups", "reset-offsets", group, "--share", "--all-topics", "--to-earliest",
                "--execute")
    assert (reset.code, reset.json["offsets"]) == (0, [
        {"group": group, "topic": topic, "partition": 0, "current_offset": 1, "new_offset": 0},
    ])
    described = cli(capsys, bs, "groups", "describe", group)
    assert described.json["offsets"] == [{"topic": topic, "partition": 0, "start_offset": 0, "lag": 4}]
