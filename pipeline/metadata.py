"""Driver-side look-ups: which partitions a subscription covers, and their committed offset bounds."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping

from confluent_kafka import IsolationLevel, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from pipeline.options import EARLIEST, LATEST, OptionError, Subscription, TopicPartition
from pipeline.wire import RETRIABLE
from protocol.errors import ErrorCode

log = logging.getLogger(__name__)

TIMEOUT_S = 30.0
# ListOffsets: one attempt may wait on a dead leader until its timeout, then answers
# OFFSET_INVALID; so attempts are short and retried, within a longer bound for the look-up.
LIST_OFFSETS_ATTEMPT_S = 5.0
LIST_OFFSETS_TIMEOUT_S = 60.0
RETRY_BACKOFF_S = 0.2
# librdkafka sets its retriable flag on a per-partition ListOffsets error only for some codes
# (not NOT_LEADER_OR_FOLLOWER, which a former leader answers); these are retried by code too
# (Kafka's RetriableException ones that ListOffsets answers).
LIST_OFFSETS_RETRIABLE = RETRIABLE | {
    ErrorCode.FENCED_LEADER_EPOCH,
    ErrorCode.UNKNOWN_LEADER_EPOCH,
    ErrorCode.OFFSET_NOT_AVAILABLE,
}


class ClusterView:
    """One admin client reused across look-ups (the streaming source asks every micro-batch)."""

    def __init__(self, config: Mapping[str, str]) -> None:
        self.config: dict[str, str | int | float | bool] = dict(config)
        self.admin = AdminClient(self.config)

    def partitions(self, subscription: Subscription) -> list[TopicPartition]:
        topics = self.admin.list_topics(timeout=TIMEOUT_S).topics
        found: list[TopicPartition] = []
        if subscription.kind == "assign":
            for topic, partition in subscription.partitions:
                meta = topics.get(topic)
                if meta is None or meta.error is not None or partition not in meta.partitions:
                    raise OptionError(f"option 'assign': {topic}-{partition} does not exist")
                found.append((topic, partition))
            return sorted(found)
        for topic, meta in topics.items():
            if meta.error is None and subscription.matches(topic):
                found.extend((topic, p) for p in meta.partitions)
        if subscription.kind == "subscribe":
            missing = sorted(set(subscription.topics) - {t for t, _ in found})
            if missing:
                raise OptionError(f"option 'subscribe': topic(s) {', '.join(missing)} do not exist")
        return sorted(found)

    def earliest(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """Log start offsets."""
        return self._list_offsets(tps, OffsetSpec.earliest())

    def latest_stable(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """Last stable offsets (ListOffsets with READ_COMMITTED): the end of committed data."""
        return self._list_offsets(tps, OffsetSpec.latest())

    def _list_offsets(self, tps: Iterable[TopicPartition], spec: OffsetSpec) -> dict[TopicPartition, int]:
        """Retried until every partition has an offset: while a partition's leader moves (its
        broker died, say) librdkafka may answer a retriable error or, with no error at all,
        OFFSET_INVALID (-1001), which must not be taken for an offset. It keeps asking the
        dead leader as long as its metadata names it, so a retry starts a new admin client."""
        pending = {KafkaTopicPartition(t, p): spec for t, p in tps}
        result: dict[TopicPartition, int] = {}
        deadline = time.monotonic() + LIST_OFFSETS_TIMEOUT_S
        while pending:
            futures = self.admin.list_offsets(
                pending, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=LIST_OFFSETS_ATTEMPT_S
            )
            failed: dict[KafkaTopicPartition, str] = {}
            for tp, future in futures.items():
                try:
                    offset = int(future.result().offset)
                except KafkaException as exc:
                    error = exc.args[0]
                    if not (error.retriable() or error.code() in LIST_OFFSETS_RETRIABLE):
                        raise RuntimeError(f"ListOffsets for {tp.topic}-{tp.partition} failed: {exc}") from exc
                    failed[tp] = str(exc)
                    continue
                if offset < 0:
                    failed[tp] = f"no offset ({offset})"
                else:
                    result[(tp.topic, tp.partition)] = offset
            if failed and time.monotonic() > deadline:
                raise RuntimeError(
                    "ListOffsets failed: "
                    + ", ".join(f"{tp.topic}-{tp.partition}: {why}" for tp, why in failed.items())
                )
            if failed:
                log.warning("ListOffsets retried for %s", ", ".join(f"{tp.topic}-{tp.partition}" for tp in failed))
                time.sleep(RETRY_BACKOFF_S)
                self.admin = AdminClient(self.config)
            pending = {tp: spec for tp in failed}
        return result


def resolve(
    spec: str | Mapping[TopicPartition, int],
    tps: Iterable[TopicPartition],
    earliest: Mapping[TopicPartition, int],
    latest: Mapping[TopicPartition, int],
    option: str,
) -> dict[TopicPartition, int]:
    """Concrete offsets for `earliest`/`latest`/per-partition JSON; partitions JSON omits default to
    `latest` for a starting offset map (as Spark does not allow omissions, we reject them)."""
    tps = list(tps)
    if spec == "earliest":
        return {tp: earliest[tp] for tp in tps}
    if spec == "latest":
        return {tp: latest[tp] for tp in tps}
    assert isinstance(spec, Mapping)
    unknown = sorted(set(spec) - set(tps))
    if unknown:
        raise OptionError(f"option '{option}' names partitions not subscribed or not existing: {unknown}")
    missing = sorted(set(tps) - set(spec))
    if missing:
        raise OptionError(f"option '{option}' does not give an offset for {missing}")
    out: dict[TopicPartition, int] = {}
    for tp in tps:
        offset = spec[tp]
        out[tp] = earliest[tp] if offset == EARLIEST else latest[tp] if offset == LATEST else offset
    return out
