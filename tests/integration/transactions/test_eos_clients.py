"""Exactly-once with each client's transactional API against the real broker process."""

from __future__ import annotations

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.transactions.eos_settled import settled
from tests.integration.transactions.txn_clients import (
    CLIENTS,
    TP,
    TxnProducer,
    create_topics,
    end_offsets,
    is_fenced,
    read,
    values,
)
from tests.polling import wait_until


@pytest.mark.parametrize("client", CLIENTS)
def test_commit_visible_abort_hidden(either_txn_broker: BrokerProcess, name: str, client: str) -> None:
    bs = either_txn_broker.bootstrap
    topic = f"{name}-out"
    create_topics(bs, {topic: 1})
    tps = [(topic, 0)]
    p = TxnProducer(client, bs, f"{name}-tid")
    try:
        p.init()
        for i, commit in enumerate([True, False, True]):
            p.begin()
            for j in range(5):
                p.send(topic, 0, f"{i}-{j}".encode())
            p.flush()
            if commit:
                p.commit()
            else:
                p.abort()
    finally:
        p.close()
    # 15 records and 3 markers, one offset each.
    hwm = settled(bs, tps, {(topic, 0): 18})
    everything = [f"{i}-{j}".encode() for i in range(3) for j in range(5)]
    assert values(read(client, bs, tps, committed=True, until=hwm)) == [v for v in everything if v[:1] != b"1"]
    assert values(read(client, bs, tps, committed=False, until=hwm)) == everything


@pytest.mark.parametrize("client", CLIENTS)
def test_transaction_across_topics_is_all_or_nothing(either_txn_broker: BrokerProcess, name: str, client: str) -> None:
    bs = either_txn_broker.bootstrap
    topics = {f"{name}-a": 3, f"{name}-b": 2}
    create_topics(bs, topics)
    tps = [(t, p) for t, n in topics.items() for p in range(n)]
    p = TxnProducer(client, bs, f"{name}-tid")
    try:
        p.init()
        for label, commit in (("c1", True), ("a2", False), ("c3", True)):
            p.begin()
            for t, q in tps:
                for j in range(3):
                    p.send(t, q, f"{label}-{t}-{q}-{j}".encode())
            p.flush()
            if commit:
                p.commit()
            else:
                p.abort()
    finally:
        p.close()
    hwm = settled(bs, tps, dict.fromkeys(tps, 12))
    seen = read(client, bs, tps, committed=True, until=hwm)
    for t, q in tps:
        assert [v for _, v in seen[(t, q)]] == [
            f"{label}-{t}-{q}-{j}".encode() for label in ("c1", "c3") for j in range(3)
        ]
    raw = read(client, bs, tps, committed=False, until=hwm)
    for t, q in tps:
        assert len(raw[(t, q)]) == 9


@pytest.mark.parametrize("client", CLIENTS)
def test_new_instance_fences_the_old_one(either_txn_broker: BrokerProcess, name: str, client: str) -> None:
    bs = either_txn_broker.bootstrap
    topic = f"{name}-out"
    create_topics(bs, {topic: 1})
    tps = [(topic, 0)]
    old = TxnProducer(client, bs, f"{name}-tid")
    new = TxnProducer(client, bs, f"{name}-tid")
    try:
        old.init()
        old.begin()
        old.send(topic, 0, b"zombie")
        old.flush()
        new.init()  # bumps the epoch and aborts the old instance's open transaction
        with pytest.raises(Exception) as info:
            old.commit()
        assert is_fenced(client, info.value), repr(info.value)
        new.begin()
        new.send(topic, 0, b"live")
        new.flush()
        new.commit()
    finally:
        old.close()
        new.close()
    hwm = settled(bs, tps, {(topic, 0): 4})
    assert values(read(client, bs, tps, committed=True, until=hwm)) == [b"live"]
    assert values(read(client, bs, tps, committed=False, until=hwm)) == [b"zombie", b"live"]


@pytest.mark.parametrize("client", CLIENTS)
def test_open_transaction_holds_read_committed_at_the_lso(
    txn_broker: BrokerProcess, name: str, client: str
) -> None:
    bs = txn_broker.bootstrap
    topic = f"{name}-out"
    create_topics(bs, {topic: 1})
    tps = [(topic, 0)]
    first = TxnProducer(client, bs, f"{name}-first")
    holder = TxnProducer(client, bs, f"{name}-holder")
    try:
        first.init()
        holder.init()
        first.begin()
        for j in range(3):
            first.send(topic, 0, f"before-{j}".encode())
        first.flush()
        first.commit()
        settled(bs, tps, {(topic, 0): 4})
        holder.begin()
        for j in range(2):
            holder.send(topic, 0, f"open-{j}".encode())
        holder.flush()
        first.begin()
        first.send(topic, 0, b"after")
        first.flush()
        first.commit()
        # before-0..2, marker, open-0..1, after, marker
        wait_until(lambda: end_offsets(bs, tps, committed=False) == {(topic, 0): 8}, what="the second commit")
        assert end_offsets(bs, tps, committed=True) == {(topic, 0): 4}  # the first offset of the open txn
        assert values(read(client, bs, tps, committed=True, idle=1.5, timeout=6)) == [
            b"before-0", b"before-1", b"before-2"
        ]
        assert values(read(client, bs, tps, committed=False, until={(topic, 0): 8})) == [
            b"before-0", b"before-1", b"before-2", b"open-0", b"open-1", b"after"
        ]
        holder.commit()
    finally:
        first.close()
        holder.close()
    hwm = settled(bs, tps, {(topic, 0): 9})
    assert values(read(client, bs, tps, committed=True, until=hwm)) == [
        b"before-0", b"before-1", b"before-2", b"open-0", b"open-1", b"after"
    ]


@pytest.mark.parametrize("client", CLIENTS)
def test_idle_transaction_is_aborted_at_its_timeout(txn_broker: BrokerProcess, name: str, client: str) -> None:
    bs = txn_broker.bootstrap
    topic = f"{name}-out"
    create_topics(bs, {topic: 1})
    tps = [(topic, 0)]
    p = TxnProducer(client, bs, f"{name}-tid", timeout_ms=1000)
    try:
        p.init()
        p.begin()
        p.send(topic, 0, b"forgotten")
        p.flush()
        # The coordinator checks for timed-out transactions every 10 s (Kafka's default
        # transaction.abort.timed.out.transaction.cleanup.interval.ms).
        hwm = settled_within(bs, tps, 25.0)
        assert hwm == {(topic, 0): 2}  # the record and the ABORT marker
        with pytest.raises(Exception) as info:
            p.commit()
        assert is_fenced(client, info.value), repr(info.value)
    finally:
        p.close()
    assert values(read(client, bs, tps, committed=True, until=hwm)) == []
    assert values(read(client, bs, tps, committed=False, until=hwm)) == [b"forgotten"]


def settled_within(bootstrap: str, tps: list[TP], timeout: float) -> dict[TP, int]:
    def check() -> bool:
        hwm = end_offsets(bootstrap, tps, committed=False)
        return end_offsets(bootstrap, tps, committed=True) == hwm and all(o >= 2 for o in hwm.values())

    wait_until(check, timeout=timeout, what="the timed-out transaction to be aborted")
    return end_offsets(bootstrap, tps, committed=False)
