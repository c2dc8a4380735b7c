"""Fuzz target: record-batch validation and record iteration (protocol/record_batch.py),
compressed batches included.

The first input byte holds flags, the rest is one partition's records of a Produce
request. Unless the flags say otherwise the CRC is stamped right first, so the fuzzer
gets past it to the records (and decompression) instead of stopping at the checksum.
Invariant: only the record-batch error family (`RecordBatchError`, which the broker maps
to CORRUPT_MESSAGE / INVALID_RECORD / MESSAGE_TOO_LARGE) escapes validation, record
iteration, full decoding and control-record parsing.
"""

from __future__ import annotations

import struct

from fuzz.harness import instrumented, main

with instrumented("protocol"):
    from protocol import record_batch as rb

_ALLOW_CONTROL = 1
_KEEP_CRC = 2


def check(data: bytes) -> None:
    if not data:
        return
    flags, records = data[0], bytearray(data[1:])
    if not flags & _KEEP_CRC and len(records) >= rb.HEADER_SIZE:
        size = min(len(records), rb.BatchHeader.parse(records).size)
        if size >= rb.HEADER_SIZE:
            struct.pack_into(">I", records, rb.CRC_OFFSET, rb.batch_crc(records, 0, size))
    try:
        header = rb.validate_produce_records(records, allow_control=bool(flags & _ALLOW_CONTROL))
        fields = list(rb.iter_record_fields(records, header))
        decoded = rb.decode_batch(records)
        assert len(fields) == len(decoded.records) == header.records_count
        if header.is_control:
            for record in decoded.records:
                rb.parse_control_record(record)
    except rb.RecordBatchError:
        return


def seeds() -> list[bytes]:
    records = [
        rb.Record(b"key", b"value", [("h", b"1"), ("n", None)], 1_000),
        rb.Record(None, b"v" * 40, [], 1_005),
        rb.Record(b"k", None, [], 999),
    ]
    batches = [rb.build_batch(records, compression=c) for c in rb.Compression]
    batches.append(rb.build_batch(records, producer_id=5, producer_epoch=1, base_sequence=0, transactional=True))
    batches.append(rb.build_batch(records[:1], timestamp_type=rb.TimestampType.LOG_APPEND_TIME))
    control = [rb.build_control_batch(t, producer_id=5, producer_epoch=1, coordinator_epoch=3, timestamp=7)
               for t in (rb.ControlType.COMMIT, rb.ControlType.ABORT)]
    return [bytes([0]) + b for b in batches] + [bytes([_ALLOW_CONTROL]) + b for b in control]


if __name__ == "__main__":
    main(check, seeds)
