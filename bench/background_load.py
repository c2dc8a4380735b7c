"""The load beside a latency measurement, in a process of its own: an idempotent acks=all
producer writing `size`-byte records as fast as the broker takes them, round-robin over the
partitions of its topic, until told to stop (a line on its stdin).

A process rather than a thread of the measuring one: the load's Python produce loop and
its delivery callbacks held the measuring process's GIL, and the latency consumer's
thread waited for it after each record arrived (3-4 ms at the median on the 2-core bench
machine; bench/README.md, "What bounds the latency beside load"), a cost of the bench's
client, not of the broker measured.

Run as `python -m bench.background_load BOOTSTRAP TOPIC SIZE PARTITIONS TIMEOUT`: prints
`ready` once connected, and on stop one JSON line: records acknowledged, seconds from
ready to stop, the first errors."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from confluent_kafka import Producer

from bench.clients import payload, produce_all, producer_config


def run(bootstrap: str, topic: str, size: int, partitions: int, timeout: float) -> dict[str, Any]:
    # Every acknowledgement reported: the load's own rate is a figure of the row.
    conf = producer_config(bootstrap, "all", True, **{"linger.ms": 5, "delivery.report.only.error": False})
    producer = Producer(conf)
    value = payload(size)
    produce_all(producer, topic, value, partitions, timeout, partitions)  # connect
    acked = 0
    errors: list[str] = []

    def delivered(err: Any, _msg: Any) -> None:
        nonlocal acked
        if err is None:
            acked += 1
        elif len(errors) < 3:
            errors.append(err.str())

    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    started, i = time.perf_counter(), 0
    while not stop.is_set():
        try:
            producer.produce(topic, value, partition=i % partitions, on_delivery=delivered)
            i += 1
        except BufferError:
            producer.poll(0.005)
            continue
        if i % 1000 == 0:
            producer.poll(0)
    seconds = time.perf_counter() - started
    left = producer.flush(timeout)
    if left:
        errors.append(f"{left} unacknowledged")
    return {"acked": acked, "seconds": seconds, "errors": errors}


def main(argv: list[str]) -> int:
    bootstrap, topic, size, partitions, timeout = argv
    print(json.dumps(run(bootstrap, topic, int(size), int(partitions), float(timeout))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
