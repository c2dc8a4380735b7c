"""The raw-wire client of the tests that need to send exact bytes (odradek/wire.py's), and the
few request helpers several wire tests share (topic creation, idempotent batches,
transactions, fetch)."""

from __future__ import annotations

import asyncio
import ssl
import struct
import time
from typing import Any

from odradek.wire import WireConnection, decode_response, encode_request, parse_host_port
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.message import Message
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic

# How long the retrying helpers keep retrying CONCURRENT_TRANSACTIONS.
RETRY_SECONDS = 10.0

__all__ = [
    "WireClient", "add_partition", "call_async", "create_topic", "decode_response", "encode_request",
    "end_txn", "fetch_partition", "init_producer_id", "producer_batch",
]


class WireClient(WireConnection):
    """odradek/wire.py's connection, opened on a `host:port` string."""

    def __init__(self, bootstrap: str, timeout: float = 10.0, ssl_context: ssl.SSLContext | None = None) -> None:
        host, port = parse_host_port(bootstrap)
        super().__init__(host, port, timeout, ssl_context=ssl_context)

    def __enter__(self) -> WireClient:
        return self


async def call_async(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, api_key: int, version: int, body: Message, cid: int
) -> Message:
    """One request and its response on an asyncio stream pair."""
    writer.write(encode_request(api_key, version, body, cid))
    await writer.drain()
    (size,) = struct.unpack(">i", await reader.readexactly(4))
    got, response = decode_response(api_key, version, await reader.readexactly(size))
    assert got == cid
    return response


# -- request helpers ------------------------------------------------------------------------


def create_topic(c: WireClient, name: str) -> None:
    """Creates `name` (one partition) through Metadata's auto-creation."""
    c.call(3, 9, MetadataRequest(topics=[MetadataRequestTopic(name=name)], allow_auto_topic_creation=True))


def producer_batch(pid: int, epoch: int, seq: int, n: int = 2, *, txn: bool = False) -> bytes:
    """`n` records "k<i>"/"v<seq+i>" from producer `pid`/`epoch` starting at sequence `seq`."""
    now = int(time.time() * 1000)
    return rb.build_batch(
        [rb.Record(b"k%d" % i, b"v%d" % (seq + i), [], now) for i in range(n)],
        producer_id=pid, producer_epoch=epoch, base_sequence=seq, transactional=txn,
    )


def init_producer_id(c: WireClient, tid: str | None) -> tuple[int, int]:
    resp: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))
    assert resp.error_code == ErrorCode.NONE
    return resp.producer_id, resp.producer_epoch


def add_partition(c: WireClient, tid: str, pid: int, epoch: int, topic: str) -> None:
    """AddPartitionsToTxn v3 for partition 0 of `topic`, retried while the previous
    transaction completes."""
    deadline = time.monotonic() + RETRY_SECONDS
    while True:
        resp: Any = c.call(24, 3, AddPartitionsToTxnRequest(
            v3_and_below_transactional_id=tid, v3_and_below_producer_id=pid, v3_and_below_producer_epoch=epoch,
            v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=[0])],
        ))
        code = resp.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
        if code != ErrorCode.CONCURRENT_TRANSACTIONS:
            assert code == ErrorCode.NONE
            return
        assert time.monotonic() < deadline
        time.sleep(0.02)


def end_txn(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> None:
    """EndTxn v3, retried while the previous transaction completes."""
    deadline = time.monotonic() + RETRY_SECONDS
    while True:
        resp: Any = c.call(26, 3, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                committed=commit))
        if resp.error_code != ErrorCode.CONCURRENT_TRANSACTIONS:
            assert resp.error_code == ErrorCode.NONE
            return
        assert time.monotonic() < deadline
        time.sleep(0.02)


def fetch_partition(c: WireClient, topic: str, *, committed: bool) -> Any:
    """Partition 0 of `topic` from offset 0, without waiting (Fetch v11)."""
    resp: Any = c.call(1, 11, FetchRequest(
        max_wait_ms=0, min_bytes=0, max_bytes=10_000_000, isolation_level=1 if committed else 0,
        topics=[FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0,
                                                                    partition_max_bytes=5_000_000)])],
    ))
    return resp.responses[0].partitions[0]
