"""A broker killed (SIGKILL) with records of a share group in flight: after the restart every
acknowledged record stays acknowledged (its acknowledgement was answered once durable in
`__share_group_state`) and every unacknowledged one is delivered again."""

from __future__ import annotations

import contextlib
import time

from confluent_kafka import AcknowledgeType

from odradek.testing import OdradekBroker
from tests.integration.share.share_clients import consumer, create_topic, poll_records, produce, share_group


def test_sigkill_keeps_acknowledgements_and_redelivers_the_rest(fresh_broker: OdradekBroker) -> None:
    bs = fresh_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, (f"r{i}" for i in range(20)), batch=5)
    group = share_group(bs)
    old = consumer(bs, group, topic, explicit=True)
    held = []  # every record of the first delivery
    deadline = time.monotonic() + 30
    while len(held) < 20 and time.monotonic() < deadline:
        got = poll_records(old)
        for m in got:
            # Even offsets accepted, odd ones left in flight.
            if m.offset() % 2 == 0:
                old.acknowledge(m, AcknowledgeType.ACCEPT)
            else:
                held.append(m)
        held += [m for m in got if m.offset() % 2 == 0]
        if got:
            assert all(v is None for v in old.commit_sync().values())
    assert sorted(m.offset() for m in held) == list(range(20))

    fresh_broker.kill()
    fresh_broker.start()
    # The old member's records are local state now; it may fetch again once it released them.
    for m in held:
        if m.offset() % 2 == 1:
            with contextlib.suppress(Exception):
                old.acknowledge(m, AcknowledgeType.RELEASE)
    new = consumer(bs, group, topic, explicit=True)
    redelivered: dict[int, int] = {}
    again: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while set(redelivered) != set(range(1, 20, 2)) and time.monotonic() < deadline:
            for c in (new, old):
                got = []
                # The old member may refuse to poll (its state from before the crash).
                with contextlib.suppress(Exception):
                    got = poll_records(c, 0.5)
                for m in got:
                    if m.offset() % 2 == 0:
                        again.append(m.offset())
                    redelivered[m.offset()] = m.delivery_count()
                    c.acknowledge(m, AcknowledgeType.ACCEPT)
                if got:
                    c.commit_sync()
        assert again == [], "acknowledged records delivered again"
        assert sorted(redelivered) == list(range(1, 20, 2))
        assert all(count >= 2 for count in redelivered.values())
        assert poll_records(new, 1.0) == []
    finally:
        with contextlib.suppress(Exception):
            new.close()
        with contextlib.suppress(Exception):
            old.close()
