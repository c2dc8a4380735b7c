"""One member of a share group in a process of its own: a confluent-kafka `ShareConsumer`
that acknowledges every record it gets explicitly (ACCEPT) until the group as a whole has
had `count` deliveries, then commits its last acknowledgements.

A process rather than a thread of one client process: a share group's members are separate
applications, and the members' Python poll loops (an `acknowledge` call per record) held
one process's GIL in turn while the classic member it is compared with has a process of
its own. The members count their deliveries in a file mapped by all of them (one 8-byte
slot each, written only by its member), so each sees the end as soon as the last record
arrives anywhere, as threads sharing a counter did.

Run as `python -m bench.share_member BOOTSTRAP TOPIC GROUP COUNT COUNTER_FILE SLOT TIMEOUT`:
prints `ready` once its consumer exists, subscribes on a `go` line on its stdin, and at the
end prints one JSON line: its deliveries, the `time.perf_counter()` at which its last
acknowledgements were answered (CLOCK_MONOTONIC, one clock for every process of the
machine), its CPU seconds from the start signal to then, the first errors. Its close is
not timed (see `bench.workloads._share_group_rate`)."""

from __future__ import annotations

import json
import mmap
import sys
import time
from typing import Any

from confluent_kafka import AcknowledgeType, KafkaException, ShareConsumer

from bench.clients import confluent_base


def run(bootstrap: str, topic: str, group: str, count: int, counter: str, slot: int, timeout: float) -> dict[str, Any]:
    conf = confluent_base(bootstrap)
    conf.update({"group.id": group, "share.acknowledgement.mode": "explicit"})
    consumer = ShareConsumer(conf)
    errors: list[str] = []
    mine = 0
    end = cpu = 0.0
    with open(counter, "r+b") as f, mmap.mmap(f.fileno(), 0) as mapped:
        # Native 8-byte items: an aligned slot is written and read whole.
        slots = memoryview(mapped).cast("q")
        try:
            print("ready", flush=True)
            if sys.stdin.readline().strip() != "go":
                return {"got": 0, "end": 0.0, "errors": ["no start signal"]}
            deadline = time.monotonic() + timeout
            cpu_start = time.process_time()
            consumer.subscribe([topic])
            while time.monotonic() < deadline and sum(slots) < count:
                # A short poll: a member with nothing to fetch (its ShareFetch parked on the
                # broker while another member holds the window) sees the end within 10 ms.
                messages = consumer.poll(0.01)
                got = 0
                for msg in messages:
                    err = msg.error()
                    if err is not None:
                        errors.append(f"share fetch: {err.str()}")
                        break
                    consumer.acknowledge(msg, AcknowledgeType.ACCEPT)
                    got += 1
                if got:
                    mine += got
                    slots[slot] = mine
                if errors:
                    break
            failed = [e for e in consumer.commit_sync(10).values() if e is not None]
            if failed:
                errors.append(f"share acknowledge: {failed[0]}")
            end = time.perf_counter()
            cpu = time.process_time() - cpu_start
        except KafkaException as exc:
            errors.append(f"share consumer: {exc}")
        finally:
            slots.release()
            consumer.close()
    return {"got": mine, "end": end, "cpu_s": cpu, "errors": errors[:3]}


def main(argv: list[str]) -> int:
    bootstrap, topic, group, count, counter, slot, timeout = argv
    result = run(bootstrap, topic, group, int(count), counter, int(slot), float(timeout))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
