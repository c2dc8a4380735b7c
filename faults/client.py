"""One workload client process: `python -m faults.client ROLE ...`.

Roles: `txn` (confluent-kafka transactional producer), `idempotent` (aiokafka idempotent
producer, acks=all), `assign` (aiokafka read_committed consumer that assigns itself every
partition from the beginning), `group` (confluent-kafka read_committed group member) and
`drain` (an assign consumer that reads every key to its end and exits); for the share-group
workload `share-send` (the idempotent producer on the share topic), `share` (a confluent-kafka
ShareConsumer acknowledging explicitly: mostly accept, some release, a few reject) and
`share-drain` (a share consumer of the same group that accepts until nothing has come for
longer than the acquisition lock). Each writes its
history (`faults/history.py`) to its own file; values are unique: `<process>:<n>`.
Timeouts are short so that faults longer than them are seen as errors, not waited out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time
from typing import Any, cast

from .errors import classify
from .history import HistoryWriter, Mop

REQUEST_TIMEOUT_MS = 3000
# Transactions the producer aborts by choice: their values must never be read (G1a).
ABORT_RATE = 0.1


def key_of(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


class Values:
    def __init__(self, process: str) -> None:
        self.process = process
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"{self.process}:{self.n}"


def run_txn(args: argparse.Namespace, history: HistoryWriter, rng: random.Random) -> None:
    from confluent_kafka import KafkaException, Producer

    values = Values(args.process)
    deadline = time.monotonic() + args.seconds

    def producer() -> Producer:
        p = Producer(
            {
                "bootstrap.servers": args.bootstrap,
                "transactional.id": f"faults-{args.process}",
                "transaction.timeout.ms": 6000,
                "socket.timeout.ms": REQUEST_TIMEOUT_MS,
                "message.timeout.ms": 5000,
                "request.timeout.ms": REQUEST_TIMEOUT_MS,
                "reconnect.backoff.max.ms": 500,
                "linger.ms": 1,
            }
        )
        p.init_transactions(10)
        return p

    p: Any = None
    while time.monotonic() < deadline:
        if p is None:
            try:
                p = producer()
            except KafkaException:
                time.sleep(0.5)
                p = None
                continue
        mops: list[Mop] = [
            ["send", key_of(args.topic, rng.randrange(args.partitions)), values.next(), None]
            for _ in range(rng.randint(1, 4))
        ]
        history.record("invoke", "txn", [list(m) for m in mops])
        commit_at: float | None = None
        try:
            p.begin_transaction()
            for mop in mops:

                def delivered(err: Any, msg: Any, mop: Mop = mop) -> None:
                    if err is None:
                        mop[3] = msg.offset()

                partition = int(mop[1].rsplit("-", 1)[1])
                p.produce(args.topic, value=mop[2].encode(), partition=partition, on_delivery=delivered)
            p.flush(8)
            if rng.random() < ABORT_RATE:
                p.abort_transaction(8)
                history.record("fail", "txn", mops, error="aborted by the workload")
                continue
            commit_at = time.monotonic()
            p.commit_transaction(8)
            history.record("ok", "txn", mops, commit_at=commit_at)
        except KafkaException as exc:
            error = exc.args[0]
            kind = classify(str(error))
            if error.txn_requires_abort() or commit_at is None:
                try:
                    p.abort_transaction(8)
                    kind = "fail"  # aborted for sure: none of it may be read
                except KafkaException:
                    kind = "info"
                    p = None
            else:
                p = None
            if kind == "info":
                p = None
            history.record(kind, "txn", mops, commit_at=commit_at, error=str(error))
        except Exception as exc:  # an unexpected client failure: indefinite
            history.record("info", "txn", mops, commit_at=commit_at, error=repr(exc))
            p = None
        time.sleep(rng.uniform(0, 0.05))


async def run_idempotent(
    args: argparse.Namespace, history: HistoryWriter, rng: random.Random, f: str = "send"
) -> None:
    from aiokafka import AIOKafkaProducer

    values = Values(args.process)
    deadline = time.monotonic() + args.seconds
    producer: AIOKafkaProducer | None = None
    while time.monotonic() < deadline:
        if producer is None:
            producer = AIOKafkaProducer(
                bootstrap_servers=args.bootstrap,
                enable_idempotence=True,
                acks="all",
                request_timeout_ms=REQUEST_TIMEOUT_MS,
            )
            try:
                await asyncio.wait_for(producer.start(), 10)
            except Exception:
                with contextlib.suppress(Exception):
                    await producer.stop()
                producer = None
                await asyncio.sleep(0.5)
                continue
        partition = rng.randrange(args.partitions)
        mop: Mop = ["send", key_of(args.topic, partition), values.next(), None]
        history.record("invoke", f, [list(mop)])
        try:
            meta = await asyncio.wait_for(
                producer.send_and_wait(args.topic, mop[2].encode(), partition=partition), 10
            )
            mop[3] = meta.offset
            history.record("ok", f, [mop])
        except Exception as exc:
            history.record(classify(exc), f, [mop], error=repr(exc))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(producer.stop(), 5)
            producer = None
        await asyncio.sleep(rng.uniform(0, 0.03))
    if producer is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(producer.stop(), 5)


async def run_assign(args: argparse.Namespace, history: HistoryWriter, drain: bool) -> None:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    tps = [TopicPartition(args.topic, p) for p in range(args.partitions)]
    deadline = time.monotonic() + args.seconds
    consumer: AIOKafkaConsumer | None = None
    caught_up = 0
    while time.monotonic() < deadline:
        if consumer is None:
            consumer = AIOKafkaConsumer(
                bootstrap_servers=args.bootstrap,
                isolation_level="read_committed",
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                request_timeout_ms=REQUEST_TIMEOUT_MS,
            )
            try:
                await asyncio.wait_for(consumer.start(), 10)
                consumer.assign(tps)
                await consumer.seek_to_beginning(*tps)
            except Exception:
                with contextlib.suppress(Exception):
                    await consumer.stop()
                consumer = None
                await asyncio.sleep(0.5)
                continue
            history.record("ok", "assign", [])
        history.record("invoke", "poll", [])
        try:
            batches = await asyncio.wait_for(consumer.getmany(timeout_ms=300), 10)
        except Exception as exc:
            history.record(classify(exc), "poll", [], error=repr(exc))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(consumer.stop(), 5)
            consumer = None
            continue
        mops: list[Mop] = [
            ["poll", key_of(tp.topic, tp.partition), [[r.offset, r.value.decode()] for r in records]]
            for tp, records in batches.items()
            if records
        ]
        history.record("ok", "poll", mops)
        if drain:
            try:
                ends = await asyncio.wait_for(consumer.end_offsets(tps), 10)  # the LSO, read_committed
                positions = [await consumer.position(tp) for tp in tps]
                done = all(position >= ends[tp] for position, tp in zip(positions, tps, strict=True))
            except Exception:
                done = False
            caught_up = caught_up + 1 if done and not mops else 0
            if caught_up >= 3:
                break
    if consumer is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(consumer.stop(), 5)
    if drain and caught_up < 3:
        raise SystemExit("drain did not reach the end of every key before its deadline")


def run_group(args: argparse.Namespace, history: HistoryWriter) -> None:
    from confluent_kafka import Consumer, KafkaException

    deadline = time.monotonic() + args.seconds
    consumer = Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": f"faults-{args.topic}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": True,
            "session.timeout.ms": 6000,
            "socket.timeout.ms": REQUEST_TIMEOUT_MS,
        }
    )
    consumer.subscribe([args.topic])
    while time.monotonic() < deadline:
        history.record("invoke", "poll", [])
        try:
            messages = consumer.consume(100, 0.3)
        except KafkaException as exc:
            history.record(classify(str(exc)), "poll", [], error=str(exc))
            continue
        by_key: dict[str, list[list[Any]]] = {}
        for m in messages:
            m = cast(Any, m)  # a delivered message: topic, partition, offset and value are set
            if m.error() is None:
                by_key.setdefault(key_of(m.topic(), m.partition()), []).append(
                    [m.offset(), m.value().decode()]
                )
        history.record("ok", "poll", [["poll", key, records] for key, records in by_key.items()])
    with contextlib.suppress(Exception):
        consumer.close()


# The share workload's acknowledgements: the rest of the records are accepted.
RELEASE_RATE = 0.1
REJECT_RATE = 0.05


def share_group_id(topic: str) -> str:
    return f"faults-share-{topic}"


def run_share(args: argparse.Namespace, history: HistoryWriter, rng: random.Random | None) -> bool:
    """A share consumer acknowledging explicitly, each poll's records committed at once
    (commit_sync). `rng` None: the drain, which accepts everything and stops once nothing
    has come for longer than the acquisition lock (records a lost ShareFetch answer acquired
    come back only then). True when it stopped for being idle."""
    from confluent_kafka import AcknowledgeType, ShareConsumer

    deadline = time.monotonic() + args.seconds
    kinds = {"accept": AcknowledgeType.ACCEPT, "release": AcknowledgeType.RELEASE, "reject": AcknowledgeType.REJECT}
    consumer: Any = None
    last_record = time.monotonic()
    idle = False
    while time.monotonic() < deadline:
        if consumer is None:
            consumer = ShareConsumer(
                {
                    "bootstrap.servers": args.bootstrap,
                    "group.id": share_group_id(args.topic),
                    "share.acknowledgement.mode": "explicit",
                    "socket.timeout.ms": REQUEST_TIMEOUT_MS,
                    "max.poll.records": 50,
                }
            )
            consumer.subscribe([args.topic])
        history.record("invoke", "share-poll", [])
        try:
            messages = [m for m in consumer.poll(0.5) if m.error() is None]
        except Exception as exc:
            history.record(classify(exc), "share-poll", [], error=repr(exc))
            _close_share(consumer)
            consumer = None
            continue
        by_key: dict[str, list[list[Any]]] = {}
        for m in messages:
            by_key.setdefault(key_of(m.topic(), m.partition()), []).append(
                [m.offset(), m.value().decode(), m.delivery_count()]
            )
        history.record("ok", "share-poll", [["deliver", key, records] for key, records in by_key.items()])
        if not messages:
            if rng is None and time.monotonic() - last_record > args.idle:
                idle = True
                break
            continue
        last_record = time.monotonic()
        acks: dict[str, list[list[Any]]] = {}
        try:
            for m in messages:
                roll = rng.random() if rng is not None else 1.0
                kind = "reject" if roll < REJECT_RATE else "release" if roll < REJECT_RATE + RELEASE_RATE else "accept"
                consumer.acknowledge(m, kinds[kind])
                acks.setdefault(key_of(m.topic(), m.partition()), []).append([m.offset(), m.value().decode(), kind])
        except Exception as exc:  # no longer in flight (its lock ran out): start afresh
            history.record("invoke", "ack", [["ack", key, records] for key, records in acks.items()])
            history.record("info", "ack", [["ack", key, records] for key, records in acks.items()], error=repr(exc))
            _close_share(consumer)
            consumer = None
            continue
        mops: list[Mop] = [["ack", key, records] for key, records in acks.items()]
        history.record("invoke", "ack", mops)
        try:
            results = consumer.commit_sync(5)
        except Exception as exc:
            history.record(classify(exc), "ack", mops, error=repr(exc))
            _close_share(consumer)
            consumer = None
            continue
        errors = {key_of(tp.topic, tp.partition): error for tp, error in results.items() if error is not None}
        answered = {key_of(tp.topic, tp.partition) for tp in results}
        ok = [mop for mop in mops if mop[1] in answered and mop[1] not in errors]
        unknown = [mop for mop in mops if mop not in ok]
        # A partition's acknowledgements answered with an error may still have been partly
        # applied (or not sent at all): indefinite.
        if unknown:
            history.record("info", "ack", unknown, error=repr(sorted(errors.items())))
            if ok:
                history.record("invoke", "ack", ok)
        if ok:
            history.record("ok", "ack", ok)
    _close_share(consumer)
    return idle


def _close_share(consumer: Any) -> None:
    if consumer is not None:
        with contextlib.suppress(Exception):
            consumer.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m faults.client")
    parser.add_argument(
        "role", choices=["txn", "idempotent", "assign", "group", "drain", "share-send", "share", "share-drain"]
    )
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--history", required=True)
    parser.add_argument("--process", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--idle", type=float, default=0.0, help="share-drain: seconds without records to stop")
    args = parser.parse_args()
    rng = random.Random(f"{args.seed}:{args.process}")
    history = HistoryWriter(__import__("pathlib").Path(args.history), args.process)
    try:
        if args.role == "txn":
            run_txn(args, history, rng)
        elif args.role == "idempotent":
            asyncio.run(run_idempotent(args, history, rng))
        elif args.role == "share-send":
            asyncio.run(run_idempotent(args, history, rng, f="share-send"))
        elif args.role in ("share", "share-drain"):
            idle = run_share(args, history, rng if args.role == "share" else None)
            if args.role == "share-drain" and not idle:
                raise SystemExit("the share drain did not run idle before its deadline")
        elif args.role in ("assign", "drain"):
            asyncio.run(run_assign(args, history, drain=args.role == "drain"))
        else:
            run_group(args, history)
    finally:
        history.close()


if __name__ == "__main__":
    main()
