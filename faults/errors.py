"""Client errors as definite (the operation did not happen) or indefinite (it may have), as
Jepsen's Kafka client classifies them: a timeout or a lost connection says nothing, while
a fenced producer, an out-of-order sequence or an authorization failure is a refusal."""

from __future__ import annotations

DEFINITE = (
    "fenced",
    "out_of_order",
    "outoforder",
    "authorization",
    "authorisation",
    "invalid_txn_state",
    "invalidtxnstate",
    "invalid_producer_epoch",
    "invalidproducerepoch",
    "transactional_id_authorization",
    "unsupported",
    "record_too_large",
    "invalid_record",
)
INDEFINITE = (
    "timeout",
    "timed out",
    "timed_out",
    "disconnect",
    "transport",
    "connection",
    "not_coordinator",
    "coordinator_not_available",
)


def classify(error: BaseException | str) -> str:
    """`fail` when the error proves the operation did not take effect, else `info`.
    Indefinite wins when a message names both (a timeout while fenced says nothing)."""
    text = (error if isinstance(error, str) else f"{type(error).__name__} {error}").lower()
    if any(word in text for word in INDEFINITE):
        return "info"
    if any(word in text for word in DEFINITE):
        return "fail"
    return "info"
