"""Options of the `odradek` sink (those of Spark's Kafka sink plus the transactional ones)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pyspark.sql.types import BinaryType, IntegerType, StringType, StructType

from pipeline.options import OptionError, bootstrap_servers, kafka_params, parse_positive_int

DEFAULT_MARKER_TOPIC = "__odradek_sink_markers"
# Kafka's producer default; must exceed the slowest write task, and stay within the broker's
# transaction.max.timeout.ms.
DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000

# `task`: each Spark task commits its own transaction. `microBatch`: tasks prepare (KIP-939)
# and the driver commits them all, so a micro-batch becomes visible whole (pipeline/two_phase.py).
TRANSACTION_MODES = ("task", "microBatch")

RESERVED_PRODUCER_KEYS = {
    "transactional.id": "it is derived from transactionalIdPrefix and the Spark partition",
    "enable.idempotence": "every write is transactional, hence idempotent",
    "transaction.timeout.ms": "use the option transaction.timeout.ms",
    "key.serializer": "keys are written as given (string or binary)",
    "value.serializer": "values are written as given (string or binary)",
}


@dataclass(frozen=True)
class SinkOptions:
    bootstrap_servers: str
    topic: str | None
    transactional_id_prefix: str | None
    transaction_timeout_ms: int
    marker_topic: str
    transaction_mode: str = "task"
    # Only for tests of the recovery paths: see pipeline.failure_injection.
    inject_failure: str | None = None
    kafka: dict[str, str] = field(default_factory=dict)

    def client_config(self) -> dict[str, str]:
        return {**self.kafka, "bootstrap.servers": self.bootstrap_servers}


def parse_sink_options(options: Mapping[str, str]) -> SinkOptions:
    servers = bootstrap_servers(options)
    params = kafka_params(options)
    params.pop("bootstrap.servers", None)
    for key, why in RESERVED_PRODUCER_KEYS.items():
        if key in params:
            raise OptionError(f"option 'kafka.{key}' is not supported: {why}")
    prefix = options.get("transactionalidprefix")
    if prefix is not None and not str(prefix).strip():
        raise OptionError("option 'transactionalIdPrefix' must not be empty")
    topic = options.get("topic")
    mode = _transaction_mode(options, params)
    return SinkOptions(
        bootstrap_servers=servers,
        topic=str(topic).strip() if topic else None,
        transactional_id_prefix=str(prefix).strip() if prefix else None,
        transaction_timeout_ms=parse_positive_int(options, "transaction.timeout.ms")
        or DEFAULT_TRANSACTION_TIMEOUT_MS,
        marker_topic=str(options.get("markertopic") or DEFAULT_MARKER_TOPIC),
        transaction_mode=mode,
        inject_failure=options.get("odradek.test.injectfailure"),
        kafka=params,
    )


def _transaction_mode(options: Mapping[str, str], params: Mapping[str, str]) -> str:
    given = str(options.get("transactionmode") or "task").strip()
    modes = {m.lower(): m for m in TRANSACTION_MODES}
    mode = modes.get(given.lower())
    if mode is None:
        raise OptionError(f"option 'transactionMode' must be one of {', '.join(TRANSACTION_MODES)}, not {given!r}")
    if mode == "microBatch" and str(params.get("security.protocol", "PLAINTEXT")).upper() != "PLAINTEXT":
        # The prepare and commit requests go through pipeline/wire.py, which has no TLS or SASL.
        raise OptionError("transactionMode 'microBatch' supports only kafka.security.protocol PLAINTEXT")
    return mode


def check_sink_schema(schema: StructType, options: SinkOptions) -> None:
    """The columns of Spark's Kafka sink: value required; key, topic, partition, headers optional."""
    fields = {f.name.lower(): f.dataType for f in schema.fields}
    text_or_bytes = (StringType, BinaryType)
    if "value" not in fields:
        raise OptionError("the data to write has no 'value' column (required by the odradek sink)")
    if not isinstance(fields["value"], text_or_bytes):
        raise OptionError(f"column 'value' must be string or binary, not {fields['value'].simpleString()}")
    if "key" in fields and not isinstance(fields["key"], text_or_bytes):
        raise OptionError(f"column 'key' must be string or binary, not {fields['key'].simpleString()}")
    if "topic" in fields and not isinstance(fields["topic"], StringType):
        raise OptionError(f"column 'topic' must be string, not {fields['topic'].simpleString()}")
    if "partition" in fields and not isinstance(fields["partition"], IntegerType):
        raise OptionError(f"column 'partition' must be int, not {fields['partition'].simpleString()}")
    if "topic" not in fields and options.topic is None:
        raise OptionError("set the option 'topic' or give the data a 'topic' column")
