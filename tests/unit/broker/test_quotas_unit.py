"""Client quota arithmetic on explicit timestamps and a manual clock: Kafka's windowed rate,
its throttle time, KIP-55's precedence, the AlterClientQuotas and DescribeClientQuotas rules,
and the connection muted for the throttle time (KIP-219)."""

from __future__ import annotations

from pathlib import Path

import pytest

from broker.config import Config
from broker.quotas import ClientQuotas
from broker.quotas.manager import ClientQuotaManager
from broker.quotas.rate import Rate, throttle_time_ms
from broker.quotas.store import (
    MATCH_DEFAULT,
    MATCH_EXACT,
    MATCH_SPECIFIED,
    QuotaError,
    QuotaStore,
    entity_of,
    parse_filter,
    validate_entity,
    validate_value,
)
from broker.quotas.throttling import quota_user
from broker.request_queue import RequestQueue
from broker.router import Router
from protocol.errors import ErrorCode
from storage.clock import ManualClock
from tests.unit.broker.connection_fakes import API_VERSIONS, FakeServices, HeldHandler, make_conn, settle

T0 = 1_000_000


def test_rate_counts_at_least_samples_minus_one_windows() -> None:
    rate = Rate(samples=11, window_ms=1000)
    rate.record(500_000, T0)
    # 500 KB at once, measured over the 10 full windows a young rate is given.
    assert rate.measure(T0) == 50_000
    assert rate.window_size_ms(T0) == 10_000
    rate.record(500_000, T0 + 4_500)
    # 4.5 s elapsed: 4 full windows, padded with 6 more (Rate.windowSize).
    assert rate.window_size_ms(T0 + 4_500) == 10_500
    assert rate.measure(T0 + 4_500) == 1_000_000 / 10.5


def test_rate_windows_follow_the_grid_and_expire() -> None:
    rate = Rate(samples=3, window_ms=1000)
    rate.record(100, T0)
    rate.record(100, T0 + 2_500)  # a new window starting at T0 + 2000
    # Oldest window starts at T0: 2.5 s elapsed, so 2 full windows, no padding needed.
    assert rate.window_size_ms(T0 + 2_500) == 2_500
    assert rate.measure(T0 + 2_500) == 200 / 2.5
    # At T0 + 3000 the first window is 3 windows old and is dropped.
    assert rate.measure(T0 + 3_000) == 100 / 2.0
    # Everything gone after another three windows.
    assert rate.measure(T0 + 9_000) == 0


def test_throttle_time_is_kafkas() -> None:
    # (observed - quota) / quota * window, rounded as Java's Math.round.
    assert throttle_time_ms(300.0, 200.0, 10_000) == 5_000
    assert throttle_time_ms(200.0, 200.0, 10_000) == 0
    assert throttle_time_ms(100.0, 200.0, 10_000) == 0
    assert throttle_time_ms(200.05, 200.0, 10_000) == 3  # 2.5 ms rounds up


def store_with(tmp_path: Path, quotas: dict[tuple[tuple[str, str | None], ...], dict[str, float | None]]) -> QuotaStore:
    store = QuotaStore.load(tmp_path)
    store.apply({entity_of(e): v for e, v in quotas.items()})
    return store


def test_producer_over_its_quota_is_throttled_until_the_rate_is_back(tmp_path: Path) -> None:
    store = store_with(tmp_path, {(("client-id", "p"),): {"producer_byte_rate": 1000.0}})
    manager = ClientQuotaManager(store, "producer_byte_rate", samples=11, window_ms=1000)
    assert manager.record_and_throttle_ms("ANONYMOUS", "p", 10_000, T0) == 0  # 1000/s over 10 s
    # 15000 bytes over 10.1 s (0.1 s elapsed, padded by 10 windows) is 1485.1/s, 48.5 % over
    # the quota: 48.5 % of the 10.1 s window.
    assert manager.record_and_throttle_ms("ANONYMOUS", "p", 5_000, T0 + 100) == 4_900
    # Another client id has no quota.
    assert manager.record_and_throttle_ms("ANONYMOUS", "other", 10**9, T0) == 0
    # The largest fetch a quota allows at once: 10 windows' worth.
    assert manager.max_value_in_window("ANONYMOUS", "p") == 10_000


def test_idle_rates_expire_after_an_hour(tmp_path: Path) -> None:
    store = store_with(tmp_path, {(("client-id", None),): {"producer_byte_rate": 1000.0}})
    manager = ClientQuotaManager(store, "producer_byte_rate", samples=11, window_ms=1000)
    manager.record_and_throttle_ms("u", "old", 1, T0)
    manager.record_and_throttle_ms("u", "new", 1, T0 + 3_000_000)
    assert manager.tracked == 2
    manager.record_and_throttle_ms("u", "new", 1, T0 + 3_600_000)
    assert manager.tracked == 1


def test_unrecord_takes_a_value_back(tmp_path: Path) -> None:
    store = store_with(tmp_path, {(("user", None),): {"consumer_byte_rate": 1000.0}})
    manager = ClientQuotaManager(store, "consumer_byte_rate", samples=11, window_ms=1000)
    assert manager.record_and_throttle_ms("alice", "c", 20_000, T0) == 10_000
    manager.unrecord("alice", "c", 20_000, T0)
    assert manager.record_and_throttle_ms("alice", "c", 9_000, T0 + 1) == 0


def test_request_quota_throttle_is_bounded_by_one_window(tmp_path: Path) -> None:
    store = store_with(tmp_path, {(("client-id", None),): {"request_percentage": 1.0}})
    quotas = ClientQuotas(store, ManualClock(), samples=11, window_seconds=1)
    # 50 % of a second busy against a 1 % quota: far more than a window, bounded to it.
    assert quotas.request.record_and_throttle_ms("u", "c", 50.0, T0) == 1_000


def test_kip55_precedence_and_shared_rates(tmp_path: Path) -> None:
    store = store_with(tmp_path, {
        (("user", "alice"), ("client-id", "app")): {"producer_byte_rate": 1.0},
        (("user", "alice"), ("client-id", None)): {"producer_byte_rate": 2.0},
        (("user", "alice"),): {"producer_byte_rate": 3.0},
        (("user", None), ("client-id", "app")): {"producer_byte_rate": 4.0},
        (("user", None), ("client-id", None)): {"producer_byte_rate": 5.0},
        (("user", None),): {"producer_byte_rate": 6.0},
        (("client-id", "app"),): {"producer_byte_rate": 7.0},
        (("client-id", None),): {"producer_byte_rate": 8.0},
        (("user", "bob"),): {"consumer_byte_rate": 9.0},
    })
    m = ClientQuotaManager(store, "producer_byte_rate", samples=11, window_ms=1000)
    assert m.quota("alice", "app") == (("alice", "app"), 1.0)
    assert m.quota("alice", "other") == (("alice", "other"), 2.0)
    assert m.quota("bob", "app") == (("bob", "app"), 4.0)  # bob has no producer quota of his own
    assert m.quota("bob", "other") == (("bob", "other"), 5.0)
    store.apply({entity_of([("user", "alice"), ("client-id", None)]): {"producer_byte_rate": None}})
    # The cached match is dropped on change; alice's own quota is shared by her client ids.
    assert m.quota("alice", "other") == (("alice", ""), 3.0)
    store.apply({entity_of([("user", None), ("client-id", None)]): {"producer_byte_rate": None},
                 entity_of([("user", None), ("client-id", "app")]): {"producer_byte_rate": None}})
    assert m.quota("bob", "x") == (("bob", ""), 6.0)
    store.apply({entity_of([("user", None)]): {"producer_byte_rate": None}})
    assert m.quota("bob", "app") == (("", "app"), 7.0)
    assert m.quota("bob", "x") == (("", "x"), 8.0)


def test_quotas_are_saved_and_loaded(tmp_path: Path) -> None:
    store_with(tmp_path, {(("user", "alice"), ("client-id", None)): {"producer_byte_rate": 1024.0}})
    again = QuotaStore.load(tmp_path)
    assert again.get(entity_of([("client-id", None), ("user", "alice")])) == {"producer_byte_rate": 1024.0}


@pytest.mark.parametrize(("pairs", "message"), [
    ([], "Invalid empty client quota entity"),
    ([("user", "a"), ("user", "b")], "Invalid client quota entity, duplicate entity entry user"),
    ([("group", "g")], "Unhandled client quota entity type: group"),
    ([("client-id", "")], "Empty client-id not supported"),
    ([("ip", "")], "Empty ip not supported"),
    ([("ip", "10.0.0.1"), ("user", "a")],
     "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"),
    ([("ip", None), ("client-id", None)],
     "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"),
    ([("ip", "no-such-host.invalid")], "no-such-host.invalid is not a valid IP or resolvable host."),
])
def test_bad_entities(pairs: list[tuple[str, str | None]], message: str) -> None:
    with pytest.raises(QuotaError) as caught:
        validate_entity(pairs)
    assert caught.value == QuotaError(ErrorCode.INVALID_REQUEST, message)


def test_ip_entities_name_an_address_a_resolvable_host_or_the_default() -> None:
    assert validate_entity([("ip", "10.0.0.1")]) == (("ip", "10.0.0.1"),)
    assert validate_entity([("ip", "::1")]) == (("ip", "::1"),)
    assert validate_entity([("ip", None)]) == (("ip", None),)
    assert validate_entity([("ip", "broker-host")], {"broker-host"}.__contains__) == (("ip", "broker-host"),)


USER = (("user", "a"),)
IP = (("ip", "10.0.0.1"),)


@pytest.mark.parametrize(("entity", "key", "value", "message"), [
    (USER, "producer_byte_rate", 10.5, "producer_byte_rate cannot be a fractional value."),
    (USER, "consumer_byte_rate", 0.0, "Quota consumer_byte_rate must be greater than 0"),
    (USER, "request_percentage", -1.0, "Quota request_percentage must be greater than 0"),
    (USER, "producer_byte_rate", 1e30, "Proposed value for producer_byte_rate is too large for a LONG."),
    (USER, "bytes_per_second", 1.0, "Invalid configuration key bytes_per_second"),
    (USER, "connection_creation_rate", 5.0, "Invalid configuration key connection_creation_rate"),
    (IP, "producer_byte_rate", 5.0, "Invalid configuration key producer_byte_rate"),
    (IP, "connection_creation_rate", 2.5, "connection_creation_rate cannot be a fractional value."),
    (IP, "connection_creation_rate", 3e9, "Proposed value for connection_creation_rate is too large for an INT."),
])
def test_bad_values(entity: tuple[tuple[str, str | None], ...], key: str, value: float, message: str) -> None:
    with pytest.raises(QuotaError) as caught:
        validate_value(entity, key, value)
    assert caught.value == QuotaError(ErrorCode.INVALID_REQUEST, message)
    validate_value(USER, "request_percentage", 12.5)
    validate_value(IP, "connection_creation_rate", 100.0)


def test_describe_filters(tmp_path: Path) -> None:
    store = store_with(tmp_path, {
        (("user", "alice"),): {"producer_byte_rate": 1.0},
        (("user", None),): {"producer_byte_rate": 2.0},
        (("user", "alice"), ("client-id", "app")): {"producer_byte_rate": 3.0},
        (("client-id", None),): {"producer_byte_rate": 4.0},
    })

    def described(components: list[tuple[str, int, str | None]], strict: bool) -> list[float]:
        return sorted(v["producer_byte_rate"] for _, v in store.describe(parse_filter(components, strict)))

    assert described([("user", MATCH_EXACT, "alice")], False) == [1.0, 3.0]
    assert described([("user", MATCH_EXACT, "alice")], True) == [1.0]
    assert described([("user", MATCH_DEFAULT, None)], False) == [2.0]
    assert described([("user", MATCH_SPECIFIED, None)], False) == [1.0, 2.0, 3.0]
    assert described([("client-id", MATCH_SPECIFIED, None)], True) == [4.0]
    assert described([], False) == [1.0, 2.0, 3.0, 4.0]
    assert described([], True) == []


@pytest.mark.parametrize(("components", "code", "message"), [
    ([("", 0, "x")], ErrorCode.INVALID_REQUEST, "Invalid empty entity type."),
    ([("user", 0, "a"), ("user", 2, None)], ErrorCode.INVALID_REQUEST,
     "Entity type user cannot appear more than once in the filter."),
    ([("topic", 0, "t")], ErrorCode.UNSUPPORTED_VERSION, "Unsupported entity type topic"),
    ([("user", 0, None)], ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null."),
    ([("user", 1, "a")], ErrorCode.INVALID_REQUEST,
     "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."),
    ([("user", 2, "a")], ErrorCode.INVALID_REQUEST,
     "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."),
    ([("user", 7, None)], ErrorCode.INVALID_REQUEST, "Unknown match type 7"),
])
def test_bad_filters(components: list[tuple[str, int, str | None]], code: int, message: str) -> None:
    with pytest.raises(QuotaError) as caught:
        parse_filter(components, False)
    assert caught.value == QuotaError(code, message)


def test_quota_user_of_principals() -> None:
    assert quota_user("User:ANONYMOUS") == "ANONYMOUS"
    assert quota_user("User:CN=alice,O=example") == "CN=alice,O=example"


async def test_a_throttled_connection_reads_nothing_until_the_throttle_time_passed(tmp_path: Path) -> None:
    clock = ManualClock()
    # Any handler time is far over this quota of the test client's id: one window's throttle.
    store = store_with(tmp_path, {(("client-id", "wire"),): {"request_percentage": 1e-9}})
    router = Router()
    router.add(API_VERSIONS, HeldHandler())
    services = FakeServices(Config(), router, RequestQueue(500), quotas=ClientQuotas(store, clock, 11, 1))
    conn = make_conn(max_in_flight=5, services=services)
    conn.send(1)
    await settle()
    conn.handler.release(1)
    await settle()
    assert conn.transport.correlation_ids() == [1]  # answered at once
    # A client under a quota is served one request at a time, and muted after the answer.
    assert conn.connection.max_in_flight == 1
    assert conn.transport.calls == ["pause_reading"]
    conn.send(2)  # already on its way: read, but not handled while throttled
    await settle()
    assert conn.handler.started == [1]
    clock.advance(999)
    await settle()
    assert conn.handler.started == [1]
    clock.advance(1)
    await settle()
    assert conn.handler.started == [1, 2]
    assert conn.connection.throttle_timer is None
    conn.connection.connection_lost(None)
