"""The transaction coordinator's settings (Kafka's `TransactionConfig`): the broker
properties come from the broker's config table (`broker/config.py` holds every name with
Kafka's default); the rest are this coordinator's own constants, not Kafka settings."""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.settings import Settings

# Between rounds of marker writes (or CompleteX appends) that failed retriably.
RETRY_BACKOFF_MS = 100
# A request that finds its transactional id busy (a transition being appended, or the
# markers and CompleteX of the previous transaction in flight) waits up to this long for
# it to finish before answering CONCURRENT_TRANSACTIONS; 0 answers at once.
CONCURRENT_WAIT_MS = 500
# Once a transaction's markers are durable, its CompleteX is held back this long for the
# producer's next AddPartitionsToTxn, which then writes CompleteX and Ongoing in one batch
# with one fsync; any other request for the id has it written at once.
COMPLETE_MERGE_WINDOW_MS = 20
# An AddPartitionsToTxn answered before its record is durable whose append then fails
# retriably (the log unavailable) is appended again, every `retry_backoff_ms`, for up to
# this long: Kafka's client would have been told COORDINATOR_NOT_AVAILABLE and retried its
# request within its request.timeout.ms (30 s default). Meanwhile the id stays pending, so
# the Produce verifying the partition is answered a retriable error, not INVALID_TXN_STATE.
ANSWERED_ADD_RETRY_MS = 30_000


@dataclass
class TransactionConfig:
    max_timeout_ms: int
    transactional_id_expiration_ms: int
    abort_timed_out_interval_ms: int
    remove_expired_interval_ms: int
    num_partitions: int
    retry_backoff_ms: int = RETRY_BACKOFF_MS
    concurrent_wait_ms: int = CONCURRENT_WAIT_MS
    complete_merge_window_ms: int = COMPLETE_MERGE_WINDOW_MS
    answered_add_retry_ms: int = ANSWERED_ADD_RETRY_MS
    two_phase_commit_enable: bool = False

    @classmethod
    def from_broker_config(cls, config: Settings) -> TransactionConfig:
        return cls(
            max_timeout_ms=config.get_ms("transaction.max.timeout.ms"),
            transactional_id_expiration_ms=config.get_ms("transactional.id.expiration.ms"),
            abort_timed_out_interval_ms=config.get_ms("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
            remove_expired_interval_ms=config.get_ms("transaction.remove.expired.transaction.cleanup.interval.ms"),
            num_partitions=config.get_int("transaction.state.log.num.partitions"),
            two_phase_commit_enable=config.get_bool("transaction.two.phase.commit.enable"),
        )
