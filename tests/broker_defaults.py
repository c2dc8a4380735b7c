"""Settings of the broker's config table (`broker/config.py`) that unit tests of the lower
layers pass on, so they run with Kafka's defaults without restating them."""

from __future__ import annotations

from broker.config import Config

PRODUCER_ID_EXPIRATION_MS = Config().get_ms("producer.id.expiration.ms")
