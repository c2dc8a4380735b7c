"""The client side of container/test.sh: a stock client (aiokafka) through the published port.

    check.py produce BOOTSTRAP TOPIC COUNT EXPECTED_FILE   # acks=all, writes what was acknowledged
    check.py consume BOOTSTRAP TOPIC EXPECTED_FILE         # reads every partition from the start
                                                           # and compares with EXPECTED_FILE
    check.py metrics URL MIN_PRODUCE TOPIC PARTITIONS      # /readyz answers 200, /metrics counts
                                                           # at least MIN_PRODUCE Produce requests
                                                           # and TOPIC has PARTITIONS partitions
Exit 0 when the records match exactly (partition, offset, key, value, headers), 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
import uuid
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer


async def produce(bootstrap: str, topic: str, count: int, expected: Path) -> int:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    records = []
    try:
        for i in range(count):
            key, value = f"key-{i % 7}".encode(), f"record {i} {uuid.uuid4()}".encode()
            meta = await producer.send_and_wait(topic, value, key=key, headers=[("n", str(i).encode())])
            records.append([meta.partition, meta.offset, key.decode(), value.decode(), str(i)])
    finally:
        await producer.stop()
    expected.write_text(json.dumps(sorted(records)))
    print(f"produced {count} records to {topic} through {bootstrap}")
    return 0


async def consume(bootstrap: str, topic: str, expected_path: Path) -> int:
    expected = json.loads(expected_path.read_text())
    # No group_id: every partition of the topic, from the start, without a rebalance.
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, group_id=None, auto_offset_reset="earliest",
        isolation_level="read_committed",
    )
    await consumer.start()
    got: list[list[object]] = []
    try:
        async with asyncio.timeout(60):
            while len(got) < len(expected):
                batch = await consumer.getmany(timeout_ms=1000)
                for records in batch.values():
                    for r in records:
                        assert r.key is not None and r.value is not None
                        headers = dict(r.headers)
                        got.append([r.partition, r.offset, r.key.decode(), r.value.decode(), headers["n"].decode()])
    except TimeoutError:
        print(f"timed out with {len(got)} of {len(expected)} records", file=sys.stderr)
        return 1
    finally:
        await consumer.stop()
    if sorted(got) != expected:
        print(f"records differ: got {len(got)}, expected {len(expected)}", file=sys.stderr)
        return 1
    print(f"consumed the same {len(got)} records from {topic} through {bootstrap}")
    return 0


def metrics(url: str, min_produce: int, topic: str, partitions: int) -> int:
    with urllib.request.urlopen(url + "/readyz", timeout=10) as response:
        if response.status != 200:
            print(f"/readyz answered {response.status}", file=sys.stderr)
            return 1
    with urllib.request.urlopen(url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    produce = sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith('odradek_requests_total{api="Produce"')
    )
    if produce < min_produce:
        print(f"/metrics counts {produce} Produce requests, fewer than {min_produce}", file=sys.stderr)
        return 1
    # The topic was auto-created with ODRADEK_NUM_PARTITIONS: the environment reached the broker.
    found = sum(
        1
        for line in text.splitlines()
        if line.startswith("odradek_log_end_offset{") and f'topic="{topic}"' in line
    )
    if found != partitions:
        print(f"/metrics shows {found} partitions of {topic}, not {partitions}", file=sys.stderr)
        return 1
    print(f"ready; /metrics counts {produce:.0f} Produce requests and {found} partitions of {topic}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["metrics"] and len(argv) == 5:
        return metrics(argv[1], int(argv[2]), argv[3], int(argv[4]))
    if argv[:1] == ["produce"] and len(argv) == 5:
        return asyncio.run(produce(argv[1], argv[2], int(argv[3]), Path(argv[4])))
    if argv[:1] == ["consume"] and len(argv) == 4:
        return asyncio.run(consume(argv[1], argv[2], Path(argv[3])))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
