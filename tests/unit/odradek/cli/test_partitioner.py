"""The CLI's partitioner agrees with Kafka's Utils.murmur2 test vectors and with
kafka-python's implementation of the same partitioner."""

from __future__ import annotations

import pytest
from kafka.partitioner.default import murmur2 as kafka_python_murmur2

from odradek.cli.partitioner import murmur2, partition_for_key

# From Kafka's UtilsTest.testMurmur2.
VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


@pytest.mark.parametrize(("key", "expected"), VECTORS.items())
def test_kafka_vectors(key: bytes, expected: int) -> None:
    assert murmur2(key) == expected


def test_same_partitions_as_kafka_python() -> None:
    for i in range(500):
        key = b"key-%d" % i * (i % 7 + 1)
        for partitions in (1, 3, 12):
            assert partition_for_key(key, partitions) == (kafka_python_murmur2(key) & 0x7FFFFFFF) % partitions
