"""TxnOffsetCommit and OffsetFetch over the raw wire."""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode as E
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from protocol.messages.txn_offset_commit_request import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from tests.kafka_wire import WireClient


def _commit(c: WireClient, tid: str, pid: int, epoch: int, group: str, offsets: dict[tuple[str, int], int],
            version: int = 3, **kw: Any) -> dict[tuple[str, int], int]:
    by_topic: dict[str, list[TxnOffsetCommitRequestPartition]] = {}
    for (t, p), o in offsets.items():
        by_topic.setdefault(t, []).append(TxnOffsetCommitRequestPartition(partition_index=p, committed_offset=o,
                                                                          committed_metadata="m"))
    resp: Any = c.call(28, version, TxnOffsetCommitRequest(
        transactional_id=tid, group_id=group, producer_id=pid, producer_epoch=epoch,
        topics=[TxnOffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in by_topic.items()], **kw,
    ))
    return {(t.name, p.partition_index): p.error_code for t in resp.topics for p in t.partitions}


def _fetch(c: WireClient, group: str, tps: list[tuple[str, int]], stable: bool) -> dict[tuple[str, int], Any]:
    by_topic: dict[str, list[int]] = {}
    for t, p in tps:
        by_topic.setdefault(t, []).append(p)
    resp: Any = c.call(9, 7, OffsetFetchRequest(
        group_id=group, require_stable=stable,
        topics=[OffsetFetchRequestTopic(name=t, partition_indexes=ps) for t, ps in by_topic.items()],
    ))
    assert resp.error_code == E.NONE
    return {(t.name, p.partition_index): (p.committed_offset, p.error_code) for t in resp.topics
            for p in t.partitions}
