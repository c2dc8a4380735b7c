"""The transaction coordinator's settings (Kafka's `TransactionConfig` and the broker
properties it is built from)."""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.settings import Settings


@dataclass
class TransactionConfig:
    max_timeout_ms: int = 900_000
    transactional_id_expiration_ms: int = 604_800_000
    abort_timed_out_interval_ms: int = 10_000
    remove_expired_interval_ms: int = 3_600_000
    num_partitions: int = 50
    # Between rounds of marker writes (or CompleteX appends) that failed retriably.
    retry_backoff_ms: int = 100
    # A request that finds its transactional id busy (a transition being appended, or the
    # markers and CompleteX of the previous transaction in flight) waits up to this long
    # for it to finish before answering CONCURRENT_TRANSACTIONS; 0 answers at once.
    concurrent_wait_ms: int = 500
    # Once a transaction's markers are durable, its CompleteX is held back this long for
    # the producer's next AddPartitionsToTxn, which then writes CompleteX and Ongoing in one
    # batch with one fsync; any other request for the id has it written at once.
    complete_merge_window_ms: int = 20

    @classmethod
    def from_broker_config(cls, config: Settings) -> TransactionConfig:
        return cls(
            max_timeout_ms=config.get_ms("transaction.max.timeout.ms"),
            transactional_id_expiration_ms=config.get_ms("transactional.id.expiration.ms"),
            abort_timed_out_interval_ms=config.get_ms("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
            remove_expired_interval_ms=config.get_ms("transaction.remove.expired.transaction.cleanup.interval.ms"),
            num_partitions=config.get_int("transaction.state.log.num.partitions"),
        )
