"""Differential tests against kio, a codec generated independently from the official Kafka
message specs: every API x version x direction that both kio and `schemas/` define."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kio.index import load_entity_schema, load_request_schema, load_response_schema
from kio.serial import entity_reader, entity_writer
from kio.static.constants import EntityType
from kio.static.primitive import Records

from protocol.message import Message
from protocol.messages import API_SPECS, RequestHeader, ResponseHeader
from tests.unit.protocol.protocol_model import Target, from_kio, kio_strategy

# Broad comparisons over every message and version: `make test` runs them, `make check` not.
pytestmark = pytest.mark.property

# API x version x direction combinations both define (kio 0.6.5 vs schemas/), plus the
# four header versions. A change here means coverage changed: update it on purpose.
EXPECTED_API_COMBINATIONS = 542
EXPECTED_HEADER_COMBINATIONS = 4


def _kio_type(target: Target) -> type[Any] | None:
    cls = target.cls
    try:
        if cls is RequestHeader:
            return load_entity_schema("request_header", target.version, EntityType.header)
        if cls is ResponseHeader:
            return load_entity_schema("response_header", target.version, EntityType.header)
        for api in API_SPECS.values():
            if cls is api.request:
                return load_request_schema(api.key, target.version)
            if cls is api.response:
                return load_response_schema(api.key, target.version)
    except Exception:  # kio lacks this version
        return None
    raise AssertionError(f"{cls.NAME} is not an API message or header")


def _combinations() -> tuple[list[tuple[Target, type[Any]]], list[Target]]:
    both: list[tuple[Target, type[Any]]] = []
    ours_only: list[Target] = []
    classes: list[type[Message]] = [RequestHeader, ResponseHeader]
    for api in API_SPECS.values():
        classes += [api.request, api.response]
    for cls in classes:
        for v in range(cls.MIN_VERSION, cls.MAX_VERSION + 1):
            t = Target(cls, v)
            k = _kio_type(t)
            if k is None:
                ours_only.append(t)
            else:
                both.append((t, k))
    return both, ours_only


BOTH, OURS_ONLY = _combinations()

# kio registers strategies for its primitives but not for record sets.
st.register_type_strategy(Records, st.binary(max_size=40).map(Records.parse))


def test_coverage_is_what_we_expect() -> None:
    headers = [t for t, _ in BOTH if t.cls in (RequestHeader, ResponseHeader)]
    assert len(headers) == EXPECTED_HEADER_COMBINATIONS
    assert len(BOTH) - len(headers) == EXPECTED_API_COMBINATIONS
    # The versions Kafka 4 dropped, which kio (generated from Kafka 4) does not have.
    assert sorted(t.id for t in OURS_ONLY) == sorted(
        f"{name}{kind}-v{v}"
        for name, versions in {
            "Produce": (0, 1, 2),
            "Fetch": (0, 1, 2, 3),
            "ListOffsets": (0,),
            "OffsetCommit": (0, 1),
            "OffsetFetch": (0,),
            "CreateTopics": (0, 1),
            "DeleteTopics": (0,),
            "DescribeConfigs": (0,),
            "WriteTxnMarkers": (0,),
        }.items()
        for v in versions
        for kind in ("Request", "Response")
    )


def _kio_encode(ktype: type[Any], entity: Any) -> bytes:
    buf = io.BytesIO()
    entity_writer(ktype)(buf, entity)
    return buf.getvalue()


def _kio_decode(ktype: type[Any], data: bytes) -> Any:
    value, size = entity_reader(ktype)(data, 0)
    assert size == len(data), f"kio read {size} of {len(data)} bytes"
    return value


PARAMS = [pytest.param(t, k, id=t.id) for t, k in BOTH]


@pytest.mark.parametrize(("target", "ktype"), PARAMS)
def test_against_kio(target: Target, ktype: type[Any]) -> None:
    """(a) kio encodes, we decode to the same values and re-encode to the same bytes;
    (b) the same values built as ours (by converting field by field), we encode, kio
    decodes to the same values."""

    @settings(max_examples=20)
    @given(entity=kio_strategy(ktype))
    def check(entity: Any) -> None:
        expected = from_kio(entity, target)
        # (a)
        wire = _kio_encode(ktype, entity)
        ours = target.cls.decode(wire, target.version)
        assert ours == expected
        assert ours.encode(target.version) == wire
        # (b)
        back = _kio_decode(ktype, expected.encode(target.version))
        assert from_kio(back, target) == expected

    check()
