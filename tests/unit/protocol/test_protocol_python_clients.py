"""Cross-checks with the hand-written protocol classes of aiokafka and kafka-python (the
`kafka.protocol.old` structs): what they encode we decode, and what we encode they decode,
for every non-flexible version of the APIs we serve that they define."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codegen.generator import snake_case
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.spec import FieldSpec, MessageSpec
from tests.unit.protocol.protocol_model import Target, load_specs, message_strategy, present, struct_fields

# Broad comparisons with the Python clients' codecs: `make test` runs them, `make check` not.
pytestmark = pytest.mark.property

PACKAGES = ("aiokafka.protocol", "kafka.protocol.old")


def _their_classes() -> list[tuple[str, type[Any], Target]]:
    out: list[tuple[str, type[Any], Target]] = []
    seen: set[tuple[str, int, int, bool]] = set()
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{pkg_name}.{info.name}")
            for name, obj in inspect.getmembers(mod, inspect.isclass):
                key = getattr(obj, "API_KEY", None)
                version = getattr(obj, "API_VERSION", None)
                if not isinstance(key, int) or not isinstance(version, int) or key not in API_SPECS:
                    continue
                is_request = "Request" in name
                if not is_request and "Response" not in name:
                    continue
                api = API_SPECS[key]
                cls = api.request if is_request else api.response
                if not cls.MIN_VERSION <= version <= cls.MAX_VERSION or cls.is_flexible(version):
                    continue
                if (pkg_name, key, version, is_request) in seen:
                    continue
                seen.add((pkg_name, key, version, is_request))
                out.append((f"{pkg_name.split('.')[0]}-{cls.NAME}-v{version}", obj, Target(cls, version)))
    return sorted(out, key=lambda t: t[0])


# Where their classes model the wire differently from the spec, on purpose or not.
KNOWN_DIFFERENCES = {
    # Count and Assignments are nested in a `new_partitions` struct: same bytes, other shape.
    "aiokafka-CreatePartitionsRequest-v0": "shape",
    "aiokafka-CreatePartitionsRequest-v1": "shape",
    "kafka-CreatePartitionsRequest-v0": "shape",
    "kafka-CreatePartitionsRequest-v1": "shape",
    # aiokafka declares CurrentLeaderEpoch an Int64; the spec (and Kafka) has int32.
    "aiokafka-ListOffsetsRequest-v4": "aiokafka bug",
    "aiokafka-ListOffsetsRequest-v5": "aiokafka bug",
    # kafka-python decodes authorized-operations bit fields into sets.
    "kafka-DescribeGroupsResponse-v3": "shape",
    "kafka-MetadataResponse-v8": "shape",
}

with warnings.catch_warnings():
    # kafka-python loads its JSON schemas with deprecated importlib.resources calls.
    warnings.simplefilter("ignore", DeprecationWarning)
    THEIRS = [t for t in _their_classes() if t[0] not in KNOWN_DIFFERENCES]


def test_coverage() -> None:
    ids = {i for i, _, _ in THEIRS}
    # Spot-check the versions the Python clients actually send.
    for pkg in ("aiokafka", "kafka"):
        for name in (
            "ApiVersionsRequest-v0",
            "ApiVersionsRequest-v1",
            "ApiVersionsRequest-v2",
            "MetadataRequest-v0",
            "MetadataRequest-v1",
            "MetadataResponse-v0",
            "MetadataResponse-v1",
            "ProduceRequest-v0",
            "ProduceRequest-v2",
            "ProduceResponse-v2",
            "FetchRequest-v0",
            "FetchRequest-v3",
            "FetchResponse-v3",
            "ListOffsetsRequest-v0",
            "ListOffsetsResponse-v0",
            "ListOffsetsRequest-v1",
            "OffsetCommitRequest-v2",
            "OffsetCommitResponse-v2",
            "OffsetFetchRequest-v1",
            "OffsetFetchResponse-v1",
            "FindCoordinatorRequest-v0",
            "FindCoordinatorResponse-v0",
            "JoinGroupRequest-v0",
            "JoinGroupResponse-v0",
            "SyncGroupRequest-v0",
            "SyncGroupResponse-v0",
            "HeartbeatRequest-v0",
            "HeartbeatResponse-v0",
            "InitProducerIdRequest-v0",
            "InitProducerIdResponse-v0",
            "AddPartitionsToTxnRequest-v0",
            "AddPartitionsToTxnResponse-v0",
            "EndTxnRequest-v0",
            "EndTxnResponse-v0",
            "TxnOffsetCommitRequest-v0",
            "TxnOffsetCommitResponse-v0",
        ):
            assert f"{pkg}-{name}" in ids, f"{pkg}-{name}"
    assert len(THEIRS) == EXPECTED


def _is_schema(t: Any) -> bool:
    return hasattr(t, "names") and hasattr(t, "fields")


def _to_theirs(
    value: Any, f: FieldSpec | None, fields: list[FieldSpec], spec: MessageSpec, their: Any, v: int
) -> Any:
    """Our value as their structs hold it: nested tuples in field order, lists for arrays."""
    if _is_schema(their):
        ours = present(fields, v)
        assert len(ours) == len(their.fields), f"{[x.name for x in ours]} vs {list(their.names)}"
        return tuple(
            _to_theirs(
                getattr(value, snake_case(sf.name)),
                sf,
                struct_fields(spec, sf) if sf.is_struct else [],
                spec,
                tf,
                v,
            )
            for sf, tf in zip(ours, their.fields, strict=True)
        )
    if hasattr(their, "array_of"):
        assert f is not None and f.is_array
        if value is None:
            return None
        elem = their.array_of
        if f.is_struct and not _is_schema(elem):
            # they flatten a one-field struct into its single primitive
            (only,) = present(fields, v)
            return [getattr(x, snake_case(only.name)) for x in value]
        return [_to_theirs(x, None, fields, spec, elem, v) if f.is_struct else x for x in value]
    return value


def _decoded_as_tuple(obj: Any) -> tuple[Any, ...]:
    return tuple(obj.__dict__[name] for name in obj.SCHEMA.names)


@pytest.mark.parametrize(("theirs", "target"), [pytest.param(c, t, id=i) for i, c, t in THEIRS])
@settings(max_examples=10)
@given(data=st.data())
def test_cross_check(theirs: type[Any], target: Target, data: st.DataObject) -> None:
    spec = load_specs()[target.cls.NAME]
    value: Message = data.draw(message_strategy(target.cls, target.version))
    if target.cls.NAME == "ApiVersionsResponse":
        # kafka-python reads any error response as v0, the version a broker answers an
        # unsupported ApiVersions request with (KIP-511).
        value.error_code = 0  # type: ignore[attr-defined]
    expected = _to_theirs(value, None, spec.fields, spec, theirs.SCHEMA, target.version)
    wire = value.encode(target.version)
    # we encode, they decode (and consume every byte)
    buf = io.BytesIO(wire)
    decoded = theirs.decode(buf)
    assert buf.tell() == len(wire)
    assert _decoded_as_tuple(decoded) == expected
    # they encode the same values, byte for byte, and we decode it
    their_wire = theirs(*expected).encode()
    assert their_wire == wire
    assert target.cls.decode(their_wire, target.version) == value


# aiokafka 0.14 and kafka-python 3.0.12, non-flexible versions we serve, minus KNOWN_DIFFERENCES.
EXPECTED = 432
