"""The sink's row digest (pipeline/markers.py) and its fast path: a task written through
`plain_columns` + `RowDigest.add_rows` must leave the marker a row-by-row task would, or a
replay would be taken for a non-deterministic one."""

from __future__ import annotations

import hashlib
import random
import struct

import pyarrow as pa

from pipeline.markers import RowDigest
from pipeline.transactional_write import plain_columns, rows_of


def reference_digest(rows: list[tuple[str, int, bytes | None, bytes | None, list[tuple[str, bytes]]]]) -> str:
    """The digest as markers committed so far computed it, update by update."""
    total = 0
    for topic, partition, key, value, headers in rows:
        h = hashlib.blake2b(digest_size=16)
        for part in (topic.encode(), key, value):
            h.update(b"\xff" if part is None else struct.pack(">I", len(part)) + part)
        h.update(struct.pack(">i", partition))
        for hk, hv in headers:
            h.update(hk.encode() + b"\x00" + (hv or b""))
        total = (total + int.from_bytes(h.digest(), "big")) & RowDigest.MASK
    return f"{total:032x}"


def test_add_keeps_the_committed_markers_digest() -> None:
    rng = random.Random(7)
    rows = [
        ("t", rng.choice([-1, 0, 3]), rng.choice([None, b"", b"k%d" % i]), rng.choice([None, b"v" * i]),
         rng.choice([[], [("h", b"x"), ("g", b"")]]))
        for i in range(300)
    ]
    digest = RowDigest()
    for row in rows:
        digest.add(*row)
    assert (digest.rows, digest.hexdigest()) == (300, reference_digest(rows))


def test_add_rows_is_add_without_partition_or_headers() -> None:
    keys = [None, b"", b"a", b"key-3"] * 25
    values = [b"v" * i if i % 7 else None for i in range(100)]
    digest = RowDigest()
    digest.add_rows("orders", keys, values)
    expected = reference_digest([("orders", -1, k, v, []) for k, v in zip(keys, values, strict=True)])
    assert (digest.rows, digest.hexdigest()) == (100, expected)


def test_plain_columns_take_binary_and_text_and_agree_with_rows_of() -> None:
    batch = pa.record_batch(
        [pa.array(["k1", None, "k3"], pa.string()), pa.array([b"v1", b"v2", None], pa.large_binary())],
        names=["key", "value"],
    )
    plain = plain_columns(batch, "out")
    assert plain == ("out", [b"k1", None, b"k3"], [b"v1", b"v2", None])
    assert [(t, k, v) for t, _p, k, v, _h in rows_of(batch, "out")] == list(
        zip(["out"] * 3, plain[1], plain[2], strict=True)
    )


def test_rows_needing_more_than_key_and_value_take_the_row_path() -> None:
    kv = [pa.array([b"k"]), pa.array([b"v"])]
    assert plain_columns(pa.record_batch(kv, names=["key", "value"]), None) is None  # topic per row
    assert plain_columns(pa.record_batch([*kv, pa.array([1], pa.int32())], names=["key", "value", "partition"]),
                         "out") is None
    headers = pa.array([[{"key": "h", "value": b"x"}]],
                       pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])))
    assert plain_columns(pa.record_batch([*kv, headers], names=["key", "value", "headers"]), "out") is None
    assert plain_columns(pa.record_batch([pa.array([1], pa.int64())], names=["value"]), "out") is None
    only_value = plain_columns(pa.record_batch([pa.array([b"v"])], names=["value"]), "out")
    assert only_value == ("out", [None], [b"v"])
