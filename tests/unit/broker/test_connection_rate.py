"""max.connection.creation.rate (KIP-612) on the injected clock: Kafka's windowed rate, the
throttle time its acceptor waits, and a connection held unread for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from broker.config import Config, ConfigError
from broker.connection_rate import ConnectionCreationRate, IpConnectionRates, WindowedRate
from broker.quotas.store import QuotaStore
from storage.clock import ManualClock
from tests.unit.broker.connection_limits_fakes import connect, services


def _ip_rates(tmp_path: Path, quotas: dict[str | None, float]) -> IpConnectionRates:
    store = QuotaStore(tmp_path / "client-quotas.json")
    store.apply({(("ip", name),): {"connection_creation_rate": value} for name, value in quotas.items()})
    return IpConnectionRates(store, samples=11, window_ms=1000, resolve={"app-host": "10.0.0.9"}.__getitem__)


def _rate(clock: ManualClock, **settings: str) -> ConnectionCreationRate:
    return ConnectionCreationRate(Config({"listeners": "PLAINTEXT://127.0.0.1:9092,OTHER://127.0.0.1:9093",
                                          "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT",
                                          **settings}), clock)


def test_windowed_rate_spans_at_least_samples_minus_one_windows() -> None:
    rate = WindowedRate(quota=1, samples=11, window_ms=1000)
    # 10 events over the 10 s minimum span are exactly the quota; the 11th is over it by
    # 0.1/s, a throttle of 0.1 / 1 * 10 s, capped at one window.
    assert [rate.record(0) for _ in range(10)] == [0] * 10
    assert rate.record(0) == 1000
    fresh = WindowedRate(quota=10, samples=11, window_ms=1000)
    # 10.1/s over 10/s: 0.01 of 10 s, truncated to whole ms as Kafka's `toLong` does.
    assert [fresh.record(0) for _ in range(101)][-2:] == [0, 99]


def test_a_burst_is_spread_as_kafkas_blocked_acceptor_spreads_it() -> None:
    clock = ManualClock()
    rate = _rate(clock, **{"max.connection.creation.rate": "2"})
    delays = [rate.delay_ms("PLAINTEXT") for _ in range(24)]
    # 20 fit the rate over the minimum span of 10 windows; then each waits for the one before
    # it, and for its own throttle: half a second, then a full window (the cap) once the span
    # counts one full window less padding.
    assert delays[:20] == [0] * 20
    assert delays[20:] == [500, 1000, 2000, 3000]
    clock.advance(60_000)
    assert rate.delay_ms("PLAINTEXT") == 0


def test_listener_rate_and_broker_rate_the_longer_throttle_wins() -> None:
    clock = ManualClock()
    rate = _rate(clock, **{"listener.name.other.max.connection.creation.rate": "1"})
    assert [rate.delay_ms("OTHER") for _ in range(11)][-2:] == [0, 1000]
    # The other listener has no limit of its own and the broker-wide one is unlimited.
    assert rate.delay_ms("PLAINTEXT") == 0
    assert not _rate(clock).limited


def test_invalid_rates_are_refused() -> None:
    with pytest.raises(ConfigError):
        _rate(ManualClock(), **{"max.connection.creation.rate": "0"})
    with pytest.raises(ConfigError):
        _rate(ManualClock(), **{"listener.name.other.max.connection.creation.rate": "many"})


def test_a_throttled_connection_is_not_read_until_its_turn() -> None:
    clock = ManualClock()
    svc = services(clock, **{"max.connection.creation.rate": "1"})
    first = [connect(svc) for _ in range(10)]
    assert all("pause_reading" not in c.transport.calls for c in first)
    held = connect(svc)
    assert held.transport.calls == ["pause_reading"]
    assert svc.metrics.connections_throttled.labels("PLAINTEXT")._value.get() == 1
    clock.advance(999)
    assert held.transport.calls == ["pause_reading"]
    clock.advance(1)
    assert held.transport.calls == ["pause_reading", "resume_reading"]


def test_an_address_over_its_ip_quota_is_throttled_and_not_counted(tmp_path: Path) -> None:
    rates = _ip_rates(tmp_path, {"10.0.0.1": 1, None: 2, "app-host": 1})
    # 1/s over the 10 s minimum span: one a second fits, an eleventh within the span is
    # throttled (a full window, the cap). Refused connections are taken back: had the two
    # below counted, the one at 11 s would be over the rate too.
    assert [rates.throttle_ms("10.0.0.1", t * 1000) for t in range(10)] == [0] * 10
    assert rates.throttle_ms("10.0.0.1", 9_000) == 1000
    assert rates.throttle_ms("10.0.0.1", 10_000) == 1000
    assert rates.throttle_ms("10.0.0.1", 11_000) == 0
    # Other addresses have the default's rate, each its own.
    assert [rates.throttle_ms("10.0.0.2", 0) for _ in range(21)][-2:] == [0, 500]
    assert [rates.throttle_ms("10.0.0.3", 0) for _ in range(20)] == [0] * 20
    # A host name applies to the address it resolves to.
    assert [rates.throttle_ms("10.0.0.9", 0) for _ in range(11)][-1] == 1000


def test_without_ip_quotas_nothing_is_throttled_or_kept(tmp_path: Path) -> None:
    rates = _ip_rates(tmp_path, {})
    assert all(rates.throttle_ms(f"10.0.0.{i}", 0) == 0 for i in range(50))
    assert rates._rates == {}
