"""Client quotas (KIP-13, KIP-55, KIP-124): produce and fetch byte rates and request time
by user and client id, answered with `throttle_time_ms` and a muted channel (KIP-219).

`store.py` keeps the configs, `rate.py` measures, `manager.py` matches a client to its quota
and computes throttle times, `throttling.py` applies them to requests.
"""

from __future__ import annotations

from pathlib import Path

from broker.quotas.manager import ClientQuotaManager
from broker.quotas.store import CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE, QuotaStore
from storage.clock import Clock


class ClientQuotas:
    """The three quota managers Kafka's QuotaFactory builds for clients."""

    def __init__(self, store: QuotaStore, clock: Clock, samples: int, window_seconds: int) -> None:
        window_ms = window_seconds * 1000
        self.store = store
        self.clock = clock
        self.produce = ClientQuotaManager(store, PRODUCER_BYTE_RATE, samples, window_ms)
        self.fetch = ClientQuotaManager(store, CONSUMER_BYTE_RATE, samples, window_ms)
        self.request = ClientQuotaManager(store, REQUEST_PERCENTAGE, samples, window_ms, max_throttle_ms=window_ms)

    @classmethod
    def load(cls, data_dir: Path, clock: Clock, samples: int, window_seconds: int) -> ClientQuotas:
        return cls(QuotaStore.load(data_dir), clock, samples, window_seconds)

    @property
    def active(self) -> bool:
        """Any user or client id quota configured: without one, requests skip quotas
        altogether (ip quotas apply to connections, broker/connection_rate.py)."""
        return self.store.has_client_quotas()

    def limits(self, user: str, client_id: str) -> bool:
        """Whether any quota applies to this client."""
        return any(
            m.enabled and m.quota(user, client_id) is not None for m in (self.produce, self.fetch, self.request)
        )
