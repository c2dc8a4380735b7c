"""`odradek dump-log` (kafka-dump-log.sh) on the files a real broker wrote: a partition with
a committed and an aborted transaction (its segment, offset and time indexes, transaction
index and producer snapshot), and the internal topics' records through --offsets-decoder and
--transaction-log-decoder. Offline: the broker is stopped before the files are read."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from odradek.__main__ import main
from odradek.testing import OdradekBroker
from protocol.limits import INT64_MAX
from tests.integration.cli.cli_helpers import Run, cli_process
from tests.polling import wait_until

TOPIC, TXN_ID, GROUP, JOINED = "dumped", "tx-dump", "g-dump", "g-joined"
STAMP = 1_700_000_000_000


def _dump(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    capsys.readouterr()
    code = main(["dump-log", *args])
    out = capsys.readouterr()
    return Run(code, out.out, out.err)


def _files(data: Path, partition_dir: str) -> dict[str, Path]:
    return {p.suffix: p for p in sorted((data / partition_dir).iterdir()) if p.stat().st_size > 0}


@pytest.fixture
def written(fresh_broker: OdradekBroker, capsys: pytest.CaptureFixture[str]) -> tuple[Path, int]:
    """The broker's data directory after: a committed transaction (offsets 0-1), an aborted
    one (2-3), a group's offset commit; and the producer id."""
    bootstrap = fresh_broker.bootstrap
    # One segment: Kafka rolls when a batch's timestamp is segment.ms past the first batch's,
    # and the markers carry the broker's clock, years past STAMP.
    assert main(["--bootstrap-server", bootstrap, "topics", "create", TOPIC, "--partitions", "1",
                 "--config", "index.interval.bytes=1", "--config", f"segment.ms={INT64_MAX}"]) == 0
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": TXN_ID})
    producer.init_transactions(10)
    producer.begin_transaction()
    producer.produce(TOPIC, key=b"k1", value=b"v1", partition=0, headers=[("trace", b"t1")], timestamp=STAMP)
    producer.commit_transaction(10)
    producer.begin_transaction()
    producer.produce(TOPIC, key=b"k2", value=b"v2", partition=0, timestamp=STAMP + 1000)
    assert producer.flush(10) == 0
    producer.abort_transaction(10)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP})
    consumer.commit(offsets=[TopicPartition(TOPIC, 0, 4)], asynchronous=False)
    consumer.close()
    # A classic group's member: its subscription and assignment in a GroupMetadata record.
    member = Consumer({"bootstrap.servers": bootstrap, "group.id": JOINED, "enable.auto.commit": False})
    member.subscribe([TOPIC])
    wait_until(lambda: member.poll(0.1) is None and bool(member.assignment()), what="the assignment")
    member.close()
    capsys.readouterr()
    assert main(["--bootstrap-server", bootstrap, "--json", "producers", "describe", "--topic", TOPIC]) == 0
    pid = json.loads(capsys.readouterr().out)[0]["producer_id"]

    def aborted() -> bool:  # the abort marker written (EndTxn answers before)
        capsys.readouterr()
        main(["--bootstrap-server", bootstrap, "--json", "transactions", "describe", "--transactional-id", TXN_ID])
        return bool(json.loads(capsys.readouterr().out)["state"] == "CompleteAbort")

    wait_until(aborted, what="the abort marker")
    fresh_broker.stop()
    return fresh_broker.data_dir, pid


def _internal(data: Path, topic: str) -> Path:
    """The one segment of `topic`'s partitions that holds records."""
    (log,) = [p for p in data.glob(f"{topic}-*/*.log") if p.stat().st_size > 0]
    return log


def test_partition_files(written: tuple[Path, int], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data, pid = written
    files = _files(data, f"{TOPIC}-0")
    log = str(files[".log"])
    run = _dump(capsys, "--files", log, "--print-data-log")
    lines = run.out.splitlines()
    assert (run.code, lines[:2]) == (0, [f"Dumping {log}", "Log starting offset: 0"])
    assert [line for line in lines if line.startswith("|")] == [
        "| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 2 sequence: 0 headerKeys: [trace] key: k1 payload: v1",
        lines[5],
        "| offset: 2 CreateTime: 1700000001000 keySize: 2 valueSize: 2 sequence: 1 headerKeys: [] key: k2 payload: v2",
        lines[9]]
    assert lines[5].endswith(" keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0")
    assert lines[9].endswith(" keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 0")
    assert lines[2].startswith(f"baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: {pid} "
                               "producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: false "
                               "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000000 size: ")
    assert lines[2].endswith(" magic: 2 compresscodec: none crc: " + lines[2].split("crc: ")[1].split()[0] + " isvalid: true")

    # Batches only, without --deep-iteration; --json gives the same as data.
    assert not [line for line in _dump(capsys, "--files", log).out.splitlines() if line.startswith("|")]
    (segment,) = _dump(capsys, "--files", log, "--json").json
    batches = segment["batches"]
    assert [(b["base_offset"], b["is_control"], b["is_valid"]) for b in batches] == [
        (0, False, True), (1, True, True), (2, False, True), (3, True, True)]
    assert all(a["position"] + a["size"] == b["position"] for a, b in itertools.pairwise(batches))

    # The indexes point at those batches (index.interval.bytes=1: every batch but the first).
    run = _dump(capsys, "--files", f"{files['.index']},{files['.timeindex']},{files['.txnindex']}", "--json")
    index, time_index, txn_index = run.json
    assert index["entries"] == [{"offset": b["base_offset"], "position": b["position"]} for b in batches[1:]]
    # The time index: each indexed batch whose timestamp beats the last entry's (the abort
    # marker's only if the broker's clock moved on a millisecond since the commit marker).
    marked = [1, 3] if batches[3]["max_timestamp"] > batches[1]["max_timestamp"] else [1]
    assert time_index["entries"] == [{"timestamp": batches[i]["max_timestamp"], "offset": i} for i in marked]
    assert txn_index["entries"] == [
        {"version": 0, "producer_id": pid, "first_offset": 2, "last_offset": 3, "last_stable_offset": 4}]
    run = _dump(capsys, "--files", str(files[".txnindex"]))
    assert run.out == (f"Dumping {files['.txnindex']}\n"
                       f"version: 0 producerId: {pid} firstOffset: 2 lastOffset: 3 lastStableOffset: 4\n")
    run = _dump(capsys, "--files", str(files[".index"]))
    assert run.out.splitlines()[1:] == [f"offset: {b['base_offset']} position: {b['position']}" for b in batches[1:]]

    # The producer snapshot written at the clean shutdown, at the log end offset.
    snapshot = files[".snapshot"]
    assert snapshot.name == "00000000000000000004.snapshot"
    (snap,) = _dump(capsys, "--files", str(snapshot), "--json").json
    (producer,) = snap["entries"]
    assert (producer["producer_id"], producer["producer_epoch"], producer["current_txn_first_offset"],
            producer["batches"][-1]["first_sequence"], producer["batches"][-1]["last_offset"]) == (pid, 0, None, 1, 2)
    line = _dump(capsys, "--files", str(snapshot)).out.splitlines()[1]
    assert line.startswith(f"producerId: {pid} producerEpoch: 0 coordinatorEpoch: 0 "
                           "currentTxnFirstOffset: OptionalLong.empty lastTimestamp: ")
    assert " firstSequence: 1 lastSequence: 1 lastOffset: 2 offsetDelta: 0 timestamp: " in line

    # A damaged copy: a flipped byte fails the CRC (its records not read), a torn tail is counted.
    damaged = tmp_path / "00000000000000000000.log"
    raw = bytearray(files[".log"].read_bytes())
    raw[batches[2]["position"] + 70] ^= 0xFF
    damaged.write_bytes(bytes(raw) + b"\x00\x01\x02")
    run = _dump(capsys, "--files", str(damaged), "--deep-iteration")
    lines = run.out.splitlines()
    assert [line.endswith(" isvalid: true") for line in lines if line.startswith("baseOffset")] == [
        True, True, False, True]
    assert not [line for line in lines if line.startswith("| offset: 2 ")]
    assert lines[-1] == f"Found 3 invalid bytes at the end of {damaged.name}"

    other = data / f"{TOPIC}-0" / "partition.metadata"
    assert _dump(capsys, "--files", str(other)).out == f"Ignoring unknown file {other}\n"
    run = _dump(capsys, "--files", str(tmp_path / "00000000000000000042.log"))
    assert (run.code, run.err) == (1, f"Error: {tmp_path / '00000000000000000042.log'}: no such file\n")


def test_internal_topics_decoded(written: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    """Kafka 4.0's decoders: __consumer_offsets records as JSON of the record's version (a
    member's subscription and assignment decoded), __transaction_state records as its text."""
    data, pid = written
    offsets = [p for p in data.glob("__consumer_offsets-*/*.log") if p.stat().st_size > 0]
    run = _dump(capsys, "--files", ",".join(map(str, offsets)), "--offsets-decoder")
    records = [line for line in run.out.splitlines() if line.startswith("|")]
    decoded = [(json.loads(r.split(" key: ")[1].split(" payload: ")[0]), r.split(" payload: ")[1]) for r in records]
    (commit,) = [json.loads(v) for k, v in decoded if k["data"].get("group") == GROUP]
    # Version 3 of OffsetCommitValue: no expireTimestamp (v1 only), no topicId (v4+).
    assert commit == {"version": "3", "data": {"offset": 4, "leaderEpoch": -1, "metadata": "",
                                               "commitTimestamp": commit["data"]["commitTimestamp"]}}
    joined = [json.loads(v) for k, v in decoded if k == {"type": "2", "data": {"group": JOINED}}]
    # Stable with its member, then Empty once the member left.
    assert [len(g["data"]["members"]) for g in joined] == [1, 0]
    (member,) = joined[0]["data"]["members"]
    assert member["subscription"]["topics"] == [TOPIC]
    assert member["assignment"]["assignedPartitions"] == [{"topic": TOPIC, "partitions": [0]}]
    assert joined[-1]["data"]["protocolType"] == "consumer"

    log = _internal(data, "__transaction_state")
    run = _dump(capsys, "--files", str(log), "--transaction-log-decoder")
    records = [line for line in run.out.splitlines() if line.startswith("|")]
    assert {r.split(" key: ")[1].split(" payload: ")[0] for r in records} == {
        f"transaction_metadata::transactionalId={TXN_ID}"}
    payloads = [r.split(" payload: ")[1] for r in records]
    assert [re.search(r",state=(\w+),", p).group(1) for p in payloads] == [  # type: ignore[union-attr]
        "Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "Ongoing", "PrepareAbort", "CompleteAbort"]
    assert all(p.startswith(f"producerId:{pid},producerEpoch:0,state=") for p in payloads)
    assert f"partitions=[{TOPIC}-0],txnLastUpdateTimestamp=" in payloads[1]
    assert payloads[0].endswith(",txnTimeoutMs=60000")

    # The `odradek` command, offline: no broker runs and none is asked for.
    proc = cli_process("dump-log", "--files", str(log), "--skip-record-metadata", "--transaction-log-decoder",
                       "--bootstrap-server", "127.0.0.1:1")
    assert proc.code == 0
    assert proc.out.splitlines()[2] == (f"key: transaction_metadata::transactionalId={TXN_ID} payload: "
                                        + payloads[0])
