"""`odradek dump-log`: the files of a partition directory of the file engine, decoded offline
as Kafka's kafka-dump-log.sh (its DumpLogSegments) prints them: a segment's batches (and,
with --deep-iteration, its records; with --print-data-log their keys and values), its
`.index`, `.timeindex` and `.txnindex`, and producer `.snapshot` files.

The one command that does not speak the protocol: it reads files, with the storage engine's
own formats (storage/index.py, storage/txn_index.py, storage/producer_state.py) and the
protocol's decoders (protocol/record_batch.py; the internal topics' record schemas for
--offsets-decoder and --transaction-log-decoder)."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import mmap
import os
import re
import struct
import uuid
from collections.abc import Callable
from typing import Any

from odradek.cli.client import CliError
from odradek.cli.output import Output
from protocol import record_batch as rb
from protocol.codec import Writer
from protocol.message import Message
from protocol.messages.consumer_group_current_member_assignment_key import (
    ConsumerGroupCurrentMemberAssignmentKey,
)
from protocol.messages.consumer_group_current_member_assignment_value import (
    ConsumerGroupCurrentMemberAssignmentValue,
)
from protocol.messages.consumer_group_member_metadata_key import ConsumerGroupMemberMetadataKey
from protocol.messages.consumer_group_member_metadata_value import ConsumerGroupMemberMetadataValue
from protocol.messages.consumer_group_metadata_key import ConsumerGroupMetadataKey
from protocol.messages.consumer_group_metadata_value import ConsumerGroupMetadataValue
from protocol.messages.consumer_group_target_assignment_member_key import (
    ConsumerGroupTargetAssignmentMemberKey,
)
from protocol.messages.consumer_group_target_assignment_member_value import (
    ConsumerGroupTargetAssignmentMemberValue,
)
from protocol.messages.consumer_group_target_assignment_metadata_key import (
    ConsumerGroupTargetAssignmentMetadataKey,
)
from protocol.messages.consumer_group_target_assignment_metadata_value import (
    ConsumerGroupTargetAssignmentMetadataValue,
)
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.messages.group_metadata_key import GroupMetadataKey
from protocol.messages.group_metadata_value import GroupMetadataValue
from protocol.messages.offset_commit_key import OffsetCommitKey
from protocol.messages.offset_commit_value import OffsetCommitValue
from protocol.messages.transaction_log_key import TransactionLogKey
from protocol.messages.transaction_log_value import TransactionLogValue
from storage.index import OFFSET_ENTRY, TIME_ENTRY
from storage.producer_state import decode_snapshot
from storage.txn_index import ENTRY as TXN_ENTRY

RECORD_INDENT = "|"
MAX_BYTES = 2**31 - 1
# __consumer_offsets: the key's int16 version is the record type.
_OFFSETS_PAIRS: list[tuple[type[Message], type[Message]]] = [
    (OffsetCommitKey, OffsetCommitValue), (GroupMetadataKey, GroupMetadataValue),
    (ConsumerGroupMetadataKey, ConsumerGroupMetadataValue),
    (ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue),
    (ConsumerGroupTargetAssignmentMetadataKey, ConsumerGroupTargetAssignmentMetadataValue),
    (ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMemberValue),
    (ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupCurrentMemberAssignmentValue),
]
# The schemas' apiKey is the record type; type 0 is the older offset commit key.
OFFSETS_RECORDS = {0: (OffsetCommitKey, OffsetCommitValue), **{k.API_KEY: (k, v) for k, v in _OFFSETS_PAIRS}}
TRANSACTION_RECORDS: dict[int, tuple[type[Message], type[Message]]] = {0: (TransactionLogKey, TransactionLogValue)}

Parser = Callable[[rb.Record], tuple[str | None, str | None]]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _encoded(obj: Any, version: int) -> bytes:
    w = Writer()
    obj.write(w, version)
    return w.getvalue()


def _perturbed(value: Any) -> Any:
    """Another value of the same kind, to see whether a field is written at all."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - 1 if value > 0 else value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, bytes | bytearray):
        return bytes(value) + b"x"
    if isinstance(value, uuid.UUID):
        return uuid.UUID(int=value.int ^ 1)
    if isinstance(value, list):
        return [*value, value[0]] if value else None
    if value is None:
        return ""
    return None


def _fields_in(obj: Any, version: int) -> list[str]:
    """The fields `version` of the message carries (Kafka's JSON converters write only those):
    a field whose change leaves the encoding unchanged is not in the version; one whose
    change cannot be encoded is taken to be."""
    base = _encoded(obj, version)
    present: list[str] = []
    for f in dataclasses.fields(obj):
        if f.name == "unknown_tagged_fields":
            continue
        probe = copy.copy(obj)
        setattr(probe, f.name, _perturbed(getattr(obj, f.name)))
        try:
            if _encoded(probe, version) == base:
                continue
        except Exception:  # the probe's value does not fit the field: it is written
            pass
        present.append(f.name)
    return present


def message_json(value: Any, version: int | None = None) -> Any:
    """A decoded message as Kafka's generated JSON converters write it: the fields of
    `version` (all without one) in camelCase, bytes in base64, UUIDs as Kafka prints them
    (URL-safe base64, unpadded)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = ([f.name for f in dataclasses.fields(value) if f.name != "unknown_tagged_fields"]
                 if version is None else _fields_in(value, version))
        return {_camel(n): message_json(getattr(value, n), version) for n in names}
    if isinstance(value, list):
        return [message_json(v, version) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, uuid.UUID):
        return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")
    return value


def _consumer_protocol(kind: type[Message], raw: bytes) -> Any:
    """A consumer group member's subscription or assignment (int16 version, then the struct)
    as Kafka's formatter shows it: decoded, or in base64 if it does not decode."""
    try:
        (version,) = struct.unpack_from(">h", raw)
        return message_json(kind.decode(raw[2:], version), version)
    except Exception:
        return message_json(raw)


def _coordinator_parser(records: dict[int, tuple[type[Message], type[Message]]]) -> Parser:
    """Kafka's OffsetsMessageParser: the key as {"type": version, "data": ...}, the value as
    {"version": version, "data": ...} with the fields of that version, a tombstone as <DELETE>."""

    def parse(record: rb.Record) -> tuple[str | None, str | None]:
        if record.key is None or len(record.key) < 2:
            return "<NULL>", None
        (kind,) = struct.unpack_from(">h", record.key)
        if kind not in records:
            return f"unknown::version={kind}", None
        key_class, value_class = records[kind]
        try:
            key = key_class.decode(record.key[2:], 0)
        except Exception as exc:  # a damaged record: say so and go on, as Kafka's tool does
            return f"unparseable key of type {kind}: {exc}", None
        key_text = json.dumps({"type": str(kind), "data": message_json(key, 0)}, separators=(",", ":"))
        if record.value is None:
            return key_text, "<DELETE>"
        (version,) = struct.unpack_from(">h", record.value)
        try:
            value = value_class.decode(record.value[2:], version)
        except Exception as exc:
            return key_text, f"unparseable value of version {version}: {exc}"
        data = message_json(value, version)
        if isinstance(value, GroupMetadataValue) and value.protocol_type == "consumer":
            for member, shown in zip(value.members, data.get("members", []), strict=True):
                shown["subscription"] = _consumer_protocol(ConsumerProtocolSubscription, member.subscription)
                shown["assignment"] = _consumer_protocol(ConsumerProtocolAssignment, member.assignment)
        return key_text, json.dumps({"version": str(version), "data": data}, separators=(",", ":"))

    return parse


# Kafka's TransactionState names, by the status byte of __transaction_state values.
TRANSACTION_STATES = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead",
                      "PrepareEpochFence"]


def _transaction_parser(record: rb.Record) -> tuple[str | None, str | None]:
    """Kafka's TransactionLogMessageParser: `transaction_metadata::transactionalId=ID` and
    `producerId:P,producerEpoch:E,state=S,partitions=[t-0,...],txnLastUpdateTimestamp=T,
    txnTimeoutMs=M`; a tombstone as <DELETE>."""
    if record.key is None or len(record.key) < 2:
        return "<NULL>", None
    (version,) = struct.unpack_from(">h", record.key)
    if version not in TRANSACTION_RECORDS:
        return f"unknown::version={version}", None
    try:
        key = TransactionLogKey.decode(record.key[2:], 0)
    except Exception as exc:  # a damaged record: say so and go on
        return f"unparseable key of version {version}: {exc}", None
    key_text = f"transaction_metadata::transactionalId={key.transactional_id}"
    if record.value is None:
        return key_text, "<DELETE>"
    (value_version,) = struct.unpack_from(">h", record.value)
    try:
        v = TransactionLogValue.decode(record.value[2:], value_version)
    except Exception as exc:
        return key_text, f"unparseable value of version {value_version}: {exc}"
    state = (TRANSACTION_STATES[v.transaction_status] if 0 <= v.transaction_status < len(TRANSACTION_STATES)
             else f"Unknown({v.transaction_status})")
    partitions = ",".join(f"{t.topic}-{p}" for t in v.transaction_partitions or [] for p in t.partition_ids)
    return key_text, (f"producerId:{v.producer_id},producerEpoch:{v.producer_epoch},state={state},"
                      f"partitions=[{partitions}],txnLastUpdateTimestamp={v.transaction_last_update_timestamp_ms},"
                      f"txnTimeoutMs={v.transaction_timeout_ms}")


def _utf8(data: bytes | None) -> str | None:
    return None if data is None else data.decode(errors="replace")


def _default_parser(record: rb.Record) -> tuple[str | None, str | None]:
    return _utf8(record.key), _utf8(record.value)


def _optional_long(value: int | None) -> str:
    return "OptionalLong.empty" if value is None else f"OptionalLong[{value}]"


def _timestamp_type(header: rb.BatchHeader) -> str:
    return "LogAppendTime" if header.timestamp_type == rb.TimestampType.LOG_APPEND_TIME else "CreateTime"


def _delete_horizon(header: rb.BatchHeader) -> int | None:
    return header.base_timestamp if header.has_delete_horizon else None


class Sink:
    """Where the text goes: printed as it is made (`emit`: a segment may hold millions of
    records) or kept for --json, which keeps the data too."""

    def __init__(self, emit: Callable[[str], None] | None) -> None:
        self.emit = emit
        self.lines: list[str] = []
        self.keep = emit is None

    def append(self, line: str) -> None:
        if self.emit is not None:
            self.emit(line)
        else:
            self.lines.append(line)


def _zeros(view: memoryview, chunk: int = 1 << 20) -> bool:
    return all(not view[i:i + chunk].tobytes().strip(b"\0") for i in range(0, len(view), chunk))


def _dump_segment(path: str, deep: bool, print_data: bool, parser: Parser, max_bytes: int,
                  skip_metadata: bool, lines: Sink) -> dict[str, Any]:
    base = int(os.path.basename(path).split(".")[0])
    lines.append(f"Log starting offset: {base}")
    batches: list[dict[str, Any]] = []
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        buf = memoryview(mapped) if mapped is not None else memoryview(b"")
        try:
            end = 0
            for pos, h in rb.iter_batches(buf):
                if pos > max_bytes:
                    break
                end = pos + h.size
                valid = rb.batch_crc(buf, pos, h.size) == h.crc
                codec = h.compression.name.lower() if (h.attributes & rb.COMPRESSION_MASK) <= 4 else "unknown"
                batch: dict[str, Any] = {
                    "base_offset": h.base_offset, "last_offset": h.last_offset, "count": h.records_count,
                    "base_sequence": h.base_sequence, "last_sequence": h.last_sequence,
                    "producer_id": h.producer_id, "producer_epoch": h.producer_epoch,
                    "partition_leader_epoch": h.partition_leader_epoch, "is_transactional": h.is_transactional,
                    "is_control": h.is_control, "delete_horizon_ms": _delete_horizon(h), "position": pos,
                    "timestamp_type": _timestamp_type(h), "max_timestamp": h.max_timestamp, "size": h.size,
                    "magic": h.magic, "compression": codec, "crc": h.crc, "is_valid": valid}
                if not skip_metadata:
                    lines.append(
                        f"baseOffset: {h.base_offset} lastOffset: {h.last_offset} count: {h.records_count} "
                        f"baseSequence: {h.base_sequence} lastSequence: {h.last_sequence} producerId: {h.producer_id} "
                        f"producerEpoch: {h.producer_epoch} partitionLeaderEpoch: {h.partition_leader_epoch} "
                        f"isTransactional: {str(h.is_transactional).lower()} isControl: {str(h.is_control).lower()} "
                        f"deleteHorizonMs: {_optional_long(_delete_horizon(h))} position: {pos} "
                        f"{_timestamp_type(h)}: {h.max_timestamp} size: {h.size} magic: {h.magic} "
                        f"compresscodec: {codec} crc: {h.crc} isvalid: {str(valid).lower()}")
                if deep and valid:
                    batch["records"] = _records(buf, pos, h, print_data, parser, skip_metadata, lines)
                if lines.keep:
                    batches.append(batch)
            # A tail of zeros is the space an open segment was preallocated (log.preallocate).
            if end < size and end <= max_bytes and not _zeros(buf[end:]):
                lines.append(f"Found {size - end} invalid bytes at the end of {os.path.basename(path)}")
        finally:
            buf.release()
            if mapped is not None:
                mapped.close()
    return {"log_start_offset": base, "batches": batches}


def _records(buf: memoryview, pos: int, h: rb.BatchHeader, print_data: bool, parser: Parser,
             skip_metadata: bool, lines: Sink) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in rb.decode_batch(buf, pos).records:
        delta = r.offset - h.base_offset
        sequence = rb.increment_sequence(h.base_sequence, delta) if h.base_sequence >= 0 else -1
        key_size = -1 if r.key is None else len(r.key)
        value_size = -1 if r.value is None else len(r.value)
        rec: dict[str, Any] = {"offset": r.offset, "timestamp": r.timestamp, "key_size": key_size,
                               "value_size": value_size, "sequence": sequence,
                               "header_keys": [k for k, _ in r.headers]}
        text = "" if skip_metadata else (
            f"{RECORD_INDENT} offset: {r.offset} {_timestamp_type(h)}: {r.timestamp} keySize: {key_size} "
            f"valueSize: {value_size} sequence: {sequence} headerKeys: [{','.join(rec['header_keys'])}]")
        if h.is_control:
            try:
                control = rb.parse_control_record(r)
                rec["end_txn_marker"] = {"type": control.control_type.name,
                                         "coordinator_epoch": control.coordinator_epoch}
                text += f" endTxnMarker: {control.control_type.name} coordinatorEpoch: {control.coordinator_epoch}"
            except rb.RecordBatchError:
                text += " unknown control record"
        elif print_data:
            key, payload = parser(r)
            if key is not None:
                rec["key"] = key
                text += f" key: {key}"
            if payload is not None:
                rec["payload"] = payload
                text += f" payload: {payload}"
        lines.append(text.lstrip() if skip_metadata else text)
        if lines.keep:
            out.append(rec)
    return out


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _dump_index(path: str, base: int) -> tuple[list[str], list[dict[str, int]]]:
    raw = _read(path)
    entries = []
    for i, (rel, position) in enumerate(OFFSET_ENTRY.iter_unpack(raw[: len(raw) - len(raw) % OFFSET_ENTRY.size])):
        if i > 0 and rel == 0 and position == 0:
            break  # a zero-filled tail (Kafka's preallocated indexes)
        entries.append({"offset": base + rel, "position": position})
    return [f"offset: {e['offset']} position: {e['position']}" for e in entries], entries


def _dump_time_index(path: str, base: int) -> tuple[list[str], list[dict[str, int]]]:
    raw = _read(path)
    entries = []
    for i, (stamp, rel) in enumerate(TIME_ENTRY.iter_unpack(raw[: len(raw) - len(raw) % TIME_ENTRY.size])):
        if i > 0 and stamp == 0 and rel == 0:
            break
        entries.append({"timestamp": stamp, "offset": base + rel})
    return [f"timestamp: {e['timestamp']} offset: {e['offset']}" for e in entries], entries


def _dump_txn_index(path: str) -> tuple[list[str], list[dict[str, int]]]:
    raw = _read(path)
    entries = [{"version": v, "producer_id": pid, "first_offset": first, "last_offset": last,
                "last_stable_offset": lso}
               for v, pid, first, last, lso in TXN_ENTRY.iter_unpack(raw[: len(raw) - len(raw) % TXN_ENTRY.size])]
    return [f"version: {e['version']} producerId: {e['producer_id']} firstOffset: {e['first_offset']} "
            f"lastOffset: {e['last_offset']} lastStableOffset: {e['last_stable_offset']}" for e in entries], entries


def _dump_snapshot(path: str) -> tuple[list[str], list[dict[str, Any]]]:
    decoded = decode_snapshot(_read(path))
    if decoded is None:
        raise CliError(f"{path}: not a producer state snapshot of this broker (torn, corrupt or of another version)")
    lines: list[str] = []
    entries: list[dict[str, Any]] = []
    for e in decoded:
        batches = [{"first_sequence": b.first_seq, "last_sequence": b.last_seq, "first_offset": b.first_offset,
                    "last_offset": b.last_offset, "log_append_time": b.log_append_time} for b in e.batches]
        entries.append({"producer_id": e.producer_id, "producer_epoch": e.epoch,
                        "coordinator_epoch": e.coordinator_epoch, "current_txn_first_offset": e.current_txn_first_offset,
                        "last_timestamp": e.last_timestamp, "batches": batches})
        # Kafka's snapshot keeps one batch per producer and prints it: the latest here.
        last = e.batches[-1] if e.batches else None
        tail = "" if last is None else (
            f" firstSequence: {last.first_seq} lastSequence: {last.last_seq} lastOffset: {last.last_offset} "
            f"offsetDelta: {last.last_offset - last.first_offset} timestamp: {e.last_timestamp}")
        lines.append(f"producerId: {e.producer_id} producerEpoch: {e.epoch} coordinatorEpoch: {e.coordinator_epoch} "
                     f"currentTxnFirstOffset: {_optional_long(e.current_txn_first_offset)} "
                     f"lastTimestamp: {e.last_timestamp}{tail}")
    return lines, entries


def dump(files: list[str], *, deep: bool = False, print_data: bool = False, offsets_decoder: bool = False,
         transaction_log_decoder: bool = False, max_bytes: int = MAX_BYTES, skip_metadata: bool = False,
         emit: Callable[[str], None] | None = None) -> Output:
    """As DumpLogSegments: a decoder implies --print-data-log, which implies --deep-iteration.
    With `emit` the text is handed to it line by line as it is made (and not returned)."""
    if offsets_decoder and transaction_log_decoder:
        raise CliError("--offsets-decoder and --transaction-log-decoder exclude each other")
    parser: Parser = _default_parser
    if offsets_decoder:
        parser = _coordinator_parser(OFFSETS_RECORDS)
    elif transaction_log_decoder:
        parser = _transaction_parser
    print_data = print_data or offsets_decoder or transaction_log_decoder
    deep = deep or print_data
    paths = [p.strip() for item in files for p in item.split(",") if p.strip()]
    if not paths:
        raise CliError("Missing required argument \"[files]\"")
    lines = Sink(emit)
    data: list[dict[str, Any]] = []
    for path in paths:
        name = os.path.basename(path)
        match = re.fullmatch(r"(\d+)\.(log|index|timeindex|txnindex|snapshot)", name)
        if match is None:
            lines.append(f"Ignoring unknown file {path}")
            data.append({"file": path, "type": "unknown"})
            continue
        if not os.path.isfile(path):
            raise CliError(f"{path}: no such file")
        lines.append(f"Dumping {path}")
        base, kind = int(match.group(1)), match.group(2)
        try:
            if kind == "log":
                doc = _dump_segment(path, deep, print_data, parser, max_bytes, skip_metadata, lines)
                data.append({"file": path, "type": "log", **doc})
                continue
            if kind == "index":
                text, entries = _dump_index(path, base)
            elif kind == "timeindex":
                text, entries = _dump_time_index(path, base)
            elif kind == "txnindex":
                text, entries = _dump_txn_index(path)
            else:
                text, entries = _dump_snapshot(path)
        except OSError as exc:
            raise CliError(f"{path}: {exc.strerror or exc}") from None
        except rb.RecordBatchError as exc:
            raise CliError(f"{path}: {exc}") from None
        data.append({"file": path, "type": kind, "entries": entries})
        for line in text:
            lines.append(line)
    return Output(data, lines=lines.lines)
