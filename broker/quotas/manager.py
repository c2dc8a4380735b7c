"""One quota type's manager, as Kafka's ClientQuotaManager with its DefaultQuotaCallback.

A client (user, client id) is held to the first quota of its type found in KIP-55's order:

    /config/users/<user>/clients/<client-id>
    /config/users/<user>/clients/<default>
    /config/users/<user>
    /config/users/<default>/clients/<client-id>
    /config/users/<default>/clients/<default>
    /config/users/<default>
    /config/clients/<client-id>
    /config/clients/<default>

Clients matched to the same quota entity share one rate: a `/config/users/alice` quota
is shared by all of alice's client ids, a `/config/clients/<default>` one is kept per client
id (the sensor's metric tags in Kafka).
"""

from __future__ import annotations

from broker.quotas.rate import Rate, throttle_time_ms
from broker.quotas.store import CLIENT_ID, USER, Entity, QuotaStore

# The rate's key: (user, client id), "" where the matched entity leaves one out.
Tags = tuple[str, str]
# A rate nothing was recorded in for this long is dropped (Kafka's sensors expire after an
# hour of inactivity); looked for at most once a minute.
INACTIVE_RATE_MS = 3_600_000
SWEEP_INTERVAL_MS = 60_000
# Cached client-to-quota matches kept at most (they are cheap to find again).
MAX_CACHED_MATCHES = 10_000


def _lookup_order(user: str, client_id: str) -> list[tuple[Entity, Tags]]:
    both = (user, client_id)
    return [
        (((CLIENT_ID, client_id), (USER, user)), both),
        (((CLIENT_ID, None), (USER, user)), both),
        (((USER, user),), (user, "")),
        (((CLIENT_ID, client_id), (USER, None)), both),
        (((CLIENT_ID, None), (USER, None)), both),
        (((USER, None),), (user, "")),
        (((CLIENT_ID, client_id),), ("", client_id)),
        (((CLIENT_ID, None),), ("", client_id)),
    ]


class ClientQuotaManager:
    def __init__(self, store: QuotaStore, key: str, samples: int, window_ms: int, max_throttle_ms: int | None = None):
        self.store = store
        self.key = key
        self.samples = samples
        self.window_ms = window_ms
        # ClientRequestQuotaManager bounds its throttle time to one window; the byte-rate
        # managers do not.
        self.max_throttle_ms = max_throttle_ms
        self._rates: dict[Tags, Rate] = {}
        self._last_recorded: dict[Tags, int] = {}
        self._next_sweep_ms: int | None = None
        self._matches: dict[tuple[str, str], tuple[Tags, float] | None] = {}
        self._version = -1
        self._enabled = False

    @property
    def enabled(self) -> bool:
        """Any quota of this type configured: only then is anything recorded (quotasEnabled)."""
        self._refresh()
        return self._enabled

    def quota(self, user: str, client_id: str) -> tuple[Tags, float] | None:
        """The rate key and bound for a client, or None: not limited."""
        self._refresh()
        if (user, client_id) in self._matches:
            return self._matches[(user, client_id)]
        if len(self._matches) >= MAX_CACHED_MATCHES:
            self._matches.clear()
        found = None
        for entity, tags in _lookup_order(user, client_id):
            bound = self.store.get(entity).get(self.key)
            if bound is not None:
                found = (tags, bound)
                break
        self._matches[(user, client_id)] = found
        return found

    def record_and_throttle_ms(self, user: str, client_id: str, value: float, now_ms: int) -> int:
        """Records the value, then the throttle time if the client is over its quota."""
        matched = self.quota(user, client_id)
        if matched is None:
            return 0
        tags, bound = matched
        rate = self._rate(tags)
        rate.record(value, now_ms)
        self._recorded(tags, now_ms)
        observed = rate.measure(now_ms)
        if observed <= bound:
            return 0
        throttle = throttle_time_ms(observed, bound, rate.window_size_ms(now_ms))
        return throttle if self.max_throttle_ms is None else min(throttle, self.max_throttle_ms)

    def unrecord(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Takes back a value recorded for a response that was not sent (a throttled fetch)."""
        matched = self.quota(user, client_id)
        if matched is not None:
            self._rate(matched[0]).record(-value, now_ms)

    def max_value_in_window(self, user: str, client_id: str) -> float | None:
        """The most that can be recorded at once without certainly being throttled
        (maxValueInQuotaWindow): the bound over `samples - 1` windows."""
        matched = self.quota(user, client_id)
        if matched is None:
            return None
        return matched[1] * (self.samples - 1) * self.window_ms / 1000

    def _recorded(self, tags: Tags, now_ms: int) -> None:
        self._last_recorded[tags] = now_ms
        if self._next_sweep_ms is None:
            self._next_sweep_ms = now_ms + SWEEP_INTERVAL_MS
        elif now_ms >= self._next_sweep_ms:
            self._next_sweep_ms = now_ms + SWEEP_INTERVAL_MS
            for idle in [t for t, last in self._last_recorded.items() if now_ms - last >= INACTIVE_RATE_MS]:
                del self._last_recorded[idle]
                self._rates.pop(idle, None)

    @property
    def tracked(self) -> int:
        """How many rates are kept."""
        return len(self._rates)

    def _rate(self, tags: Tags) -> Rate:
        rate = self._rates.get(tags)
        if rate is None:
            rate = self._rates[tags] = Rate(self.samples, self.window_ms)
        return rate

    def _refresh(self) -> None:
        if self._version != self.store.version:
            self._version = self.store.version
            self._matches.clear()
            self._enabled = self.store.has_key(self.key)
