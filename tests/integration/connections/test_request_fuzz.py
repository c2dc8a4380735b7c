"""Well-formed requests with arbitrary field values, for every API and version served: each
gets a response (or, where Kafka does so, a closed connection), no handler fails, and the
broker stays healthy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from protocol.messages import API_SPECS
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.unit.protocol.protocol_model import message_strategy

EXAMPLES = 20
RESPONSE_TIMEOUT = 10.0
FAILURE_MARKS = ("handler failed", "response encoding failed", "Traceback")
# How far each broker's log has been checked by the cases (log path -> byte offset).
CHECKED_UP_TO: dict[Path, int] = {}


def served() -> list[tuple[int, int]]:
    """Every (api key, version) the router serves, read from the code, not the broker."""
    from broker.handlers import build_router

    return [(key, v) for key, route in sorted(build_router().routes.items()) for v in range(route.min_version, route.max_version + 1)]


@pytest.fixture(scope="module")
def fuzz_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(
        tmp_path_factory.mktemp("fuzz") / "data",
        {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "3",
         "transaction.state.log.num.partitions": "3"},
    )
    proc.start()
    yield proc
    proc.stop()
    # Failures after the last case's check (background tasks, shutdown): each case checked
    # its own part of the log already, so a case's failure is not reported twice.
    failed = failures(proc.log_since(CHECKED_UP_TO.get(proc.log_path, 0)))
    assert not failed, failed


def failures(log: str) -> str:
    """The log lines that show a request handler or a response encoder failing."""
    lines = [line for line in log.splitlines() if any(mark in line for mark in FAILURE_MARKS)]
    return "\n".join(lines[:20])


def tame(api_key: int, request: object) -> None:
    """Keep requests that may legitimately wait from waiting: the test is about values."""
    if api_key == 1:  # Fetch: no long poll
        request.max_wait_ms = 0  # type: ignore[attr-defined]
    if api_key == 11:  # JoinGroup: short timeouts, so a join never waits long
        request.session_timeout_ms = min(abs(request.session_timeout_ms), 6000)  # type: ignore[attr-defined]
        request.rebalance_timeout_ms = min(abs(request.rebalance_timeout_ms), 1000)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("api_key", "version"), served())
def test_arbitrary_requests_are_answered(fuzz_broker: BrokerProcess, api_key: int, version: int) -> None:
    api = API_SPECS[api_key]

    # No shrinking: each example is a round trip to a broker process, and the failing
    # request is printed whole anyway.
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    @given(st.data())
    def one(data: st.DataObject) -> None:
        request = data.draw(message_strategy(api.request, version))
        tame(api_key, request)
        with WireClient(fuzz_broker.bootstrap, timeout=RESPONSE_TIMEOUT) as client:
            cid = client.send(api_key, version, request)
            expects_response = not (api_key == 0 and getattr(request, "acks", 1) == 0)
            if expects_response:
                try:
                    got, response = client.recv(api_key, version)
                except ConnectionError:
                    got = None  # closed: allowed (Kafka closes on some bad input)
                except TimeoutError:
                    raise AssertionError(f"{api.name} v{version}: no answer in {RESPONSE_TIMEOUT}s to {request!r}") from None
                else:
                    assert got == cid
                    assert type(response) is api.response
        with WireClient(fuzz_broker.bootstrap) as probe:
            assert isinstance(probe.call(18, 0, ApiVersionsRequest()), ApiVersionsResponse)

    mark = fuzz_broker.log_size()
    one()
    # Checked per case, so a failing handler fails the case that sent its request.
    CHECKED_UP_TO[fuzz_broker.log_path] = fuzz_broker.log_size()
    failed = failures(fuzz_broker.log_since(mark))
    assert not failed, f"{api.name} v{version}:\n{failed}"
