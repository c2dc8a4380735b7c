"""Quotas applied to requests, as Kafka's KafkaApis does: the request quota on every API
but the exempt ones, the produce byte rate on the request's size, the fetch byte rate on the
response's size. The response carries the longest throttle time, and the connection reads
nothing more for that long (KIP-219)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from protocol.codec import Writer
from protocol.message import Message

if TYPE_CHECKING:
    from broker.quotas import ClientQuotas

PRODUCE_KEY = 0
# Answered by Kafka's SaslServerAuthenticator before KafkaApis (SaslHandshake,
# SaslAuthenticate), or cluster actions (ApiKeys.clusterAction: WriteTxnMarkers).
EXEMPT_API_KEYS = frozenset({17, 36, 27})
# Request time as a percentage of one second (ClientRequestQuotaManager).
NANOS_TO_PERCENTAGE = 100.0 / 1_000_000_000


class _Client(Protocol):
    @property
    def principal(self) -> str: ...

    @property
    def authenticated(self) -> bool: ...


class ThrottledRequest(Protocol):
    """What the quotas need of a request (broker.context.RequestContext): declared here so
    that the quotas never import the context."""

    @property
    def connection(self) -> _Client: ...

    @property
    def quotas(self) -> ClientQuotas: ...

    @property
    def client_id(self) -> str | None: ...

    @property
    def api_key(self) -> int: ...

    @property
    def api_version(self) -> int: ...

    @property
    def request_size(self) -> int: ...

    @property
    def bandwidth_throttle_ms(self) -> int: ...


def quota_user(principal: str) -> str:
    """The user entity of a principal: its name (`User:alice` is alice, and a connection
    without authentication is `ANONYMOUS`)."""
    return principal.split(":", 1)[1] if ":" in principal else principal


def _client(ctx: ThrottledRequest) -> tuple[str, str]:
    return quota_user(ctx.connection.principal), ctx.client_id or ""


def applies(ctx: ThrottledRequest) -> bool:
    """Whether quotas apply to this request at all: some are configured, and the connection
    has authenticated (Kafka's authenticator answers the requests before that)."""
    return ctx.quotas.active and ctx.connection.authenticated


def limited(ctx: ThrottledRequest) -> bool:
    """Whether a quota applies to the request's client."""
    return applies(ctx) and ctx.quotas.limits(*_client(ctx))


def times_requests(ctx: ThrottledRequest) -> bool:
    """Whether the handler's running time is wanted (a request quota applies)."""
    return applies(ctx) and ctx.api_key not in EXEMPT_API_KEYS and ctx.quotas.request.enabled


def fetch_max_bytes(ctx: ThrottledRequest) -> int | None:
    """A consumer's fetch is never larger than its quota allows in one window (KafkaApis)."""
    fetch = ctx.quotas.fetch
    if not applies(ctx) or not fetch.enabled:
        return None
    limit = fetch.max_value_in_window(*_client(ctx))
    return None if limit is None else int(min(limit, 2**31 - 1))


def fetch_throttle_ms(ctx: ThrottledRequest, response: Message) -> int:
    """Records the response's size; a throttled fetch is answered empty, so its size is
    taken back (ClientQuotaManager.unrecordQuotaSensor)."""
    quotas = ctx.quotas
    if not applies(ctx) or not quotas.fetch.enabled:
        return 0
    w = Writer()
    response.write(w, ctx.api_version)
    size = w.size()
    user, client_id = _client(ctx)
    now = quotas.clock.monotonic_ms()
    throttle = quotas.fetch.record_and_throttle_ms(user, client_id, size, now)
    if throttle > 0:
        quotas.fetch.unrecord(user, client_id, size, now)
    return throttle


def response_throttle_ms(ctx: ThrottledRequest, busy_nanos: int | None) -> int:
    """The throttle time of a handled request: the longest of its quotas'."""
    quotas = ctx.quotas
    if not applies(ctx):
        return ctx.bandwidth_throttle_ms
    user, client_id = _client(ctx)
    now = quotas.clock.monotonic_ms()
    throttle = ctx.bandwidth_throttle_ms
    if ctx.api_key == PRODUCE_KEY and quotas.produce.enabled:
        throttle = max(throttle, quotas.produce.record_and_throttle_ms(user, client_id, ctx.request_size, now))
    if busy_nanos is not None:
        request_ms = quotas.request.record_and_throttle_ms(user, client_id, busy_nanos * NANOS_TO_PERCENTAGE, now)
        throttle = max(throttle, request_ms)
    return throttle
