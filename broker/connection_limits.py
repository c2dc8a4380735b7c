"""Connection limits, as Kafka's `SocketServer.ConnectionQuotas` and `Selector` keep them.

`max.connections` (all listeners), `listener.name.<l>.max.connections` (one listener) and
`max.connections.per.ip` with `max.connections.per.ip.overrides` (`host:count,...`) are
checked when a connection is accepted. Kafka stops accepting at the broker-wide limit;
here a connection past any limit is closed at once, with a log line. A connection with no
request for `connections.max.idle.ms` is closed; one with a request in flight (a parked
long-poll fetch included) is not idle. Idleness is measured on the injected clock by one
sweep timer, so a request costs only a timestamp update.
"""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

from broker.config import Config, ConfigError
from broker.connection_rate import ConnectionCreationRate, address_of
from broker.logging import get_logger
from broker.quotas.store import QuotaStore
from storage.clock import Clock, Timer

log = get_logger("odradek.connection_limits")


class Admission:
    """A connection counted in, given back once by whoever sees it end first: the TLS gate
    of a connection whose handshake fails, else the connection itself."""

    __slots__ = ("_limits", "_released", "ip", "listener")

    def __init__(self, limits: ConnectionLimits, listener: str, ip: str) -> None:
        self._limits = limits
        self.listener = listener
        self.ip = ip
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._limits.release(self.listener, self.ip)


class Expirable(Protocol):
    """What the idle sweep needs of a connection (broker/connection.py)."""

    def idle_since_ms(self) -> int | None:
        """When the connection last became idle, or None while a request is in flight."""
        ...

    def close_idle(self, idle_ms: int) -> None: ...


def parse_overrides(text: str, resolve: Callable[[str], str] = socket.gethostbyname) -> dict[str, int]:
    """`host:count,host:count` to counts by IP address; host names are resolved once, as
    Kafka's `ConnectionQuotas` does with `InetAddress.getByName`."""
    overrides: dict[str, int] = {}
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        host, sep, count = entry.rpartition(":")
        if not sep or not host or not count.strip().isdigit():
            raise ConfigError(f"max.connections.per.ip.overrides: cannot read {entry!r}")
        host = host.strip().strip("[]")
        overrides[_address(host, resolve)] = int(count)
    return overrides


def _address(host: str, resolve: Callable[[str], str]) -> str:
    try:
        return address_of(host, resolve)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"max.connections.per.ip.overrides: cannot resolve {host!r}: {exc}") from None


class ConnectionLimits:
    def __init__(self, config: Config, clock: Clock, quotas: QuotaStore | None = None) -> None:
        self.clock = clock
        self.config = config
        self.max_connections = config.get_int("max.connections")
        self.max_per_ip = config.get_int("max.connections.per.ip")
        self.per_ip_overrides = parse_overrides(config.get_str("max.connections.per.ip.overrides"))
        self.per_listener: dict[str, int] = {}
        for listener in config.listeners:
            value = config.security.for_listener(listener.name, "max.connections")
            if value is not None:
                try:
                    self.per_listener[listener.name] = int(value)
                except ValueError:
                    raise ConfigError(f"listener.name.{listener.name.lower()}.max.connections: {value!r}") from None
        self.idle_ms = config.get_ms("connections.max.idle.ms")
        self.creation_rate = ConnectionCreationRate(config, clock, quotas)
        self.total = 0
        self.by_listener: Counter[str] = Counter()
        self.by_ip: Counter[str] = Counter()
        self._sweep_timer: Timer | None = None
        self._connections: Iterable[Expirable] = ()

    def reconfigure(self, dynamic: Callable[[str], str | None]) -> None:
        """Applies the dynamic values (AlterConfigs on the broker) of the broker-wide limits
        over the static ones, as Kafka's `DynamicConnectionQuota` does; connections already
        open stay open. A value that cannot be read leaves the limits as they were."""
        try:
            max_connections = int(dynamic("max.connections") or self.config.get_int("max.connections"))
            max_per_ip = int(dynamic("max.connections.per.ip") or self.config.get_int("max.connections.per.ip"))
            overrides_text = dynamic("max.connections.per.ip.overrides")
            overrides = parse_overrides(
                self.config.get_str("max.connections.per.ip.overrides") if overrides_text is None else overrides_text
            )
        except (ValueError, ConfigError) as exc:
            log.warning("connection limits not changed", error=str(exc))
            return
        self.max_connections, self.max_per_ip, self.per_ip_overrides = max_connections, max_per_ip, overrides

    # -- admission ------------------------------------------------------------------------
    def admit(self, listener: str, ip: str) -> str | None:
        """Counts the connection in and returns None, or returns why it is refused."""
        ip_limit = self.per_ip_overrides.get(ip, self.max_per_ip)
        if self.by_ip[ip] >= ip_limit:
            return f"address already has the configured maximum of {ip_limit} connections (max.connections.per.ip)"
        listener_limit = self.per_listener.get(listener)
        if listener_limit is not None and self.by_listener[listener] >= listener_limit:
            return f"listener {listener} has the configured maximum of {listener_limit} connections"
        if self.total >= self.max_connections:
            return f"broker has the configured maximum of {self.max_connections} connections (max.connections)"
        self.total += 1
        self.by_listener[listener] += 1
        self.by_ip[ip] += 1
        return None

    def enter(self, listener: str, ip: str) -> Admission | str:
        """`admit`, as an Admission to give back once, or why the connection is refused."""
        refusal = self.admit(listener, ip)
        return refusal if refusal is not None else Admission(self, listener, ip)

    def release(self, listener: str, ip: str) -> None:
        self.total -= 1
        self.by_listener[listener] -= 1
        self.by_ip[ip] -= 1
        if self.by_ip[ip] <= 0:
            del self.by_ip[ip]

    # -- idle expiry ----------------------------------------------------------------------
    def start_idle_expiry(self, connections: Iterable[Expirable]) -> None:
        """Sweeps `connections` (a live collection) until `stop`; a negative
        `connections.max.idle.ms` turns expiry off."""
        self._connections = connections
        if self.idle_ms >= 0:
            self._sweep_timer = self.clock.call_later(self.idle_ms, self._sweep)

    def stop(self) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None

    def _sweep(self) -> None:
        now = self.clock.monotonic_ms()
        # Next sweep when the oldest idle connection is due; a busy one is looked at again
        # a full period later at the latest.
        next_in = self.idle_ms
        for conn in list(self._connections):
            since = conn.idle_since_ms()
            if since is None:
                continue
            remaining = since + self.idle_ms - now
            if remaining <= 0:
                conn.close_idle(self.idle_ms)
            else:
                next_in = min(next_in, remaining)
        self._sweep_timer = self.clock.call_later(max(next_in, 1), self._sweep)
