"""Connection creation rate limits (KIP-612), as Kafka's `SocketServer.ConnectionQuotas`.

`max.connection.creation.rate` (all listeners) and `listener.name.<l>.max.connection.creation.rate`
(one listener) are quotas on a windowed rate of accepted connections. Kafka does not refuse a
connection over the rate: its acceptor waits the throttle time before taking the connection on,
and so before accepting the next one. Here a connection is held the same way (nothing read from
it until its turn), and each later connection's turn comes after the one before, so a burst is
spread out as Kafka's blocked acceptor spreads it.

A client quota entity of type ip with `connection_creation_rate` (KIP-612, set with
AlterClientQuotas, broker/quotas/store.py) bounds the rate per client address, `<default>`
for addresses without their own. As Kafka's `ConnectionQuotas.recordIpConnectionMaybeThrottle`,
a connection over its address's rate is not counted and is closed once its throttle time has
passed; nothing is read from it meanwhile.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass

from broker.config import Config, ConfigError
from broker.quotas.store import QuotaStore
from storage.clock import Clock

UNLIMITED = 2147483647


@dataclass
class _Sample:
    start_ms: int
    count: float = 0.0


class WindowedRate:
    """Kafka's `Rate` over a `SampledStat` with a quota: events per second over up to
    `samples` windows of `window_ms`, the span counted as at least `samples - 1` windows."""

    def __init__(self, quota: float, samples: int, window_ms: int) -> None:
        self.quota = quota
        self.samples_max = max(2, samples)
        self.window_ms = max(1, window_ms)
        self._samples: list[_Sample] = []

    def record(self, now_ms: int) -> int:
        """Counts one event; the throttle time in ms (0 within the quota), capped at one
        window as Kafka's `QuotaUtils.boundedThrottleTime` with its `maxThrottleTimeMs`."""
        self._purge(now_ms)
        if not self._samples or now_ms - self._samples[-1].start_ms >= self.window_ms:
            self._samples.append(_Sample(now_ms))
            del self._samples[: -self.samples_max]
        self._samples[-1].count += 1
        span_ms = self._span_ms(now_ms)
        rate = sum(s.count for s in self._samples) * 1000 / span_ms
        if rate <= self.quota:
            return 0
        return min(int((rate - self.quota) / self.quota * span_ms), self.window_ms)

    def unrecord(self) -> None:
        """Takes back the event just recorded (a connection refused is not counted)."""
        self._samples[-1].count -= 1

    def idle_since(self, now_ms: int) -> bool:
        """Whether every sample has expired: the rate has nothing left to remember."""
        self._purge(now_ms)
        return not self._samples

    def _purge(self, now_ms: int) -> None:
        expire_ms = self.samples_max * self.window_ms
        self._samples = [s for s in self._samples if now_ms - s.start_ms < expire_ms]

    def _span_ms(self, now_ms: int) -> int:
        elapsed = now_ms - self._samples[0].start_ms
        full_windows = elapsed // self.window_ms
        if full_windows < self.samples_max - 1:
            elapsed += (self.samples_max - 1 - full_windows) * self.window_ms
        return max(elapsed, 1)


class IpConnectionRates:
    """The windowed rate of each client address held to an ip quota."""

    # Rates of this many addresses at most before the idle ones are forgotten.
    MAX_TRACKED = 1024

    def __init__(
        self, store: QuotaStore, samples: int, window_ms: int, resolve: Callable[[str], str] = socket.gethostbyname
    ) -> None:
        self.store = store
        self.samples = samples
        self.window_ms = window_ms
        self.resolve = resolve
        self._rates: dict[str, WindowedRate] = {}
        self._quotas: dict[str | None, float] = {}
        self._version = -1

    def throttle_ms(self, ip: str, now_ms: int) -> int:
        """Counts a connection from `ip`; the time to hold it before closing it (0: within
        its rate, or no ip quota applies)."""
        quotas = self._current_quotas()
        quota = quotas.get(ip, quotas.get(None))
        if quota is None:
            return 0
        rate = self._rates.get(ip)
        if rate is None:
            if len(self._rates) >= self.MAX_TRACKED:
                self._rates = {a: r for a, r in self._rates.items() if not r.idle_since(now_ms)}
            rate = self._rates[ip] = WindowedRate(quota, self.samples, self.window_ms)
        rate.quota = quota  # a changed quota applies to the rate measured so far, as in Kafka
        throttle = rate.record(now_ms)
        if throttle:
            rate.unrecord()
        return throttle

    def _current_quotas(self) -> dict[str | None, float]:
        if self._version != self.store.version:
            self._version = self.store.version
            self._quotas = {}
            for name, value in self.store.ip_quotas().items():
                address = name if name is None else self._address(name)
                if address is not None or name is None:
                    self._quotas[address] = value
        return self._quotas

    def _address(self, name: str) -> str | None:
        try:
            # A host name was resolvable when its quota was set; looked up once per change.
            return address_of(name, self.resolve)
        except (OSError, ValueError):
            return None


def address_of(host: str, resolve: Callable[[str], str]) -> str:
    """An IP address as the peer addresses of connections are written, a host name resolved
    (Kafka's `InetAddress.getByName`); raises OSError (or ValueError) when it cannot be."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return resolve(host)


class ConnectionCreationRate:
    def __init__(self, config: Config, clock: Clock, quotas: QuotaStore | None = None) -> None:
        self.clock = clock
        samples = config.get_int("quota.window.num")
        window_ms = config.get_int("quota.window.size.seconds") * 1000
        self.by_ip = IpConnectionRates(quotas, samples, window_ms) if quotas is not None else None
        broker_quota = config.get_int("max.connection.creation.rate")
        self.broker = WindowedRate(broker_quota, samples, window_ms) if broker_quota < UNLIMITED else None
        self.listeners: dict[str, WindowedRate] = {}
        for listener in config.listeners:
            value = config.security.for_listener(listener.name, "max.connection.creation.rate")
            if value is None:
                continue
            try:
                quota = int(value)
            except ValueError:
                raise ConfigError(f"listener.name.{listener.name.lower()}.max.connection.creation.rate: {value!r}") from None
            if quota <= 0:
                raise ConfigError(f"listener.name.{listener.name.lower()}.max.connection.creation.rate: {quota}")
            if quota < UNLIMITED:
                self.listeners[listener.name] = WindowedRate(quota, samples, window_ms)
        if broker_quota <= 0:
            raise ConfigError(f"max.connection.creation.rate: {broker_quota}")
        # When each listener's acceptor is free again: a connection held for its throttle time
        # holds up every later one on its listener, as Kafka's acceptor thread (one per
        # listener) blocks.
        self._free_at_ms: dict[str, int] = {}

    @property
    def limited(self) -> bool:
        return self.broker is not None or bool(self.listeners)

    def delay_ms(self, listener: str) -> int:
        """How long to hold a connection just accepted on `listener` before serving it."""
        if not self.limited:
            return 0
        now = self.clock.monotonic_ms()
        start = max(now, self._free_at_ms.get(listener, 0))
        throttle = self.broker.record(start) if self.broker is not None else 0
        listener_rate = self.listeners.get(listener)
        if listener_rate is not None:
            throttle = max(throttle, listener_rate.record(start))
        self._free_at_ms[listener] = start + throttle
        return start + throttle - now

    def ip_throttle_ms(self, ip: str, delay_ms: int) -> int:
        """For a connection from `ip` to be taken on after `delay_ms`: 0, or how long after
        that to hold it before closing it, over its address's ip quota."""
        if self.by_ip is None:
            return 0
        return self.by_ip.throttle_ms(ip, self.clock.monotonic_ms() + delay_ms)
